"""Whether the importprof process that made a temporary still runs: its PID and its start time
(/proc/PID/stat's 22nd field: clock ticks after boot), so a PID reused by another process is told
apart. Shared by the invocation folder's sweep (workflows/session.py) and the output files'
temporaries (sinks.py)."""

from __future__ import annotations

import os
import stat


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks after boot; None when it does not run (or no
    /proc); -1 for a zombie (killed, not yet reaped: it runs no more)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rpartition(b")")[2].split()  # from the 3rd field on: the name may hold ") "
        return -1 if fields[0] == b"Z" else int(fields[19])  # the 3rd field (state) and the 22nd
    except (OSError, ValueError, IndexError):
        return None


def alive(pid: int, started: int | None) -> bool:
    """Whether the process that made a temporary still runs: its PID runs and (when the name
    recorded it) that process started when the temporary's did."""
    if pid <= 0:
        return True  # not a PID importprof writes: never judged
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # runs, as another user: our invocation's PID was reused (told by the start time)
    except (OSError, OverflowError):
        return True
    now = start_time(pid)
    if now == -1:
        return False  # a zombie: killed, its parent has not reaped it yet
    if not started:
        return True  # an older importprof's temporary, or no /proc when it was made: kept while the PID runs
    return now is None or now == started


def remove_dead(directory: str, pattern, *, folders: bool) -> None:
    """One listdir of `directory`: the entries named by `pattern` (its groups: the PID, then the
    start time or None) that are ours (same user), of the kind asked (folders, or regular files;
    a symlink never), and whose writer no longer runs (the PID is gone, a zombie, or reused by a
    process started at another time) are removed; a live writer's is never touched."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    uid = os.getuid()
    for name in names:
        m = pattern.fullmatch(name)
        if not m:
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        kind_ok = stat.S_ISDIR(st.st_mode) if folders else stat.S_ISREG(st.st_mode)
        if st.st_uid != uid or not kind_ok or alive(int(m.group(1)), int(m.group(2)) if m.group(2) else None):
            continue
        try:
            if folders:
                import shutil

                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass
