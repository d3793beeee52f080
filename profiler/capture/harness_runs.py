"""Running a user's harness once per variant (`compare --harness "CMD"`): a test suite, a build,
a shell loop that starts the program many times.

Each variant gets a program file named as the target is (`hg` for an `hg` target: harnesses
check the name) in a folder of its own: a small `/bin/sh` script that adds the variant's
environment, counts its launch (one byte appended to a file: `printf` is a shell builtin, no
process) and `exec`s the variant's command line with the harness's arguments. The same script
for every variant, so its cost (a few hundred µs a launch) is the same in every row.

`HarnessExecutor` is a `capture.timing.Executor`: `measure()` schedules the runs (interleaved,
Ctrl-C, statistics) and this runs the harness once: no shell unless the caller made argv one,
in its own process group, stdout and stderr to files (a harness's output can be large), CPU of
the whole process tree from wait4's rusage (the harness and every descendant it waited for,
as RUSAGE_CHILDREN counts them), the run's limit (--timeout) for the whole harness. What each
run printed at its end and its exit code are kept (`seen`) for the caller to
compare with the traditional variant's.

`RECORDER` is the `sitecustomize` of the recording run: the traditional variant's interpreter
runs `site`, which imports it from the folder the program script puts first on PYTHONPATH; at
exit it writes the names in `sys.modules`, each with its loader's class name, to one file per
process. It takes its variable out of
the environment as it starts, so only the processes started through the program script record
(a Python helper the program starts is not the program)."""

from __future__ import annotations

import os
import re
import shlex
import tempfile
import time
from typing import Mapping, Sequence

from profiler.capture.process import _after_run, _wait, become_subreaper, check_runnable, exec_problem, kill_group, run_timeout
from profiler.errors import TargetFailed
from profiler.model.measurement import RunSample
from profiler.session import Session

RECORD_VAR = "IMPORTPROF_HARNESS_RECORD"

RECORDER = '''\
# importprof compare --harness: records the modules this process imported (written at exit)
import atexit as _a, os as _o, sys as _s
_d = _o.environ.pop("%s", None)
def _importprof_record(d=_d):
    try:
        lines = []
        for n, m in sorted(list(_s.modules.items()), key=lambda i: i[0]):
            if m is None:
                continue
            sp = getattr(m, "__spec__", None)  # an alias (os.path is posixpath) has no loader of its own
            l = None if getattr(sp, "name", n) != n else getattr(sp, "loader", None) or getattr(m, "__loader__", None)
            lines.append("%%s\\t%%s" %% (n, l.__name__ if isinstance(l, type) else type(l).__name__ if l is not None else ""))
        # a file of its own: a long harness outlives the process ids (pid_max 32768 is tens of
        # thousands of processes), and a later process with an earlier one's id keeps both
        p, k = _o.path.join(d, str(_o.getpid())), 0
        while True:
            try:
                f = open(p + ("-%%d" %% k if k else "") + ".txt", "x")
                break
            except FileExistsError:
                k += 1
        with f:
            f.write("\\n".join(lines) + "\\n")
    except Exception:
        pass
if _d:
    _a.register(_importprof_record)
# the interpreter's own sitecustomize, if it has one, still runs
_here = _o.path.dirname(_o.path.abspath(__file__))
_s.path[:] = [p for p in _s.path if _o.path.abspath(p or ".") != _here]
_me = _s.modules.pop("sitecustomize", None)
try:
    import sitecustomize
except ImportError as _e:
    if _e.name != "sitecustomize":
        raise
finally:
    # importlib takes the module it ran out of sys.modules when the import ends: it must be there
    if "sitecustomize" not in _s.modules and _me is not None:
        _s.modules["sitecustomize"] = _me
''' % RECORD_VAR

# how many of the last non-empty lines of the harness's stdout (and of its stderr) are its summary
SUMMARY_LINES = 3
# durations in a summary line ("in 0.12s", "12.3 seconds", "wall 4 ms") differ run to run
_DURATION = re.compile(r"\d+(?:[.,]\d+)?\s*(?:ms|µs|us|ns|s|sec|secs|seconds?|minutes?|min)\b")


def write_program(folder: str, name: str, argv: Sequence[str], env: Sequence[tuple[str, str]] = (),
                  record_dir: str | None = None) -> tuple[str, str]:
    """The program script `folder/bin/name` and its launch counter `folder/launches`: (script, counter)."""
    bindir = os.path.join(folder, "bin")
    os.makedirs(bindir, exist_ok=True)
    counter = os.path.join(folder, "launches")
    lines = ["#!/bin/sh"]
    paths = [v for k, v in env if k == "PYTHONPATH"]
    if record_dir is not None:
        with open(os.path.join(folder, "sitecustomize.py"), "w") as fh:
            fh.write(RECORDER)
        paths.insert(0, folder)
        lines.append(f"{RECORD_VAR}={shlex.quote(record_dir)}; export {RECORD_VAR}")
    for k, v in env:
        if k != "PYTHONPATH":
            lines.append(f"{k}={shlex.quote(v)}; export {k}")
    if paths:  # put before what the harness itself sets (a test runner's own PYTHONPATH is kept)
        lines.append(f"PYTHONPATH={shlex.quote(os.pathsep.join(paths))}${{PYTHONPATH:+:$PYTHONPATH}}; export PYTHONPATH")
    lines.append(f"printf . >> {shlex.quote(counter)}")
    lines.append("exec " + " ".join(shlex.quote(a) for a in argv) + ' "$@"')
    script = os.path.join(bindir, name)
    tmp = script + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.chmod(tmp, 0o755)
    os.replace(tmp, script)
    open(counter, "w").close()
    return script, counter


