"""`importprof site`: what `site` costs and why (.pth files, sitecustomize, user site)."""

from __future__ import annotations

import typer

from profiler.commands._options import FlagsOpt, OutputOpt, PythonOpt, TimeoutOpt, apply_timeout, format_opt, interpreter_given, runs_opt


def register(app: typer.Typer) -> None:
    app.command(
        "site",
        help=(
            "What `site` costs at start-up and why: each .pth file (time, the lines that run code, "
            "the modules they import), sitecustomize/usercustomize, the user site, sys.path entries added."
        ),
    )(site)


def site(
    ctx: typer.Context,
    python: PythonOpt = None,
    runs: runs_opt("Instrumented starts; times are medians.") = 3,
    flags: FlagsOpt = None,
    fmt: format_opt("json") = None,
    output: OutputOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    import shlex

    from profiler.commands._common import check_outputs, deliver
    from profiler.errors import UsageError
    from profiler.render.console_site import render_site_table
    from profiler.workflows.site import SiteOptions, site as run_site

    check_outputs(output)
    session = apply_timeout(ctx, timeout)
    extra: list[str] = []
    for text in flags or []:
        try:
            extra.extend(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"cannot parse --flags {text!r}: {exc}") from None
    # resolved once, here: the workflow checks it can serve `site`
    report = run_site(SiteOptions(python=interpreter_given(ctx, python), runs=runs, flags=extra), session=session)
    deliver(report, fmt=fmt, output=output, table=render_site_table)
