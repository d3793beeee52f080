"""`importprof pack`: collect what a target imports into PyOxidizer packed resources."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "pack",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Pack what a target imports (stdlib, site-packages, its own modules) into packed "
            "resources (PyOxidizer's format; bytecode in memory, extensions as files) under -o DIR: "
            "DIR/in-memory and DIR/filesystem. Target: -c CODE | -m MODULE | SCRIPT [ARGS...] | --all-stdlib."
        ),
    )(pack)


def pack(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...]]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    all_stdlib: bool = typer.Option(False, "--all-stdlib", help="Pack what the import-stdlib workload imports (~540 stdlib modules)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Folder to write the packed resources (and pack.json) into."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json (the pack report) to stdout."),
) -> None:
    from profiler.commands._common import deliver, info, make_target
    from profiler.errors import UsageError
    from profiler.render.console_pack import render_pack_table
    from profiler.workflows.pack import PackOptions, pack as run_pack

    target = None
    if positional or code is not None or module is not None:
        target = make_target(code, module, positional)
    if not output:
        raise UsageError("pack needs -o DIR")
    from profiler.sinks import check_output_dir

    check_output_dir(output, "-o")
    report = run_pack(PackOptions(out_dir=output, target=target, all_stdlib=all_stdlib, python=python), info=info)
    deliver(report, fmt=fmt, output=None, table=render_pack_table, formats=("json",))
