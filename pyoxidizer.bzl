# importprof's variants for the real PyOxidizer (0.24; `pip install pyoxidizer==0.24.0`).
#
# `importprof build --pyoxidizer --distribution ARCHIVE SCRIPT` drives this file, once per variant:
#   pyoxidizer build --system-rust --release --path DIR \
#       --var variant in-memory --var name app --var script /abs/app.py \
#       --var distribution /abs/cpython-3.10...tar.zst --var distribution_sha256 HEX
# PyOxidizer 0.24 embeds python-build-standalone CPython 3.8-3.10 only, and downloads that
# archive from the internet unless `distribution` names a local copy (importprof always passes one).
#
# Variants (the names importprof uses everywhere):
#   traditional  standard importers, files in lib/, `site` imported (as `python` runs)
#   no-site      standard importers, files in lib/, no `site` (python -S)
#   oxidized     standard path importer only, files in lib/, no site
#   filesystem   OxidizedFinder over filesystem-relative resources (lib/), no site
#   in-memory    OxidizedFinder over resources embedded in the executable, no site
#                (extension modules fall back to filesystem-relative lib/)
# Note: traditional/no-site here are PyOxidizer executables configured like python; importprof's
# own `build` uses the interpreter itself for those two.

VARIANTS = ["traditional", "no-site", "oxidized", "filesystem", "in-memory"]

VARIANT = VARS.get("variant") or "in-memory"
NAME = VARS.get("name") or "app"
SCRIPT = VARS.get("script")
MODULE = VARS.get("module")
APP_ROOT = VARS.get("app_root")
PACKAGES = [p for p in (VARS.get("packages") or "").split(",") if p]
DISTRIBUTION = VARS.get("distribution")
DISTRIBUTION_SHA256 = VARS.get("distribution_sha256")

def make_dist():
    if DISTRIBUTION:
        return PythonDistribution(
            sha256 = DISTRIBUTION_SHA256,
            local_path = DISTRIBUTION,
            flavor = "standalone",
        )

    # Downloads from the internet: importprof never takes this path.
    return default_python_distribution(flavor = "standalone")

def make_exe(dist):
    if VARIANT not in VARIANTS:
        fail("unknown variant %s (one of: %s)" % (VARIANT, ", ".join(VARIANTS)))

    policy = dist.make_python_packaging_policy()
    if VARIANT == "in-memory":
        policy.resources_location = "in-memory"
        policy.resources_location_fallback = "filesystem-relative:lib"
    else:
        policy.resources_location = "filesystem-relative:lib"

    config = dist.make_python_interpreter_config()
    if VARIANT in ("filesystem", "in-memory"):
        config.oxidized_importer = True
        config.filesystem_importer = False
    else:
        config.oxidized_importer = False
        config.filesystem_importer = True
        config.module_search_paths = ["$ORIGIN/lib"]
    config.site_import = VARIANT == "traditional"

    if SCRIPT:
        config.run_filename = SCRIPT
    elif MODULE:
        config.run_module = MODULE

    exe = dist.to_python_executable(
        name = NAME,
        packaging_policy = policy,
        config = config,
    )
    if APP_ROOT and PACKAGES:
        exe.add_python_resources(exe.read_package_root(APP_ROOT, PACKAGES))
    return exe

def make_install(exe):
    files = FileManifest()
    files.add_python_resource(".", exe)
    return files

register_target("dist", make_dist)
register_target("exe", make_exe, depends = ["dist"])
register_target("install", make_install, depends = ["exe"], default = True)

resolve_targets()
