"""The invocation's run context as the commands reach it, and --timeout's value: a leaf the
other command helpers import (`_common`, `_options`, `_target`), so they import in one
direction only."""

from __future__ import annotations

from profiler.errors import UsageError
from profiler.runcontext import DEFAULT_TIMEOUT_S  # one default, kept by the run context

MAX_TIMEOUT_S = 1_000_000  # about 11.5 days: a longer limit is a typo, not a wish
TIMEOUT_HELP = (f"Stop one run of the program (or an interpreter asked for its facts) that takes longer "
                f"than SECONDS, with every process it started, and exit 3 naming the run (default "
                f"{DEFAULT_TIMEOUT_S:g}; at most {MAX_TIMEOUT_S}; 0: no limit).")


def timeout_seconds(value: str | None) -> float:
    """--timeout SECONDS: a number from 0 (no limit) to MAX_TIMEOUT_S, else a usage error."""
    import math

    try:
        seconds = float(value) if value is not None else math.nan
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_TIMEOUT_S:
        raise UsageError(f"--timeout needs SECONDS, a number from 0 (no limit) to {MAX_TIMEOUT_S}, not {value!r}")
    return seconds


def run_context(ctx):
    """The invocation's run context (profiler/runcontext.py), which main() hands every command
    as click's `ctx.obj`; a command run outside main() (a test's CliRunner) gets a fresh one."""
    from profiler.runcontext import RunContext

    root = ctx.find_root()
    if not isinstance(root.obj, RunContext):
        root.obj = RunContext()
    return root.obj


def apply_timeout(ctx, seconds: float | None):
    """The command's --timeout into the invocation's run context (None: the default); returns
    the context."""
    context = run_context(ctx)
    context.set_timeout(DEFAULT_TIMEOUT_S if seconds is None else seconds)
    return context
