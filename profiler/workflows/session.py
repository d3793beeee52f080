"""One invocation of importprof: its session, its temporary folder, its children, its signals.

`invocation()` wraps a whole command (main() enters it):
- it makes the invocation's session (profiler/session.py: the --timeout, the warnings,
  the interpreters resolved, the machine's sample, what was learnt once about an interpreter)
  and yields it: main() hands it to the command (click's `ctx.obj`), which passes it down
  explicitly;
- every temporary file and folder the run makes lives under ONE folder, removed on every exit
  path: success, error, Ctrl-C, SIGTERM: `tempfile.tempdir` points there for the invocation,
  so every temporary file, importprof's or any library's, made with or without the session,
  lands there;
- SIGTERM, SIGHUP (the terminal closed) and SIGQUIT become `Terminated` (a KeyboardInterrupt),
  so the same clean-up and partial-output paths as Ctrl-C run; `terminated()` tells main() to
  exit 128 + the signal's number (143, 129, 131) instead of 130;
- every child process group still running is killed on the way out (capture/process.py runs
  each child in its own group), so nothing importprof started outlives it.

The measured programs' environment is not changed (TMPDIR stays theirs).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any

_STATE: dict[str, Any] = {"terminated": False, "interrupted": False, "signal": None}
# handled as SIGTERM: each stops the children and removes the temporaries before exiting
TERMINATING = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread was (a KeyboardInterrupt: Ctrl-C's paths apply)."""


def _on_sigterm(signum, frame):
    _STATE["terminated"] = True
    _STATE["signal"] = signum
    raise Terminated()


def _on_sigint(signum, frame):
    _STATE["interrupted"] = True
    raise KeyboardInterrupt()


def terminated() -> bool:
    return bool(_STATE["terminated"])


def terminating_signal() -> int:
    """The signal that ended the invocation (SIGTERM, SIGHUP or SIGQUIT; SIGTERM when unknown)."""
    return _STATE["signal"] or signal.SIGTERM


def interrupted() -> bool:
    """Ctrl-C or SIGTERM arrived (typer turns KeyboardInterrupt into a bare exit code 130)."""
    return bool(_STATE["interrupted"] or _STATE["terminated"])


@contextlib.contextmanager
def invocation(warn=None, hold=False, temporary=True):
    """Yields the invocation's Session, fresh for each (callers that run main() in-process
    run many: nothing one learnt or held is seen by the next). `warn`: where its warnings go
    (None: stderr, or held for the caller to say after its output when `hold`). `temporary`:
    False for a command known to start no process and make no temporary file (the typer-free
    `imports --from-log FILE [--format FMT]`, which reads one file and writes to stdout): no
    folder is made (nor tempfile, shutil and the stale folders' listdir imported or read: a
    tenth of that command's time), the signals and the children's clean-up as for any other."""
    _STATE["terminated"] = _STATE["interrupted"] = False
    _STATE["signal"] = None
    main_thread = threading.current_thread() is threading.main_thread()
    previous = {s: signal.signal(s, _on_sigterm) for s in TERMINATING if signal.getsignal(s) != signal.SIG_IGN} if main_thread else {}
    previous_int = signal.getsignal(signal.SIGINT) if main_thread else None
    if previous_int is signal.default_int_handler:  # not when started with SIGINT ignored
        signal.signal(signal.SIGINT, _on_sigint)
    folder = _temporary_folder() if temporary else None
    from profiler.session import Session

    session = Session(say=warn, hold=hold)  # the --timeout, the warnings said: this invocation's
    try:
        yield session
    finally:
        if main_thread:  # a second signal must not cut the clean-up short
            for s in previous:
                signal.signal(s, signal.SIG_IGN)
        try:
            _kill_children(session)
        finally:
            if folder is not None:
                _remove_folder(*folder)
            if main_thread:
                for s, handler in previous.items():
                    signal.signal(s, handler if handler is not None else signal.SIG_DFL)
                if previous_int is signal.default_int_handler:
                    signal.signal(signal.SIGINT, previous_int)


def _temporary_folder() -> tuple[str, str | None]:
    """The invocation's folder, made and set as tempfile.tempdir after the stale folders of
    dead invocations are removed: (the folder, the tempdir it replaced)."""
    import tempfile

    from profiler.liveness import start_time

    old_tempdir = tempfile.tempdir
    _remove_stale(tempfile.gettempdir())
    folder = tempfile.mkdtemp(prefix=f"importprof-{os.getpid()}-{max(start_time(os.getpid()) or 0, 0)}-")
    tempfile.tempdir = folder
    return folder, old_tempdir


def _remove_folder(folder: str, old_tempdir: str | None) -> None:
    import shutil
    import tempfile

    tempfile.tempdir = old_tempdir
    shutil.rmtree(folder, ignore_errors=True)


# importprof-PID-START-XXXXXXXX: START is the process's start time (clock ticks after boot,
# /proc/PID/stat's 22nd field), so a folder whose PID now belongs to another process (PIDs are
# reused) is known to be stale; importprof-PID-XXXXXXXX is an older importprof's (kept while PID runs)
_FOLDER = None


def _remove_stale(root: str) -> None:
    """Folders of invocations that could not clean up (SIGKILL, the OOM killer, a power cut):
    ours, named importprof-PID-START-*, whose process is gone (profiler/liveness.py). One
    listdir of TMPDIR; a folder of a live invocation is never touched."""
    global _FOLDER
    import re

    from profiler.liveness import remove_dead

    if _FOLDER is None:
        _FOLDER = re.compile(r"importprof-(\d+)-(?:(\d+)-)?[A-Za-z0-9_]+")
    remove_dead(root, _FOLDER, folders=True)


def _kill_children(session) -> None:
    process = sys.modules.get("profiler.capture.process")  # only if anything was started
    if process is not None and hasattr(process, "kill_live_groups"):
        process.kill_live_groups(session)
