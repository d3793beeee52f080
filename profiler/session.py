"""The session: what one invocation of importprof hands down to every run it makes.

One `Session` per invocation, made at the edge (workflows/session.invocation makes it and
yields it; main() hands it to the command as click's `ctx.obj`, the command sets its --timeout)
and passed down as a required argument from there: `fn(options, session) -> report`. The
workflows hand it to the capture functions they call, which hand it to the runner
(capture/process.py: `run`, `spawn_measured`, `Spawner`), the only code that reads the limit.
Nothing looks it up from a global: two invocations in one process (in-process callers,
threads) each see their own. A library caller makes its own (`Session()`: the defaults) or goes
through profiler/api.py.

What it holds: the limit for one run of a program (--timeout: the limit's one home); the
reporter (`warn`: typed warnings, model/warnings.py: RunWarning, each said once and, for the
commands, held back to be summed up by kind in one line after the output: `hold`, `held`,
`verbose`, commands/_common.flush_warnings prints them; `info`: a note on stderr; `progress`:
typed phases, `Phase`, drawn by the command's bar); the interpreters already resolved (so one
invocation asks each `--python` for its facts once, however many workflows it composes); the
machine's CPU sample and facts (capture/machine.py: read once per invocation); and `memo`, what
the invocation learnt once about an interpreter and keeps for its other runs
(workflows/no_site.py's site paths, capture/phases.py's startup modules), so the next
invocation asks again (a venv changed in between is seen). The invocation's temporary folder is
not here: workflows/session.py points `tempfile.tempdir` at it.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from profiler.model.warnings import RunWarning

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Phase:
    """A step of progress: `Phase("imports")` announces a phase (its line in a log);
    `Phase("imports", "run 2", done=2, total=10)` counts inside it. `label` is what the bar
    shows (`imports: run 2`)."""

    name: str = ""
    detail: str = ""
    done: int = 0
    total: int = 0

    @property
    def label(self) -> str:
        return f"{self.name}: {self.detail}" if self.name and self.detail else self.name or self.detail

    @property
    def announces(self) -> bool:
        """A phase starting (no count yet)."""
        return not self.done and not self.total

    @classmethod
    def of(cls, done: int, total: int, label: str = "") -> Phase:
        """The phase a counted label names (`imports: run 2` is the phase `imports`)."""
        name, sep, detail = label.partition(": ")
        return cls(name, detail, done, total) if sep else cls(label, "", done, total)


class Session:
    """`timeout_s`: one run's limit in seconds (None: none); `say`: where warnings go (None:
    stderr, or held when `hold`); `tell`: where notes go (None: stderr); `bar`: the command's
    progress display (None: progress is not shown); `interpreters`: the `--python` specs
    resolved so far in this invocation; `runner`: what runs each process (capture/runner.py:
    None is the real one; a RecordingRunner or a ReplayRunner in the tests)."""

    __slots__ = ("timeout_s", "say", "warned", "hold", "held", "verbose", "interpreters",
                 "machine_window", "machine_read", "memo", "runner", "bar", "tell", "_warn_to", "_notes_off")

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, say: Callable[[str], None] | None = None,
                 hold: bool = False, bar: Callable[[Phase], None] | None = None,
                 tell: Callable[[str], None] | None = None):
        self.timeout_s = timeout_s
        self.say = say
        self.warned: set[str] = set()
        self.hold = hold  # the commands: warnings held, summed up after the output (unless verbose)
        self.held: list[RunWarning] = []
        self.verbose = False  # --verbose: each warning on its own line as it arises
        self.interpreters: dict[Any, Any] = {}  # --python spec -> Interpreter
        self.machine_window: tuple[Any, Any] | None = None  # (system CPU times, os.times()) at start_sample()
        self.machine_read: dict[float, dict[str, Any]] = {}  # read_machine()'s facts by sample length
        self.memo: dict[Any, Any] = {}  # (what, interpreter, ...) -> what this invocation learnt once
        self.runner: object | None = None  # capture/runner.py's Runner; None: the real one
        self.bar = bar
        self.tell = tell
        self._warn_to: Callable[[RunWarning | str], None] | None = None  # inside collecting(): the collector
        self._notes_off = False  # inside quiet(notes=True)

    def set_timeout(self, seconds: float | None) -> None:
        """--timeout SECONDS: None or 0 mean no limit."""
        self.timeout_s = seconds if seconds else None

    # the reporter

    def warn(self, message: RunWarning | str) -> None:
        """A warning, once per invocation: through `say` when given; held in `held` when `hold`
        (the commands sum them up by kind after the output) unless verbose (--verbose or
        IMPORTPROF_VERBOSE=1); else one `importprof: warning:` line on stderr at once."""
        from profiler.model.warnings import RunWarning

        _typed_if_ours(message)
        if self._warn_to is not None:  # collected, said (or not) by whoever collects
            self._warn_to(message)
            return
        self._say(RunWarning.of(message), message)

    def alert(self, message: RunWarning | str) -> None:
        """A warning about importprof's own running (the runner's: processes left running),
        said as `warn` says one whatever a caller collects or quiets."""
        from profiler.model.warnings import RunWarning

        _typed_if_ours(message)
        self._say(RunWarning.of(message), message)

    def _say(self, warning: RunWarning, message: RunWarning | str) -> None:
        if warning.text in self.warned:
            return
        self.warned.add(warning.text)
        if self.say is not None:
            self.say(message if isinstance(message, str) else warning.text)
            return
        if self.hold and not self.is_verbose():
            self.held.append(warning)
            return
        _stderr(f"warning: {warning.text}")

    def info(self, text: str) -> None:
        """A note on stderr (`importprof: TEXT`), or through `tell` when given."""
        if self._notes_off:
            return
        if self.tell is not None:
            self.tell(text)
            return
        _stderr(text)

    def progress(self, phase: Phase) -> None:
        """A phase announced or counted, drawn by the command's bar (nothing without one)."""
        if self.bar is not None:
            self.bar(phase)

    @contextmanager
    def relabelled(self, how: Callable[[Phase], Phase] | None) -> Iterator[Session]:
        """While inside, each phase goes through `how` on its way to the display (a part's
        progress under the part's name: report's parts, diff's sides); None: none is shown."""
        outer = self.bar
        self.bar = None if how is None or outer is None else (lambda phase: outer(how(phase)))
        try:
            yield self
        finally:
            self.bar = outer

    @contextmanager
    def quiet(self, *, warnings: bool = True, notes: bool = True, progress: bool = True) -> Iterator[Session]:
        """While inside, what is asked for is not said: a measurement whose warnings, notes or
        progress its caller does not show (a check's imports and start-up runs, a part of
        doctor or lazy --apply measured on the way). A warning left unsaid here is said if it
        arises again outside."""
        outer = self.bar, self._warn_to, self._notes_off
        if progress:
            self.bar = None
        if warnings:
            self._warn_to = lambda message: None
        if notes:
            self._notes_off = True
        try:
            yield self
        finally:
            self.bar, self._warn_to, self._notes_off = outer

    @contextmanager
    def collecting(self, into: Callable[[RunWarning | str], None]) -> Iterator[Session]:
        """While inside, warnings go to `into` as they are given (not said, not counted): a
        workflow that adds a callee's warnings to its own report and says them with its own."""
        outer = self._warn_to
        self._warn_to = into
        try:
            yield self
        finally:
            self._warn_to = outer

    def is_verbose(self) -> bool:
        return self.verbose or os.environ.get("IMPORTPROF_VERBOSE", "") not in ("", "0")

    def take_held(self) -> list[RunWarning]:
        """The held warnings, emptied (said once, after the output)."""
        held, self.held = self.held, []
        return held


def _typed_if_ours(message: object) -> None:
    """With IMPORTPROF_TYPED_WARNINGS set (the tests set it), a plain string said from inside
    profiler/ is a TypeError: every warning importprof says is typed where it is said (a Said or a
    RunWarning, model/warnings.py). The variable's value, after `except:`, lists the modules
    (comma-separated) still allowed to say plain words. A library caller's plain string is
    never refused."""
    check = os.environ.get("IMPORTPROF_TYPED_WARNINGS", "")
    if not check or getattr(message, "kind", None) is not None:
        return
    caller = sys._getframe(2).f_globals.get("__name__", "")
    if not caller.startswith("profiler."):
        return
    if caller in check.partition("except:")[2].split(","):
        return
    raise TypeError(f"a plain-string warning said by {caller}: {message!r} (say it with its kind: model/words.py Said)")


def _stderr(text: str) -> None:
    """One `importprof: TEXT` line on stderr (none when there is no stderr: pythonw)."""
    if sys.stderr is None:
        return
    sys.stderr.write(f"importprof: {text}\n")
    sys.stderr.flush()
