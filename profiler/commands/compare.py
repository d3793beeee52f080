"""`importprof compare`: traditional / no-site / oxidized / filesystem / in-memory side by side."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import path_value, integer, ExportJsonOpt, ExportMarkdownOpt, IgnoreFailureOpt, OutputOpt, PythonOpt, format_opt, runs_opt, warmup_opt
from profiler.render import formats_for
from profiler.commands._target import PythonTargetCommand

FORMATS = formats_for("compare")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command(
        "compare",
        cls=PythonTargetCommand,
        help=(
            "Build a target's five variants (traditional, no-site, oxidized, filesystem, in-memory), "
            "time them interleaved and print PyOxidizer's table: CPU (user+sys), delta, % of "
            "traditional, time vs no-site, wall, peak RSS, syscalls (strace). A target, or "
            "--workload import-stdlib|hello|harness."
        ),
    )(compare)


def compare(
    ctx: typer.Context,
    workload: Optional[str] = typer.Option(None, "--workload", metavar="NAME", help="import-stdlib (~540 stdlib modules), hello (start and exit), harness (a CLI launched N times; default `importprof --help`)."),
    python: PythonOpt = None,
    runs: runs_opt("Runs per variant. Default: adaptive (at least 5, about 2 s per variant).") = None,
    warmup: warmup_opt(1) = None,
    launches: int = typer.Option(10, "--launches", metavar="N", parser=integer("--launches", 1), help="harness: launches of the CLI per measured run."),
    build_dir: Optional[str] = typer.Option(None, "--build-dir", metavar="DIR", parser=path_value("--build-dir"), help="Where to build the variants (default: under ~/.cache/importprof/oxidized/builds)."),
    force: bool = typer.Option(False, "--force", help="Build into a --build-dir importprof did not make that is not empty, replacing only importprof's own files in it."),
    syscalls: str = typer.Option("auto", "--syscalls", metavar="WHEN", help="Count syscalls with strace: auto (when strace works), on, off."),
    variant: Optional[List[str]] = typer.Option(
        None, "--variant", metavar="NAME[,NAME...]",
        help="Variants (repeatable, comma-separated): traditional, no-site, oxidized, filesystem, in-memory, frozen. "
        "Default: every one this interpreter supports (traditional is always built: the reference).",
    ),
    harness: Optional[str] = typer.Option(None, "--harness", metavar="CMD", help="Time CMD (a test suite, a build, a shell loop) once per variant per run instead of the target: {program} in CMD is each variant's program, named as the target. CMD is split as a shell would and run without one. Default 3 runs, no warm-up, --timeout 3600 for each whole run of CMD."),
    harness_shell: bool = typer.Option(False, "--harness-shell", help="Run --harness CMD with /bin/sh -c."),
    record_with: Optional[str] = typer.Option(None, "--record-with", metavar="CMD", help="--harness: also pack the modules the program imports when CMD (with {program}) runs."),
    ignore_failure: IgnoreFailureOpt = False,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
    export_json: ExportJsonOpt = None,
    export_markdown: ExportMarkdownOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver
    from profiler.commands._target import has_target, target_of
    from profiler.render.console_compare import render_compare_table
    from profiler.compose.compare import CompareOptions, compare as run_compare

    target = target_of(ctx) if has_target(ctx) else None
    check_outputs(output, export_json, export_markdown)
    from profiler.sinks import check_output_dir, check_output_folder
    from profiler.compose.build import BUILD_ENTRIES

    check_output_dir(build_dir, "--build-dir")
    check_output_folder(build_dir, "--build-dir", force=force, entries=BUILD_ENTRIES)
    from profiler.commands._options import interpreter_given, session_of

    from profiler.compose.options_edge import compare_python, harness_limit, syscalls_word
    from profiler.commands._target import python_as_given

    python = python_as_given(ctx, python)  # a SCRIPT's #! interpreter where no --python was given
    if compare_python(python, workload, harness):  # resolved once, here (no --python: the harness times the importprof it runs in)
        python = interpreter_given(ctx, python)
    opts = CompareOptions(target=target, workload=workload, python=python, runs=runs, warmup=warmup,
                          launches=launches, build_dir=build_dir, syscalls=syscalls_word(syscalls), variants=variant or None, force=force,
                          ignore_failure=ignore_failure, harness=harness, harness_shell=harness_shell, record_with=record_with)
    from profiler.commands._common import showing_partial, suggesting_ignore_failure

    from profiler.commands._target import timeout_given

    limit = harness_limit(session_of(ctx), harness, timeout_given(ctx))  # a test suite runs for minutes: an hour unless --timeout says
    with limit, showing_partial(render_compare_table), suggesting_ignore_failure(), Progress("measuring", session_of(ctx)):
        report = run_compare(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_compare_table,
            exports=((export_json, "json"), (export_markdown, "markdown")))
