"""`importprof imports`: per-module import times, median over runs, as a tree / top / groups,
or exported (json, speedscope, chrome, folded); `--budget MS` is a CI gate."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import (
    FilterOpt, IgnoreFailureOpt, MinMsOpt, OutputOpt, PythonsOpt, TopOpt, ViewOpt, format_opt, integer, ms_opt, runs_opt, view_options,
    warmup_opt,
)
from profiler.render import formats_for
from profiler.commands._target import VS_HELP, TargetCommand

FORMATS = formats_for("imports")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command(
        "imports",
        cls=TargetCommand,
        help=(
            "Per-module import times (-X importtime), median over --runs, as a tree, the top "
            "modules or groups; exports json, speedscope, chrome, folded. A `-- COMMAND` that starts "
            "many Python processes gets a per-process summary."
        ),
    )(imports)


# `imports --from-log FILE`, alone or with `--format FMT`, is answered without typer by
# commands/__init__.py: _imports_from_log, which mirrors this body with every other option at its
# default: a step added here goes there too (tests/test_cli_startup.py compares both paths'
# output on real logs, in every format)
def imports(
    ctx: typer.Context,
    python: PythonsOpt = None,
    runs: runs_opt("Measured runs (medians over them).") = 5,
    warmup: warmup_opt(1) = 1,
    from_log: Optional[str] = typer.Option(None, "--from-log", metavar="FILE", help="Read a saved -X importtime log (FILE, or - for stdin) instead of running."),
    headers: str = typer.Option("processes", "--headers", metavar="WHAT", help="With --from-log, what each header line of the log starts: processes (of the one run the log is: a harness's log) or runs (of one program: a loop's runs saved to one file; medians over them)."),
    view: ViewOpt = "tree",
    min_ms: MinMsOpt = 1.0,
    top: TopOpt = 20,
    group: Optional[str] = typer.Option(None, "--group", metavar="BY", help="Also total by package, distribution or kind (builtin, frozen, stdlib, site-packages, local)."),
    filter_: FilterOpt = None,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
    ignore_failure: IgnoreFailureOpt = False,
    budget: ms_opt("--budget", "Exit 1 when the total import time (Σ roots' cumulative, median) exceeds MS.") = None,
    phases: bool = typer.Option(False, "--phases", help="Split each import into find / read / unmarshal / exec (+ compiled) from instrumented runs (columns; JSON keys find_us, read_us, unmarshal_us, exec_us, compiled)."),
    lazy_candidates: bool = typer.Option(False, "--lazy-candidates", help="List modules never called into after their import (candidates for a lazy import; a heuristic, see README)."),
    metric: Optional[List[str]] = typer.Option(None, "--metric", metavar="NAME", help="Extra metric: instructions (retired by the target and by the bare interpreter, counted --instruction-runs times with their range; perf counters, else valgrind: slow but noise-free)."),
    instruction_runs: int = typer.Option(3, "--instruction-runs", metavar="N", parser=integer("--instruction-runs", 1), help="With --metric instructions: counts of each command (median shown with their range)."),
    level: int = typer.Option(1, "--importtime-level", parser=integer("--importtime-level", 1, 2), help="-X importtime=LEVEL: 1, or 2 (also prints cached imports on Python 3.14+; CPython reserves other values).", hidden=True),
    statements: bool = typer.Option(False, "--statements", help="Import-time work inside module bodies: which top-level statements cost each module's self time (file:line, sampled in up to 3 more runs; JSON: each module's statements)."),
    vs: Optional[List[str]] = typer.Option(None, "--vs", metavar="TARGET", help=VS_HELP.replace(
        "in the same interleaved runs, as `hyperfine CMD1 CMD2`", "and diffed as `importprof diff` would (A's runs, then B's)"
        ).replace(" Ratios are against the main target.", " Two --python instead diff one target across interpreters.")),
) -> None:

    from profiler.commands._common import check_outputs
    from profiler.commands._target import has_target, target_of
    from profiler.errors import UsageError
    from profiler.commands._options import log_given, python_for, session_of
    from profiler.workflows.imports import ImportsOptions

    target = target_of(ctx)
    if from_log is not None and has_target(ctx):
        raise UsageError("give either a target or --from-log, not both")
    v = view_options(view, min_ms, top, filter_)
    check_outputs(output)
    from profiler.model.words import Group, Headers

    headers = Headers.parse(headers, "--headers")  # the words, parsed here once
    group = Group.parse(group, "--group") if group is not None else None

    log = log_given(from_log)
    pythons = list(python or [])
    if vs or len(pythons) > 1:  # A/B: two captures, one diff
        if from_log is not None:
            raise UsageError("--from-log reads one log: --vs and a second --python need runs (diff compares saved reports)")
        return _imports_ab(ctx, target, pythons, vs, fmt, output, top, dict(
            runs=runs, warmup=warmup, ignore_failure=ignore_failure, group=group, level=level))
    python = python_for(ctx, pythons[0] if pythons else None, target, runs=from_log is None)
    from profiler.model.words import Metric

    opts = ImportsOptions(
        target=target, python=python, runs=runs, warmup=warmup, log=log, headers=headers, group=group,
        level=level, phases=phases, lazy_candidates=lazy_candidates, ignore_failure=ignore_failure, statements=statements,
        metrics=Metric.parse_all(metric), instruction_runs=instruction_runs,
    )
    from profiler.commands._imports_run import run_imports_command

    run_imports_command(session_of(ctx), opts, v, fmt=fmt, output=output, budget=budget)


def _imports_ab(ctx, target, pythons, vs, fmt, output, top, common) -> None:
    """`imports --python A --python B TARGET` or `imports --vs TARGET2 TARGET`: the two captures
    diffed, shown as `importprof diff` shows two saved reports (json: the diff document)."""
    from profiler.commands._common import Progress, deliver, suggesting_ignore_failure
    from profiler.commands._target import versus_of
    from profiler.errors import UsageError
    from profiler.render.console_imports import render_diff_table
    from profiler.compose.diff import diff_live
    from profiler.compose.options_edge import check_two_captures, two_captures

    versus = versus_of(ctx, vs, bool(pythons), ctx.command_path)  # (a #! interpreter is not a given --python)
    check_two_captures(pythons, versus)
    if fmt not in (None, "json"):
        raise UsageError(f"--format {fmt} shows one capture; two captures give a diff (json)")
    from profiler.commands._options import python_for, session_of

    # each capture's interpreter, resolved once, here
    a, b = two_captures(target, pythons, versus, lambda python, t: python_for(ctx, python, t), **common)
    with suggesting_ignore_failure(), Progress("importing", session_of(ctx)):
        report = diff_live(a, b, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_diff_table(r, tty, top))
