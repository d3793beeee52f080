"""bootstrap/hook_lazy.py under real interpreters (3.8 ... 3.13): PEP 810's lazy imports
emulated (module-level imports and from-imports bound lazily, resolved on first use), what stays
eager and why, and that the program still behaves as a program."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real interpreters, every test

from profiler.capture.lazy import run_lazy
from profiler.model.target import Target
from profiler.parse.lazy import parse_lazy_record
from tests._interpreters import find_pyenv_python, pyenv_python
from tests.conftest import write_tree
from profiler.session import Session

PROG = """\
import sys
import mod_used            # used below: loaded on first use
import mod_unused          # never used: never executed
import other               # imports mod_unused too (lazily: never executed either)
from mod_from import VALUE # bound lazily: mod_from runs when VALUE is first used
from mod_star import *     # a star import stays eager
import pkg.sub             # pkg and pkg.sub run when pkg is first used
from pkg import sub2       # a submodule by from-import: runs when sub2 is used
try:
    import mod_tried       # inside a try block: eager, as in 3.15
except ImportError:
    pass
import no_such_module_xyz  # never used: never looked for
from mod_from import missing  # fails at first use, not here
before = sorted(k for k in sys.modules if k.startswith(("mod_", "pkg", "other", "decimal")))
print(mod_used.f(), VALUE, STAR, pkg.sub.X, sub2.Y)
print(",".join(before))
try:
    missing
except ImportError as exc:
    print("at first use:", exc)
