"""`importprof pack`: collect what a target imports into PyOxidizer packed resources."""

from __future__ import annotations

from typing import Optional

import typer

from profiler.commands._options import path_value, PythonOpt, format_opt
from profiler.commands._target import PythonTargetCommand


def register(app: typer.Typer) -> None:
    app.command(
        "pack",
        cls=PythonTargetCommand,
        help=(
            "Pack what a target imports (stdlib, site-packages, its own modules) into packed "
            "resources (PyOxidizer's format; bytecode in memory, extensions as files) under -o DIR: "
            "DIR/in-memory and DIR/filesystem. A target, or --all-stdlib."
        ),
    )(pack)


def pack(
    ctx: typer.Context,
    all_stdlib: bool = typer.Option(False, "--all-stdlib", help="Pack what the import-stdlib workload imports (~540 stdlib modules)."),
    python: PythonOpt = None,
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="DIR", parser=path_value("-o"), help="Folder to write the packed resources (and pack.json) into."),
    force: bool = typer.Option(False, "--force", help="Pack into a folder importprof did not make that is not empty, replacing only importprof's own files in it."),
    fmt: format_opt("json") = None,
) -> None:
    from profiler.commands._common import deliver
    from profiler.commands._target import has_target, target_of
    from profiler.errors import UsageError
    from profiler.render.console_pack import render_pack_table
    from profiler.workflows.pack import PackOptions, pack as run_pack

    target = target_of(ctx) if has_target(ctx) else None
    if not output:
        raise UsageError("pack needs -o DIR")
    from profiler.sinks import check_output_dir, check_output_folder
    from profiler.workflows.pack import PACK_ENTRIES

    check_output_dir(output, "-o")
    check_output_folder(output, "-o", force=force, entries=PACK_ENTRIES)
    from profiler.commands._options import interpreter_given, session_of

    report = run_pack(PackOptions(out_dir=output, target=target, all_stdlib=all_stdlib, python=interpreter_given(ctx, python), force=force),
                      session=session_of(ctx))
    deliver(report, fmt=fmt, output=None, table=render_pack_table)
