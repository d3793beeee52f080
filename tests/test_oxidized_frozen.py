"""The `frozen` variant, for real: a C launcher compiled against each target interpreter's own
headers, a frozen-modules table marshalled by that interpreter, CPython's FrozenImporter serving
the modules (3.8 to 3.13; a version this machine lacks is skipped with the reason)."""

from __future__ import annotations

import os
import sys
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests._interpreters import pyenv_python
from tests.conftest import assert_one_line_error, write_tree
from profiler.session import Session

pytestmark = pytest.mark.slow

VERSIONS = ["3.8", "3.11", "3.12", "3.13"]

APP = {
    "tinyapp/__init__.py": "from . import core\n",
    "tinyapp/core.py": textwrap.dedent(
        """
        import json, decimal, fractions

        def run():
            return json.dumps({"x": str(decimal.Decimal("1.5") * 2), "f": str(fractions.Fraction(3, 4))})
        """
    ),
    "fastpkg/__init__.py": "",
    "fastpkg/fast.py": "import textwrap\nWIDTH = len(textwrap.fill('x ' * 10, 8).splitlines())\n",
    "fastpkg/late.py": "LATE = 'late'\n",  # never imported by main.py: frozen all the same (the unit is the package)
    # reads __file__ while importing: cannot be frozen, must be listed, still works
    "filepkg/__init__.py": "",
    "filepkg/data.py": "import os\nHERE = os.path.dirname(__file__)\nNAME = os.path.basename(HERE)\n",
    # a namespace package (no __init__.py)
    "nsp/sub.py": "VALUE = 42\n",
    "main.py": textwrap.dedent(
        """
        import sys
        import tinyapp, filepkg.data, nsp.sub, fastpkg.fast
        print(tinyapp.core.run(), filepkg.data.NAME, nsp.sub.VALUE, fastpkg.fast.WIDTH, sys.argv[1:])
        if "--loader" in sys.argv:
            loader = fastpkg.fast.__loader__
            print(loader.__name__ if isinstance(loader, type) else type(loader).__name__)
        """
    ),
}


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("app"), APP)


def _build(version, app, folder, *args):
    from profiler.analysis.packing import plan_pack
    from profiler.capture.interpreter import resolve_python
    from profiler.capture.oxidized import discover_modules, scan_units
    from profiler.model.target import Target
    from profiler.workflows.frozen import build_frozen
    from profiler.workflows.pack import stdlib_entries

    interp = resolve_python(pyenv_python(version), session=Session())
    target = Target("script", str(app / "main.py"), ("arg1", *args))
    records, sys_path = discover_modules(interp.path, target, session=Session())
    plan = plan_pack(records, scan_units(records, sys_path, stdlib_entries(interp)))
    return interp, target, build_frozen(interp, plan, str(folder), session=Session())


@pytest.mark.parametrize("version", VERSIONS)
def test_frozen_prints_what_python_prints_and_lists_what_it_could_not_freeze(version, app, tmp_path):
    interp, target, report = _build(version, app, tmp_path / "frozen", "--loader")
    assert os.access(report.executable, os.X_OK)
    plain = subprocess.run([interp.path, "-S", *target.python_argv()], capture_output=True, text=True, timeout=60)
    frozen = subprocess.run([report.executable, "-S", *target.python_argv()], capture_output=True, text=True, timeout=60)
    assert frozen.returncode == 0, frozen.stderr
    first_plain, first_frozen = plain.stdout.splitlines()[0], frozen.stdout.splitlines()[0]
    assert first_frozen == first_plain and "'arg1'" in first_frozen
    # the module came from CPython's FrozenImporter, not from its file
    assert frozen.stdout.splitlines()[1] == "FrozenImporter"
    assert plain.stdout.splitlines()[1] == "SourceFileLoader"
    assert {"tinyapp", "tinyapp.core", "fastpkg", "fastpkg.fast", "json", "fractions"} <= set(report.modules)
    assert {"tinyapp", "fastpkg", "json"} <= set(report.packages)
    why = {u.name: u.reason for u in report.not_frozen}
    assert "reads __file__" in why["filepkg.data"]
    assert "filepkg" in report.packages  # frozen, with its real __path__: filepkg.data still imports from its file
    assert "namespace package" in why["nsp"]
    assert "extension module" in why["_decimal"] or "_decimal" in report.served
    assert "extension module" in why["_json"]
    assert why["__main__"].startswith("__main__")
    assert report.bytecode_bytes > 0 and report.executable_bytes > report.bytecode_bytes


