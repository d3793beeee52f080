"""`importprof diff OLD.json NEW.json`: what changed between two imports reports; a CI gate."""

from __future__ import annotations

import typer

from typing import Optional

from profiler.commands._options import OutputOpt, TopOpt, finite, format_opt, ms_opt


def register(app: typer.Typer) -> None:
    app.command(
        "diff",
        help=(
            "Compare two `importprof imports` JSON reports: modules added and removed, changes "
            "sorted by impact, totals. --fail-over MS / --fail-over-pct PCT exit 1 when the total grew by more "
            "and the growth is significant (--any-change: significant or not)."
        ),
    )(diff)


def diff(
    old: str = typer.Argument(..., metavar="OLD.json"),
    new: str = typer.Argument(..., metavar="NEW.json"),
    fail_over: ms_opt("--fail-over", "Exit 1 when the total import time grew by more than MS.") = None,
    fail_over_pct: Optional[float] = typer.Option(None, "--fail-over-pct", metavar="PCT", parser=finite(0.0), help="Exit 1 when the total import time grew by more than PCT percent."),
    any_change: bool = typer.Option(False, "--any-change", help="With --fail-over/--fail-over-pct: fail on any growth over the threshold, even one within the runs' spread (by default only a significant growth fails; reports of fewer than 3 runs are not judged and fail on the growth alone)."),
    top: TopOpt = 25,
    fmt: format_opt("json") = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import check_outputs, deliver, info
    from profiler.render.console_imports import render_diff_table
    from profiler.compose.diff import DiffOptions, check_gate, diff as run_diff

    check_outputs(output)
    opts = DiffOptions(old=old, new=new, fail_over_ms=fail_over, fail_over_pct=fail_over_pct, any_change=any_change)
    report = run_diff(opts)
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_diff_table(r, tty, top))
    from profiler.compose.diff import gate_note

    note = gate_note(report, opts)
    if note:
        info(note)
    check_gate(report, opts)
