"""The runner: with capture/runner.py, the only place that starts processes (ARCHITECTURE.md).

`spawn_measured` times one run the way hyperfine does with `-N`: no shell, stdout to /dev/null,
wall time from a monotonic clock around spawn+wait, and user/system CPU and peak RSS from the
kernel's accounting of that child (wait4's rusage). `run` is the plain helper for everything that
is not being timed (asking an interpreter for facts, driving hyperfine, strace, cargo...): it
hands the run to the run context's runner (capture/runner.py: the real one starts the process;
a recording or a replay stands in for it in the tests).

Each takes the invocation's session (`session`, profiler/session.py) as an argument: the
one run's limit (--timeout) is read from it and the runner's warnings (processes left running)
are said through it. A library caller makes its own (`Session()`: the defaults).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.errors import BadInput, TargetFailed, TimedOut, ToolMissing
from profiler.model.measurement import RunSample
from profiler.model.words import Said, WarningKind
from profiler.session import Session

# Every child runs in its own process group (its own session for `run`), so that a run that
# passes its time limit, Ctrl-C or SIGTERM can stop it *and everything it started* (strace's
# tracee, a shell's children): nothing is left running when importprof exits.
# What every wait below can pass to the OS: poll() takes a C int of milliseconds (about 24.8
# days), and threading's waits stop at TIMEOUT_MAX. A limit beyond it is no limit at all.
_PLATFORM_MAX_WAIT_S = min((2**31 - 1) / 1000.0, threading.TIMEOUT_MAX)
_LIVE_GROUPS: set = set()  # process groups of children still running


def run_timeout(session: Session) -> float | None:
    """One run's limit (--timeout), from the invocation's session (None: the default's)."""
    return wait_limit(session.timeout_s)


def wait_limit(seconds: float | None) -> float | None:
    """The one rule for every wait on a child: None, 0, inf, nan or a limit longer than the
    OS can wait for mean no limit (None); anything else is the seconds to wait."""
    if seconds is None or seconds != seconds or seconds <= 0 or seconds > _PLATFORM_MAX_WAIT_S:
        return None
    return float(seconds)


def kill_group(pgid: int) -> None:
    """SIGKILL a child's whole process group; nothing when it is already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_live_groups(session: Session) -> None:
    """Kill every child group still registered and every descendant that detached itself
    (the invocation calls it on every exit path), then stop being the invocation's subreaper.
    What could not be stopped is said through `session`."""
    for pgid in list(_LIVE_GROUPS):
        kill_group(pgid)
        _LIVE_GROUPS.discard(pgid)
    left = stop_orphans()[1]
    if _REAPER["previous"] is not None:
        _prctl(_PR_SET_CHILD_SUBREAPER, _REAPER["previous"])
    _REAPER.update(active=False, previous=None, before=frozenset())
    if left:
        _warn_left_running(left, session)


# ------------------------------------------------------------------ detached descendants
# A target's child that leaves its process group (setsid, a daemon's double fork) escapes
# killpg. importprof makes itself a child subreaper (Linux prctl): such an orphan becomes
# importprof's child instead of init's, and after each run every orphan is stopped (and
# reaped). Children importprof had before its first run (an in-process caller's) are not
# touched, nor those of runs still going (their leaders are in _LIVE_GROUPS).
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37
_REAPER: dict = {"active": False, "previous": None, "before": frozenset()}


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _subreaper_state() -> int | None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        if libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) != 0:
            return None
        return flag.value
    except (OSError, AttributeError):
        return None


def become_subreaper() -> bool:
    """Before the first child of an invocation: orphans of what it starts come back to us."""
    if _REAPER["active"]:
        return True
    previous = _subreaper_state()
    if previous is None or not _prctl(_PR_SET_CHILD_SUBREAPER, 1):
        return False
    _REAPER.update(active=True, previous=previous, before=frozenset(_children()))
    return True


def subreaping() -> bool:
    return _REAPER["active"]


def _children() -> set[int]:
    """This process's children (every thread's)."""
    return _children_of("self")


def _orphans() -> set[int]:
    return _children() - _REAPER["before"] - _LIVE_GROUPS


def _state(pid: int) -> tuple[str, int]:
    """(state letter, process group) from /proc/PID/stat; ("", 0) when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[2])
    except (OSError, IndexError, ValueError):
        return "", 0


