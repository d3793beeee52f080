"""Oxidized variants, for real: the launcher built by cargo from crates.io's
python-oxidized-importer (cached once per interpreter: `make setup` builds it), packing with the
crate, five variants of a small package written here, strace, the real PyOxidizer's error paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.conftest import assert_one_line_error, write_tree

pytestmark = pytest.mark.slow

OXIDIZED_VARIANTS = ["traditional", "no-site", "oxidized", "filesystem", "in-memory"]  # pyoxidizer.bzl's
VARIANTS = OXIDIZED_VARIANTS + ["frozen"]  # what importprof builds on 3.8-3.11

APP = {
    "tinyapp/__init__.py": "from . import core\n",
    "fastpkg/__init__.py": "",
    "fastpkg/fast.py": "import textwrap\nWIDTH = len(textwrap.fill('x ' * 10, 8).splitlines())\n",
    "tinyapp/core.py": textwrap.dedent(
        """
        import json, decimal, fractions

        def run():
            return json.dumps({"x": str(decimal.Decimal("1.5") * 2), "f": str(fractions.Fraction(3, 4))})
        """
    ),
    # reads __file__ while importing: cannot live in memory, must be listed, still works
    "tinyapp/data.py": "import os\nHERE = os.path.dirname(__file__)\nNAME = os.path.basename(HERE)\n",
    # a namespace package (no __init__.py)
    "nsp/sub.py": "VALUE = 42\n",
    "main.py": textwrap.dedent(
        """
        import sys
        import tinyapp, tinyapp.data, nsp.sub, fastpkg.fast
        print(tinyapp.core.run(), tinyapp.data.NAME, nsp.sub.VALUE, fastpkg.fast.WIDTH, sys.argv[1:])
        """
    ),
}


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("app"), APP)


@pytest.fixture(scope="module")
def built(app, cli, real_python, tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "tinyapp-build"
    res = cli("build", "--python", real_python, "-o", str(out), "--format", "json", str(app / "main.py"), "arg1")
    assert res.returncode == 0, res.stderr
    return out, res.json()


def _variant(out: Path, name: str) -> dict:
    return json.loads((out / name / "variant.json").read_text())


def _run(v: dict, *extra, argv=None, cwd=None):
    env = dict(os.environ)
    env.update(v.get("env") or {})
    return subprocess.run(argv or v["argv"], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_build_writes_six_variants_with_exact_argv(built, real_python):
    out, report = built
    assert report["schema"] == "importprof.build/1"
    assert [v["variant"] for v in report["variants"]] == VARIANTS
    for name in VARIANTS:
        v = _variant(out, name)
        assert isinstance(v["argv"], list) and v["argv"][-1] == "arg1"
        assert os.access(v["argv"][0], os.X_OK)
    assert _variant(out, "traditional")["argv"][:1] == [real_python] or Path(_variant(out, "traditional")["argv"][0]).resolve() == Path(real_python).resolve()
    assert "-S" in _variant(out, "no-site")["argv"]
    assert _variant(out, "in-memory")["argv"][0] == str(out / "in-memory" / "importprof-launcher")
    assert (out / "in-memory" / "packed-resources").stat().st_size > 100_000  # bytecode inside
    assert (out / "filesystem" / "lib" / "fastpkg" / "fast.pyc").exists()
    assert not (out / "oxidized" / "packed-resources").exists()
    assert _variant(out, "frozen")["argv"][:2] == [str(out / "frozen" / "importprof-frozen"), "-S"]
    frozen = report["frozen"]
    assert {"tinyapp.core", "fastpkg.fast", "json"} <= set(frozen["modules"])
    why = {u["name"]: u["reason"] for u in frozen["not_frozen"]}
    assert "__file__" in why["tinyapp.data"] and "namespace package" in why["nsp"]
    assert "tinyapp" in frozen["packages"]  # with its real __path__: tinyapp.data imports from its file


def test_every_variant_prints_the_same(built):
    out, report = built
    outputs = {}
    for name in VARIANTS:
        proc = _run(_variant(out, name), cwd="/")
        assert proc.returncode == 0, (name, proc.stderr)
        outputs[name] = proc.stdout
    assert len(set(outputs.values())) == 1, outputs
    assert '"x": "3.0"' in outputs["in-memory"] and "tinyapp 42 3 ['arg1']" in outputs["in-memory"]
    assert len({v["output_sha256"] for v in report["variants"]}) == 1


def test_in_memory_imports_from_memory(built, app):
    out, _ = built
    v = _variant(out, "in-memory")
    code = "import fastpkg.fast as c, sys; print(type(c.__loader__).__name__, getattr(c, '__file__', None), 'site' in sys.modules)"
    proc = _run(v, argv=[v["argv"][0], "-c", code], cwd=str(app))
    assert proc.returncode == 0, proc.stderr
    # served from memory, with its real file as __file__ (opens relative to it still work)
    assert proc.stdout.split() == ["OxidizedFinder", str(app / "fastpkg" / "fast.py"), "False"]
    # __cached__ is the path python caches its bytecode in, given by the pack (no
    # cache_from_source per import), as the traditional variant has it
    cached = "import fastpkg.fast as c; print(c.__cached__)"
    proc = _run(v, argv=[v["argv"][0], "-c", cached], cwd=str(app))
    trad = _variant(out, "traditional")
    ref = _run(trad, argv=[trad["argv"][0], "-c", cached], cwd=str(app))
    assert proc.returncode == 0 and proc.stdout == ref.stdout and "__pycache__" in proc.stdout, (proc.stdout, ref.stdout)
    # its path hook is installed (as PyOxidizer does): pkgutil can list an in-memory package
    proc = _run(v, argv=[v["argv"][0], "-c", "import pkgutil, fastpkg; print([m.name for m in pkgutil.iter_modules(fastpkg.__path__)])"], cwd=str(app))
    assert proc.returncode == 0 and proc.stdout.strip() == "['fast']", proc.stderr
    # the filesystem variant: the same finder, over files
    f = _variant(out, "filesystem")
    proc = _run(f, argv=[f["argv"][0], "-c", code], cwd=str(app))
    assert proc.stdout.split()[0] == "OxidizedFinder"


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_in_memory_opens_no_file_of_the_packed_module(built, tmp_path):
    out, _ = built

    def opened(name):
        v = _variant(out, name)
        log = tmp_path / f"{name}.strace"
        env = dict(os.environ)
        env.update(v.get("env") or {})
        proc = subprocess.run(["strace", "-f", "-e", "trace=%file", "-o", str(log), *v["argv"]], capture_output=True, text=True, env=env, timeout=120)
        if proc.returncode != 0 and "ptrace" in proc.stderr:
            pytest.skip("ptrace not permitted here")
        assert proc.returncode == 0, proc.stderr
        return [ln for ln in log.read_text().splitlines() if "fastpkg" in ln and ("fast.py" in ln or "fast.cpython" in ln or "fast.pyc" in ln)]

    assert opened("traditional"), "control: the traditional variant must open fast.py/.pyc"
    assert opened("in-memory") == []


def test_pack_lists_what_it_cannot_pack(built):
    _, report = built
    unpacked = {u["name"]: u["reason"] for u in report["pack"]["unpacked"]}
    assert "namespace" in unpacked["nsp"] and unpacked["__main__"].startswith("__main__")
    packed = {m["name"]: m["kind"] for m in report["pack"]["modules"]}
    # a module reading __file__ at import is packed: its __file__ is its real file
    assert packed["tinyapp.data"] == packed["tinyapp"] == "source"
    assert packed["tinyapp.core"] == "source" and packed["nsp.sub"] == "source"
    # the unit is the top-level package: json.tool was never imported, it is packed all the same
    assert packed["json.tool"] == "source"
    units = {u["name"]: u["kind"] for u in report["pack"]["units"]}
    assert units["tinyapp"] == "package" and units["json"] == "stdlib"
    assert packed["fastpkg"] == "source" and packed["fastpkg.fast"] == "source"
    assert packed["json.decoder"] == "source"
    assert "extension" in packed.values()  # _decimal & co stay files, still packed
    sets = {s["name"]: s for s in report["pack"]["sets"]}
    assert sets["in-memory"]["resources_bytes"] > sets["filesystem"]["resources_bytes"]
    assert sets["filesystem"]["files"] > sets["in-memory"]["files"]


def test_pack_command_writes_both_sets(cli, real_python, tmp_path):
    out = tmp_path / "packed"
    res = cli("pack", "--python", real_python, "-o", str(out), "-c", "import csv")
    assert res.returncode == 0, res.stderr
    assert "in-memory" in res.stdout and "filesystem" in res.stdout
    doc = json.loads((out / "pack.json").read_text())
    assert doc["schema"] == "importprof.pack/1" and "machine" in doc
    from profiler.inputs.schema_problems import first_problem

    assert first_problem(doc, "pack") is None  # profiler/schemas/pack.json describes it
    names = {m["name"] for m in doc["modules"]}
    assert {"csv", "_csv"} <= names
    # what the recording hook imports itself (json, to write its records) is not the target's
    plain = subprocess.run([real_python, "-c", "import csv, sys; print('json' in sys.modules)"],
                           capture_output=True, text=True, check=True)
    assert ("json" in names) == (plain.stdout.strip() == "True")
    assert "_importprof_launch" not in {u["name"] for u in doc["unpacked"]}
    for s in ("in-memory", "filesystem"):
        assert (out / s / "packed-resources").stat().st_size > 0


def test_pack_without_output_is_a_usage_error(cli):
    res = cli("pack", "-c", "pass")
    assert_one_line_error(res, 2, "-o")


def test_missing_script_and_a_file_as_build_dir_are_usage_errors(cli, real_python, tmp_path):
    missing = str(tmp_path / "missing.py")
    assert_one_line_error(cli("pack", "-o", str(tmp_path / "p"), missing), 2, "no such script")
    assert_one_line_error(cli("compare", "--python", real_python, "--build-dir", str(tmp_path / "b"), missing), 2, "no such script")
    afile = tmp_path / "afile"
    afile.write_text("")
    assert_one_line_error(cli("compare", "--python", real_python, "--workload", "hello", "--build-dir", str(afile)), 2, "--build-dir")
    assert not (tmp_path / "p").exists()


def test_build_reports_a_variant_that_differs(cli, real_python, tmp_path):
    # prints its loader: differs between traditional and in-memory, which build must catch
    script = tmp_path / "loader.py"
    (tmp_path / "mod1.py").write_text("X = 1\n")
    script.write_text("import mod1\nprint(type(mod1.__loader__).__name__)\n")
    res = cli("build", "--python", real_python, "-o", str(tmp_path / "b"), "--format", "json",
              "--variant", "no-site,in-memory", str(script))
    assert res.returncode == 0, res.stderr  # one variant differs: a failed row, the others stand
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert not v["no-site"]["failed"] and v["in-memory"]["failed"]
    assert v["in-memory"]["error"] == "stdout differs at line 1: traditional 'SourceFileLoader', in-memory 'OxidizedFinder'"
    assert "run it to see" in v["in-memory"]["hint"]
    # every variant but traditional differs (no site: sys.flags.no_site is 1 in each): exit 3
    script.write_text("import sys\nprint(sys.flags.no_site)\n")
    res = cli("build", "--python", real_python, "-o", str(tmp_path / "b2"), "--variant", "no-site,oxidized", str(script))
    assert_one_line_error(res, 3, "every variant but traditional failed")


def test_a_program_rewriting_its_own_module_fails_by_design_and_says_which(cli, real_python, tmp_path):
    (tmp_path / "mod.py").write_text("X = 1\n")
    (tmp_path / "rewrite.py").write_text(
        "import importlib, pathlib\nimport mod\np = pathlib.Path(mod.__file__)\norig = p.read_text()\n"
        "p.write_text('X = 2\\n')\nimportlib.reload(mod)\np.write_text(orig)\nprint(mod.X)\n")
    res = cli("build", "--python", real_python, "-o", str(tmp_path / "b"), "--variant", "no-site,in-memory,frozen",
              "--format", "json", str(tmp_path / "rewrite.py"))
    assert res.returncode == 0, res  # no-site behaves: the others are failed rows, not a failed build
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert not v["no-site"]["failed"]
    for name in ("in-memory", "frozen"):
        assert v[name]["error"] == (f"stdout differs at line 1: traditional '2', {name} '1'; by design: the program "
                                    f"rewrote the file of packed module mod ({tmp_path / 'mod.py'}) while it ran; "
                                    "a packed build runs the code packed at build time")


def test_compare_times_a_program_whose_exit_code_is_its_behaviour(cli, real_python, tmp_path):
    # black --check exits 1 when a file would change: the same exit in every variant is the
    # program's behaviour, timed and traced as any run (strace's run raised on it before)
    (tmp_path / "exits.py").write_text("import sys\nprint('checked')\nsys.exit(1)\n")
    res = cli("compare", "--python", real_python, "--variant", "no-site", "--runs", "1", "--warmup", "0",
              "--build-dir", str(tmp_path / "b"), "--format", "json", str(tmp_path / "exits.py"))
    assert res.returncode == 0, res
    doc = res.json()
    assert [(r["variant"], r["failed"], r["exit_codes"]) for r in doc["results"]] == [("traditional", False, [1]), ("no-site", False, [1])]
    if shutil.which("strace"):
        assert [s["variant"] for s in doc.get("syscalls", [])] in (["traditional", "no-site"], [])


def test_an_in_memory_row_that_loaded_most_modules_from_disk_says_so(cli, real_python, tmp_path):
    # 120 modules written at run time into a folder removed at exit: nothing to pack, so they
    # import through the fallback path finder, and the row must not pass for in-memory loading
    (tmp_path / "gen.py").write_text(
        "import os, shutil, sys, tempfile\nd = tempfile.mkdtemp()\nfor i in range(120):\n"
        "    open(os.path.join(d, f'gen_{i}.py'), 'w').write(f'N = {i}\\n')\n"
        "sys.path.insert(0, d)\nprint(sum(__import__(f'gen_{i}').N for i in range(120)))\nshutil.rmtree(d)\n")
    res = cli("compare", "--python", real_python, "--variant", "in-memory", "--runs", "1", "--warmup", "0", "--syscalls", "off",
              "--build-dir", str(tmp_path / "b"), "--format", "json", str(tmp_path / "gen.py"))
    assert res.returncode == 0, res
    doc = res.json()
    row = next(r for r in doc["rows"] if r["variant"] == "in-memory")
    assert row["fallback_modules"] >= 120 > row["packed_modules"] > 0  # the stdlib it uses did come from the pack
    assert any(w.startswith(f"variant in-memory: {row['fallback_modules']} of ") and "(e.g. gen_0, " in w
               and "mostly measures the ordinary importer" in w for w in doc["warnings"]), doc["warnings"]


def test_file_arithmetic_from_an_extension_module_outside_its_package_fails_by_design(cli, real_python, tmp_path):
    # an extension module is loaded from its copy beside the launcher, so its __file__ is that
    # copy: a file reached from it outside its package (../share/x.txt) is not there
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed (make setup installs it): the test compiles a small extension module")
    facts = subprocess.run([real_python, "-c", "import sysconfig; print(sysconfig.get_paths()['include']); "
                            "print(sysconfig.get_config_var('EXT_SUFFIX'))"], capture_output=True, text=True, check=True)
    include, suffix = facts.stdout.split()
    (tmp_path / "extpkg").mkdir()
    (tmp_path / "extpkg" / "__init__.py").write_text("")
    (tmp_path / "share").mkdir()
    (tmp_path / "share" / "x.txt").write_text("shared\n")
    (tmp_path / "ext.c").write_text(
        "#include <Python.h>\nstatic struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"extpkg._ext\", NULL, -1, NULL};\n"
        "PyMODINIT_FUNC PyInit__ext(void) { return PyModule_Create(&def); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", f"-I{include}", str(tmp_path / "ext.c"), "-o", str(tmp_path / "extpkg" / f"_ext{suffix}")],
                   check=True, timeout=120)
    (tmp_path / "main.py").write_text("import os\nimport extpkg._ext as e\n"
                                      "print(open(os.path.join(os.path.dirname(e.__file__), '..', 'share', 'x.txt')).read().strip())\n")
    res = cli("build", "--python", real_python, "-o", str(tmp_path / "b"), "--variant", "no-site,in-memory", "--format", "json",
              str(tmp_path / "main.py"))
    assert res.returncode == 0, res
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert not v["no-site"]["failed"]
    lib = tmp_path / "b" / "in-memory" / "lib"
    assert v["in-memory"]["error"].endswith(
        f"; by design: extension module extpkg._ext is loaded from its copy beside the launcher ({lib}/...), and "
        f"{lib}/extpkg/../share/x.txt was reached from its __file__ outside the package data copied there")


def test_cargo_missing_fails_the_oxidized_variants_only(cli, real_python, tmp_path, app):
    env = {"IMPORTPROF_CACHE": str(tmp_path / "cache"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    res = cli("build", "--python", real_python, "-o", str(tmp_path / "b"), "--format", "json", str(app / "main.py"), env=env)
    assert res.returncode == 0, res.stderr
    v = {x["variant"]: x for x in res.json()["variants"]}
    for name in ("oxidized", "filesystem", "in-memory"):
        assert v[name]["failed"] and "cargo not found" in v[name]["error"] and "https://rustup.rs" in v[name]["hint"]
    assert not v["no-site"]["failed"] and not v["frozen"]["failed"]  # still built and checked


def test_pyoxidizer_without_distribution_says_what_to_download(cli, app, tmp_path):
    res = cli("build", "--pyoxidizer", "-o", str(tmp_path / "p"), str(app / "main.py"))
    line = assert_one_line_error(res, 3, "python-build-standalone", "--distribution")
    assert "download" in line


def test_pyoxidizer_with_a_bad_archive_fails_with_exit_3(cli, app, tmp_path):
    bogus = tmp_path / "cpython-3.10-bogus.tar.zst"
    bogus.write_bytes(b"not a zstd archive")
    res = cli("build", "--pyoxidizer", "--distribution", str(bogus), "-o", str(tmp_path / "p"), str(app / "main.py"))
    assert res.returncode == 3
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("importprof: error:")]
    assert len(errors) == 1 and "pyoxidizer build failed" in errors[0]
    assert "distribution" in res.stderr  # PyOxidizer got as far as reading the local archive


def test_pyoxidizer_config_resolves(tmp_path):
    import subprocess

    from profiler.capture.pyoxidizer import config_path, find_pyoxidizer

    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(config_path(), project / "pyoxidizer.bzl")
    proc = subprocess.run([find_pyoxidizer(), "list-targets", "--system-rust", str(project)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-800:]
    targets = [ln.strip().lstrip("*") for ln in proc.stdout.splitlines() if ln.strip() and not ln.startswith("resolving")]
    assert targets == ["dist", "exe", "install"]
    text = (project / "pyoxidizer.bzl").read_text()
    for v in OXIDIZED_VARIANTS:
        assert f'"{v}"' in text


def test_compare_hello_exports_hyperfine_shaped_json(cli, real_python, tmp_path):
    export = tmp_path / "cmp.json"
    res = cli("compare", "--python", real_python, "--workload", "hello", "--runs", "2", "--warmup", "0",
              "--build-dir", str(tmp_path / "b"), "--export-json", str(export),
              "--syscalls", "on" if shutil.which("strace") else "off",
              "--export-markdown", str(tmp_path / "cmp.md"))
    assert res.returncode == 0, res.stderr
    for col in ("CPU (user+sys)", "% of traditional", "vs no-site", "peak RSS"):
        assert col in res.stdout
    doc = json.loads(export.read_text())
    assert doc["schema"] == "importprof.compare/1" and doc["machine"]
    assert [r["variant"] for r in doc["results"]] == VARIANTS
    for r in doc["results"]:
        for k in ("command", "mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes", "memory_usage_byte"):
            assert k in r
        assert len(r["times"]) == 2 and r["exit_codes"] == [0, 0]
    assert "| `traditional`" in (tmp_path / "cmp.md").read_text()
    assert doc["reference"] == "traditional" and doc["relative"][0]["ratio"] == pytest.approx(1.0)
    rows = {r["variant"]: r for r in doc["rows"]}
    assert rows["traditional"]["pct_of_traditional"] == pytest.approx(100.0)
    assert rows["no-site"]["speedup_vs_no_site"] == pytest.approx(1.0)
    if shutil.which("strace"):  # --syscalls on: counted, or the command failed
        assert {s["variant"] for s in doc["syscalls"]} == set(VARIANTS)
        assert all(s["total"] > 0 for s in doc["syscalls"])


def test_compare_unknown_workload_is_a_usage_error(cli):
    res = cli("compare", "--workload", "nope")
    assert_one_line_error(res, 2, "unknown workload")


def test_pack_all_stdlib_and_a_module_target(cli, real_python, tmp_path):
    out = tmp_path / "stdlib"
    res = cli("pack", "--python", real_python, "--all-stdlib", "-o", str(out), "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = res.json()
    names = {m["name"] for m in doc["modules"]}
    assert len(names) > 450 and {"asyncio", "email.mime.text", "xml.etree.ElementTree", "_ssl"} <= names
    # lib2to3.pygram reads its grammar beside __file__: packed, its __file__ is its real file,
    # and the grammar is package data of lib2to3
    assert {"lib2to3", "lib2to3.pygram"} <= names
    assert all(s["package_data"] > 0 for s in doc["sets"])
    # -m MODULE builds too, each variant printing the same
    b = cli("build", "--python", real_python, "-o", str(tmp_path / "plat"), "--format", "json", "-m", "platform")
    assert b.returncode == 0, b.stderr
    argv = {v["variant"]: v["argv"] for v in b.json()["variants"]}
    assert argv["in-memory"][1:] == ["-m", "platform"] and argv["no-site"][1:] == ["-S", "-m", "platform"]


def test_compare_stacks_lazy_on_in_memory_when_asked(cli, real_python, app, tmp_path):
    """`compare --variant lazy,lazy+in-memory` puts the lazy fix and both fixes stacked
    beside PyOxidizer's: each prints what traditional prints (build checks it), and the stacked
    variant opens what the in-memory one opens, not what the lazy one does."""
    res = cli("compare", "--python", real_python, "--variant", "in-memory,lazy,lazy+in-memory", "--runs", "2",
              "--warmup", "0", "--build-dir", tmp_path / "b", "--format", "json", app / "main.py", "arg1")
    assert res.returncode == 0, res
    doc = res.json()
    assert [r["variant"] for r in doc["results"]] == ["traditional", "in-memory", "lazy", "lazy+in-memory"]
    assert not any(r["failed"] for r in doc["results"])
    stacked = json.loads((tmp_path / "b" / "lazy+in-memory" / "variant.json").read_text())
    assert "launch.py" in " ".join(stacked["argv"]) and stacked["argv"][0].endswith("importprof-launcher")
    counts = {s["variant"]: s["total"] for s in doc["syscalls"]}
    assert counts["lazy+in-memory"] < counts["lazy"]
    # not built unless named
    plain = cli("compare", "--python", real_python, "--runs", "1", "--warmup", "0", "--syscalls", "off",
                "--build-dir", tmp_path / "c", "--format", "json", app / "main.py", "arg1")
    assert not {"lazy", "lazy+in-memory"} & {r["variant"] for r in plain.json()["results"]}, plain
