"""`importprof lazy`: eager vs lazy imports, measured, with the modules that must stay eager."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import choice, finite, path_value, integer, EngineOpt, IgnoreFailureOpt, TopOpt, OutputOpt, PythonOpt, format_opt, runs_opt, warmup_opt
from profiler.commands._target import PythonTargetCommand

FORMATS = ("json",)


def register(app: typer.Typer) -> None:
    app.command(
        "lazy",
        cls=PythonTargetCommand,
        help=(
            "What lazy imports would change: run the target eager (as is) and lazy (every import deferred until "
            "first use; -X lazy_imports=all on 3.15+), check the output stays identical (bisecting the smallest "
            "set of modules that must stay eager when it does not), then time both and show the import time "
            "avoided, per module and per import statement of the target."
        ),
    )(lazy)


def lazy(
    ctx: typer.Context,
    python: PythonOpt = None,
    keep_eager: Optional[List[str]] = typer.Option(
        None, "--keep-eager", metavar="MODULE[,MODULE...]",
        help="Modules kept eager from the start (repeatable or comma-separated); bisection adds what else must be.",
    ),
    runs: runs_opt("Timing runs per variant. Default: adaptive (at least 10, about 3 s per variant).") = None,
    warmup: warmup_opt(3) = 3,
    profile_runs: int = typer.Option(3, "--profile-runs", metavar="N", parser=integer("--profile-runs", 1), help="Eager -X importtime runs that price the avoided modules (medians; --apply judges each statement on its modules' lowest run)."),
    max_bisect_runs: int = typer.Option(60, "--max-bisect-runs", metavar="N", parser=integer("--max-bisect-runs", 1), help="At most N program runs to find the must-stay-eager set."),
    apply: Optional[str] = typer.Option(
        None, "--apply", metavar="DIR", parser=path_value("--apply"),
        help="Write the lazy imports the measurement justifies into the files under DIR (your own code), verify the "
             "output stays identical (bisecting back what does not), then show the program before and after.",
    ),
    style: str = typer.Option("lazy-modules", "--style", metavar="lazy-modules|keyword", parser=choice("lazy-modules", "keyword", what="--style"),
                              help="How --apply writes it: a __lazy_modules__ list (inert before 3.15) or the `lazy` keyword (requires-python >= 3.15)."),
    diff: bool = typer.Option(False, "--diff", help="With --apply: print the unified diff of the edit and write nothing."),
    filter_out: Optional[str] = typer.Option(
        None, "--filter-out", metavar="FILE", parser=path_value("--filter-out"),
        help="Instead of editing sources, write a module installing sys.set_lazy_imports_filter that keeps the must-stay-eager "
             "modules eager, for running the program with -X lazy_imports=all (3.15+).",
    ),
    verify_with: Optional[List[str]] = typer.Option(
        None, "--verify-with", metavar="CMD",
        help="Also check this command's output and exit code before and after (repeatable; {python} is replaced by each interpreter).",
    ),
    min_ms: float = typer.Option(1.0, "--min-ms", metavar="MS", parser=finite(0.0), help="With --apply: make a statement lazy only when it saves at least MS ms."),
    oldest_python: Optional[str] = typer.Option(
        None, "--oldest-python", metavar="PATH",
        help="With --apply: the oldest interpreter to prove the edit changes nothing on (default: the oldest pyenv one requires-python allows).",
    ),
    engine: EngineOpt = "builtin",
    top: TopOpt = 10,
    ignore_failure: IgnoreFailureOpt = False,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, showing_partial, suggesting_ignore_failure
    from profiler.commands._target import target_of
    from profiler.render.console_lazy import render_lazy_table
    from profiler.compose.lazy import LazyOptions, lazy as run_lazy

    from profiler.compose.options_edge import apply_options, keep_eager_words

    check_outputs(output)
    keep = keep_eager_words(keep_eager)
    from profiler.commands._options import interpreter_given, session_of

    from profiler.model.words import Engine

    opts = LazyOptions(
        target=target_of(ctx),
        python=interpreter_given(ctx, python),  # resolved once, here
        keep_eager=keep,
        runs=runs,
        warmup=warmup,
        profile_runs=profile_runs,
        max_bisect_runs=max_bisect_runs,
        engine=Engine.parse(engine),
        ignore_failure=ignore_failure,
    )

    if apply is not None or filter_out is not None or diff:  # adopting what it measured (lazy_apply)
        from profiler.render.console_lazy_apply import render_lazy_apply_diff, render_lazy_apply_table
        from profiler.compose.lazy_apply import lazy_apply

        aopts = apply_options(opts, apply=apply, style=style, diff=diff, filter_out=filter_out, verify_with=verify_with,
                              min_ms=min_ms, oldest_python=interpreter_given(ctx, oldest_python) if oldest_python else None,
                              runs=runs, profile_runs=profile_runs, max_bisect_runs=max_bisect_runs)

        def apply_table(report, tty):
            return render_lazy_apply_diff(report) if diff else render_lazy_apply_table(report, tty, top=top)

        with Progress("applying", session_of(ctx)):
            applied = lazy_apply(aopts, session=session_of(ctx))
        deliver(applied, fmt=fmt, output=output, table=apply_table)
        return

    def table(report, tty):
        return render_lazy_table(report, tty, top=top)

    with showing_partial(table), suggesting_ignore_failure(), Progress("measuring", session_of(ctx)):
        report = run_lazy(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=table)
