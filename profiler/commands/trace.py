"""`importprof trace`: the syscalls behind start-up and imports, per module."""

from __future__ import annotations

from typing import Optional

import typer

from profiler.commands._options import path_value, FlagsOpt, IgnoreFailureOpt, OutputOpt, PythonOpt, TopOpt, format_opt, variant_opt
from profiler.render import formats_for
from profiler.commands._target import TargetCommand

FORMATS = formats_for("trace")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command(
        "trace",
        cls=TargetCommand,
        help=(
            "Trace start-up with the real strace (-f -tt -T -y) and attribute every syscall to the "
            "module whose import made it: syscall counts, failed lookups, files opened, bytes read, "
            "a read-size histogram; several --variant side by side. A -- COMMAND (a test harness...): "
            "every Python process it starts, attributed, with the harness summary."
        ),
    )(trace)


def trace(
    ctx: typer.Context,
    python: PythonOpt = None,
    variant: variant_opt("Several give one table side by side. Default: default.") = None,
    flags: FlagsOpt = None,
    keep_log: Optional[str] = typer.Option(None, "--keep-log", metavar="FILE", parser=path_value("--keep-log"), help="Keep the strace log in FILE (several variants: FILE.<variant>.ext)."),
    from_log: Optional[str] = typer.Option(None, "--from-log", metavar="FILE", help="Summarize a saved strace log (FILE or - for standard input) instead of running anything (modules from importprof's markers, or inferred from the lookups of its Python processes)."),
    top: TopOpt = 20,
    ignore_failure: IgnoreFailureOpt = False,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, suggesting_ignore_failure
    from profiler.commands._target import python_as_given, target_of
    from profiler.commands._options import interpreter_given, log_given, session_of
    from profiler.workflows.trace import TraceOptions, trace as run_trace

    target = target_of(ctx)
    check_outputs(output, keep_log)
    if from_log is None and target.is_python:  # resolved once, here (a saved log needs none)
        python = interpreter_given(ctx, python)
    else:  # handed on as given (a SCRIPT's #! interpreter too): trace refuses one with a saved log
        python = python_as_given(ctx, python)
    opts = TraceOptions(
        target=target,
        python=python,
        variants=variant or [],
        flags=flags or [],
        keep_log=keep_log,
        from_log=log_given(from_log, pieces=True),  # read a piece at a time, stdin too
        ignore_failure=ignore_failure,
        call_args=fmt == "chrome",  # only chrome shows every call's arguments
    )
    with suggesting_ignore_failure(), Progress("tracing", session_of(ctx)):
        report = run_trace(opts, session=session_of(ctx))

    def table(rep, tty):
        from profiler.render.console_trace import render_trace_table

        return render_trace_table(rep, tty, top=top)

    deliver(report, fmt=fmt, output=output, table=table)
