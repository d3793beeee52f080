"""bootstrap/hook_lazy.py under real interpreters (3.8 ... 3.13): what is deferred, what stays
eager and why, and that the program still behaves as a program."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real interpreters, every test

from profiler.capture.lazy import run_lazy
from profiler.model.target import Target
from profiler.parse.lazy import parse_lazy_record
from tests._interpreters import pyenv_python
from tests.conftest import write_tree

PROG = """\
import sys
import mod_used            # used below: loaded on first use
import mod_unused          # never used: never executed
import other               # imports mod_unused again (no load: __spec__ answered lazily)
from mod_from import VALUE # a from-import reads the module at once
from mod_star import *     # a star import reads __all__ at once
import pkg.sub             # importing a submodule runs the package's __init__
import _json               # an extension module stays eager (when it is not built in)
print(mod_used.f(), VALUE, STAR, pkg.sub.X)
"""

FILES = {
    "mod_used.py": "def f():\n    return 'used'\n",
    "mod_unused.py": "import decimal\nprint('unused ran')\n",
    "other.py": "import mod_unused\n",
    "mod_from.py": "VALUE = 'from'\n",
    "mod_star.py": "__all__ = ['STAR']\nSTAR = 'star'\n",
    "pkg/__init__.py": "",
    "pkg/sub.py": "X = 'sub'\n",
}


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    write_tree(tmp_path, FILES)
    (tmp_path / "prog.py").write_text(PROG)
    return tmp_path / "prog.py"


def _env():
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _version(python):
    import subprocess

    return subprocess.run([python, "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("prefix", ["3.8", "3.11", "3.13"])
def test_lazy_run_defers_unused_modules_and_says_why_others_ran(prefix, prog):
    python = pyenv_python(prefix)
    version = _version(python)
    target = Target("script", str(prog))
    eager = run_lazy(python, version, target, lazy=False, cwd=str(prog.parent), env=_env())
    lazy = run_lazy(python, version, target, lazy=True, cwd=str(prog.parent), env=_env())
    assert eager.returncode == 0 and lazy.returncode == 0, lazy.stderr
    assert eager.stdout == "unused ran\nused from star sub\n"
    assert lazy.stdout == "used from star sub\n"  # mod_unused's print never ran

    e, r = parse_lazy_record(eager.record), parse_lazy_record(lazy.record)
    assert not e.lazy and e.pending == () and e.loads == ()
    assert {"mod_unused", "decimal", "mod_used"} <= e.executed_names
    assert "mod_unused" in r.pending and "mod_unused" not in r.executed_names
    assert "decimal" not in r.executed_names and "decimal" not in r.pending  # never even found
    loads = {ld.name: ld for ld in r.loads}
    assert loads["mod_used"].trigger == "use" and loads["mod_used"].attr == "f"
    assert loads["mod_used"].site == f"{prog}:9"
    assert loads["mod_from"].trigger == "from" and loads["mod_from"].site == f"{prog}:5"
    assert loads["mod_star"].trigger == "star"
    assert loads["pkg"].trigger == "submodule" and loads["pkg"].site == f"{prog}:7"
    assert loads["pkg.sub"].trigger == "use"
    assert not any(n.startswith("_importprof") for n in r.executed_names | set(r.pending))
    eager_reasons = {x.name: x.reason for x in r.eager}
    kinds = {e[0]: e[1] for e in r.executed}
    if kinds.get("_json") == "extension":
        assert eager_reasons["_json"].startswith("extension module")


def test_keep_eager_set_runs_those_modules_at_once(prog, real_python):
    version = _version(real_python)
    out = run_lazy(real_python, version, Target("script", str(prog)), lazy=True, keep=["mod_unused"], cwd=str(prog.parent), env=_env())
    assert out.stdout == "unused ran\nused from star sub\n"
    r = parse_lazy_record(out.record)
    assert ("mod_unused", "kept eager (keep-eager set)", f"{prog.parent / 'other.py'}:1") not in [
        (x.name, x.reason, x.site) for x in r.eager
    ]  # found first by prog.py, not by other.py
    assert [x.site for x in r.eager if x.name == "mod_unused"] == [f"{prog}:3"]
    assert "decimal" in r.pending  # imported by the eager module, itself lazy


def test_module_target_and_failing_program_behave_as_without_the_hook(tmp_path, real_python):
    version = _version(real_python)
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "__main__.py").write_text("import sys, json\nprint(sys.argv[1:])\nsys.exit(4)\n")
    out = run_lazy(real_python, version, Target("module", "tool", ("a", "--help")), cwd=str(tmp_path), env=_env())
    assert out.returncode == 4 and out.stdout == "['a', '--help']\n"
    r = parse_lazy_record(out.record)
    assert "json" in r.pending


def test_parse_rejects_garbage():
    from profiler.errors import BadInput

    with pytest.raises(BadInput):
        parse_lazy_record("{not json")
    with pytest.raises(BadInput):
        parse_lazy_record('{"lazy": true}')


def test_the_launcher_reuses_a_compiled_hook(prog, real_python, tmp_path, monkeypatch):
    """With a hook cache the second run reads the compiled hook instead of compiling it."""
    cache = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    version = _version(real_python)
    first = run_lazy(real_python, version, Target("script", str(prog)), cwd=str(prog.parent), env=_env())
    files = list((cache / "importprof" / "hooks").glob("hook_lazy.*.bin"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    second = run_lazy(real_python, version, Target("script", str(prog)), cwd=str(prog.parent), env=_env())
    assert first.stdout == second.stdout == "used from star sub\n"
    assert files[0].stat().st_mtime_ns == stamp  # read, not rewritten


def test_a_missing_module_is_looked_for_once_per_finder(tmp_path, real_python):
    """The finders are wrapped in place: a module that is nowhere costs each finder one lookup,
    as without the hook (a front finder asking the others made importlib ask them all again)."""
    prog = tmp_path / "p.py"
    prog.write_text(
        "import sys\n"
        "from importlib.machinery import PathFinder\n"
        "calls = []\n"
        "original = PathFinder.find_spec\n"
        "def counting(name, path=None, target=None):\n"
        "    calls.append(name)\n"
        "    return original(name, path, target)\n"
        "PathFinder.find_spec = counting\n"
        "try:\n"
        "    import no_such_module_xyz\n"
        "except ModuleNotFoundError:\n"
        "    pass\n"
        "print(calls.count('no_such_module_xyz'))\n"
    )
    version = _version(real_python)
    for lazy in (False, True):
        run = run_lazy(real_python, version, Target("script", str(prog)), lazy=lazy, cwd=str(tmp_path), env=_env())
        assert run.returncode == 0 and run.stdout == "1\n", (lazy, run.stdout, run.stderr)
