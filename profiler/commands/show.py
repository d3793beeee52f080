"""`importprof show REPORT.json`: render a saved imports report again (any view or format)."""

from __future__ import annotations

from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    app.command("show", help="Render a saved `importprof imports` JSON report again (tree, top, or a --format).")(show)


def show(
    report_path: str = typer.Argument(..., metavar="REPORT.json", help="A report written by `importprof imports -o FILE`."),
    view: str = typer.Option("tree", "--view", help="tree or top."),
    min_ms: float = typer.Option(1.0, "--min-ms", help="Tree view: fold modules whose cumulative is under this."),
    top: int = typer.Option(20, "--top", help="Top view: how many modules."),
    filter_: Optional[str] = typer.Option(None, "--filter", help="Only modules whose name starts with PREFIX."),
    fmt: Optional[str] = typer.Option(None, "--format", help="Machine format: json, speedscope, chrome, folded."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the --format output (json by default) to FILE atomically."),
) -> None:
    from profiler.commands._common import check_outputs, deliver
    from profiler.commands.imports import FORMATS, view_options
    from profiler.render.console_imports import render_imports_table
    from profiler.workflows.imports import load_report

    v = view_options(view, min_ms, top, filter_)
    check_outputs(output)
    report = load_report(report_path)
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_imports_table(r, tty, v), formats=FORMATS)
