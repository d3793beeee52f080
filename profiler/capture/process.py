"""The runner: the only place that starts processes (DESIGN.md).

`spawn_measured` times one run the way hyperfine does with `-N`: no shell, stdout to /dev/null,
wall time from a monotonic clock around spawn+wait, and user/system CPU and peak RSS from the
kernel's accounting of that child (wait4's rusage). `run` is the plain helper for everything that
is not being timed (asking an interpreter for facts, driving hyperfine, strace, cargo...).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.errors import BadInput, TargetFailed, TimedOut, ToolMissing
from profiler.model.measurement import RunSample

# Every child runs in its own process group (its own session for `run`), so that a run that
# passes its time limit, Ctrl-C or SIGTERM can stop it *and everything it started* (strace's
# tracee, a shell's children): nothing is left running when importprof exits.
DEFAULT_RUN_TIMEOUT_S = 60.0
# What every wait below can pass to the OS: poll() takes a C int of milliseconds (about 24.8
# days), and threading's waits stop at TIMEOUT_MAX. A limit beyond it is no limit at all.
_PLATFORM_MAX_WAIT_S = min((2**31 - 1) / 1000.0, threading.TIMEOUT_MAX)
_RUN_TIMEOUT_S: list = [DEFAULT_RUN_TIMEOUT_S]
_LIVE_GROUPS: set = set()  # process groups of children still running


def set_run_timeout(seconds: float | None) -> None:
    """The limit for one run of a program (--timeout SECONDS; None or 0: no limit)."""
    _RUN_TIMEOUT_S[0] = seconds if seconds else None


def run_timeout() -> float | None:
    return wait_limit(_RUN_TIMEOUT_S[0])


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


def kill_live_groups() -> None:
    """Kill every child group still registered (main() calls it on every exit path)."""
    for pgid in list(_LIVE_GROUPS):
        kill_group(pgid)
        _LIVE_GROUPS.discard(pgid)


def timed_out(what: str, limit: float) -> TimedOut:
    return TimedOut(f"{what} did not finish within {limit:g} s (--timeout): stopped it and every process it started")


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
) -> Completed:
    """Run argv to completion (no shell), capturing stdout and stderr, in a session of its
    own. `timeout`: None = one run's limit (--timeout), math.inf = none. When it passes, or
    on Ctrl-C/SIGTERM, the child's whole process group is killed (TimedOut: exit 3)."""
    limit = run_timeout() if timeout is None else wait_limit(timeout)
    try:
        proc = subprocess.Popen(
            list(argv),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=text,
            errors="replace" if text else None,
            start_new_session=True,
        )
    except OSError as exc:  # ENOENT, EACCES, ENOEXEC, EISDIR, a broken symlink...
        raise missing(f"cannot run {what or argv[0]} ({argv[0]}): {exec_problem(argv[0]) or exc.strerror}") from None
    _LIVE_GROUPS.add(proc.pid)
    try:
        try:
            out, err = proc.communicate(input, timeout=limit)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            proc.communicate()
            raise timed_out(what or argv[0], limit) from None
        except BaseException:  # Ctrl-C, SIGTERM: the child and its children go too
            kill_group(proc.pid)
            proc.wait()
            raise
    finally:
        kill_group(proc.pid)  # what it left running in its group (a daemonized child...)
        _LIVE_GROUPS.discard(proc.pid)
    return Completed(tuple(argv), proc.returncode, out, err)


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
    from it, so its peak RSS is its own, and it is timed there (monotonic clock + wait4)."""

    def __init__(self, exe: str, stderr: StderrTail):
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
        limit = run_timeout()
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


def spawn_measured(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stderr: StderrTail | None = None,
) -> RunSample:
    """Start argv[0] (an absolute path) from this process without a shell, wait for it,
    return its RunSample. The kernel floors the child's peak RSS at this process's own size,
    so it is reported as None: use SpawnServer for an honest one."""
    null = _devnull()
    actions = [
        (os.POSIX_SPAWN_DUP2, null, 0),
        (os.POSIX_SPAWN_DUP2, null, 1),
        (os.POSIX_SPAWN_DUP2, stderr.fd if stderr is not None else null, 2),
    ]
    environ = os.environ if env is None else env
    t0 = time.perf_counter_ns()
    try:
        pid = os.posix_spawn(argv[0], list(argv), environ, file_actions=actions, setpgroup=0)
    except OSError as exc:
        raise TargetFailed(f"cannot run {argv[0]}: {exec_problem(argv[0]) or exc.strerror}") from None
    status, ru = _wait(pid, argv[0])
    t1 = time.perf_counter_ns()
    kill_group(pid)  # what it left running in its group (after the clock stopped)
    return RunSample(
        wall_s=(t1 - t0) / 1e9,
        user_s=ru.ru_utime,
        system_s=ru.ru_stime,
        max_rss_bytes=None,
        exit_code=os.waitstatus_to_exitcode(status),
    )


def _wait(pid: int, what: str = "the command"):
    """wait4 for a child that leads its own process group, within one run's limit."""
    _LIVE_GROUPS.add(pid)
    limit = run_timeout()
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