def stop_orphans(killed_group: int | None = None) -> tuple[int, list[int]]:
    """SIGKILL and reap every detached descendant that came back to us; returns how many were
    stopped and the pids that could not be (left running), which callers report instead of
    claiming otherwise. Not counted as stopped: one already dead (a zombie to reap) or one of
    `killed_group`, the run's own group that was just killed (it was ending anyway)."""
    if not _REAPER["active"]:
        return 0, []
    stubborn: list[int] = []
    stopped = 0
    for _ in range(50):  # each round reparents the next generation
        orphans = _orphans() - set(stubborn)
        if not orphans:
            break
        for pid in orphans:
            state, group = _state(pid)
            counted = state not in ("Z", "X", "") and group != killed_group
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:  # a setuid program: not ours to stop
                stubborn.append(pid)
                continue
            try:
                os.waitpid(pid, 0)
                stopped += counted
            except ChildProcessError:
                pass
    return stopped, stubborn


def _warn_left_running(pids: list[int], session: Session) -> None:
    session.alert(Said(f"left running (could not be stopped): process{'es' if len(pids) > 1 else ''} "
                       f"{', '.join(map(str, sorted(pids)))} started by the target", WarningKind.LEFT_RUNNING,
                       WarningKind.LEFT_RUNNING.value))


def _after_run(session: Session, group: int | None = None) -> None:
    """What a run left behind outside its group is stopped now, before the next run starts."""
    stopped, left = stop_orphans(group)
    if stopped or left:
        _note_left_behind(left, session)


def timed_out(what: str, limit: float | None) -> TimedOut:
    stopped = "every process it started" if subreaping() else "the processes of its group (detached ones may run on)"
    if limit is None:  # no time limit: its output stayed open 10 s after what was left of it was stopped
        return TimedOut(f"{what} kept its output open after it ended: stopped it and {stopped}")
    return TimedOut(f"{what} did not finish within {limit:g} s (--timeout): stopped it and {stopped}")


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float | None = None,
    input: str | None = None,
    text: bool = True,
    missing: type = ToolMissing,
    what: str | None = None,
    tracer_log: str | None = None,
    writes: Sequence[str] = (),
    session: Session,
) -> Completed:
    """Run argv to completion (no shell), capturing stdout and stderr, in a session of its
    own. `timeout`: None = one run's limit (--timeout), math.inf = none. When it passes, or
    on Ctrl-C/SIGTERM, the child's whole process group is killed (TimedOut: exit 3).
    The run ends when the program ends: what it left running (a daemon holding the output
    pipes) is stopped instead of waited for. `tracer_log`: argv is a tracer (strace -o LOG)
    whose own child is the program; the tracer follows the program's descendants and would
    wait for a daemon too, so once the program is gone what it left is stopped. `writes`:
    other files the run writes that importprof reads back (a recording keeps them). `env`: the
    run's whole environment, as subprocess takes it (None: importprof's own): build it from
    os.environ, or the program loses the user's variables (lazy's 3.15 check once passed only its
    own; callers remove a variable by leaving it out, so this is not a set of changes).
    `session`: the invocation's session (the limit, where warnings go, and its runner:
    capture/runner.py, the real one unless a recording or a replay was set)."""
    from profiler.capture.runner import runner_of

    return runner_of(session).run(argv, env=env, cwd=cwd, timeout=timeout, input=input, text=text, missing=missing,
                                  what=what, tracer_log=tracer_log, writes=writes, session=session)


