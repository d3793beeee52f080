"""`importprof why MODULE`: who pulls MODULE in — the import chain(s) with each hop's cost."""

from __future__ import annotations

from typing import Optional

import typer

from profiler.commands._options import IgnoreFailureOpt, OutputOpt, PythonOpt, format_opt, runs_opt
from profiler.commands._target import TargetCommand


def register(app: typer.Typer) -> None:
    app.command(
        "why",
        cls=TargetCommand,
        help=(
            "Show the import chain(s) from the entry point to MODULE, each hop with its cost. "
            "Runs the target, or reads --report FILE / --from-log FILE. Exit 1 when MODULE is not imported."
        ),
    )(why)


def why(
    ctx: typer.Context,
    module_name: str = typer.Argument(..., metavar="MODULE", help="The module asked about (e.g. email.parser)."),
    python: PythonOpt = None,
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE", help="Read a saved `importprof imports` JSON report instead of running."),
    from_log: Optional[str] = typer.Option(None, "--from-log", metavar="FILE", help="Read a saved -X importtime log (FILE or -) instead of running."),
    runs: runs_opt("Measured runs (medians over them).") = 1,
    fmt: format_opt("json") = None,
    output: OutputOpt = None,
    all_: bool = typer.Option(False, "--all", help="Every module that imports MODULE, one chain each, shortest first (one more instrumented run)."),
    ignore_failure: IgnoreFailureOpt = False,
    statements: bool = typer.Option(False, "--statements", help="Also MODULE's costliest top-level statements: the import-time work inside its body (file:line, sampled in up to 3 more runs)."),
) -> None:

    from profiler.commands._common import Progress, check_outputs, deliver, suggesting_ignore_failure
    from profiler.commands._target import has_target, target_of
    from profiler.errors import UsageError
    from profiler.render.console_imports import why_table_pieces
    from profiler.commands._options import log_given, python_for, session_of
    from profiler.compose.why import WhyOptions, why as run_why

    if sum([has_target(ctx), report is not None, from_log is not None]) > 1:
        raise UsageError("give one of: a target, --report FILE, --from-log FILE")
    check_outputs(output)
    log = log_given(from_log)
    target = target_of(ctx)
    python = python_for(ctx, python, target, runs=from_log is None) if report is None else None  # a report runs nothing
    opts = WhyOptions(
        module=module_name, target=target, python=python, report=report, log=log, runs=runs, all=all_,
        ignore_failure=ignore_failure, statements=statements,
    )
    if statements and (report is not None or from_log is not None):
        raise UsageError("--statements runs the target: not with --report or --from-log")
    with suggesting_ignore_failure(), Progress("importing", session_of(ctx)):
        answer = run_why(opts, session=session_of(ctx))
    deliver(answer, fmt=fmt, output=output, table=why_table_pieces)  # a chain's table at a time
