"""Fast unit tests of the pure parts of the oxidized variants: what to pack, PyOxidizer's table
from a real compare export (tests/fixtures/oxidized/), rendering, workloads, config lookup."""

from __future__ import annotations

import json

import pytest

from profiler.analysis.compare import compare_rows, syscall_count
from profiler.analysis.packing import needs_file_at_import, plan_pack
from profiler.model.measurement import TimingResult
from profiler.model.packing import LoadedModule


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


def _rec(name, origin=None, loader="SourceFileLoader", is_package=False):
    return LoadedModule(name, origin, origin, loader, is_package)


def test_plan_pack_classifies_every_module():
    sources = {
        "/lib/app/__init__.py": "from . import a, b\n",
        "/lib/app/a.py": "X = 1\n",
        "/lib/app/b.py": "import os\nD = os.path.dirname(__file__)\n",
        "/lib/json/__init__.py": "pass\n",
        "/lib/typing.py": "pass\n",
    }
    records = [
        _rec("sys", "built-in", "BuiltinImporter"),
        _rec("os", "frozen", "FrozenImporter"),
        _rec("__main__", "/lib/main.py"),
        _rec("app", "/lib/app/__init__.py", is_package=True),
        _rec("app.a", "/lib/app/a.py"),
        _rec("app.b", "/lib/app/b.py"),
        _rec("json", "/lib/json/__init__.py", is_package=True),
        _rec("_json", "/lib/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so", "ExtensionFileLoader"),
        _rec("nsp", None, "NamespaceLoader", is_package=True),
        _rec("typing", "/lib/typing.py"),
        _rec("typing.io", None, None),  # typing puts it in sys.modules itself (a class)
        _rec("gone", "/lib/gone.py"),
        _rec("_importprof_hook_x", "/x/hook.py"),
        _rec("_importprof_launch", None, None),  # importprof's launcher, no spec
    ]
    plan = plan_pack(records, sources.get)
    packed = {m.name: m.kind for m in plan.modules}
    # typing is a plain module: its unpacked typing.io does not keep it out (only packages do)
    assert packed == {"app.a": "source", "json": "source", "_json": "extension", "typing": "source"}
    reasons = {u.name: u.reason for u in plan.unpacked}
    assert "__file__" in reasons["app.b"]
    assert reasons["app"] == "package of unpacked app.b"
    assert "namespace" in reasons["nsp"]
    assert "unreadable" in reasons["gone"]
    assert "no file" in reasons["typing.io"]
    assert reasons["__main__"].startswith("__main__")
    assert set(plan.served) == {"sys", "os"}
    for own in ("_importprof_hook_x", "_importprof_launch"):
        assert own not in packed and own not in reasons
    # every module ends in exactly one place
    assert len(packed) + len(reasons) + len(plan.served) == len(records) - 2


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
    from profiler.workloads import HERE, stdlib_module_list

    names = stdlib_module_list()
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
