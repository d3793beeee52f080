"""Fast unit tests of the pure parts of the oxidized variants: what to pack, PyOxidizer's table
from a real compare export (tests/fixtures/oxidized/), rendering, workloads, config lookup."""

from __future__ import annotations

import json

import pytest

from profiler.analysis.compare import compare_rows, syscall_count
from profiler.analysis.frozen import plan_frozen_units
from profiler.analysis.packing import module_of, needs_file_at_import, plan_pack
from profiler.model.measurement import TimingResult
from profiler.model.packing import LoadedModule, Unit


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import os\nHERE = os.path.dirname(__file__)\n", True),
        ("def f():\n    return __file__\n", False),
        ("class C:\n    where = __file__\n", True),
        ("try:\n    x = __file__\nexcept NameError:\n    x = None\n", False),  # importlib's guard
        ("try:\n    x = __file__\nexcept KeyError:\n    pass\n", True),
        ("f = lambda: __file__\n", False),
        ("def f(p=__file__):\n    pass\n", True),  # defaults run at import
        ("if True:\n    print(__cached__)\n", True),
        ("def broken(:\n    __file__\n", True),  # mentions it, does not parse: leave it to python
        ("import os\nD = os.path.dirname(__cached__)\n", True),
        ("x = '__file__'\n", False),
    ],
)
def test_needs_file_at_import(source, expected):
    assert needs_file_at_import(source) is expected


def _rec(name, origin=None, loader="SourceFileLoader", is_package=False, alias_of=None):
    return LoadedModule(name, origin, origin, loader, is_package, alias_of)


SP = "/v/lib/python3.11/site-packages"
# the files of a real layout (black 25.1's RECORD, shortened): a mypyc package, its data, a
# top-level extension module, a plain module, metadata; a namespace package of two distributions
UNITS = [
    Unit("black", "distribution", SP, (
        "30fcd23745efe32ce681__mypyc.cpython-311-x86_64-linux-gnu.so",
        "_black_version.py",
        "black-25.1.0.dist-info/METADATA", "black-25.1.0.dist-info/entry_points.txt", "black-25.1.0.dist-info/RECORD",
        "black/__init__.cpython-311-x86_64-linux-gnu.so", "black/__init__.py", "black/__main__.py",
        "black/mode.cpython-311-x86_64-linux-gnu.so", "black/mode.py", "black/py.typed",
        "blib2to3/Grammar.txt", "blib2to3/__init__.py", "blib2to3/pgen2/__init__.py", "blib2to3/pgen2/driver.py",
        "blib2to3/pgen2/old.pyc", "blib2to3/pgen2/driver.pyc",
    ), "black-25.1.0.dist-info", "25.1.0"),
    Unit("sphinxcontrib_jsmath", "distribution", SP, (
        "sphinxcontrib/jsmath/__init__.py", "sphinxcontrib/jsmath/locales/de/LC_MESSAGES/x.mo",
        "sphinxcontrib_jsmath-1.0.1.dist-info/METADATA",
    ), "sphinxcontrib_jsmath-1.0.1.dist-info", "1.0.1"),
    Unit("mypy_extensions", "distribution", SP, ("mypy_extensions.py", "mypy_extensions-1.2.0.dist-info/METADATA"),
         "mypy_extensions-1.2.0.dist-info", "1.2.0"),
    Unit("json", "stdlib", "/py/lib/python3.11", ("json/__init__.py", "json/decoder.py", "json/tool.py")),
]


