"""`importprof imports`: per-module import times, median over runs, as a tree / top / groups,
or exported (json, speedscope, chrome, folded); `--budget MS` is a CI gate."""

from __future__ import annotations

from typing import List, Optional

import typer

FORMATS = ("json", "speedscope", "chrome", "folded")


def register(app: typer.Typer) -> None:
    app.command(
        "imports",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Per-module import times (-X importtime), median over --runs, as a tree, the top "
            "modules or groups; exports json, speedscope, chrome, folded. "
            "Target: -c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND... (default: -c pass)."
        ),
    )(imports)


def view_options(view: str, min_ms: float, top: int, filter_: Optional[str]):
    from profiler.errors import UsageError
    from profiler.render.console_imports import ImportsView

    if view not in ("tree", "top"):
        raise UsageError(f"unknown --view {view!r} (choose from: tree, top)")
    if min_ms < 0:
        raise UsageError("--min-ms cannot be negative")
    if top < 1:
        raise UsageError("--top must be at least 1")
    return ImportsView(view=view, min_ms=min_ms, top=top, filter=filter_)


def imports(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...] | -- COMMAND...]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (default: pass)."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    runs: int = typer.Option(5, "--runs", "-r", help="Measured runs (medians over them)."),
    warmup: int = typer.Option(1, "--warmup", "-w", help="Warm-up runs, not measured."),
    from_log: Optional[str] = typer.Option(None, "--from-log", help="Read a saved -X importtime log (FILE, or - for stdin) instead of running."),
    view: str = typer.Option("tree", "--view", help="tree (folds children under --min-ms) or top (top N by self and cumulative)."),
    min_ms: float = typer.Option(1.0, "--min-ms", help="Tree view: fold modules whose cumulative is under this."),
    top: int = typer.Option(20, "--top", help="Top view: how many modules."),
    group: Optional[str] = typer.Option(None, "--group", help="Also total by package, distribution or kind (builtin, frozen, stdlib, site-packages, local)."),
    filter_: Optional[str] = typer.Option(None, "--filter", help="Only modules whose name starts with PREFIX (the tree keeps their ancestors)."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json, speedscope, chrome, folded."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
    budget: Optional[float] = typer.Option(None, "--budget", help="Exit 1 when the total import time (Σ roots' cumulative, median) exceeds MS."),
    phases: bool = typer.Option(False, "--phases", help="Split each import into find / read / unmarshal / exec (+ compiled) from instrumented runs (columns; JSON keys find_us, read_us, unmarshal_us, exec_us, compiled)."),
    lazy_candidates: bool = typer.Option(False, "--lazy-candidates", help="List modules never called into after their import (candidates for a lazy import; a heuristic, see README)."),
    level: int = typer.Option(1, "--importtime-level", help="-X importtime=LEVEL (2 also prints cached imports on Python 3.14+).", hidden=True),
) -> None:
    import sys

    from profiler.commands._common import Progress, check_format, check_outputs, deliver, make_target, warn
    from profiler.errors import UsageError
    from profiler.render.console_imports import render_imports_table
    from profiler.workflows.imports import ImportsOptions, check_budget, imports as run_imports

    target = make_target(code, module, positional)
    if from_log is not None and (code is not None or module is not None or positional):
        raise UsageError("give either a target or --from-log, not both")
    if budget is not None and budget < 0:
        raise UsageError("--budget cannot be negative")
    v = view_options(view, min_ms, top, filter_)
    check_outputs(output)
    log_text = None
    if from_log == "-":
        log_text = sys.stdin.read()
    opts = ImportsOptions(
        target=target, python=python, runs=runs, warmup=warmup, from_log=from_log, log_text=log_text, group=group,
        level=level, phases=phases, lazy_candidates=lazy_candidates,
    )
    check_format(fmt, FORMATS)
    with Progress("importing") as bar:
        report = run_imports(opts, progress=bar.update, warn=warn)
    for w in report.warnings:
        warn(w)
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_imports_table(r, tty, v), formats=FORMATS)
    check_budget(report, budget)
