"""`importprof build`: the five oxidized variants of a program, one folder each."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "build",
        context_settings={"allow_interspersed_args": False},
        help=(
            "Build traditional, no-site, oxidized, filesystem and in-memory variants of SCRIPT or "
            "-m MODULE into -o DIR (default oxidized_builds/NAME), one folder each with a variant.json "
            "whose argv runs it; checks every variant prints the same. --pyoxidizer drives the real "
            "`pyoxidizer build` over pyoxidizer.bzl with --distribution ARCHIVE."
        ),
    )(build)


def build(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...]]", show_default=False),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (also accepted)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    name: Optional[str] = typer.Option(None, "--name", help="Build name (default: the target's stem)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Output folder (default: oxidized_builds/NAME)."),
    pyoxidizer: bool = typer.Option(False, "--pyoxidizer", help="Use the real PyOxidizer (pyoxidizer build --system-rust, pyoxidizer.bzl)."),
    distribution: Optional[str] = typer.Option(None, "--distribution", help="Local python-build-standalone 3.8-3.10 archive (.tar.zst / .tar.gz) for --pyoxidizer."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json (the build report) to stdout."),
) -> None:
    from profiler.commands._common import deliver, info, make_target
    from profiler.errors import UsageError
    from profiler.render.console_pack import render_build_table, render_pyoxidizer_build

    if not (positional or code is not None or module is not None):
        raise UsageError("build needs SCRIPT or -m MODULE")
    target = make_target(code, module, positional)
    from profiler.sinks import check_output_dir

    check_output_dir(output, "-o")
    if pyoxidizer:
        from profiler.workflows.pyoxidizer_build import PyOxidizerOptions, build_with_pyoxidizer

        report = build_with_pyoxidizer(
            PyOxidizerOptions(target=target, name=name, out_dir=output, distribution=distribution), info=info
        )
        deliver(report, fmt=fmt, output=None, table=render_pyoxidizer_build, formats=("json",))
        return
    if distribution:
        raise UsageError("--distribution goes with --pyoxidizer")
    from profiler.workflows.build import BuildOptions, build as run_build

    report = run_build(BuildOptions(target=target, python=python, name=name, out_dir=output), info=info)
    deliver(report, fmt=fmt, output=None, table=render_build_table, formats=("json",))
