"""Run any command under the real strace and return every process it started (a test harness,
a Makefile, a shell script, a CLI that re-executes itself...).

    capture_processes(argv, env=None, cwd=None, *, importtime=True, keep_log=None,
                      timeout=None) -> ProcessCapture

`env` adds to (or, with a None value, removes from) this process's environment. With
`importtime=True` the command gets `PYTHONPROFILEIMPORTTIME=1`, so every Python process it starts
writes its `import time:` lines to its own fd 2; strace records those writes, so each process's
lines are known (`ProcessRecord.importtime`) even when a harness captures or discards the
child's stderr. Children started with `-E` or `-I` ignore the variable: their `importtime` is
None with `importtime_note` saying why. The command's own stdout and stderr are captured (they
are in `ProcessCapture.stdout/stderr`) so they never mix with importprof's output. A command that
exits non-zero is returned (its `returncode`), not raised; a command that cannot start (not
found, not executable, exec format error) raises TargetFailed; strace missing or denied raises
ToolMissing / ToolFailed.

The fields of ProcessRecord / ProcessCapture are documented in profiler/model/process.py.

How it is traced, kept cheap: `strace -f -ttt --seccomp-bpf -e trace=execve,execveat,clone,
clone3,fork,vfork[,write] -s 4096`. With `--seccomp-bpf` the kernel stops a process only at
those syscalls (not at every open/stat/read of an import), so the process tree alone costs
next to nothing; `write` is traced only with `importtime=True` (every `import time:` line is one
write, and each traced write is a ptrace stop).

What the capture costs (`benchmarks/bench_trace.py --harness`, this machine: CPython 3.11.7,
2 cores shared with other work, 7 interleaved runs, medians, 2026-11-23):

    python -c pass (98 import time lines)      sum of self import times x1.14 (+30 µs per line)
                                               wall x1.37 (importtime=True), x1.07 (False)
    python -c "import <270 stdlib modules>"    sum of self import times x1.27 (+92 µs per line)
    (501 import time lines)                    wall x1.28 (importtime=True), x0.99 (False)

So import times read through the harness are 15-30 % high in absolute terms (each line's
traced write is charged to the import that was running); comparisons between the processes of
one capture are fair (all pay the same per-line cost). Wall times per process are nearly exact
with `importtime=False` (use it when only the process tree and wall times are wanted).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import replace
from typing import Mapping, Sequence

from profiler.capture.process import resolve_executable, run
from profiler.capture.strace import check_strace_run, find_strace
from profiler.errors import TargetFailed
from profiler.model.process import ProcessCapture, ProcessRecord
from profiler.session import Session

PROCESS_SYSCALLS = "execve,execveat,clone,clone3,fork,vfork"
# long enough for whole argv strings of ordinary commands and for any `import time:` line
HARNESS_STRING_LIMIT = 4096


def harness_strace_argv(strace: str, log_path: str, argv: Sequence[str], writes: bool = True) -> list[str]:
    """The strace command line: process life-cycle calls, and writes when `writes`."""
    return [
        strace, "-f", "-ttt", "--seccomp-bpf",
        "-e", "trace=" + PROCESS_SYSCALLS + (",write" if writes else ""),
        "-s", str(HARNESS_STRING_LIMIT), "-o", log_path, "--", *argv,
    ]


def _environment(env: Mapping[str, str | None] | None, importtime: bool) -> dict[str, str]:
    environ = dict(os.environ)
    environ.pop("PYTHONPROFILEIMPORTTIME", None)
    if importtime:
        environ["PYTHONPROFILEIMPORTTIME"] = "1"
    for k, v in (env or {}).items():
        if v is None:
            environ.pop(k, None)
        else:
            environ[k] = v
    return environ


def _is_script(path: str, cwd: str | None) -> bool:
    """A `#!` script (a pyenv shim named python3 is one: not an interpreter itself)."""
    full = path if os.path.isabs(path) else os.path.join(cwd or os.getcwd(), path)
    try:
        with open(full, "rb") as fh:
            return fh.read(2) == b"#!"
    except OSError:
        return False


def capture_processes(
    argv: Sequence[str],
    env: Mapping[str, str | None] | None = None,
    cwd: str | None = None,
    *,
    importtime: bool = True,
    keep_log: str | None = None,
    timeout: float | None = None,
    what: str = "strace",
    session: Session,
) -> ProcessCapture:
    """Run argv (no shell) under `strace -f` and return its processes (see the module doc).
    `what`: the run's name in its errors (a time limit reached: "`what` did not finish ...")."""
    from profiler.parse.processes import parse_processes

    if not argv:
        raise TargetFailed("no command to run")
    strace = find_strace()
    exe = resolve_executable(argv[0]) if os.sep not in argv[0] else argv[0]
    if exe is None:
        raise TargetFailed(f"cannot run the target: command not found: {argv[0]}")
    environ = _environment(env, importtime)
    with tempfile.TemporaryDirectory(prefix="importprof-harness-") as tmp:
        log_path = keep_log or os.path.join(tmp, "harness.strace")
        t0 = time.perf_counter()
        done = run(harness_strace_argv(strace, log_path, argv, writes=importtime), env=environ, cwd=cwd, timeout=timeout, what=what,
                   tracer_log=log_path, session=session)
        wall = time.perf_counter() - t0
        check_strace_run(done, strace, log_path)
        with open(log_path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    records = parse_processes(text)
    fixed = []
    for r in records:
        if r.is_python and not r.importtime and not r.forked and _is_script(r.executable, cwd):
            r = replace(r, is_python=False, importtime_note=None)
        fixed.append(r)
    stderr = "\n".join(ln for ln in done.stderr.split("\n") if not ln.startswith(strace + ": "))
    return ProcessCapture(
        argv=tuple(argv),
        returncode=done.returncode,
        stdout=done.stdout,
        stderr=stderr,
        wall_s=wall,
        processes=tuple(fixed),
    )


__all__ = ["capture_processes", "harness_strace_argv", "ProcessCapture", "ProcessRecord"]
