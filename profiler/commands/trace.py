"""`importprof trace`: the syscalls behind start-up and imports, per module."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "trace",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Trace start-up with the real strace (-f -tt -T -y) and attribute every syscall to the "
            "module whose import made it: syscall counts, failed lookups, files opened, bytes read, "
            "a read-size histogram; several --variant side by side. "
            "Target: -c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND... (default: -c pass)."
        ),
    )(trace)


def trace(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...] | -- COMMAND...]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (default: pass)."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    variant: Optional[List[str]] = typer.Option(None, "--variant", help="Variants, repeatable or comma-separated: default,no-site,isolated,no-frozen,cold-pyc. Several give one table side by side. Default: default."),
    flags: Optional[List[str]] = typer.Option(None, "--flags", help='A custom variant named by its flags, e.g. --flags="-X dev" (repeatable).'),
    keep_log: Optional[str] = typer.Option(None, "--keep-log", help="Keep the strace log in FILE (several variants: FILE.<variant>.ext)."),
    from_log: Optional[str] = typer.Option(None, "--from-log", help="Summarize a saved strace log instead of running anything (modules only if it has importprof's markers)."),
    top: int = typer.Option(20, "--top", help="Rows per table."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json (importprof.trace/1), chrome (trace-event timeline)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
) -> None:
    from profiler.commands._common import Progress, check_format, check_outputs, deliver, make_target, warn
    from profiler.errors import UsageError
    from profiler.workflows.trace import TraceOptions, trace as run_trace

    if top < 1:
        raise UsageError("--top must be at least 1")
    target = make_target(code, module, positional)
    check_format(fmt, ("json", "chrome"))
    check_outputs(output, keep_log)
    opts = TraceOptions(
        target=target,
        python=python,
        variants=variant or [],
        flags=flags or [],
        keep_log=keep_log,
        from_log=from_log,
    )
    with Progress("tracing") as bar:
        report = run_trace(opts, warn=warn, progress=bar.update)

    def table(rep, tty):
        from profiler.render.console_trace import render_trace_table

        return render_trace_table(rep, tty, top=top)

    deliver(report, fmt=fmt, output=output, table=table, formats=("json", "chrome"))
