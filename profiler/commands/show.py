"""`importprof show REPORT.json`: render a saved imports report again (any view or format)."""

from __future__ import annotations

import typer

from profiler.commands._options import FilterOpt, MinMsOpt, OutputOpt, TopOpt, ViewOpt, format_opt, view_options
from profiler.render import formats_for

FORMATS = formats_for("imports")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command("show", help="Render a saved `importprof imports` JSON report again (tree, top, or a --format).")(show)


def show(
    report_path: str = typer.Argument(..., metavar="REPORT.json", help="A report written by `importprof imports -o FILE`."),
    view: ViewOpt = "tree",
    min_ms: MinMsOpt = 1.0,
    top: TopOpt = 20,
    filter_: FilterOpt = None,
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import check_outputs, deliver
    from profiler.render.console_imports import render_imports_table
    from profiler.workflows.imports import load_report

    v = view_options(view, min_ms, top, filter_)
    check_outputs(output)
    report = load_report(report_path)
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_imports_table(r, tty, v))