"""

FILES = {
    "mod_used.py": "def f():\n    return 'used'\n",
    "mod_unused.py": "import decimal\nprint('unused ran')\n",
    "other.py": "import mod_unused\n",
    "mod_from.py": "VALUE = 'from'\n",
    "mod_star.py": "__all__ = ['STAR']\nSTAR = 'star'\n",
    "mod_tried.py": "",
    "pkg/__init__.py": "",
    "pkg/sub.py": "X = 'sub'\n",
    "pkg/sub2.py": "Y = 'sub2'\n",
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
def test_lazy_run_defers_imports_and_from_imports_until_first_use(prefix, prog):
    python = pyenv_python(prefix)
    version = _version(python)
    target = Target("script", str(prog))
    lazy = run_lazy(python, version, target, lazy=True, cwd=str(prog.parent), env=_env(), session=Session())
    assert lazy.returncode == 0, lazy.stderr
    out = lazy.stdout.splitlines()
    assert out[0] == "used from star sub sub2"
    # before any use only the star import (eager) and the try-block import had run
    assert out[1] == "mod_star,mod_tried"
    assert out[2] == "at first use: cannot import name 'missing' from 'mod_from' (%s)" % (prog.parent / "mod_from.py")

    r = parse_lazy_record(lazy.record)
    assert "mod_unused" in r.pending and "mod_unused" not in r.executed_names
    assert "decimal" not in r.executed_names and "decimal" not in r.pending  # never even found
    assert "no_such_module_xyz" in r.pending
    loads = {}
    for ld in r.loads:
        loads.setdefault(ld.name, ld)
    assert loads["mod_used"].trigger == "use" and loads["mod_used"].attr == "mod_used"
    assert loads["mod_used"].site == f"{prog}:16"
    assert loads["mod_from"].attr == "VALUE" and loads["mod_from"].site == f"{prog}:16"
    assert loads["pkg"].site == f"{prog}:16"
    eager = {(x.name, x.reason.split(" (")[0]): x.site for x in r.eager}
    assert eager[("mod_star", "`from ... import *`")] == f"{prog}:6"
    assert eager[("mod_tried", "inside a try block")] == f"{prog}:10"
    assert r.counts["bindings"] >= 9 and r.counts["resolutions"] >= 5
    assert not any(n.startswith("_importprof") for n in r.executed_names | set(r.pending))


@pytest.mark.parametrize("prefix", ["3.8", "3.12"])
def test_the_eager_reference_defers_nothing(prefix, prog):
    python = pyenv_python(prefix)
    version = _version(python)
    (prog.parent / "prog.py").write_text(PROG.replace("from mod_from import missing", "missing = ImportError('eager')"))
    eager = run_lazy(python, version, Target("script", str(prog)), lazy=False, cwd=str(prog.parent), env=_env(), session=Session())
    assert eager.returncode == 1 and "No module named 'no_such_module_xyz'" in eager.stderr
    (prog.parent / "prog.py").write_text(PROG.replace("import no_such_module_xyz", "")
                                         .replace("from mod_from import missing", "missing = 0"))
    eager = run_lazy(python, version, Target("script", str(prog)), lazy=False, cwd=str(prog.parent), env=_env(), session=Session())
    assert eager.returncode == 0, eager.stderr
    assert eager.stdout.splitlines()[:2] == ["unused ran", "used from star sub sub2"]
    e = parse_lazy_record(eager.record)
    assert not e.lazy and e.pending == () and e.loads == ()
    assert {"mod_unused", "decimal", "mod_used"} <= e.executed_names
    assert ("decimal", "source") in e.found


def test_from_import_semantics_match_an_eager_import(tmp_path, real_python):
    """A lazily bound name is the very object an eager import binds; a package's lazy
    `from . import sub` imports the submodule; rebinding `import a.b` then `import a.c` keeps
    both; `import x as y`; a name read by another module (`from m import name`, getattr)."""
    write_tree(tmp_path, {
        "lib/__init__.py": "from . import sub\nfrom .sub import thing as renamed\n",
        "lib/sub.py": "thing = object()\n",
        "lib/other.py": "import json as j\n",
        "user.py": "from lib import renamed\nimport lib\n",
    })
    (tmp_path / "p.py").write_text(
        "import lib.sub\nimport lib.other\nimport os.path as osp\nimport user\n"
        "from lib.sub import thing\n"
        "print(thing is lib.sub.thing is lib.renamed is user.renamed, lib.sub is lib.__dict__['sub'] or 'x',\n"
        "      lib.other.j.dumps([1]), osp.join('a', 'b'), getattr(user, 'lib').sub.thing is thing)\n"
    )
    version = _version(real_python)
    for lazy in (False, True):
        run = run_lazy(real_python, version, Target("script", str(tmp_path / "p.py")), lazy=lazy, cwd=str(tmp_path), env=_env(), session=Session())
        assert run.returncode == 0, run.stderr
        assert run.stdout == "True True [1] a/b True\n", (lazy, run.stdout)


def test_star_import_reads_the_modules_lazy_names_resolved(tmp_path, real_python):
    """`from m import *` without __all__ copies m's entries: m's own lazy names are resolved
    first (the statement stays eager), so the importer gets values, not pending imports."""
    write_tree(tmp_path, {"m.py": "from os.path import join\nimport json\n"})
    (tmp_path / "p.py").write_text("from m import *\nprint(join('a', 'b'), json.dumps(2))\n")
    version = _version(real_python)
    run = run_lazy(real_python, version, Target("script", str(tmp_path / "p.py")), lazy=True, cwd=str(tmp_path), env=_env(), session=Session())
    assert run.returncode == 0 and run.stdout == "a/b 2\n", run.stderr


def test_keep_eager_set_runs_those_modules_at_once(prog, real_python):
    version = _version(real_python)
    out = run_lazy(real_python, version, Target("script", str(prog)), lazy=True, keep=["mod_unused"], cwd=str(prog.parent), env=_env(), session=Session())
    assert out.stdout.startswith("unused ran\nused from star sub sub2\n"), out.stderr
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
    out = run_lazy(real_python, version, Target("module", "tool", ("a", "--help")), cwd=str(tmp_path), env=_env(), session=Session())
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
    first = run_lazy(real_python, version, Target("script", str(prog)), cwd=str(prog.parent), env=_env(), session=Session())
    files = list((cache / "importprof" / "hooks").glob("hook_lazy.*.bin"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    second = run_lazy(real_python, version, Target("script", str(prog)), cwd=str(prog.parent), env=_env(), session=Session())
    assert first.stdout == second.stdout and first.stdout.startswith("used from star sub sub2\n")
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
        run = run_lazy(real_python, version, Target("script", str(prog)), lazy=lazy, cwd=str(tmp_path), env=_env(), session=Session())
        assert run.returncode == 0 and run.stdout == "1\n", (lazy, run.stdout, run.stderr)


@pytest.mark.parametrize("prefix", ["3.8", "3.13"])
def test_annotations_resolve_no_lazy_name_as_on_314_and_later(prefix, tmp_path):
    """3.14+ evaluates annotations when read (PEP 649): under 3.15 a def annotated with a lazily
    imported class does not import it. Before 3.14 the emulation compiles with deferred
    (string) annotations, so the module stays unimported until the program reads a value."""
    python = pyenv_python(prefix)
    write_tree(tmp_path, {"typed_mod.py": "class T:\n    pass\n"})
    (tmp_path / "p.py").write_text(
        "import sys\nfrom typed_mod import T\n\ndef f(x: T) -> T:\n    return x\n\n"
        "class C:\n    field: T\n\nprint('typed_mod' in sys.modules, f.__annotations__['x'])\n"
    )
    run = run_lazy(python, _version(python), Target("script", str(tmp_path / "p.py")), lazy=True, cwd=str(tmp_path), env=_env(), session=Session())
    assert run.returncode == 0, run.stderr
    assert run.stdout == "False T\n"


def test_a_submodule_imported_lazily_elsewhere_is_an_attribute_of_its_package(tmp_path, real_python):
    """Module b's `import pkg.sub` (never used in b) makes pkg.sub reachable from module a's
    plain `import pkg`, as an eager import would and as 3.15 does (sys.lazy_modules)."""
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/sub.py": "X = 'x'\n", "a.py": "import pkg\n\ndef get():\n    return pkg.sub.X\n",
                          "b.py": "import pkg.sub\n"})
    (tmp_path / "p.py").write_text("import a\nimport b\nb.__name__\nprint(a.get())\n")
    version = _version(real_python)
    for lazy in (False, True):
        run = run_lazy(real_python, version, Target("script", str(tmp_path / "p.py")), lazy=lazy, cwd=str(tmp_path), env=_env(), session=Session())
        assert run.returncode == 0 and run.stdout == "x\n", (lazy, run.stderr)


def test_a_packages_own_name_is_not_replaced_by_its_submodule_resolved_later(tmp_path, real_python):
    """tenacity's pattern (pip 23 vendors it): `from .retry import helper` then `def retry()`.
    Eagerly the submodule is set on the package first and the def replaces it; resolved later,
    importing tp.retry must not replace the function (3.15 does not either)."""
    write_tree(tmp_path, {"tp/__init__.py": "from .retry import helper\n\ndef retry():\n    return 'func'\n",
                          "tp/retry.py": "def helper():\n    return 'h'\n"})
    (tmp_path / "p.py").write_text("import tp\nfrom tp import retry\nprint(tp.helper(), retry(), tp.retry())\n")
    version = _version(real_python)
    for lazy in (False, True):
        run = run_lazy(real_python, version, Target("script", str(tmp_path / "p.py")), lazy=lazy, cwd=str(tmp_path), env=_env(), session=Session())
        assert run.returncode == 0 and run.stdout == "h func func\n", (lazy, run.stderr)


# awscli 1.46's vendored botocore: bc/vendored/requests/__init__.py does `from .exceptions import E`
# and bc/exc.py reads `requests.exceptions.SSL`; sp's package defines a function named like the
# submodule it imports from (the store must not import sp.retry, as in 3.15)
FROM_SUBMODULE = {
    "bc/__init__.py": "",
    "bc/vendored/__init__.py": "",
    "bc/vendored/requests/__init__.py": "from .exceptions import E\n",
    "bc/vendored/requests/exceptions.py": "E = 'e'\nSSL = 'ssl'\n",
    "bc/exc.py": "from bc.vendored import requests\nSSL = requests.exceptions.SSL\n",
    "bc/session.py": "from bc import exc\nS = exc.SSL\n",
    "fp/__init__.py": "from .sub import X\n",
    "fp/sub.py": "X = 1\nY = 'y'\n",
    "sp/__init__.py": "from .retry import helper\n\ndef retry():\n    return 'func'\n",
    "sp/retry.py": "def helper():\n    return 'h'\n",
}
FROM_SUBMODULE_PROG = """\
import sys
import bc.session
import fp
import sp
print(bc.session.S, fp.sub.Y, sp.retry(), "sp.retry" in sys.modules)
"""


@pytest.mark.parametrize("prefix", ["3.8", "3.11", "3.13"])
def test_a_submodule_named_by_a_from_import_is_an_attribute_of_its_package_as_in_315(prefix, tmp_path):
    """`from .sub import X` (lazy) makes pkg.sub reachable as pkg's attribute, also when the
    package is still being imported (`requests.exceptions` after `from .exceptions import ...` in
    requests/__init__.py), as real 3.15 -X lazy_imports=all does (importprof lazy on awscli 1.46
    needed botocore.vendored.requests.exceptions kept eager: "module 'botocore' has no attribute
    'session'"); a package's def named like such a submodule is stored without importing it."""
    import subprocess

    write_tree(tmp_path, FROM_SUBMODULE)
    (tmp_path / "p.py").write_text(FROM_SUBMODULE_PROG)
    expected = "ssl y func False\n"
    python315 = find_pyenv_python("3.15")
    if python315:  # the reference: the real mechanism says the same
        real = subprocess.run([python315, "-X", "lazy_imports=all", "p.py"], cwd=str(tmp_path), env=_env(),
                              capture_output=True, text=True)
        assert (real.returncode, real.stdout) == (0, expected), real.stderr
    python = pyenv_python(prefix)
    run = run_lazy(python, _version(python), Target("script", str(tmp_path / "p.py")), lazy=True, cwd=str(tmp_path), env=_env(), session=Session())
    assert (run.returncode, run.stdout) == (0, expected), run.stderr
    eager = run_lazy(python, _version(python), Target("script", str(tmp_path / "p.py")), lazy=False, cwd=str(tmp_path), env=_env(), session=Session())
    assert (eager.returncode, eager.stdout) == (0, "ssl y func True\n"), eager.stderr


@pytest.mark.parametrize("prefix", ["3.10", "3.11", "3.12", "3.13"])
def test_a_named_unicode_escape_compiled_twice_does_not_crash(prefix, tmp_path, monkeypatch):
    """Compiling `"\\N{EN DASH}"` makes the parser import unicodedata and keep a pointer into
    it; 3.10-3.13 free it with the module. The hook took every module a compile imported out of
    sys.modules again, so the next `\\N{...}` compiled read freed memory: sphinx-build -b html on
    3.11 died with SIGSEGV on a cold rewritten-code cache. Real interpreters, a cold cache."""
    python = pyenv_python(prefix)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # a cold cache: every module compiled
    write_tree(tmp_path, {"a.py": 'X = "\\N{EN DASH}"\n', "b.py": 'Y = "\\N{EM DASH}" + "\\N{BULLET}"\n'})
    (tmp_path / "app.py").write_text(
        "import gc\nimport a\nimport b\nprint(a.X)\ngc.collect()\n"
        "junk = [object() for _ in range(100000)], [bytearray(8) for _ in range(100000)]  # reuse freed blocks\n"
        "print(b.Y)\n"
    )
    run = run_lazy(python, _version(python), Target("script", str(tmp_path / "app.py")), lazy=True,
                   cwd=str(tmp_path), env=_env(), session=Session())
    assert run.returncode == 0, (run.returncode, run.stderr[-500:])
    assert run.stdout == "\u2013\n\u2014\u2022\n"
    record = parse_lazy_record(run.record)
    assert {"a", "b"} <= record.executed_names and record.counts["cache_misses"] >= 3


@pytest.mark.parametrize("prefix", ["3.8", "3.11", "3.14"])
def test_a_future_import_is_bound_lazily_with_its_feature_kept(prefix, tmp_path):
    """3.15 under -X lazy_imports=all binds `from __future__ import annotations` lazily (it never
    imports __future__; the feature is the compiler's): the emulation imported __future__, one
    module 3.15 does not (black, sphinx, pip, isort). The annotations stay strings (PEP 563),
    on 3.14 too, where without the feature they would be evaluated when read."""
    python = pyenv_python(prefix)
    (tmp_path / "p.py").write_text(
        "from __future__ import annotations\nimport sys\n\ndef f(x: Undefined) -> 'int':\n    return x\n\n"
        "print('__future__' in sys.modules, f.__annotations__)\n"
    )
    runs = {lazy: run_lazy(python, _version(python), Target("script", str(tmp_path / "p.py")), lazy=lazy,
                           cwd=str(tmp_path), env=_env(), session=Session()) for lazy in (False, True)}
    assert runs[False].stdout == "True {'x': 'Undefined', 'return': \"'int'\"}\n", runs[False].stderr
    assert runs[True].returncode == 0, runs[True].stderr
    assert runs[True].stdout == "False {'x': 'Undefined', 'return': \"'int'\"}\n"
