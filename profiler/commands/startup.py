"""`importprof startup`: time interpreter start-up in variants."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import (
    EngineOpt, ExportJsonOpt, ExportMarkdownOpt, FlagsOpt, IgnoreFailureOpt, OutputOpt, PythonsOpt, format_opt, integer, runs_opt, variant_opt,
    warmup_opt,
)
from profiler.render import formats_for
from profiler.commands._target import VS_HELP, TargetCommand
from profiler.model.variant import BUILTIN_VARIANTS, DEFAULT_STARTUP_VARIANTS

FORMATS = formats_for("startup")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command(
        "startup",
        cls=TargetCommand,
        help=(
            f"Time interpreter start-up in variants ({', '.join(BUILTIN_VARIANTS)}, custom "
            "--flags) with hyperfine-grade statistics. A variant that fails becomes a row marked failed."
        ),
    )(startup)


def startup(
    ctx: typer.Context,
    python: PythonsOpt = None,
    variant: variant_opt(f"Default: {','.join(DEFAULT_STARTUP_VARIANTS)}.") = None,
    flags: FlagsOpt = None,
    engine: EngineOpt = "builtin",
    runs: runs_opt("Runs per variant. Default: adaptive (at least 10, about 3 s per variant).") = None,
    warmup: warmup_opt(3) = 3,
    import_: Optional[List[str]] = typer.Option(None, "--import", metavar="MODULE", help='Also measure the cost of `import MODULE` (-c "import MODULE" minus -c pass) per variant (repeatable).'),
    metric: Optional[List[str]] = typer.Option(None, "--metric", metavar="NAME", help="Extra metric: instructions (perf counters, else valgrind; slow but noise-free)."),
    instruction_runs: int = typer.Option(3, "--instruction-runs", metavar="N", parser=integer("--instruction-runs", 1), help="With --metric instructions: counts per command (the median is shown with their range, the metric's own run-to-run variation)."),
    reference: Optional[str] = typer.Option(None, "--reference", metavar="NAME", help="Variant the ratios are against (default: the first)."),
    ignore_failure: IgnoreFailureOpt = False,
    vs: Optional[List[str]] = typer.Option(None, "--vs", metavar="TARGET", help=VS_HELP),
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
    export_json: ExportJsonOpt = None,
    export_markdown: ExportMarkdownOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, showing_partial, suggesting_ignore_failure
    from profiler.commands._target import target_of, versus_of
    from profiler.render.console_startup import render_startup_table
    from profiler.compose.startup import StartupOptions, startup as run_startup

    from profiler.commands._options import interpreter_given, interpreters_given, session_of

    from profiler.model.words import Engine, Metric

    check_outputs(output, export_json, export_markdown)
    engine_word, metrics = Engine.parse(engine), Metric.parse_all(metric)  # the words, parsed here once
    target = target_of(ctx)
    versus = versus_of(ctx, vs, bool(python), ctx.command_path)  # (a #! interpreter is not a given --python)
    # the interpreters, resolved once, here: --python's (where a Python target runs on them) and
    # each --vs SCRIPT's own #! interpreter
    if target.is_python or any(t.is_python and not p for t, p in versus):
        python = interpreters_given(ctx, python)
    versus = [(t, interpreter_given(ctx, p) if p else None) for t, p in versus]
    opts = StartupOptions(
        target=target,
        pythons=python or [None],
        variants=variant or [],
        flags=flags or [],
        engine=engine_word,
        runs=runs,
        warmup=warmup,
        imports=import_ or [],
        metrics=metrics,
        instruction_runs=instruction_runs,
        reference=reference,
        ignore_failure=ignore_failure,
        versus=versus,
    )
    with showing_partial(render_startup_table), suggesting_ignore_failure(), Progress("measuring", session_of(ctx)):
        report = run_startup(opts, session=session_of(ctx))
    deliver(
        report,
        fmt=fmt,
        output=output,
        table=render_startup_table,
        exports=((export_json, "json"), (export_markdown, "markdown")),
    )
