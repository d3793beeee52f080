"""`importprof compare`: traditional / no-site / oxidized / filesystem / in-memory side by side."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "compare",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Build a target's five variants (traditional, no-site, oxidized, filesystem, in-memory), "
            "time them interleaved and print PyOxidizer's table: CPU (user+sys), delta, % of "
            "traditional, speed vs no-site, wall, peak RSS, syscalls (strace). "
            "Target: -c CODE | -m MODULE | SCRIPT [ARGS...] | --workload import-stdlib|hello|harness."
        ),
    )(compare)


def compare(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...]]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    workload: Optional[str] = typer.Option(None, "--workload", help="import-stdlib (~540 stdlib modules), hello (start and exit), harness (a CLI launched N times; default `importprof --help`)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH (harness: importprof's own venv)."),
    runs: Optional[int] = typer.Option(None, "--runs", "-r", help="Runs per variant. Default: adaptive (at least 5, about 2 s per variant)."),
    warmup: int = typer.Option(1, "--warmup", "-w", help="Warm-up runs per variant, not measured."),
    launches: int = typer.Option(10, "--launches", help="harness: launches of the CLI per measured run."),
    build_dir: Optional[str] = typer.Option(None, "--build-dir", help="Where to build the variants (default: under ~/.cache/importprof/oxidized/builds)."),
    syscalls: str = typer.Option("auto", "--syscalls", help="Count syscalls with strace: auto (when strace works), on, off."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json, markdown."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
    export_json: Optional[str] = typer.Option(None, "--export-json", help="Write the JSON report (importprof.compare/1, hyperfine-shaped results)."),
    export_markdown: Optional[str] = typer.Option(None, "--export-markdown", help="Write hyperfine's markdown table."),
) -> None:
    from profiler.commands._common import Progress, check_format, check_outputs, deliver, info, make_target, warn
    from profiler.render.console_compare import render_compare_table
    from profiler.workflows.compare import CompareOptions, compare as run_compare

    target = None
    if positional or code is not None or module is not None:
        target = make_target(code, module, positional)
    check_format(fmt, ("json", "markdown"))
    check_outputs(output, export_json, export_markdown)
    from profiler.sinks import check_output_dir

    check_output_dir(build_dir, "--build-dir")
    opts = CompareOptions(target=target, workload=workload, python=python, runs=runs, warmup=warmup,
                          launches=launches, build_dir=build_dir, syscalls=syscalls)
    with Progress("measuring") as bar:
        report = run_compare(opts, progress=bar.update, warn=warn, info=info)
    deliver(report, fmt=fmt, output=output, table=render_compare_table, formats=("json", "markdown"),
            exports=((export_json, "json"), (export_markdown, "markdown")))
