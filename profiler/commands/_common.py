"""What every command shares: output delivery, messages, progress, partial reports on Ctrl-C.
(The target grammar is in _target.py, the shared options in _options.py.)"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Sequence, TypeVar

R = TypeVar("R")  # a report, as its table renderer takes it


def error_line(message: str, detail: str | None = None) -> None:
    sys.stderr.write(f"importprof: error: {message}\n")
    if detail:
        for line in detail.splitlines():
            sys.stderr.write(f"  | {line}\n")
    sys.stderr.flush()


def warner(ctx) -> Callable[[str], None]:
    """The command's warn: the invocation's RunContext.warn (commands/_options.run_context).
    Each warning is said once per invocation; with --verbose (or IMPORTPROF_VERBOSE=1) it goes
    to stderr at once, otherwise main() holds it (the context's `held`) and sums it up in one
    line after the output (flush_warnings)."""
    from profiler.commands._context import run_context

    return run_context(ctx).warn


def set_verbose(ctx, on: bool = True) -> None:
    """--verbose: every warning on its own line as it arises (else one line after the output)."""
    from profiler.commands._context import run_context

    run_context(ctx).verbose = on


def flush_warnings(context) -> None:
    """The invocation's held warnings: one alone is printed whole; several are summed up in one
    line by kind (`3 warnings: 2 × the spread is too wide to trust; the machine is busy
    (--verbose shows each)`)."""
    held = context.take_held() if context is not None else []
    if not held:
        return
    if len(held) == 1:
        sys.stderr.write(f"importprof: warning: {held[0]}\n")
    else:
        from collections import Counter

        kinds = Counter(warning_kind(w) for w in held)
        # a kind said once is said with its own figures ("unavailable on 3.12", not "on N.N")
        once = {warning_kind(w): warning_gist(w) for w in held}
        text = "; ".join(f"{n} × {k}" if n > 1 else once[k] for k, n in kinds.most_common())
        sys.stderr.write(f"importprof: warning: {len(held)} warnings: {text} (--verbose shows each)\n")
    sys.stderr.flush()


def warning_kind(message: str) -> str:
    """What a warning says, without whose it is or its figures: `default @ 3.12.1: the spread
    is too wide to trust (stddev 63% ...)` → `the spread is too wide to trust`. A warning given
    its kind where it was said (model/words.py: Said) is not read again; the text of one that
    was not is (the same words)."""
    import re

    label = getattr(message, "label", None)
    if label:
        return label
    return re.sub(r"\d+(\.\d+)?", "N", _gist(message)).strip() or message


def warning_gist(message: str) -> str:
    """A warning's first clause with its own figures (what the summary shows for a kind said
    once): the gist given where it was said, else read from its text."""
    return getattr(message, "gist", "") or _gist(message)


def _gist(message: str) -> str:
    """A warning's first clause, without whose it is: `default @ 3.12.1: the spread is too wide
    to trust (stddev 63% ...)` → `the spread is too wide to trust`."""
    import re

    head, sep, rest = message.partition(": ")
    # `default @ 3.12.1: ...`, `isolated: ...`, `run 2: ...` name whose it is; `these documents
    # measure different targets: ...` is the warning itself
    who = (sep and len(head) <= 60 and "(" not in head and not head.startswith(("the ", "a ", "an "))
           and (len(head.split()) <= 3 or " @ " in head or " · " in head))
    text = rest if who else message
    text = re.split(r" \(|: |; ", text)[0]
    if who and text.startswith("failed"):
        text = f"{head} failed"  # which one failed is the news
    return text.strip() or message


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
    """Progress on stderr: a rich bar when stderr is a terminal; otherwise (a CI log, a file) at
    most one plain line per phase and never a count: `importprof: measuring: 2 commands, 10 runs
    each`. A workflow announces a phase with `update(0, 0, LABEL)` (its line); a counted update
    (`update(3, 40, "no-site")`) prints nothing of its own, unless no phase was announced: then
    the phase is the label's part before ": " (`imports: run 2` is the phase `imports`), or the
    command itself, and its line is said once. Lines start only once the command has run for a
    second (the last one held back until then), so quick commands stay silent."""

    QUIET_FOR_S = 1.0

    def __init__(self, description: str):
        self.description = description
        self._bar = None
        self._task = None
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
        return self

    def update(self, done: int, total: int, current: str = "") -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, description=f"{self.description} {current}")
        elif self._plain:
            self._plain_update(done, total, current.strip())

    def _plain_update(self, done: int, total: int, current: str) -> None:
        """An announcement is held until the next update: one that refines it (`imports`, then
        `imports: 10 runs`) takes its place, so a phase is one line; anything else says it."""
        if not total and not done:  # an announcement: a phase starts
            if not current or current in self._seen:
                return
            self._announced = True
            self._seen.update((current, current.split(": ", 1)[0]))
            if self._pending is not None and not current.startswith(self._pending + ": "):
                self._say(self._pending)
            self._pending = current
            return
        if self._pending is not None and self._past_quiet():
            self._say(self._pending)
            self._pending = None
        root = current.split(": ", 1)[0] if ": " in current else ""
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
        if self._bar is not None:
            self._bar.__exit__(*exc)
        elif self._pending is not None and exc[0] is None:
            self._say(self._pending)  # the last phase, when it reported no count (a quick command: nothing)
        return False
