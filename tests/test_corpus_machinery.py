"""A corpus of programs with their own import machinery, on 3.11 and 3.15, under the in-program
code of every command that runs a target (issue 41): what each shows must be the program.

Programs: PEP 810's syntax (`lazy from`, `__lazy_modules__`; 3.15), a cffi library
(cryptography: its `_openssl.lib` is a cffi `Lib` that answers isinstance(x, ModuleType) and has
no __dict__), Mercurial (its demandimport wraps every sys.meta_path finder, C extensions), and
the earlier ones' kind: a zipimport package.

For each program, each hook set the commands install (imports' outcome run: phases; import
sites for `why`/`lazy`/`imports --lazy-candidates`: phases, import_sites, site, calls;
`--statements`: statements; `lazy`'s eager record and its probe) runs through the real launcher,
and the program's stdout, stderr and exit code must be those of the program run bare. Where the
program can print its own sys.modules at its end (a `-c` program), it does: the recorded runs
then also execute exactly the modules the bare run executes (importprof's own modules aside).
Then the commands themselves run on the 3.15 PEP 810 program and on cryptography.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from profiler.capture.bootstrap import bootstrap_argv
from profiler.model.target import Target
from profiler.model.words import TargetKind
from tests._interpreters import pyenv_python
from tests._realprograms import real_venv, venv_bin, venv_python

pytestmark = pytest.mark.slow

MODULES_AT_END = ("\nimport sys as _s\nprint(' '.join(sorted(n for n in _s.modules if not n.startswith('_importprof'))))")

HOOK_SETS = {
    "imports outcomes (phases)": (("phases",), {}),
    "why / imports sites": (("phases", "import_sites", "site"), {}),
    "imports --lazy-candidates": (("phases", "import_sites", "site", "calls"), {}),
    "imports --statements": (("statements",), {}),
    "lazy's eager record": (("lazy",), {"lazy": False}),
    "lazy --apply's probe": (("lazy_probe",), {}),
}


def _run(argv, cwd, env=None):
    full = dict(os.environ)
    full.update(env or {})
    p = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=full, timeout=300)
    return p.returncode, p.stdout, p.stderr


def _under_hooks(python, target, hooks, extra, tmp, cwd):
    options = {"errors_path": str(tmp / "errors.out"), "phases_path": str(tmp / "phases.out"),
               "site_path": str(tmp / "site.out"), "calls_path": str(tmp / "calls.out"),
               "statements_path": str(tmp / "statements.out"), "lazy_path": str(tmp / "lazy.json"),
               "lazy_probe_path": str(tmp / "probe.json"), **extra}
    got = _run(bootstrap_argv(python, [], target, hooks, options), cwd)
    errors = tmp / "errors.out"
    assert not errors.exists() or not errors.read_text().strip(), f"importprof's own code failed: {errors.read_text()}"
    return got


def _check_program(python, target, cwd, tmp_path, modules_line=False):
    """`modules_line`: the program prints its sys.modules last; the lazy hook's runs (the recorded
    eager and lazy runs) must leave it exactly as bare; the timing hooks' clocks (`time`,
    `_thread`: builtin modules) may add to it, nothing else of the program's output may differ."""
    bare = _run([python, *target.python_argv()], cwd)
    assert bare[0] == 0, bare[2]
    for what, (hooks, extra) in HOOK_SETS.items():
        d = tmp_path / what.replace(" ", "_").replace("/", "").replace("'", "")
        d.mkdir(parents=True)
        got = _under_hooks(python, target, hooks, extra, d, cwd)
        if modules_line and not {"lazy", "lazy_probe"} & set(hooks):
            head = lambda r: (r[0], r[1].rstrip("\n").rpartition("\n")[0], r[2])  # noqa: E731
            assert head(got) == head(bare), f"{what}: the program under importprof's hooks differs from the program run bare"
            extra_modules = set(got[1].split()) - set(bare[1].split())
            assert extra_modules <= {"time", "_thread"}, f"{what}: importprof's hooks left {extra_modules} imported"
            continue
        assert got == bare, f"{what}: the program under importprof's hooks differs from the program run bare"
        if "lazy" in hooks:
            import json

            record = json.loads((d / "lazy.json").read_text())
            assert record["executed"], "the eager record read no module"