def test_plan_pack_takes_whole_units_and_classifies_every_file():
    records = [
        _rec("sys", "built-in", "BuiltinImporter"),
        _rec("os", "frozen", "FrozenImporter"),
        _rec("__main__", "/v/bin/black"),
        _rec("black", f"{SP}/black/__init__.cpython-311-x86_64-linux-gnu.so", "ExtensionFileLoader", is_package=True),
        _rec("json", "/py/lib/python3.11/json/__init__.py", is_package=True),
        _rec("json.tool", "/py/lib/python3.11/json/tool.py", "FrozenImporter"),  # as 3.11 freezes importlib.util
        _rec("os.path", None, None, alias_of="posixpath"),
        _rec("typing.io", None, None),  # typing puts it in sys.modules itself (a class)
        _rec("elsewhere", "/src/elsewhere.py"),
    ]
    plan = plan_pack(records, UNITS)
    kinds = {m.name: m.kind for m in plan.modules}
    # json.decoder was not imported by the recording run: packed all the same (the unit is packed);
    # json.tool, of a packed unit, came frozen: the interpreter serves it, not the pack
    assert {"json", "json.decoder", "_black_version", "black.__main__"} <= set(kinds) and "json.tool" not in kinds
    # an extension module shadows the source beside it, as in CPython's path finder
    assert kinds["black"] == kinds["black.mode"] == kinds["30fcd23745efe32ce681__mypyc"] == "extension"
    by_name = {m.name: m for m in plan.modules}
    assert by_name["black"].is_package and by_name["blib2to3.pgen2"].is_package
    # a .pyc beside its source is not a module of its own; a .pyc alone is
    assert kinds["blib2to3.pgen2.driver"] == "source" and kinds["blib2to3.pgen2.old"] == "bytecode"
    assert by_name["json.decoder"].path == "/py/lib/python3.11/json/decoder.py"
    data = {(d.package, d.name) for d in plan.data}
    assert data == {("black", "py.typed"), ("blib2to3", "Grammar.txt"), ("sphinxcontrib.jsmath", "locales/de/LC_MESSAGES/x.mo")}
    reasons = {u.name: u.reason for u in plan.unpacked}
    # metadata stays where it is installed (OxidizedDistribution has no `files`): listed, with why
    assert {n for n in reasons if n.endswith("(metadata)")} == {f"{d} (metadata)" for d in ("black", "sphinxcontrib_jsmath", "mypy_extensions")}
    assert "OxidizedDistribution" in reasons["black (metadata)"]
    assert "namespace package" in reasons["sphinxcontrib"] and "sphinxcontrib.jsmath" in kinds
    assert "outside every packed unit" in reasons["elsewhere"]
    assert "no file" in reasons["typing.io"] and reasons["__main__"].startswith("__main__")
    assert set(plan.served) == {"sys", "os", "os.path", "json.tool"}


@pytest.mark.parametrize("rel, expected", [
    ("pkg/__init__.py", ("pkg", "source", True)),
    ("pkg/mod.py", ("pkg.mod", "source", False)),
    ("pkg/_speedups.abi3.so", ("pkg._speedups", "extension", False)),
    ("pkg/__pycache__/mod.cpython-311.pyc", None),
    ("pkg/data-files/x.py", None),  # a folder that is no identifier: data
    ("pkg/py.typed", None),
    ("_sysconfigdata__linux_x86_64-linux-gnu.py", ("_sysconfigdata__linux_x86_64-linux-gnu", "source", False)),
    ("pkg/a.b.py", None),
    ("__init__.py", None),
])
def test_module_of(rel, expected):
    assert module_of(rel) == expected


def test_frozen_share_of_a_pack_plan_leaves_packages_with_data_as_files():
    plan = plan_pack([], UNITS)
    sources = {m.path: "x = 1\n" for m in plan.modules if m.kind == "source"}
    frozen = plan_frozen_units(plan, sources.get)
    names = {m.name for m in frozen.modules}
    assert "json.tool" in names and "_black_version" in names
    why = {u.name: u.reason for u in frozen.not_frozen}
    assert "resource reader" in why["blib2to3"] and "extension module" in why["black.mode"]
    assert "no source" in why["blib2to3.pgen2.old"]


@pytest.fixture(scope="module")
def hello(fixtures):
    return json.loads((fixtures / "oxidized" / "compare_hello.json").read_text())


def test_rows_recomputed_from_a_real_export(hello):
    from profiler.model.compare import SyscallCount

    results = [TimingResult.from_dict(r) for r in hello["results"]]
    counts = [SyscallCount(s["variant"], s["total"], s["errors"]) for s in hello["syscalls"]]
    rows = compare_rows(results, counts)
    assert [r.variant for r in rows] == ["traditional", "no-site", "oxidized", "filesystem", "in-memory"]
    for row, saved in zip(rows, hello["rows"]):
        for key in ("cpu_s", "delta_cpu_s", "pct_of_traditional", "speedup_vs_no_site", "wall_s", "peak_rss_bytes", "syscalls"):
            assert getattr(row, key) == pytest.approx(saved[key]), key
    trad, ns = rows[0], rows[1]
    assert trad.delta_cpu_s == 0 and trad.pct_of_traditional == pytest.approx(100)
    assert ns.speedup_vs_no_site == pytest.approx(1)
    for row, r in zip(rows, results):
        assert row.cpu_s == pytest.approx(r.user + r.system)  # CPU = user + sys, mean of runs


