"""`importprof why MODULE`: who pulls MODULE in — the import chain(s) with each hop's cost."""

from __future__ import annotations

from typing import List, Optional

import typer
from typer.core import TyperCommand


def register(app: typer.Typer) -> None:
    app.command(
        "why",
        cls=_OptionsAfterModule,
        context_settings={"allow_interspersed_args": False},
        help=(
            "Show the import chain(s) from the entry point to MODULE, each hop with its cost. "
            "Runs the target (-c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND...) or reads "
            "--report FILE / --from-log FILE. Exit 1 when MODULE is not imported."
        ),
    )(why)


class _OptionsAfterModule(TyperCommand):
    """`why MODULE [OPTIONS] [TARGET]`: with interspersed arguments off (a SCRIPT keeps its own
    options) click stops reading options at MODULE. So MODULE is moved behind the options that
    follow it (before a `--`), and click itself parses the lot."""

    def parse_args(self, ctx, args):
        at = self._first_positional(ctx, args)
        if at < len(args):
            module, rest = args[at], args[at + 1 :]
            k = self._first_positional(ctx, rest)
            options, dashdash = rest[:k], []
            if options[-1:] == ["--"]:  # `MODULE ... -- COMMAND`
                options, dashdash = options[:-1], ["--"]
            args = [*args[:at], *options, *dashdash, module, *rest[k:]]
        return super().parse_args(ctx, args)

    def _first_positional(self, ctx, args) -> int:
        """Index of the first argument click reads as positional (len(args) when none)."""
        parsed, _, _ = self.make_parser(ctx).parse_args(list(args))
        after = parsed.get("positional") or ()
        return len(args) - len(after) - (parsed.get("module_name") is not None)


def why(
    module_name: str = typer.Argument(..., metavar="MODULE", help="The module asked about (e.g. email.parser)."),
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...] | -- COMMAND...]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (default: pass)."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    report: Optional[str] = typer.Option(None, "--report", help="Read a saved `importprof imports` JSON report instead of running."),
    from_log: Optional[str] = typer.Option(None, "--from-log", help="Read a saved -X importtime log (FILE or -) instead of running."),
    runs: int = typer.Option(1, "--runs", "-r", help="Measured runs (medians over them)."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the json to FILE atomically."),
) -> None:
    import sys

    from profiler.commands._common import Progress, check_format, check_outputs, deliver, make_target, warn
    from profiler.errors import UsageError
    from profiler.render.console_imports import render_why_table
    from profiler.workflows.why import WhyOptions, why as run_why

    target = make_target(code, module, positional)
    has_target = code is not None or module is not None or bool(positional)
    if sum([has_target, report is not None, from_log is not None]) > 1:
        raise UsageError("give one of: a target, --report FILE, --from-log FILE")
    check_format(fmt, ("json",))
    check_outputs(output)
    log_text = sys.stdin.read() if from_log == "-" else None
    opts = WhyOptions(
        module=module_name, target=target, python=python, report=report, from_log=from_log, log_text=log_text, runs=runs
    )
    with Progress("importing") as bar:
        answer = run_why(opts, progress=bar.update, warn=warn)
    deliver(answer, fmt=fmt, output=output, table=render_why_table, formats=("json",))