def read_recorded(record_dir: str, loaders: dict[str, set[str]] | None = None) -> tuple[int, set[str]]:
    """(processes that recorded, every module name they had imported); `loaders`, when given,
    is filled with each name's loader class names (one a process, as RECORDER wrote them)."""
    names: set[str] = set()
    n = 0
    for entry in os.listdir(record_dir):
        if entry.endswith(".txt"):
            n += 1
            with open(os.path.join(record_dir, entry), encoding="utf-8", errors="replace") as fh:
                for ln in fh:
                    name, _, loader = ln.rstrip("\n").partition("\t")
                    if name.strip():
                        names.add(name.strip())
                        if loaders is not None:
                            loaders.setdefault(name.strip(), set()).add(loader)
    return n, names


def read_origin_records(record_dir: str) -> list[list[dict]]:
    """What each process of a packing variant's recording run wrote at exit (the
    oxidized_modules hook with `oxidized_modules_dir`): one list of module records a process.
    A file cut short (a process killed while it wrote) is left out."""
    import json

    out = []
    for entry in sorted(os.listdir(record_dir)):
        if entry.endswith(".json"):
            try:
                with open(os.path.join(record_dir, entry), encoding="utf-8") as fh:
                    out.append(list(json.load(fh).get("modules", ())))
            except ValueError:
                continue
    return out


def summary_of(stdout: str, stderr: str = "", lines: int = SUMMARY_LINES) -> tuple[str, ...]:
    """The last `lines` non-empty lines the harness printed on stdout, then on stderr (a test
    runner's "Ran N tests" may go to either), durations blanked."""
    out = [ln.rstrip() for ln in stdout.splitlines() if ln.strip()][-lines:]
    err = ["stderr: " + ln.rstrip() for ln in stderr.splitlines() if ln.strip()][-lines:]
    return tuple(_DURATION.sub("<time>", ln) for ln in (*out, *err))


def _tail_text(path: str, limit: int = 65536) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - limit))
        return fh.read().decode("utf-8", "replace")


class HarnessRun:
    """What one run of the harness ended with."""

    __slots__ = ("exit_code", "summary", "launches", "stderr_tail")

    def __init__(self, exit_code: int, summary: tuple[str, ...], launches: int, stderr_tail: str):
        self.exit_code = exit_code
        self.summary = summary
        self.launches = launches
        self.stderr_tail = stderr_tail


def run_harness_once(argv: Sequence[str], env: Mapping[str, str], counter: str | None,
                     session: Session, what: str = "the harness") -> tuple[RunSample, HarnessRun]:
    """Run argv once (its own process group; stdin /dev/null; stdout, stderr to files) and
    wait for it within the run's limit: its RunSample (CPU of the process tree) and its end."""
    exe = check_runnable(argv[0]) if os.sep not in argv[0] else argv[0]
    if counter is not None:
        open(counter, "w").close()
    become_subreaper()
    with tempfile.TemporaryDirectory(prefix="importprof-harness-run-") as tmp:
        out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT, 0o600)
        err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            t0 = time.perf_counter_ns()
            try:
                pid = os.posix_spawn(exe, list(argv), dict(env), file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, out_fd, 1), (os.POSIX_SPAWN_DUP2, err_fd, 2),
                ], setpgroup=0)
            except OSError as exc:
                raise TargetFailed(f"cannot run {what} ({argv[0]}): {exec_problem(exe) or exc.strerror}") from None
        finally:
            for fd in (out_fd, err_fd, null):
                os.close(fd)
        status, ru = _wait(pid, run_timeout(session), what)
        t1 = time.perf_counter_ns()
        kill_group(pid)
        _after_run(session, pid)
        code = os.waitstatus_to_exitcode(status)
        launches = os.path.getsize(counter) if counter is not None and os.path.exists(counter) else 0
        err = _tail_text(err_path, 4096)
        end = HarnessRun(code, summary_of(_tail_text(out_path), err), launches, err)
    return RunSample(wall_s=(t1 - t0) / 1e9, user_s=ru.ru_utime, system_s=ru.ru_stime, max_rss_bytes=None, exit_code=code), end


class HarnessExecutor:
    """A `capture.timing.Executor` that runs a harness (see the module doc). Built by
    `factory(...)`: each spec's key has its argv (the harness command line made for that
    variant), environment and launch counter; the harness runs in importprof's working folder."""

    def __init__(self, specs, plan, session: Session, counters: Mapping[str, str], seen: dict):
        self._session = session
        self._counters = counters
        self._env = {}
        for s in specs:
            env = dict(os.environ)
            env.update(dict(s.env or ()))
            self._env[s.key] = env
        self.seen = seen
        self._last = ""

    @classmethod
    def factory(cls, counters: Mapping[str, str], seen: dict):
        def make(specs, plan, session: Session):
            return cls(specs, plan, session, counters, seen)

        make.measures_rss = lambda session: False  # type: ignore[attr-defined]
        return make

    @staticmethod
    def measures_rss(session: Session) -> bool:
        return False

    def run(self, spec) -> RunSample:
        sample, end = run_harness_once(spec.argv, self._env[spec.key], self._counters.get(spec.key),
                                       session=self._session, what=f"the harness with {spec.variant}")
        self.seen.setdefault(spec.key, []).append(end)
        self._last = end.stderr_tail
        return sample

    def stderr(self, lines: int) -> str:
        return "\n".join(self._last.splitlines()[-lines:])

    def close(self, kill: bool) -> None:
        pass


__all__ = ["HarnessExecutor", "HarnessRun", "RECORDER", "read_origin_records", "read_recorded", "run_harness_once", "summary_of",
           "write_program"]
