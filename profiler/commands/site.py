"""`importprof site`: what `site` costs and why (.pth files, sitecustomize, user site)."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "site",
        help=(
            "What `site` costs at start-up and why: each .pth file (time, the lines that run code, "
            "the modules they import), sitecustomize/usercustomize, the user site, sys.path entries added."
        ),
    )(site)


def site(
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    runs: int = typer.Option(3, "--runs", "-r", help="Instrumented starts; times are medians."),
    flags: Optional[List[str]] = typer.Option(None, "--flags", help='Extra interpreter flags, e.g. --flags="-I".'),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
) -> None:
    import shlex

    from profiler.commands._common import check_format, check_outputs, deliver
    from profiler.errors import UsageError
    from profiler.render.console_site import render_site_table
    from profiler.workflows.site import SiteOptions, site as run_site

    check_outputs(output)
    extra: list[str] = []
    for text in flags or []:
        try:
            extra.extend(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"cannot parse --flags {text!r}: {exc}") from None
    check_format(fmt, ("json",))
    report = run_site(SiteOptions(python=python, runs=runs, flags=extra))
    deliver(report, fmt=fmt, output=output, table=render_site_table, formats=("json",))
