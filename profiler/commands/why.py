"""`importprof why MODULE`: who pulls MODULE in — the import chain(s) with each hop's cost."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "why",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Show the import chain(s) from the entry point to MODULE, each hop with its cost. "
            "Runs the target (-c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND...) or reads "
            "--report FILE / --from-log FILE. Exit 1 when MODULE is not imported."
        ),
    )(why)


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

    from profiler.commands._common import Progress, check_outputs, deliver, make_target, warn
    from profiler.errors import UsageError
    from profiler.render.console_imports import render_why_table
    from profiler.workflows.why import WhyOptions, why as run_why

    # `why MODULE --python P -c CODE`: options after MODULE reach us as positional arguments
    # (interspersed options are off so a SCRIPT's own options stay its own): take them back.
    opts_after, positional = _leading_options(list(positional or []))
    code = opts_after.get("code", code)
    module = opts_after.get("module", module)
    python = opts_after.get("python", python)
    report = opts_after.get("report", report)
    from_log = opts_after.get("from_log", from_log)
    fmt = opts_after.get("fmt", fmt)
    output = opts_after.get("output", output)
    if "runs" in opts_after:
        try:
            runs = int(opts_after["runs"])
        except ValueError:
            raise UsageError(f"--runs: {opts_after['runs']!r} is not a number") from None
    target = make_target(code, module, positional)
    has_target = code is not None or module is not None or bool(positional)
    if sum([has_target, report is not None, from_log is not None]) > 1:
        raise UsageError("give one of: a target, --report FILE, --from-log FILE")
    check_outputs(output)
    log_text = sys.stdin.read() if from_log == "-" else None
    opts = WhyOptions(
        module=module_name, target=target, python=python, report=report, from_log=from_log, log_text=log_text, runs=runs
    )
    with Progress("importing") as bar:
        answer = run_why(opts, progress=bar.update, warn=warn)
    deliver(answer, fmt=fmt, output=output, table=render_why_table, formats=("json",))


_OPTIONS = {
    "-c": "code", "--code": "code", "-m": "module", "--module": "module", "--python": "python",
    "--report": "report", "--from-log": "from_log", "-r": "runs", "--runs": "runs",
    "--format": "fmt", "-o": "output", "--output": "output",
}


def _leading_options(args: list) -> tuple[dict, list]:
    from profiler.commands._common import RAW_ARGS
    from profiler.errors import UsageError

    # what came after a bare `--` is a COMMAND: never read options from it
    after_dashdash = RAW_ARGS[RAW_ARGS.index("--") + 1 :] if "--" in RAW_ARGS else None
    found: dict = {}
    i = 0
    while i < len(args):
        if after_dashdash is not None and args[i:] == after_dashdash:
            break
        if args[i] == "--" and after_dashdash is not None and args[i + 1 :] == after_dashdash:
            i += 1  # click keeps a `--` that follows MODULE: the COMMAND starts after it
            break
        name, eq, value = args[i].partition("=")
        key = _OPTIONS.get(name)
        if key is None:
            break
        if not eq:
            if i + 1 >= len(args):
                raise UsageError(f"option {name} requires an argument")
            value = args[i + 1]
            i += 1
        found[key] = value
        i += 1
    return found, args[i:]