def test_rows_without_cpu_or_references():
    r = TimingResult("x", 0.1, None, 0.1, None, None, 0.1, 0.1, (0.1,), (0,), None, variant="in-memory", key="in-memory")
    (row,) = compare_rows([r])
    assert row.cpu_s is None and row.delta_cpu_s is None and row.speedup_vs_no_site is None


def test_syscall_count_from_trace_filesystem():
    s = syscall_count("in-memory", 291, 57, {"families": [{"name": "open", "count": 37}, {"name": "stat", "count": 41}], "files_opened": 13})
    assert s.families == (("open", 37), ("stat", 41)) and s.files_opened == 13


def test_table_renders_pyoxidizers_columns_plain(hello):
    from profiler.model.compare import CompareReport, SyscallCount
    from profiler.render.console_compare import render_compare_table

    results = tuple(TimingResult.from_dict(r) for r in hello["results"])
    counts = tuple(syscall_count(s["variant"], s["total"], s["errors"], {"families": s["families"], "files_opened": s["files_opened"]}) for s in hello["syscalls"])
    report = CompareReport("hello", hello["target"], hello["python"], hello["python_version"], "/b", results, tuple(compare_rows(results, counts)), counts)
    text = render_compare_table(report, tty=False)
    assert "\x1b[" not in text
    header = next(ln for ln in text.splitlines() if "CPU (user+sys)" in ln)
    for col in ("delta", "% of traditional", "vs no-site (wall)", "wall", "peak RSS", "syscalls"):
        assert col in header
    assert "100.0%" in text and "1.00x" in text and "system calls" in text
    assert isinstance(counts[0], SyscallCount)
    assert report.to_dict()["schema"] == "importprof.compare/1"


def test_import_stdlib_list_is_about_500_and_says_why():
    from profiler.workloads import HERE

    with open(f"{HERE}/import_stdlib.txt") as fh:
        names = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")]
    assert 450 <= len(names) <= 600 and len(set(names)) == len(names)
    for bad in ("antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test"):
        assert bad not in names
    assert not [n for n in names if n.endswith("__main__") or ".test" in n or n.startswith("test.")]
    header = open(f"{HERE}/import_stdlib.txt").read().split("\n\n")[0]
    for why in ("antigravity", "this", "idlelib", "tkinter", "turtle", "test", "__main__", "Windows", "macOS"):
        assert why in header


def test_launcher_project_and_cache_key_resolve(tmp_path, monkeypatch):
    from profiler.capture.cargo import build_key, cache_root, project_dir
    from profiler.model.interpreter import Interpreter

    src = project_dir()
    assert "python-oxidized-importer = { version = \"=0.9.0\"" in open(f"{src}/launcher/Cargo.toml").read()
    interp = Interpreter("/v/bin/python", "python3", "3.11.7", "cpython", "/v", "/base", "/base/lib", "/v/site", "/base/lib", "libpython3.11.so")
    venv_twin = Interpreter("/other/bin/python", "python3", "3.11.7", "cpython", "/other", "/base", "/base/lib", "/o/site", "/base/lib", "libpython3.11.so")
    assert build_key(interp, src) == build_key(venv_twin, src)  # a venv shares its base's launcher
    other = Interpreter("/x", "x", "3.10.1", "cpython", "/x", "/x", "/x/lib", "/x/s", "/x/lib", "libpython3.10.so")
    assert build_key(other, src) != build_key(interp, src)
    monkeypatch.setenv("IMPORTPROF_CACHE", str(tmp_path))
    assert cache_root() == str(tmp_path / "oxidized")


