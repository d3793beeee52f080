"""Starting the importprof a test signals, as a user at a terminal starts it.

A process inherits ignored signals: when the suite itself runs with SIGINT and SIGQUIT ignored
(a background job of a non-interactive shell, `cmd &`, or nohup), an importprof started from it
ignores Ctrl-C as python does, and a test that sends SIGINT or SIGQUIT waits for nothing.
Popen's restore_signals resets SIGPIPE and SIGXFSZ only: the child sets SIGINT and SIGQUIT back
to their defaults before exec, the dispositions a terminal user's shell gives."""

from __future__ import annotations

import signal
import subprocess
import sys


def _as_at_a_terminal() -> None:
    for sig in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


def start_importprof(args, **popen) -> subprocess.Popen:
    """`python -m profiler ARGS` started with Popen's keywords, SIGINT and SIGQUIT at their defaults."""
    return subprocess.Popen([sys.executable, "-m", "profiler", *map(str, args)], preexec_fn=_as_at_a_terminal, **popen)
