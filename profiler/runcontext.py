"""The run context: what one invocation of importprof hands down to every run it makes.

One object per invocation, made at the edge (workflows/session.invocation makes it and yields
it; main() hands it to the command as click's `ctx.obj`, the command sets its --timeout and
puts it in the options object it builds) and passed down as an argument from there: the
workflows hand it to the capture functions they call, which hand it to the runner
(capture/process.py: `run`, `spawn_measured`, `Spawner`), the only code that reads the limit
and says the runner's warnings. Nothing looks it up from a global: two invocations in one
process (in-process callers, threads) each see their own.

What it holds: the limit for one run of a program (--timeout); the warnings said (each once)
and, for the commands, the ones held back to be summed up in one line after the output
(`hold`, `held`, `verbose`: commands/_common.flush_warnings prints them); the interpreters
already resolved (so one invocation asks each `--python` for its facts once, however many
workflows it composes); the machine's CPU sample and facts (capture/machine.py: read once per
invocation); and `memo`, what the invocation learnt once about an interpreter and keeps for its
other runs (workflows/no_site.py's site paths, capture/phases.py's startup modules), so the
next invocation asks again (a venv changed in between is seen). The invocation's temporary
folder is not here: workflows/session.py points `tempfile.tempdir` at it, so every temporary
file, importprof's or a library's, lands there and is removed at exit whether or not the code
that made it had a context. Progress is not here: the commands hand
their bar's update to the workflow that reports it, as an argument.

A library caller that passes none gets `given(None)`: a fresh context with the defaults
(DEFAULT_TIMEOUT_S, warnings on stderr at once, nothing resolved, sampled or learnt yet).
"""

from __future__ import annotations

import os
import sys
from typing import Callable

DEFAULT_TIMEOUT_S = 60.0


class RunContext:
    """`timeout_s`: one run's limit in seconds (None: none); `say`: where warnings go (None:
    stderr, or held when `hold`); `interpreters`: the `--python` specs resolved so far in this
    invocation; `runner`: what runs each process (capture/runner.py: None is the real one; a
    RecordingRunner or a ReplayRunner in the tests)."""

    __slots__ = ("timeout_s", "say", "warned", "hold", "held", "verbose", "interpreters",
                 "machine_window", "machine_read", "memo", "runner")

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, say: Callable[[str], None] | None = None,
                 hold: bool = False):
        self.timeout_s = timeout_s
        self.say = say
        self.warned: set[str] = set()
        self.hold = hold  # the commands: warnings held, summed up after the output (unless verbose)
        self.held: list[str] = []
        self.verbose = False  # --verbose: each warning on its own line as it arises
        self.interpreters: dict = {}
        self.machine_window: tuple | None = None  # (system CPU times, os.times()) at start_sample()
        self.machine_read: dict = {}  # read_machine()'s facts by sample length
        self.memo: dict = {}  # (what, interpreter, ...) -> what this invocation learnt once
        self.runner: object | None = None  # capture/runner.py's Runner; None: the real one

    def set_timeout(self, seconds: float | None) -> None:
        """--timeout SECONDS: None or 0 mean no limit."""
        self.timeout_s = seconds if seconds else None

    def warn(self, message: str) -> None:
        """A warning, once per invocation: through `say` when given; held in `held` when `hold`
        (the commands sum them up after the output) unless verbose (--verbose or
        IMPORTPROF_VERBOSE=1); else one `importprof: warning:` line on stderr at once."""
        if message in self.warned:
            return
        self.warned.add(message)
        if self.say is not None:
            self.say(message)
            return
        if self.hold and not self.is_verbose():
            self.held.append(message)
            return
        if sys.stderr is None:
            return
        sys.stderr.write(f"importprof: warning: {message}\n")
        sys.stderr.flush()


    def is_verbose(self) -> bool:
        return self.verbose or os.environ.get("IMPORTPROF_VERBOSE", "") not in ("", "0")

    def take_held(self) -> list[str]:
        """The held warnings, emptied (said once, after the output)."""
        held, self.held = self.held, []
        return held


def given(context: RunContext | None) -> RunContext:
    """The context a caller passed, or (a library caller that passed none) a fresh default one."""
    return context if context is not None else RunContext()
