"""The run context: what one invocation of importprof hands down to every run it makes.

One object per invocation, made at the edge (workflows/session.invocation makes it and yields
it; main() hands it to the command as click's `ctx.obj`, the command sets its --timeout and
puts it in the options object it builds) and passed down as an argument from there: the
workflows hand it to the capture functions they call, which hand it to the runner
(capture/process.py: `run`, `spawn_measured`, `Spawner`), the only code that reads the limit
and says the runner's warnings. Nothing looks it up from a global: two invocations in one
process (in-process callers, threads) each see their own.

What it holds: the limit for one run of a program (--timeout), where warnings go (the
commands' warn, which says each once), and the interpreters already resolved (so one
invocation asks each `--python` for its facts once, however many workflows it composes). The
invocation's temporary folder is `tempfile.tempdir`, which the invocation sets. Progress is not
here: the commands hand their bar's update to the workflow that reports it, as an argument.

A library caller that passes none gets `given(None)`: a fresh context with the defaults
(DEFAULT_TIMEOUT_S, warnings on stderr, nothing resolved yet).
"""

from __future__ import annotations

import sys
from typing import Callable

DEFAULT_TIMEOUT_S = 60.0


class RunContext:
    """`timeout_s`: one run's limit in seconds (None: none); `say`: where warnings go (None:
    stderr); `interpreters`: the `--python` specs resolved so far in this invocation."""

    __slots__ = ("timeout_s", "say", "warned", "interpreters")

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, say: Callable[[str], None] | None = None):
        self.timeout_s = timeout_s
        self.say = say
        self.warned: set[str] = set()
        self.interpreters: dict = {}

    def set_timeout(self, seconds: float | None) -> None:
        """--timeout SECONDS: None or 0 mean no limit."""
        self.timeout_s = seconds if seconds else None

    def warn(self, message: str) -> None:
        """A warning, once per invocation: through `say` (the commands' warn), else one
        `importprof: warning:` line on stderr."""
        if message in self.warned:
            return
        self.warned.add(message)
        if self.say is not None:
            self.say(message)
            return
        if sys.stderr is None:
            return
        sys.stderr.write(f"importprof: warning: {message}\n")
        sys.stderr.flush()


def given(context: RunContext | None) -> RunContext:
    """The context a caller passed, or (a library caller that passed none) a fresh default one."""
    return context if context is not None else RunContext()
