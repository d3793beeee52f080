"""The transparency contract (issue 32): importprof's instruments leave the program as it is.

For real programs from the registry, several with import machinery of their own (awscli's alias
finder, setuptools' editable-install finder, `_distutils_hack`, six's meta-path importer,
pytest's assertion rewriter, importlib.resources / importlib.metadata lookups, zipimport), the
program's stdout, stderr, exit code and the file it writes are the same as when it runs bare:

- under each in-process instrument the commands start (the launcher alone, and with the hooks
  of imports --phases/--sites/--lazy-candidates/--statements, why's importers, lazy's eager
  reference run, and trace's), compared byte for byte with the bare run, on 3.11 and 3.15;
- under every command that runs a target (startup, imports, why, trace, doctor, lazy, report),
  which must run it successfully (exit 0: a program broken by an instrument is exit 3) and
  leave the file the program writes exactly as the bare run wrote it (lazy: its output found
  identical; its lazy runs change what the program sees on purpose, and so do doctor's,
  whose lazy finding is lazy's timed saving; report runs without its doctor part, the doctor
  row's). Variants that change the program on purpose (-S, -X frozen_modules=off) are left
  out: `--variant default`.

The venv is made once (tests/_realprograms.py caches it), the editable package's source lives
beside the venv cache, so that the cached venv's editable finder keeps pointing at it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from _interpreters import find_pyenv_python
from _realprograms import CACHE, real_venv, venv_bin, venv_python
from profiler.model.words import WarningKind

pytestmark = pytest.mark.slow

REQUIREMENTS = ("awscli==1.46.3", "six==1.17.0", "pytest==9.2.0", "setuptools")
PYTHONS = ("3.11", "3.15")
MARK, USERS_VALUE = "IMPORTPROF_TRANSPARENCY_MARK", "set by the user"  # a variable of the user's, which the program prints

EDITABLE_FILES = {
    "pyproject.toml": (
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "tinyedit"\nversion = "0.1"\n\n'
        # a package folder named unlike the package: setuptools' editable install needs its
        # meta-path finder (__editable___tinyedit_0_1_finder) for it, not a path entry
        '[tool.setuptools]\npackages = ["tinyedit"]\npackage-dir = {"tinyedit" = "src_code"}\n\n'
        '[tool.setuptools.package-data]\ntinyedit = ["data.txt"]\n'
    ),
    "src_code/__init__.py": 'def hello():\n    return "hello from tinyedit"\n',
    "src_code/data.txt": "resource text\n",
}


def _editable_source() -> Path:
    """The tiny package installed in editable mode (beside the venv cache: the cached venv's
    finder names this folder)."""
    root = CACHE / "transparency-src" / "tinyedit"
    for rel, text in EDITABLE_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return root


@pytest.fixture(scope="session", params=PYTHONS)
def venv(request) -> Path:
    base = find_pyenv_python(request.param)
    if base is None:
        pytest.skip(f"no CPython {request.param} on this machine (make setup provides it)")
    return real_venv(base, [*REQUIREMENTS, "-e", str(_editable_source())])


def _record(out: Path) -> str:
    """Code that writes what the program saw to `out` (the file the program writes)."""
    return f"open({str(out)!r}, 'w').write(repr(seen) + '\\n')\n"


def corpus(venv: Path, work: Path) -> dict[str, tuple[list[str], Path]]:
    """name -> (the target's argv after the interpreter, the file it writes)."""
    work.mkdir(parents=True, exist_ok=True)
    zpath = work / "zipped.zip"
    if not zpath.exists():
        with zipfile.ZipFile(zpath, "w") as z:
            z.writestr("zmod.py", "value = 42\n")
    (work / "test_tiny.py").write_text(
        "def test_rewritten():\n"
        "    # pytest's assertion rewriter compiled this module: its globals hold the rewriter's names\n"
        "    assert '@py_builtins' in globals()\n"
        "    x = [1, 2]\n"
        "    assert x == [1, 2]\n"
    )
    (work / "conftest.py").write_text(
        "def pytest_sessionfinish(session, exitstatus):\n"
        "    import sys\n"
        "    seen = (exitstatus, sorted(n for n in sys.modules if n.startswith('_pytest.assertion')))\n"
        f"    open({str(work / 'pytest.out')!r}, 'w').write(repr(seen) + '\\n')\n"
    )
    (work / "warn_mod.py").write_text("import warnings\nwarnings.warn('old api', DeprecationWarning, stacklevel=2)\n")
    (work / "bad_mod.py").write_text("x = 1\nraise KeyError('k')\n")
    programs = {
        "aws": ([venv_bin(venv, "aws"), "--version"], None),
        "editable": ["-c", (
            "import os, sys, tinyedit, importlib.resources as r, importlib.metadata as m\n"
            "seen = (tinyedit.hello(), r.files('tinyedit').joinpath('data.txt').read_text(), m.version('tinyedit'),\n"
            "        type(tinyedit.__spec__.loader).__name__, [type(f).__name__ for f in sys.meta_path],\n"
            # the user's environment reaches every run (lazy's 3.15 check once ran with only its own variables)
            f"        os.environ.get({MARK!r}), 'HOME' in os.environ, 'PATH' in os.environ)\n"
            "print(seen)\n")],
        "distutils_hack": ["-c", (
            "import sys, distutils.core\n"
            "seen = (distutils.core.__name__, 'setuptools' in distutils.__file__, [type(f).__name__ for f in sys.meta_path])\n"
            "print(seen)\n")],
        "six_moves": ["-c", (
            "import sys\nfrom six.moves import urllib\nimport six.moves.configparser as c\n"
            "seen = (urllib.parse.quote('a b'), c.__name__, [type(f).__name__ for f in sys.meta_path])\n"
            "print(seen)\n")],
        "zipimport": ["-c", (
            f"import sys\nsys.path.insert(0, {str(zpath)!r})\nimport zmod\n"
            "seen = (zmod.value, type(zmod.__loader__).__name__, zmod.__file__.endswith('zmod.py'))\n"
            "print(seen)\n")],
        "warnings_tracebacks": ["-c", (
            "import sys, traceback, warnings\nwarnings.simplefilter('always')\nimport warn_mod\n"
            "try:\n    import no_such_module_here\nexcept ImportError:\n    traceback.print_exc()\n"
            "try:\n    import bad_mod\nexcept KeyError:\n    traceback.print_exc()\n"
            "import subprocess, importlib.machinery as im\n"
            # (-S passed on to child interpreters: the flags, not -X lazy_imports=all, which lazy's runs pass on as python does)
            "seen = (sys.flags.no_site, '-S' in subprocess._args_from_interpreter_flags(), im.SourceFileLoader.get_code.__qualname__,\n"
            "        __loader__.__name__ if hasattr(__loader__, '__name__') else type(__loader__).__name__)\n"
            "print(seen)\n")],
        "pytest": (["-m", "pytest", "-q", "-p", "no:cacheprovider", str(work / "test_tiny.py")], work / "pytest.out"),
    }
    out: dict[str, tuple[list[str], Path]] = {}
    for name, spec in programs.items():
        if isinstance(spec, tuple):
            argv, path = spec
            if path is None:  # a console script: what it printed is what it "wrote"
                path = work / f"{name}.out"
        else:
            path = work / f"{name}.out"
            argv = [spec[0], spec[1] + _record(path)]
        out[name] = (argv, path)
    return out


def _scrub(text: str) -> str:
    """What changes from run to run in any program's output: pytest's duration."""
    return re.sub(r"in \d+\.\d+s", "in N.NNs", text)


def _run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[MARK] = USERS_VALUE
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    return proc.returncode, _scrub(proc.stdout), _scrub(proc.stderr)


def _bare(python: str, argv: list[str], written: Path, cwd: Path):
    written.unlink(missing_ok=True)
    got = _run([python, *argv], cwd)
    if argv[0].startswith("/") and not argv[0].endswith(".py"):  # a console script: write its output ourselves
        written.write_text(got[1])
    return got, written.read_text() if written.exists() else None


@pytest.fixture(scope="session")
def programs(venv, tmp_path_factory):
    """The corpus in one folder per interpreter, each program run bare once (its runs are
    deterministic: every row compares against the same bare run): (the folder, name -> (argv,
    the file it writes, the bare run, the file's text))."""
    python = venv_python(venv)
    work = tmp_path_factory.mktemp("work")
    out = {}
    for name, (argv, written) in corpus(venv, work).items():
        bare, bare_file = _bare(python, argv, written, work)
        assert bare[0] == 0, (name, bare)
        out[name] = (argv, written, bare, bare_file)
    return work, out


def _target(argv: list[str]):
    from profiler.model.target import Target

    if argv[0] == "-c":
        return Target("code", argv[1], tuple(argv[2:]))
    if argv[0] == "-m":
        return Target("module", argv[1], tuple(argv[2:]))
    return Target("script", argv[0], tuple(argv[1:]))


def instruments(tmp: Path) -> dict[str, tuple[tuple[str, ...], dict]]:
    """What the commands start inside the program: hooks and their options (records written to
    `tmp`), as workflows/phases.py, statements.py, compose/why.py, compose/lazy.py and
    workflows/trace.py ask for them."""
    rec = str(tmp / "rec")
    return {
        "launcher": ((), {}),
        "imports --phases": (("phases",), {"phases_path": rec + ".phases"}),
        "imports --sites": (("phases", "import_sites", "site"), {"phases_path": rec + ".phases", "site_path": rec + ".site"}),
        "imports --lazy-candidates": (("phases", "import_sites", "site", "calls"),
                                      {"phases_path": rec + ".phases", "site_path": rec + ".site", "calls_path": rec + ".calls"}),
        "imports --statements": (("statements",), {"statements_path": rec + ".statements"}),
        "why (importers)": (("phases",), {"phases_path": rec + ".phases", "importers_path": rec + ".importers"}),
        "lazy (eager reference)": (("lazy",), {"lazy": False, "lazy_keep": [], "lazy_path": rec + ".lazy"}),
    }


INSTRUMENTS = tuple(instruments(Path("/")).keys())


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_an_instrument_leaves_the_program_as_it_runs_bare(venv, programs, instrument, tmp_path):
    """stdout, stderr, exit code and the written file: byte for byte the bare run's."""
    from profiler.capture.bootstrap import bootstrap_argv

    python = venv_python(venv)
    hooks, options = instruments(tmp_path)[instrument]
    work, corpus_run = programs
    failures = []
    for name, (argv, written, bare, bare_file) in corpus_run.items():
        written.unlink(missing_ok=True)
        launched = bootstrap_argv(python, [], _target(argv), hooks, options)
        got = _run(launched, work)
        if argv[0].startswith("/") and not argv[0].endswith(".py"):
            written.write_text(got[1])
        got_file = written.read_text() if written.exists() else None
        if (got, got_file) != (bare, bare_file):
            failures.append(f"{name} under {instrument}:\n bare: {bare} {bare_file!r}\n  got: {got} {got_file!r}")
    assert not failures, "\n".join(failures)


COMMANDS = {
    # the variants are the default one: the others change the program on purpose (-S, -X frozen_modules=off)
    "startup": ["startup", "--variant", "default", "--runs", "1", "--warmup", "0"],
    "imports": ["imports", "--runs", "1", "--warmup", "0", "--phases", "--lazy-candidates"],
    "imports --statements": ["imports", "--runs", "1", "--warmup", "0", "--statements"],
    "why": ["why", "--runs", "1", "os"],
    "trace": ["trace"],
    "doctor": ["doctor", "--runs", "1", "--timing-runs", "1"],
    "lazy": ["lazy", "--runs", "1", "--warmup", "0", "--profile-runs", "1", "--format", "json"],
    # report's doctor part is compose/doctor.doctor, the doctor row's, given report's own runs
    # for what they measured: its runs are held there; this row holds report's (startup,
    # imports, trace, site)
    "report": ["report", "--variant", "default", "--runs", "1", "--warmup", "0", "--import-runs", "1", "--skip", "doctor",
               "-o", "{tmp}/page.html"],
}


@pytest.mark.parametrize("command", tuple(COMMANDS))
def test_every_command_runs_the_program_as_it_runs_bare(venv, programs, command, cli, tmp_path):
    """Each command runs each program to completion (exit 0) and the file the program writes
    holds what the bare run wrote; lazy finds its output identical (kept-eager modules aside)."""
    python = venv_python(venv)
    work, corpus_run = programs
    failures = []
    for name, (argv, written, _ran, bare_file) in corpus_run.items():
        written.unlink(missing_ok=True)
        args = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]]
        script = argv[0].startswith("/")
        res = cli(*args, *([] if script else ["--python", python]), *argv, cwd=work, env={MARK: USERS_VALUE})
        if res.returncode != 0:
            failures.append(f"{name} under `importprof {command}`: exit {res.returncode}: {res.stderr[-1500:]}")
            continue
        if script:  # a console script prints what it found; its file is written by the bare run only
            continue
        if command == "lazy":  # its lazy runs change what the program sees on purpose (fewer modules)
            doc = json.loads(res.stdout)
            if not doc["identical_output"]:
                failures.append(f"{name} under lazy: output not identical: {doc.get('warnings')}")
            # its check on the real 3.15 runs the program bare, in the user's environment too
            if any(w.startswith(WarningKind.BARE_DIFFERS.value) for w in doc.get("warnings") or ()):
                failures.append(f"{name} under lazy: the bare run of its 3.15 check differs: {doc.get('warnings')}")
            continue
        if command == "doctor":
            # its lazy finding is lazy's timed saving (issue 41): its last runs of the program
            # are lazy ones, which change what the program sees on purpose; its other
            # instruments are held to the bare run above (exit 0) and by the hook-level test
            continue
        got_file = written.read_text() if written.exists() else None
        if got_file != bare_file:
            failures.append(f"{name} under `importprof {command}` wrote {got_file!r}, bare {bare_file!r}")
    assert not failures, "\n".join(failures)


def test_a_failure_only_importprof_causes_is_said_to_be_importprofs(cli, real_python, tmp_path):
    """A program that exits 0 bare but not under importprof's launcher (here it looks for the
    launcher in sys.orig_argv, as nothing should): the error blames importprof's instrument,
    never the program."""
    code = "import sys; sys.exit(4 if any(a.endswith('launch.py') for a in sys.orig_argv) else 0)"
    assert subprocess.run([real_python, "-c", code]).returncode == 0
    res = cli("lazy", "--python", real_python, "--runs", "1", "--warmup", "0", "-c", code, cwd=tmp_path)
    assert res.returncode == 3, res
    line = next(ln for ln in res.stderr.splitlines() if "error" in ln)
    assert "importprof's instrument broke the target" in line and "not the program's" in line, res
    assert "the target exited with code" not in res.stderr, res
