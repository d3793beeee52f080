"""The invocation's session as the commands reach it, and --timeout's value: a leaf the
other command helpers import (`_common`, `_options`, `_target`), so they import in one
direction only."""

from __future__ import annotations

from profiler.errors import UsageError
from profiler.session import DEFAULT_TIMEOUT_S

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


def session_of(ctx):
    """The invocation's session (profiler/session.py), which main() hands every command as
    click's `ctx.obj`; a command run outside main() (a test's CliRunner) gets a fresh one."""
    from profiler.session import Session

    root = ctx.find_root()
    if not isinstance(root.obj, Session):
        root.obj = Session()
    return root.obj


def apply_timeout(ctx, seconds: float | None):
    """The command's --timeout into the invocation's session (None: the default); returns
    the session."""
    session = session_of(ctx)
    session.set_timeout(DEFAULT_TIMEOUT_S if seconds is None else seconds)
    return session
