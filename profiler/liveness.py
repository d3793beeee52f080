"""Whether the importprof process that made a temporary still runs: its PID and its start time
(/proc/PID/stat's 22nd field: clock ticks after boot), so a PID reused by another process is told
apart. Shared by the invocation folder's sweep (workflows/session.py) and the output files'
temporaries (sinks.py)."""

from __future__ import annotations

import os


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