@pytest.fixture(scope="module")
def pep810_program(tmp_path_factory):
    root = tmp_path_factory.mktemp("pep810")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    (root / "pkg" / "sub.py").write_text("import json\n\ndef hello():\n    return 'hello ' + json.dumps([1, 2])\n")
    (root / "main.py").write_text(
        "__lazy_modules__ = ['decimal']\n"
        "lazy from pkg import sub\n"
        "lazy import json\n"
        "import decimal\n"
        "print(sub.hello())\n"
        "print(type(decimal).__name__, 'decimal' in __import__('sys').modules)\n"
    )
    return root


def test_pep810_program_on_315_under_every_hook(pep810_program, tmp_path):
    python = pyenv_python("3.15")
    target = Target(TargetKind.SCRIPT, str(pep810_program / "main.py"))
    _check_program(python, target, str(pep810_program), tmp_path)


def test_pep810_program_on_315_runs_every_command(pep810_program, tmp_path):
    """`imports` (plain, --phases, --statements), `why`, `lazy`, `trace` and `doctor` of a program written
    with `lazy from`: each runs it as bare runs it (3.15.2's _find_and_load takes
    lazy_submodule=: the phases hook forwarded two arguments and broke it)."""
    python = pyenv_python("3.15")
    main = str(pep810_program / "main.py")
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    for args in (["imports"], ["imports", "--phases"], ["imports", "--statements"], ["why", "json"],
                 ["lazy", "--runs", "2", "--warmup", "0", "--profile-runs", "1"], ["trace"],
                 ["doctor", "--runs", "1", "--timing-runs", "2", "--no-trace"]):
        p = subprocess.run([exe, *args, "--python", python, main], capture_output=True, text=True, cwd=str(pep810_program),
                           timeout=600)
        assert p.returncode == 0, f"importprof {' '.join(args)}: {p.stderr[-2000:]}"
    lz = subprocess.run([exe, "lazy", "--runs", "2", "--warmup", "0", "--profile-runs", "1", "--python", python,
                         "--format", "json", main], capture_output=True, text=True, cwd=str(pep810_program), timeout=600)
    import json

    doc = json.loads(lz.stdout)
    assert doc["rests_on"].startswith("the real Python 3.15")
    assert doc["plain_check"]["identical"] is True and doc["plain_check"]["runs"] == 3


@pytest.mark.parametrize("version", ["3.11", "3.15"])
def test_cryptography_cffi_lib_under_every_hook(version, tmp_path):
    """cryptography 50's bindings put a cffi `Lib` in sys.modules (`_openssl.lib`): isinstance
    says module, it has no __dict__. The exit records read it without assuming anything, and the
    recorded runs execute exactly the modules the bare run executes."""
    venv = real_venv(pyenv_python(version), ["cryptography==50.0.2"])
    python = venv_python(venv)
    code = ("import cryptography.hazmat.bindings._rust as r\n"
            "from cryptography.fernet import Fernet\n"
            "print(len(Fernet.generate_key()), type(__import__('sys').modules.get('_openssl.lib')).__name__)" + MODULES_AT_END)
    _check_program(python, Target(TargetKind.CODE, code), str(tmp_path), tmp_path, modules_line=True)


def test_cryptography_lazy_runs_to_its_end(tmp_path):
    """`importprof lazy` of a cffi library (it ended in "the target ended without running exit
    handlers": importprof's exit dump read `_openssl.lib.__dict__`)."""
    venv = real_venv(pyenv_python("3.11"), ["cryptography==50.0.2"])
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    p = subprocess.run([exe, "lazy", "--runs", "2", "--warmup", "0", "--profile-runs", "1", "--python", venv_python(venv),
                        "--format", "json", "-c", "import cryptography.hazmat.bindings._rust"],
                       capture_output=True, text=True, timeout=900, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-2000:]
    import json

    doc = json.loads(p.stdout)
    assert doc["identical_output"] is True
    assert "emulation of PEP 810 on Python 3.11" in doc["rests_on"]


@pytest.fixture(scope="module")
def hg_repo(tmp_path_factory):
    return tmp_path_factory.mktemp("hgrepo")


@pytest.mark.parametrize("version", ["3.11", "3.15"])
def test_mercurial_demandimport_under_every_hook(version, hg_repo, tmp_path):
    """Mercurial 7.2.4: its demandimport wraps every sys.meta_path finder in a LazyFinder (a
    proxy whose __getattribute__ forwards to the finder) and loads through LazyLoader; `hg status`
    and `hg version` under every hook set print what they print bare; `lazy`'s eager record names
    its machinery."""
    venv = real_venv(pyenv_python(version), ["mercurial==7.2.4"])
    hg = venv_bin(venv, "hg")
    python = venv_python(venv)
    repo = hg_repo / version
    if not repo.exists():
        repo.mkdir()
        subprocess.run([python, hg, "init"], cwd=str(repo), check=True, timeout=300)
        (repo / "a.txt").write_text("a\n")
    for args in (("status",), ("version", "-q")):
        target = Target(TargetKind.SCRIPT, hg, args)
        _check_program(python, target, str(repo), tmp_path / "-".join(args))
    d = tmp_path / "own"
    d.mkdir()
    _under_hooks(python, Target(TargetKind.SCRIPT, hg, ("status",)), ("lazy",), {"lazy": False}, d, str(repo))
    import json

    own = json.loads((d / "lazy.json").read_text())["own_lazy"]
    assert any("hgdemandimport" in x and "LazyFinder" in x for x in own), own


def test_zipimport_package_under_every_hook(tmp_path):
    """A package imported from a zip file (zipimport's loader, no SourceFileLoader)."""
    import zipfile

    z = tmp_path / "lib.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("zpkg/__init__.py", "import json\nVALUE = json.dumps({'a': 1})\n")
    python = pyenv_python("3.11")
    code = f"import sys; sys.path.insert(0, {str(z)!r})\nimport zpkg\nprint(zpkg.VALUE)" + MODULES_AT_END
    _check_program(python, Target(TargetKind.CODE, code), str(tmp_path), tmp_path, modules_line=True)


def test_importprofs_own_imports_are_never_lazy_on_315(tmp_path):
    """Under -X lazy_imports=all (3.15), the launcher's and the hooks' own imports are eager (they
    sit in `try`, which PEP 810 never makes lazy): no lazy object of importprof's is left for the
    program to resolve in the middle of its own imports."""
    python = pyenv_python("3.15")
    code = ("import sys\n"
            "own = [m for n, m in sys.modules.items() if n.startswith('_importprof')]\n"
            "print(sorted(k for m in own for k, v in vars(m).items() if type(v).__name__ == 'lazy_import'))")
    for hooks, extra in (("phases", "import_sites", "site", "calls"), {}), (("lazy",), {"lazy": True}), (("statements",), {}):
        argv = bootstrap_argv(python, ["-X", "lazy_imports=all"], Target(TargetKind.CODE, code), hooks,
                              {"errors_path": str(tmp_path / "e.out"), **extra})
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == "[]", (hooks, p.stdout)