def _children_of(pid: int | str) -> set[int]:
    """The children of every thread of `pid` (a number, or "self") from /proc; none when it
    cannot be read."""
    pids: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                pids.update(int(p) for p in fh.read().split())
        except (OSError, ValueError):
            continue
    return pids


def _note_left_behind(stubborn: list[int], session: Session) -> None:
    if stubborn:
        _warn_left_running(stubborn, session)
    else:  # said once per invocation
        session.alert(Said("the target ended but left processes running (a daemon, a background job): importprof "
                           "stopped them instead of waiting for them", WarningKind.ORPHANS_STOPPED,
                           WarningKind.ORPHANS_STOPPED.value))


class StderrTail:
    """A reusable temp file that receives a child's stderr; its tail explains a failure."""

    def __init__(self) -> None:
        import tempfile

        self._fh = tempfile.TemporaryFile(prefix="importprof-stderr-")
        self.fd = self._fh.fileno()

    def reset(self) -> None:
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)

    def tail(self, lines: int = 10) -> str:
        os.lseek(self.fd, 0, os.SEEK_SET)
        size = os.fstat(self.fd).st_size
        start = max(0, size - 8192)
        os.lseek(self.fd, start, os.SEEK_SET)
        data = os.read(self.fd, size - start).decode("utf-8", "replace")
        return "\n".join(data.rstrip("\n").splitlines()[-lines:])

    def close(self) -> None:
        self._fh.close()


_DEVNULL_FD: int | None = None


def _devnull() -> int:
    global _DEVNULL_FD
    if _DEVNULL_FD is None:
        _DEVNULL_FD = os.open(os.devnull, os.O_RDWR)
    return _DEVNULL_FD


