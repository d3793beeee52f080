"""The runs `importprof lazy --apply` makes to prove an edit: the target as a user runs it (no
launcher: what changed is the source, not the interpreter), a `--verify-with` command, the
`lazy_probe` hook's record (modules loaded, imports still lazy at exit), and a compile check of
new file contents by the interpreter that will run them, and the refresh of an edited file's
bytecode by the interpreter of each cache tag the tree had (`compile_bytecode`).

Every run gets a fresh, empty `PYTHONPYCACHEPREFIX`: two edits of one file can have the same
size within the same second, and a .pyc validated by mtime and size would then run the old code."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.capture.bootstrap import bootstrap_argv, own_errors
from profiler.capture.process import run
from profiler.errors import TargetFailed
from profiler.model.target import Target
from profiler.session import Session


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def _env(pycache: str, extra: Mapping[str, str] | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPYCACHEPREFIX"] = pycache
    env.update(extra or {})
    return env


def run_fresh(argv: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None,
              timeout: float | None = None, what: str = "target", session: Session) -> Outcome:
    """argv to completion with a fresh pycache folder; a non-zero exit is data."""
    with tempfile.TemporaryDirectory(prefix="importprof-apply-") as tmp:
        proc = run(argv, cwd=cwd, env=_env(tmp, env), timeout=timeout, missing=TargetFailed, what=what, session=session)
    return Outcome(tuple(argv), proc.returncode, proc.stdout, proc.stderr)


def run_probe(python: str, flags: Sequence[str], target: Target, *, cwd: str | None = None,
              env: Mapping[str, str] | None = None, timeout: float | None = None, session: Session) -> tuple[Outcome, dict | None]:
    """One run under the launcher with the `lazy_probe` hook: the outcome and its record (None
    when the program never reached its exit handlers)."""
    with tempfile.TemporaryDirectory(prefix="importprof-probe-") as tmp:
        path = os.path.join(tmp, "probe.json")
        errors = os.path.join(tmp, "errors.out")
        argv = bootstrap_argv(python, flags, target, ("lazy_probe",), {"lazy_probe_path": path, "errors_path": errors})
        cache = os.path.join(tmp, "pycache")
        proc = run(argv, cwd=cwd, env=_env(cache, env), timeout=timeout, missing=TargetFailed, what="target", session=session)
        own_errors(errors, target)  # importprof's failure first: never blamed on the program
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            record = None
    return Outcome(tuple(argv), proc.returncode, proc.stdout, proc.stderr), record


_COMPILE = (
    "import sys\n"
    "with open(sys.argv[1], 'rb') as fh:\n"
    "    data = fh.read()\n"
    "try:\n"
    "    compile(data, sys.argv[2], 'exec', dont_inherit=True)\n"
    "except SyntaxError as e:\n"
    "    print('line %s: %s' % (e.lineno, e.msg)); sys.exit(1)\n"
)


def compile_with(python: str, path: str, source: bytes, session: Session) -> str | None:
    """None when `python` compiles `source` (the new contents of `path`), else why (one line)."""
    with tempfile.TemporaryDirectory(prefix="importprof-compile-") as tmp:
        copy = os.path.join(tmp, "source.py")
        with open(copy, "wb") as fh:
            fh.write(source)
        proc = run([python, "-I", "-c", _COMPILE, copy, path], timeout=120, missing=TargetFailed, what="the compile check", session=session)
    if proc.returncode == 0:
        return None
    text = proc.stdout.strip() or proc.stderr.strip()
    return text.splitlines()[-1] if text else f"exit code {proc.returncode}"


# run by the interpreter of a cache tag (2.7-3.15 syntax, stdlib only): argv = tag, then
# (source, temporary .pyc, optimization level, invalidation mode) per file. Each file is
# compiled to its temporary path (py_compile writes it atomically); the caller renames it over
# the real .pyc. PYTHONPYCACHEPREFIX and SOURCE_DATE_EPOCH cannot reach it: -I and an explicit
# cfile / invalidation mode.
_PYC = (
    "import sys, py_compile\n"
    "tag = sys.argv[1]\n"
    "if getattr(sys.implementation, 'cache_tag', None) != tag:\n"
    "    sys.stdout.write('tag %s\\n' % getattr(sys.implementation, 'cache_tag', None)); sys.exit(3)\n"
    "args = sys.argv[2:]\n"
    "for i in range(0, len(args), 4):\n"
    "    src, cfile, opt, mode = args[i:i + 4]\n"
    "    kw = {}\n"
    "    if hasattr(py_compile, 'PycInvalidationMode'):\n"
    "        kw['invalidation_mode'] = getattr(py_compile.PycInvalidationMode, mode.upper().replace('-', '_'))\n"
    "    elif mode != 'timestamp':\n"
    "        sys.stdout.write('fail %s %s\\n' % (cfile, 'no hash-based .pyc before 3.7')); continue\n"
    "    try:\n"
    "        py_compile.compile(src, cfile=cfile, dfile=src, doraise=True, optimize=int(opt), **kw)\n"
    "    except Exception as e:\n"
    "        msg = ' '.join(str(getattr(e, 'msg', e)).split())\n"
    "        sys.stdout.write('fail %s %s\\n' % (cfile, msg))\n"
)


@dataclass(frozen=True)
class Compiled:
    """What one interpreter did with a batch: `tag_ok` False when it is not the interpreter of
    the tag (it compiled nothing); `failed` maps a temporary .pyc to why it was not written."""

    python: str
    tag_ok: bool
    failed: dict
    error: str | None = None  # the interpreter did not run (one line)


def compile_bytecode(python: str, tag: str, entries: Sequence[tuple[str, str, int, str]],
                     session: Session) -> Compiled:
    """Compile each (source, temporary .pyc, optimize, mode) with `python`, which must be the
    interpreter of cache tag `tag` (checked by the interpreter itself, before anything is
    written). An argument list, `-I`: no environment variable of the caller's changes the
    result."""
    argv = [python, "-I", "-c", _PYC, tag]
    for src, cfile, opt, mode in entries:
        argv += [src, cfile, str(int(opt)), mode]
    try:
        proc = run(argv, timeout=600, missing=TargetFailed, what="the bytecode compile", session=session)
    except TargetFailed as exc:
        return Compiled(python, False, {}, exc.message)
    if proc.returncode == 3 and proc.stdout.startswith("tag "):
        return Compiled(python, False, {})
    failed = {}
    for line in proc.stdout.splitlines():
        if line.startswith("fail "):
            cfile, _, why = line[5:].partition(" ")
            failed[cfile] = why
    if proc.returncode not in (0,):
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return Compiled(python, True, failed, tail)
    return Compiled(python, True, failed)
