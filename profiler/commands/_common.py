"""What every command shares: output delivery, messages, progress, partial reports on Ctrl-C.
(The target grammar is in _target.py, the shared options in _options.py.)"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

if TYPE_CHECKING:
    from profiler.session import Phase, Session

R = TypeVar("R")  # a report, as its table renderer takes it


def error_line(message: str, detail: str | None = None) -> None:
    sys.stderr.write(f"importprof: error: {message}\n")
    if detail:
        for line in detail.splitlines():
            sys.stderr.write(f"  | {line}\n")
    sys.stderr.flush()


def warner(ctx) -> Callable[[str], None]:
    """The command's warn: the invocation's Session.warn (commands/_context.session_of)."""
    from profiler.commands._context import session_of

    return session_of(ctx).warn


def set_verbose(ctx, on: bool = True) -> None:
    """--verbose: every warning on its own line as it arises (else one line after the output)."""
    from profiler.commands._context import session_of

    session_of(ctx).verbose = on


def flush_warnings(session) -> None:
    """The invocation's held warnings (typed: model/warnings.py RunWarning): one alone is printed
    whole; several are summed up in one line by kind (`3 warnings: 2 × the spread is too wide to
    trust; the machine is busy (--verbose shows each)`)."""
    held = session.take_held() if session is not None else []
    if not held:
        return
    if len(held) == 1:
        sys.stderr.write(f"importprof: warning: {held[0].text}\n")
    else:
        from collections import Counter

        kinds = Counter(w.label for w in held)
        # a kind said once is said with its own figures ("unavailable on 3.12", not "on N.N")
        once = {w.label: w.figures for w in held}
        text = "; ".join(f"{n} × {k}" if n > 1 else once[k] for k, n in kinds.most_common())
        sys.stderr.write(f"importprof: warning: {len(held)} warnings: {text} (--verbose shows each)\n")
    sys.stderr.flush()


def info(message: str) -> None:
    sys.stderr.write(f"importprof: {message}\n")
    sys.stderr.flush()


def stdout_is_tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def deliver(
    report: R,
    *,
    fmt: str | None,
    output: str | None,
    table: Callable[[R, bool], str],
    exports: Sequence[tuple[str | None, str]] = (),
) -> None:
    """ARCHITECTURE.md's output rules: a table on stdout by default; `--format` picks a machine
    format; `-o FILE` writes it atomically (json without --format); `--format` without `-o`
    goes to stdout with no table. `exports` are extra (path, format) files (--export-json...).
    The format was checked by the parser (commands/_options.format_opt), before anything ran."""
    from profiler import sinks
    from profiler.render import get_renderer

    for path, efmt in exports:
        if path:
            sinks.emit(get_renderer(efmt)(report), path)
    if output is not None and output != "-":  # the format's pieces written as they are made (render/__init__.py)
        sinks.emit(get_renderer(fmt or "json", chunks=True)(report), output)
        sinks.write_stdout(table(report, stdout_is_tty()))
    elif fmt is not None or output == "-":
        sinks.emit(get_renderer(fmt or "json", chunks=True)(report), None)
    else:
        sinks.write_stdout(table(report, stdout_is_tty()))


@contextmanager
def showing_partial(table: Callable[[Any, bool], str]):  # the partial report the Interrupted error holds
    """On Ctrl-C, print what was measured so far (the Interrupted error's partial report) with
    `table`, then let the one-line error and exit 130 follow."""
    from profiler.errors import Interrupted

    try:
        yield
    except Interrupted as exc:
        if exc.partial is not None:
            try:
                sys.stdout.write(table(exc.partial, False))
                sys.stdout.flush()
            except Exception:  # partial output is best effort; the exit line still comes
                pass
        raise


@contextmanager
def suggesting_ignore_failure():
    """In a command that has --ignore-failure: a target that only exited non-zero (which a test
    suite or a linter does on purpose) gets the hint; a crash or a time limit does not."""
    from profiler.errors import TargetFailed

    try:
        yield
    except TargetFailed as exc:
        if not exc.ignorable:
            raise
        raise TargetFailed(f"{exc.message}; if it exits non-zero on purpose, --ignore-failure measures it anyway",
                           detail=exc.detail) from None


def check_outputs(*paths: str | None) -> None:
    from profiler import sinks

    for p in paths:
        sinks.check_writable(p)


class Progress:
    """Progress on stderr, the session's progress display while the command runs (`with
    Progress("measuring", session)`): a rich bar when stderr is a terminal; otherwise (a CI log,
    a file) at most one plain line per phase and never a count: `importprof: measuring: 2
    commands, 10 runs each`. A workflow announces a phase with `session.progress(Phase(LABEL))`
    (its line); a counted phase (`Phase("no-site", done=3, total=40)`) prints nothing of its
    own, unless no phase was announced: then the phase is its name (`Phase("imports", "run 2",
    2, 10)` is the phase `imports`), or the command itself, and its line is said once. Lines
    start only once the command has run for a second (the last one held back until then), so
    quick commands stay silent."""

    QUIET_FOR_S = 1.0

    def __init__(self, description: str, session: Session):
        self.description = description
        self.session = session
        self._outer: Callable[[Phase], None] | None = None
        self._bar: Any = None
        self._task: Any = None
        self._plain = False
        self._seen: set[str] = set()
        self._announced = False
        self._pending: str | None = None  # the label of a line held back
        self._start = 0.0

    def __enter__(self):
        import time

        self._start = time.monotonic()
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.description, total=None)
        else:
            self._plain = True
        self._outer, self.session.bar = self.session.bar, self.update
        return self

    def update(self, phase: Phase) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=phase.done, total=phase.total, description=f"{self.description} {phase.label}")
        elif self._plain:
            self._plain_update(phase)

    def _plain_update(self, phase: Phase) -> None:
        """An announcement is held until the next update: one that refines it (`imports`, then
        `imports: 10 runs`) takes its place, so a phase is one line; anything else says it."""
        current = phase.label.strip()
        if phase.announces:  # a phase starts
            if not current or current in self._seen:
                return
            self._announced = True
            self._seen.update((current, phase.name.strip() if phase.detail else current))
            if self._pending is not None and not current.startswith(self._pending + ": "):
                self._say(self._pending)
            self._pending = current
            return
        if self._pending is not None and self._past_quiet():
            self._say(self._pending)
            self._pending = None
        root = phase.name.strip() if phase.detail else ""
        if (not root and self._announced) or root in self._seen:
            return
        self._seen.add(root)
        if self._past_quiet():
            self._say(root)
        else:
            self._pending = root  # said later if the command is still running

    def _past_quiet(self) -> bool:
        import time

        return time.monotonic() - self._start >= self.QUIET_FOR_S

    def _say(self, label: str) -> None:
        """One line (`importprof: measuring: LABEL`), once the command has run QUIET_FOR_S."""
        if not self._past_quiet():
            return
        try:
            sys.stderr.write(f"importprof: {self.description}{': ' + label if label else ''}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    def __exit__(self, *exc):
        self.session.bar = self._outer
        if self._bar is not None:
            self._bar.__exit__(*exc)
        elif self._pending is not None and exc[0] is None:
            self._say(self._pending)  # the last phase, when it reported no count (a quick command: nothing)
        return False