def resolve_executable(name: str) -> str | None:
    """PATH lookup done once, outside the timed section (posix_spawnp would redo it per run)."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) and os.path.isfile(name) else None
    return shutil.which(name)


def exec_problem(path: str) -> str | None:
    """Why the kernel would refuse to exec `path` (one phrase), or None when it looks runnable:
    missing, a broken symlink, a directory, not executable, or not a program at all (neither
    an ELF binary nor a `#!` script: execve's ENOEXEC, "Exec format error")."""
    if os.sep not in path:
        found = shutil.which(path)
        if found is None:
            return "not found on PATH"
        path = found
    if not os.path.exists(path):
        return "a broken symbolic link" if os.path.islink(path) else "no such file"
    if os.path.isdir(path):
        return "a directory, not a program"
    if not os.access(path, os.X_OK):
        return "not executable (permission denied)"
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if head[:4] != b"\x7fELF" and head[:2] != b"#!":
        return "not a program: neither an ELF binary nor a #! script (Exec format error)"
    return None


def check_runnable(argv0: str) -> str:
    """argv0 resolved to an absolute path, or TargetFailed naming why it cannot run."""
    problem = exec_problem(argv0)
    exe = resolve_executable(argv0)
    if problem is not None or exe is None:
        raise TargetFailed(f"cannot run {argv0}: {problem or 'not executable'}")
    return exe


class SpawnServer:
    """The tiny C spawner (spawner.c) running for a whole benchmark: each command is forked
    from it, so its peak RSS is its own, and it is timed there (monotonic clock + wait4).
    `session`: the invocation's session (each command's limit, where warnings go)."""

    def __init__(self, exe: str, stderr: StderrTail, session: Session):
        self._session = session
        become_subreaper()
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        try:
            # its own process group, which the commands it forks share: killing the group
            # stops the server, the running command and whatever that command started
            self.pid = os.posix_spawn(
                exe,
                [exe],
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, req_r, 0),
                    (os.POSIX_SPAWN_DUP2, resp_w, 1),
                    (os.POSIX_SPAWN_DUP2, stderr.fd, 2),
                ],
                setpgroup=0,
            )
        finally:
            os.close(req_r)
            os.close(resp_w)
        _LIVE_GROUPS.add(self.pid)
        self._buf = b""

    @staticmethod
    def encode(argv: Sequence[str], env: Mapping[str, str]) -> bytes:
        parts = [os.fsencode(a) + b"\0" for a in argv]
        parts.append(b"\0")
        parts += [os.fsencode(k) + b"=" + os.fsencode(v) + b"\0" for k, v in env.items()]
        payload = b"".join(parts)
        return len(payload).to_bytes(4, sys.byteorder) + payload

    def measure(self, request: bytes, what: str) -> RunSample:
        import errno as _errno

        view = memoryview(request)
        while view:
            view = view[os.write(self._req_w, view) :]
        limit = run_timeout(self._session)
        deadline = None if limit is None else time.monotonic() + limit
        while b"\n" not in self._buf:
            if deadline is not None:
                import select

                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._resp_r], [], [], left)[0]:
                    self.close(kill=True)
                    raise timed_out(what, limit)
            chunk = os.read(self._resp_r, 4096)
            if not chunk:
                raise BadInput(f"the measuring spawner stopped while running {what}")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        _after_run(self._session)  # a detached child of the command came back to us: stopped before the next run
        wall_ns, ut, st, rss_kib, code, exec_err = (int(f) for f in line.split())
        if exec_err:
            name = _errno.errorcode.get(exec_err, str(exec_err))
            raise TargetFailed(f"cannot run {what}: {os.strerror(exec_err)} ({name})")
        return RunSample(
            wall_s=wall_ns / 1e9,
            user_s=ut / 1e6,
            system_s=st / 1e6,
            max_rss_bytes=rss_kib * 1024,
            exit_code=code,
        )

    def close(self, kill: bool = False) -> None:
        for fd in (self._req_w, self._resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            kill_group(self.pid)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        kill_group(self.pid)  # a command's own children left in the group
        _LIVE_GROUPS.discard(self.pid)
        _after_run(self._session, self.pid)


def spawn_measured(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stderr: StderrTail | None = None,
    session: Session,
) -> RunSample:
    """Start argv[0] (an absolute path) from this process without a shell, wait for it,
    return its RunSample. The kernel floors the child's peak RSS at this process's own size,
    so it is reported as None: use SpawnServer for an honest one. `session`: the invocation's
    session (the limit, where warnings go)."""
    null = _devnull()
    actions = [
        (os.POSIX_SPAWN_DUP2, null, 0),
        (os.POSIX_SPAWN_DUP2, null, 1),
        (os.POSIX_SPAWN_DUP2, stderr.fd if stderr is not None else null, 2),
    ]
    environ = os.environ if env is None else env
    become_subreaper()
    t0 = time.perf_counter_ns()
    try:
        pid = os.posix_spawn(argv[0], list(argv), environ, file_actions=actions, setpgroup=0)
    except OSError as exc:
        raise TargetFailed(f"cannot run {argv[0]}: {exec_problem(argv[0]) or exc.strerror}") from None
    status, ru = _wait(pid, run_timeout(session), argv[0])
    t1 = time.perf_counter_ns()
    kill_group(pid)  # what it left running in its group (after the clock stopped)
    _after_run(session, pid)
    return RunSample(
        wall_s=(t1 - t0) / 1e9,
        user_s=ru.ru_utime,
        system_s=ru.ru_stime,
        max_rss_bytes=None,
        exit_code=os.waitstatus_to_exitcode(status),
    )


def _wait(pid: int, limit: float | None, what: str = "the command"):
    """wait4 for a child that leads its own process group, within `limit` seconds (None: none)."""
    _LIVE_GROUPS.add(pid)
    try:
        if limit is not None and hasattr(os, "pidfd_open"):
            import select

            fd = os.pidfd_open(pid)
            try:
                if not select.select([fd], [], [], limit)[0]:
                    raise timed_out(what, limit)
            finally:
                os.close(fd)
        _, status, ru = os.wait4(pid, 0)
    except BaseException:
        # the limit passed, Ctrl-C, SIGTERM: do not leave it (or what it started) behind
        kill_group(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        _LIVE_GROUPS.discard(pid)
    return status, ru