def test_a_failure_of_importprofs_own_code_is_said_to_be_importprofs(tmp_path):
    """importprof's exit handler failing inside the program (forced here: the program breaks the
    launcher's writer) is reported as importprof's, with its cause: one line, exit 3, never the
    program's traceback (the cffi Lib case once printed an AttributeError disguised as
    `<frozen importlib._bootstrap>` and blamed the program)."""
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    # the launcher's API is in no sys.modules: the program finds it among the objects gc tracks
    code = ("import gc; [setattr(m, 'dumps', None) for m in gc.get_objects() "
            "if type(m).__name__ == 'module' and m.__name__ == '_importprof_launch']; print('program ran')")
    p = subprocess.run([exe, "imports", "--runs", "1", "--lazy-candidates", "--python", pyenv_python("3.11"), "-c", code],
                       capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert p.returncode == 3, p.stderr
    first = p.stderr.strip().splitlines()[0]
    assert first.startswith("importprof: error: importprof's own code failed inside the program (importprof's fault"), first
    assert "TypeError" in first and "Traceback" not in p.stderr


def test_own_lazy_machinery_recognized_and_shims_not(tmp_path):
    """`lazy`'s eager record names a program's own lazy loading (a package whose __getattr__
    imports its submodules on access, modules pending in importlib.util.LazyLoader) and not a
    deprecation shim's __getattr__ (click's reads its version)."""
    import json

    (tmp_path / "lzpkg").mkdir()
    (tmp_path / "lzpkg" / "__init__.py").write_text(
        "import importlib\n\ndef __getattr__(name):\n    return importlib.import_module(__name__ + '.' + name)\n")
    (tmp_path / "lzpkg" / "sub.py").write_text("X = 1\n")
    (tmp_path / "shim").mkdir()
    (tmp_path / "shim" / "__init__.py").write_text(
        "def __getattr__(name):\n    if name == '__version__':\n        import importlib.metadata\n"
        "        return importlib.metadata.version('shim')\n    raise AttributeError(name)\n")
    code = ("import importlib.util, sys, lzpkg, shim\n"
            "spec = importlib.util.find_spec('csv')\n"
            "loader = importlib.util.LazyLoader(spec.loader)\n"
            "spec.loader = loader\n"
            "mod = importlib.util.module_from_spec(spec)\n"
            "sys.modules['csv'] = mod\n"
            "loader.exec_module(mod)\n"
            "print(lzpkg.sub.X)")
    d = tmp_path / "rec"
    d.mkdir()
    got = _under_hooks(pyenv_python("3.11"), Target(TargetKind.CODE, code), ("lazy",), {"lazy": False}, d, str(tmp_path))
    assert got[0] == 0 and got[1] == "1\n", got
    own = json.loads((d / "lazy.json").read_text())["own_lazy"]
    assert "module __getattr__ (PEP 562) in lzpkg" in own
    assert "importlib.util.LazyLoader: 1 modules still pending at exit" in own
    assert not any("shim" in x for x in own)


@pytest.mark.parametrize("version", ["3.11", "3.15"])
def test_the_program_sees_none_of_importprofs_modules(version, tmp_path):
    """Under importprof's launcher (imports --phases/--statements, why, lazy's recorded runs) the
    program's sys.modules holds only what it would hold bare: the launcher's API and its hooks
    reach each other through their own globals, never through sys.modules (a program that
    counts or walks sys.modules saw `_importprof_launch` and `_importprof_hook_*`)."""
    python = pyenv_python(version)
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    out = tmp_path / "seen.txt"
    (tmp_path / "app.py").write_text(
        "import os, sys, json\n"
        "open(os.environ['SEEN'], 'a').write(repr(sorted(n for n in sys.modules if 'importprof' in n)) + '\\n')\n")
    env = {**os.environ, "SEEN": str(out)}
    for args in (["imports", "--runs", "1", "--phases"], ["imports", "--runs", "1", "--statements"],
                 ["why", "json"], ["lazy", "--runs", "1", "--warmup", "0"]):
        p = subprocess.run([exe, *args, "--python", python, "app.py"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, (args, p.stderr)
    lines = out.read_text().splitlines()
    assert len(lines) >= 6  # the launcher's runs and the bare ones all wrote
    assert set(lines) == {"[]"}, lines
