"""The harness summary table (N Python processes, Σ import time, share of the wall) that
`startup`, `imports` and `trace` print above their own tables for a `-- COMMAND`."""

from __future__ import annotations

from profiler.model.harness import HarnessSummary
from profiler.render.console import new_table
from profiler.render.units import fmt_seconds

ARGV_WIDTH = 60


def harness_headline(h: HarnessSummary) -> str:
    share = f", {h.share:.0%} of the command's {fmt_seconds(h.command_wall_s)} wall time" if h.share is not None else ""
    return (f"{h.python_processes} Python processes (of {h.processes} processes): Σ import time "
            f"{fmt_seconds(h.imports_us / 1e6)}{share}; Σ their wall time (exec to exit) {fmt_seconds(h.python_wall_s)}")


def harness_table(h: HarnessSummary, tty: bool, top: int | None = None):
    """The per-process table (argv shortened; whole in JSON), costliest import time first."""
    import shlex

    t = new_table(tty, title="Python processes (one run under strace; its import times read 15-30% high, see README)")
    t.add_column("#", justify="right")
    t.add_column("parent", justify="right")
    t.add_column("argv")
    t.add_column("wall", justify="right")
    t.add_column("imports", justify="right")
    rows = sorted(h.per_process, key=lambda p: -(p.imports_us or -1))
    shown = rows if top is None else rows[:top]
    for p in shown:
        argv = shlex.join(p.argv)
        if len(argv) > ARGV_WIDTH:
            argv = argv[: ARGV_WIDTH - 1] + "…"
        t.add_row(str(p.index), "" if p.parent is None else str(p.parent), argv, fmt_seconds(p.wall_s),
                  fmt_seconds(p.imports_us / 1e6) if p.imports_us is not None else (p.note or "n/a"))
    if len(rows) > len(shown):
        t.add_row("", "", f"… {len(rows) - len(shown)} more", "", "")
    return t
