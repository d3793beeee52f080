"""importprof hook `lazy_probe`: at exit, the modules the program loaded (name, file) and, on
Python 3.15+ (PEP 810), the imports still lazy (`sys.lazy_modules`: bound but never reified).
Standard library only; runs inside the measured interpreter and never imports the rest of the
`profiler` package. Options: "lazy_probe_path" (where the JSON record goes)."""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
finally:
    pass

_OPTIONS = {}


def _dump():
    launch = _importprof["_importprof_launch"]  # (no `import json` at exit: see launch.dumps)
    modules = []
    for name, mod in list(sys.modules.items()):
        if name.startswith("_importprof"):
            continue
        modules.append([name, launch.module_file(mod)])  # read without trusting the object
    lazy = getattr(sys, "lazy_modules", None)

    doc = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "modules": modules,
        "unreified": sorted(n for n in lazy if isinstance(n, str)) if lazy is not None else None,
    }
    with open(_OPTIONS["lazy_probe_path"], "w", encoding="utf-8") as fh:
        fh.write(launch.dumps(doc))


def install(options):
    _OPTIONS.update(options)
    if options.get("lazy_probe_path"):
        _importprof["_importprof_launch"].at_exit(_dump)