def test_pack_and_build_tables_say_what_was_packed_and_why_a_variant_failed():
    from profiler.model.packing import BuildReport, BuiltVariant, PackReport, ResourceSet, Unpacked
    from profiler.render.console_pack import render_build_table, render_pack_table

    sets = tuple(ResourceSet(n, f"/b/{n}", 543, 48, 9_000_000, 8_000_000, 10_000_000, 54, 7_000_000, package_data=12,
                             package_data_bytes=40_000) for n in ("in-memory", "filesystem"))
    why = "metadata read from its .dist-info folder by the path finder"
    pack = PackReport("black --check f.py", "/v/bin/python", "3.11.7", "/b", sets, (), (
        Unpacked("__main__", "__main__: the target itself runs as python runs it"),
        *(Unpacked(f"{d} (metadata)", why) for d in ("black", "click", "pathspec"))), ("sys",),
        units=(UNITS[0].summary(), UNITS[3].summary()))
    text = render_pack_table(pack, tty=False)
    assert "12 (39.1 KiB)" in text  # package data: files (bytes)
    assert "2 units packed whole (1 distributions, 1 standard library top-levels, 0 source trees)" in text
    assert f"  3 (black (metadata), click (metadata), pathspec (metadata)): {why}" in text  # one line for a shared reason
    variants = (
        BuiltVariant("traditional", "/b/traditional", ("/v/bin/python", "x.py"), packed_modules=0, fallback_modules=180),
        BuiltVariant("in-memory", "/b/in-memory", ("/b/in-memory/importprof-launcher", "x.py"), packed_modules=181, fallback_modules=0),
        BuiltVariant("frozen", "/b/frozen", (), failed=True, error="building the frozen executable failed: no C compiler",
                     hint="install the interpreter's headers and a C compiler"),
    )
    build = BuildReport("x", "x.py", "/v/bin/python", "3.11.7", "/b", None, variants, pack)
    text = render_build_table(build, tty=False)
    assert "181 / 0" in text and "0 / 180" in text
    assert "failed: building the frozen executable failed: no C compiler (what to do: install the interpreter's headers and a C compiler)" in text


def test_scan_units_packs_the_stdlib_module_a_finder_of_sites_shadowed(tmp_path):
    """setuptools' _distutils_hack (a .pth file) serves `distutils` from setuptools/_distutils in
    the recording run, with site; the packed variants run without site and import the standard
    library's distutils, so that unit is packed too (it came through the fallback: 46 modules of
    import-stdlib). A name a unit provides as itself (a distribution's own `typing`) is not."""
    from profiler.analysis.packing import plan_units
    from profiler.capture.oxidized import scan_units

    std, site = tmp_path / "lib", tmp_path / "site-packages"
    for rel in ("distutils/__init__.py", "distutils/command/__init__.py", "distutils/command/check.py",
                "typing.py", "json/__init__.py"):
        (std / rel).parent.mkdir(parents=True, exist_ok=True)
        (std / rel).write_text("")
    files = ["setuptools/__init__.py", "setuptools/_distutils/__init__.py", "typing.py"]
    for rel in files:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text("")
    meta = site / "setuptools-69.0.dist-info"
    meta.mkdir()
    (meta / "RECORD").write_text("".join(f"{f},,\n" for f in files) + "setuptools-69.0.dist-info/RECORD,,\n")
    records = [LoadedModule("distutils", None, str(site / "setuptools/_distutils/__init__.py"), "SourceFileLoader", True),
               LoadedModule("setuptools", None, str(site / "setuptools/__init__.py"), "SourceFileLoader", True),
               LoadedModule("typing", None, str(site / "typing.py"), "SourceFileLoader", False),
               LoadedModule("json", None, str(std / "json/__init__.py"), "SourceFileLoader", True)]
    units = scan_units(records, [str(site), str(std)], [str(std)])
    assert sorted((u.name, u.kind) for u in units) == [("distutils", "stdlib"), ("json", "stdlib"), ("setuptools", "distribution")]
    modules, _, _ = plan_units(units)
    assert modules["distutils.command.check"].path == str(std / "distutils/command/check.py")
    assert modules["typing"].path == str(site / "typing.py")  # the distribution's, first on the path
    assert "setuptools._distutils" in modules


def test_scan_units_leaves_a_stdlib_name_found_outside_every_unit_alone(tmp_path):
    """A program's own `json` (a zip or a folder on sys.path that is no unit) shadows the standard
    library's in every variant: the stdlib's is not packed over it."""
    from profiler.capture.oxidized import scan_units

    std = tmp_path / "lib"
    (std / "json").mkdir(parents=True)
    (std / "json" / "__init__.py").write_text("")
    records = [LoadedModule("json", None, str(tmp_path / "app.zip" / "json" / "__init__.py"), "zipimporter", True)]
    units = scan_units(records, [str(tmp_path / "app.zip"), str(std)], [str(std)])
    assert [u for u in units if u.kind == "stdlib"] == [] and all(not u.files for u in units)


def test_startup_first_orders_the_frozen_table_by_first_import():
    from profiler.analysis.packing import startup_first
    from profiler.model.packing import PlannedModule

    mods = [PlannedModule(n, "source", f"/l/{n}.py", False) for n in ("a", "b", "c", "d", "e")]
    assert [m.name for m in startup_first(mods, ["sys", "d", "b", "d", "zz"])] == ["d", "b", "a", "c", "e"]
    assert [m.name for m in startup_first(mods, [])] == ["a", "b", "c", "d", "e"]
