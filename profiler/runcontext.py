"""The run context: what one invocation of importprof hands down to every run it makes.

One object per invocation (workflows/session.invocation makes it): the limit for one run of a
program (--timeout) and where its warnings go (the commands' warn, which says each once). The
invocation's temporary folder is tempfile.tempdir, which the invocation sets.
Capture reads the limit and says its warnings through it, instead of module globals that one
invocation would leave behind for the next (in-process callers run many).

It is held in a context variable, so a thread or a task that runs an invocation of its own
sees its own (a worker thread of an invocation runs under contextvars.copy_context() to see
the invocation's). Progress is not here: the commands hand their bar's update to the workflow that
reports it, as an argument.
"""

from __future__ import annotations

import contextvars
import sys
from contextlib import contextmanager
from typing import Callable

DEFAULT_TIMEOUT_S = 60.0


class RunContext:
    """`timeout_s`: one run's limit in seconds (None: none); `say`: where warnings go (None:
    stderr)."""

    __slots__ = ("timeout_s", "say", "warned")

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, say: Callable[[str], None] | None = None):
        self.timeout_s = timeout_s
        self.say = say
        self.warned: set[str] = set()

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


_CURRENT: contextvars.ContextVar[RunContext] = contextvars.ContextVar("importprof_run_context")


def current() -> RunContext:
    """The invocation's context (outside one, e.g. a library caller's, a fresh default one)."""
    try:
        return _CURRENT.get()
    except LookupError:
        ctx = RunContext()
        _CURRENT.set(ctx)
        return ctx


@contextmanager
def running(ctx: RunContext):
    """`ctx` is the current context for the block (an invocation)."""
    token = _CURRENT.set(ctx)
    try:
        yield ctx
    finally:
        _CURRENT.reset(token)
