"""`importprof build`: the five oxidized variants of a program, one folder each."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import path_value, PythonOpt, format_opt
from profiler.commands._target import PythonTargetCommand


def register(app: typer.Typer) -> None:
    app.command(
        "build",
        cls=PythonTargetCommand,
        help=(
            "Build traditional, no-site, oxidized, filesystem and in-memory variants of SCRIPT or "
            "-m MODULE into -o DIR (default oxidized_builds/NAME), one folder each with a variant.json "
            "whose argv runs it; checks every variant behaves as traditional (exit code, stdout, stderr, "
            "the files the target names): one that cannot be built or differs is a failed row with why "
            "(exit 3 only when every variant but traditional fails). --pyoxidizer drives the real "
            "`pyoxidizer build` over pyoxidizer.bzl with --distribution ARCHIVE."
        ),
    )(build)


def build(
    ctx: typer.Context,
    python: PythonOpt = None,
    name: Optional[str] = typer.Option(None, "--name", metavar="NAME", help="Build name (default: the target's stem)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="DIR", parser=path_value("-o"), help="Output folder (default: oxidized_builds/NAME)."),
    force: bool = typer.Option(False, "--force", help="Build into a folder importprof did not make that is not empty, replacing only importprof's own files in it."),
    pyoxidizer: bool = typer.Option(False, "--pyoxidizer", help="Use the real PyOxidizer (pyoxidizer build --system-rust, pyoxidizer.bzl)."),
    distribution: Optional[str] = typer.Option(None, "--distribution", metavar="ARCHIVE", help="Local python-build-standalone 3.8-3.10 archive (.tar.zst / .tar.gz) for --pyoxidizer."),
    fmt: format_opt("json") = None,
    record_with: Optional[str] = typer.Option(None, "--record-with", metavar="CMD", help="Also pack the modules the program imports when CMD runs ({program} in CMD: the program, run with traditional; a test suite, a shell loop). --timeout limits that run (default 3600 s)."),
    variant: Optional[List[str]] = typer.Option(
        None, "--variant", metavar="NAME[,NAME...]",
        help="Variants to build (repeatable, comma-separated): traditional, no-site, oxidized, filesystem, in-memory, frozen. "
        "Default: every one this interpreter supports (traditional is always built).",
    ),
) -> None:
    from profiler.commands._common import deliver
    from profiler.commands._target import has_target, target_of
    from profiler.errors import UsageError
    from profiler.render.console_pack import render_build_table, render_pyoxidizer_build

    if not has_target(ctx):
        raise UsageError("build needs SCRIPT or -m MODULE")
    target = target_of(ctx)
    from profiler.commands._options import interpreter_given, session_of
    from profiler.sinks import check_output_dir, check_output_folder
    from profiler.compose.build import BUILD_ENTRIES

    check_output_dir(output, "-o")
    check_output_folder(output, "-o", force=force, entries=BUILD_ENTRIES)
    if pyoxidizer and record_with:
        raise UsageError("--record-with goes with importprof's own variants, not --pyoxidizer")
    if pyoxidizer and variant:
        raise UsageError("--variant picks importprof's own variants; --pyoxidizer builds pyoxidizer.bzl's five")
    if pyoxidizer:
        from profiler.workflows.pyoxidizer_build import PyOxidizerOptions, build_with_pyoxidizer

        built = build_with_pyoxidizer(
            PyOxidizerOptions(target=target, name=name, out_dir=output, distribution=distribution, force=force), session=session_of(ctx),
        )
        deliver(built, fmt=fmt, output=None, table=render_pyoxidizer_build)
        return
    if distribution:
        raise UsageError("--distribution goes with --pyoxidizer")
    from profiler.compose.build import BuildOptions, build as run_build

    from profiler.commands._target import timeout_given
    from profiler.compose.options_edge import harness_limit

    opts = BuildOptions(target=target, python=interpreter_given(ctx, python), name=name, out_dir=output,
                        variants=tuple(variant) if variant else None, force=force, record_with=record_with)
    # CMD is a test suite, as compare --harness's: its run's limit is an hour unless --timeout says
    with harness_limit(session_of(ctx), record_with, timeout_given(ctx)):
        report = run_build(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=None, table=render_build_table)
