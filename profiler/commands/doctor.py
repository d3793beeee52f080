"""`importprof doctor`: every start-up pathology importprof can measure, priced, with its fix."""

from __future__ import annotations

import typer

from profiler.commands._options import integer, IgnoreFailureOpt, OutputOpt, PythonOpt, format_opt
from profiler.commands._target import PythonTargetCommand

FORMATS = ("json",)


def register(app: typer.Typer) -> None:
    app.command(
        "doctor",
        cls=PythonTargetCommand,
        help=(
            "Find what slows this program's start-up and what each thing costs, costliest first, with the fix: "
            "modules compiled at every start (no .pyc), .pth files that run imports, failed file lookups per "
            "sys.path entry, lazy imports, packed in-memory resources, site, frozen modules off. "
            "Default target: -c pass."
        ),
    )(doctor)


def doctor(
    ctx: typer.Context,
    python: PythonOpt = None,
    runs: int = typer.Option(3, "--runs", "-r", metavar="N", parser=integer("--runs", 1), help="Profiled runs per measurement (imports --phases, site)."),
    timing_runs: int = typer.Option(10, "--timing-runs", metavar="N", parser=integer("--timing-runs", 1), help="Timed runs per command (start-up figures, eager vs lazy)."),
    lazy: bool = typer.Option(False, "--lazy", help="Kept for scripts: eager vs lazy imports are always timed now (the lazy finding is importprof lazy's measured saving, never an estimate)."),
    no_trace: bool = typer.Option(False, "--no-trace", help="Skip the strace run (no failed-lookups finding)."),
    verify: bool = typer.Option(False, "--verify", help="Apply each finding's fix in a scratch overlay (never your files) and time start-up with and without it: measured beside estimated."),
    ignore_failure: IgnoreFailureOpt = False,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, suggesting_ignore_failure
    from profiler.commands._target import target_of
    from profiler.render.console_doctor import render_doctor_table
    from profiler.compose.doctor import DoctorOptions, doctor as run_doctor

    check_outputs(output)
    from profiler.commands._options import interpreter_given, session_of

    opts = DoctorOptions(target=target_of(ctx), python=interpreter_given(ctx, python), runs=runs, timing_runs=timing_runs, lazy=lazy, trace=not no_trace,
                         ignore_failure=ignore_failure, verify=verify)
    with suggesting_ignore_failure(), Progress("measuring", session_of(ctx)):
        report = run_doctor(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_doctor_table)