@pytest.mark.parametrize("version", ["3.8", "3.12"])
def test_a_submodule_imported_later_is_found_below_a_frozen_package(version, app, tmp_path):
    # the whole package is frozen, what the build run did not import too; and a frozen package
    # keeps its real folder as __path__: a module that is not in the table (here one added after
    # the build) still imports, from its file
    app = Path(shutil.copytree(app, tmp_path / "app"))
    interp, target, report = _build(version, app, tmp_path / "frozen")
    assert "fastpkg" in report.packages and "fastpkg.late" in report.modules
    assert "encodings" in report.packages or "encodings" in report.served
    (app / "fastpkg" / "added.py").write_text("ADDED = 'added'\n")
    code = ("import importlib, pkgutil, codecs, fastpkg; print(importlib.import_module('fastpkg.late').LATE, "
            "importlib.import_module('fastpkg.added').ADDED, "
            "sorted(m.name for m in pkgutil.iter_modules(fastpkg.__path__)), codecs.lookup('cp1252').name, "
            "fastpkg.__loader__.__name__, type(fastpkg.added.__loader__).__name__, "
            "fastpkg.__file__ == fastpkg.__path__[0] + '/__init__.py', "
            "__import__('fastpkg.fast').fast.__file__.endswith('/fastpkg/fast.py'))")
    proc = subprocess.run([report.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(app)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["late", "added", "['added',", "'fast',", "'late']", "cp1252", "FrozenImporter",
                                   "SourceFileLoader", "True", "True"]


@pytest.mark.parametrize("version", ["3.8", "3.13"])
def test_frozen_opens_no_file_of_a_frozen_module(version, app, tmp_path):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (make setup installs it)")
    interp, target, report = _build(version, app, tmp_path / "frozen")
    log = tmp_path / "strace.log"
    proc = subprocess.run([strace, "-f", "-qq", "-e", "trace=open,openat,stat,newfstatat,lstat,statx", "-o", str(log),
                           report.executable, "-S", *target.python_argv()], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip(f"strace cannot trace here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    text = log.read_text()
    assert "main.py" in text  # the script itself runs as python runs it
    for rel in ("tinyapp/__init__.py", "tinyapp/core.py", "fastpkg/fast.py", "json/__init__.py", "fractions.py"):
        assert rel not in text, rel
    assert "/__pycache__/" not in text.replace("filepkg/__pycache__/data.", "").replace("nsp/__pycache__", "")
    assert "filepkg/data.py" in text  # not frozen: imported from its file, below a frozen package
    assert "filepkg/__init__.py" not in text


# --- through the CLI: build and compare ------------------------------------------------------



@pytest.mark.parametrize("version", VERSIONS)
def test_build_variant_frozen(version, app, cli, tmp_path):
    py = pyenv_python(version)
    out = tmp_path / "b"
    res = cli("build", "--python", py, "--variant", "frozen", "-o", str(out), "--format", "json", str(app / "main.py"), "arg1")
    assert res.returncode == 0, res
    doc = res.json()
    assert [v["variant"] for v in doc["variants"]] == ["traditional", "frozen"]  # the reference is always built
    assert len({v["output_sha256"] for v in doc["variants"]}) == 1
    assert doc["pack"] is None and doc["launcher"] is None  # no oxidized variant asked for
    assert "tinyapp.core" in doc["frozen"]["modules"]
    assert {u["name"] for u in doc["frozen"]["not_frozen"]} >= {"filepkg.data", "nsp", "__main__"}
    assert (out / "frozen" / "variant.json").exists()


def test_compare_on_3_13_leaves_the_oxidized_variants_out_with_the_reason(cli, tmp_path):
    py = pyenv_python("3.13")
    res = cli("compare", "--python", py, "--workload", "hello", "--runs", "1", "--warmup", "0", "--syscalls", "off",
              "--build-dir", str(tmp_path / "b"), "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert [r["variant"] for r in doc["results"]] == ["traditional", "no-site", "frozen"]
    line = "variants oxidized, filesystem, in-memory unavailable on 3.13"
    assert any(line in w and "python-oxidized-importer 0.9" in w for w in doc["warnings"]), doc["warnings"]
    assert sum(line in ln for ln in res.stderr.splitlines()) == 1
    assert "Traceback" not in res.stderr


def test_compare_refuses_a_named_oxidized_variant_up_front(cli, tmp_path):
    py = pyenv_python("3.12")
    res = cli("compare", "--python", py, "--workload", "hello", "--variant", "frozen,in-memory",
              "--build-dir", str(tmp_path / "b"))
    assert_one_line_error(res, 2, "variant in-memory is unavailable", "3.8 to 3.11", "3.12")
    assert not (tmp_path / "b" / "frozen").exists()  # refused before building anything
    res = cli("build", "--python", py, "--variant", "nope", "-o", str(tmp_path / "c"), "-c", "pass")
    assert res.returncode == 2 and "unknown variant 'nope'" in res.stderr


@pytest.mark.parametrize("version", ["3.8", "3.12"])
def test_compare_variant_frozen_import_stdlib(version, cli, tmp_path):
    py = pyenv_python(version)
    res = cli("compare", "--python", py, "--workload", "import-stdlib", "--variant", "no-site,frozen", "--runs", "1",
              "--warmup", "0", "--syscalls", "off", "--build-dir", str(tmp_path / "b"), "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert [r["variant"] for r in doc["results"]] == ["traditional", "no-site", "frozen"]
    assert not any(r.get("failed") for r in doc["results"])


def _cargo() -> bool:
    return bool(shutil.which("cargo")) or os.access(os.path.expanduser("~/.cargo/bin/cargo"), os.X_OK)


@pytest.mark.parametrize("version", ["3.8", "3.10"])
def test_compare_builds_and_runs_every_variant_on_3_8_to_3_10(version, cli, tmp_path):
    # 3.8 died 'collecting its imports (exit -11)' (the launcher's at_exit segfault) and 3.8-3.10's
    # filesystem/in-memory variants 'No module named os' (the finder came in before os could import)
    if not _cargo():
        pytest.skip("cargo is not installed (make setup installs Rust): the oxidized launcher is built with it")
    res = cli("compare", "--python", pyenv_python(version), "--workload", "hello", "--runs", "1", "--warmup", "0",
              "--syscalls", "off", "--build-dir", str(tmp_path / "b"), "--format", "json", timeout=1200)
    assert res.returncode == 0, res
    results = res.json()["results"]
    assert [r["variant"] for r in results] == ["traditional", "no-site", "oxidized", "filesystem", "in-memory", "frozen"]
    assert not any(r.get("failed") for r in results)


def test_compare_harness_frozen_runs_importprof_itself(cli, tmp_path):
    # importprof --help from a venv, frozen: its modules look for files beside themselves at run
    # time (the help cache), which needs each frozen module's real __file__
    res = cli("compare", "--workload", "harness", "--variant", "frozen", "--launches", "1", "--runs", "1", "--warmup", "0",
              "--syscalls", "off", "--build-dir", str(tmp_path / "b"), "--format", "json")
    assert res.returncode == 0, res
    assert [r["variant"] for r in res.json()["results"]] == ["traditional", "frozen"]


def test_compare_harness_python_is_resolved_at_the_edge(cli, tmp_path, real_python):
    """--python with the harness: resolved once by the command (as every --python is), the
    importprof script found beside the python as named; a python without importprof beside it
    is one line, exit 2, before anything is built."""
    venv_python = os.path.join(os.path.dirname(sys.executable), "python")
    res = cli("compare", "--workload", "harness", "--python", venv_python, "--variant", "frozen", "--launches", "1", "--runs", "1",
              "--warmup", "0", "--syscalls", "off", "--build-dir", str(tmp_path / "b"), "--format", "json")
    assert res.returncode == 0, res
    assert res.json()["results"][0]["command"].endswith("importprof --help")
    assert_one_line_error(cli("compare", "--workload", "harness", "--python", real_python, "--build-dir", str(tmp_path / "c")),
                          2, f"no importprof script beside {real_python}")
    assert_one_line_error(cli("compare", "--workload", "harness", "--python", str(tmp_path / "nope")), 2, "nope")
