"""`importprof startup`: time interpreter start-up in variants."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "startup",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Time interpreter start-up in variants (default, no-site, isolated, no-frozen, "
            "cold-pyc, custom --flags) with hyperfine-grade statistics. "
            "Target: -c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND... (default: -c pass)."
        ),
    )(startup)


def startup(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...] | -- COMMAND...]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (default: pass)."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    python: Optional[List[str]] = typer.Option(None, "--python", help="Interpreter (repeatable to compare). Default: python3 on PATH, shims resolved."),
    variant: Optional[List[str]] = typer.Option(None, "--variant", help="Variants, repeatable or comma-separated: default,no-site,isolated,no-frozen,cold-pyc. Default: default,no-site,isolated,no-frozen."),
    flags: Optional[List[str]] = typer.Option(None, "--flags", help='A custom variant named by its flags, e.g. --flags="-X dev" (repeatable).'),
    engine: str = typer.Option("builtin", "--engine", help="builtin (interleaved runs, wait4 rusage) or hyperfine (drives the real hyperfine -N)."),
    runs: Optional[int] = typer.Option(None, "--runs", "-r", help="Runs per variant. Default: adaptive (at least 10, about 3 s per variant)."),
    warmup: int = typer.Option(3, "--warmup", "-w", help="Warm-up runs per variant, not measured."),
    import_: Optional[List[str]] = typer.Option(None, "--import", help='Also measure the cost of `import X` (-c "import X" minus -c pass) per variant (repeatable).'),
    metric: Optional[List[str]] = typer.Option(None, "--metric", help="Extra metric: instructions (perf counters, else valgrind; slow but noise-free)."),
    reference: Optional[str] = typer.Option(None, "--reference", help="Variant to compare against (default: the first)."),
    ignore_failure: bool = typer.Option(False, "--ignore-failure", "-i", help="Record non-zero exit codes and go on."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json, markdown."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
    export_json: Optional[str] = typer.Option(None, "--export-json", help="Write a hyperfine-compatible JSON file (importprof.startup/1)."),
    export_markdown: Optional[str] = typer.Option(None, "--export-markdown", help="Write hyperfine's markdown table."),
) -> None:
    from profiler.commands._common import ON_INTERRUPT, Progress, check_format, check_outputs, deliver, make_target, warn
    from profiler.errors import TargetFailed
    from profiler.render.console_startup import render_startup_table
    from profiler.workflows.startup import StartupOptions, startup as run_startup

    target = make_target(code, module, positional)
    check_format(fmt, ("json", "markdown"))
    check_outputs(output, export_json, export_markdown)
    opts = StartupOptions(
        target=target,
        pythons=python or [None],
        variants=variant or [],
        flags=flags or [],
        engine=engine,
        runs=runs,
        warmup=warmup,
        imports=import_ or [],
        metrics=metric or [],
        reference=reference,
        ignore_failure=ignore_failure,
    )

    def table(report, tty):
        return render_startup_table(report, tty)

    ON_INTERRUPT.append(lambda partial: __import__("sys").stdout.write(table(partial, False)))
    with Progress("measuring") as bar:
        try:
            report = run_startup(opts, progress=bar.update, warn=warn)
        except TargetFailed as exc:
            if engine != "builtin":
                raise  # hyperfine's own message already names -i/--ignore-failure
            raise TargetFailed(f"{exc.message}; use --ignore-failure to record it and go on", detail=exc.detail) from None
    deliver(
        report,
        fmt=fmt,
        output=output,
        table=table,
        formats=("json", "markdown"),
        exports=((export_json, "json"), (export_markdown, "markdown")),
    )

