"""`importprof check [NAME...]`: the start-up checks declared in pyproject.toml
(`[tool.importprof.checks.NAME]`), a table; exit 1 when one fails; JSON and JUnit XML for CI."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import OutputOpt, format_opt, ms_opt, path_value
from profiler.render import formats_for

FORMATS = formats_for("check")  # from the render registry


def register(app: typer.Typer) -> None:
    app.command(
        "check",
        help=(
            "Run the start-up checks declared in pyproject.toml ([tool.importprof.checks.NAME]: budgets in ms or "
            "instructions, forbidden modules, per-module budgets, growth against a baseline), all or the NAMEs given. "
            "Exit 1 when a check fails; --format json or junit for CI."
        ),
    )(check)


def check(
    ctx: typer.Context,
    names: Optional[List[str]] = typer.Argument(None, metavar="NAME", help="Checks to run (default: every one declared)."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help="The file declaring the checks (default: ./pyproject.toml)."),
    update_baseline: bool = typer.Option(False, "--update-baseline", help="Accept the figures measured now: write each check's baseline file."),
    min_ms: ms_opt("--min-ms", "Fail on a module imported at start-up that the baseline did not import, costing at least MS (checks with a baseline; the key new_import_min_ms overrides).") = None,
    record: bool = typer.Option(False, "--record", help="Also add what was measured to the start-up history store (see `importprof history`), at the commit checked out."),
    history: Optional[str] = typer.Option(None, "--history", metavar="PATH", parser=path_value("--history"),
                                          help="--record's store (default: [tool.importprof] history, else .importprof/history.sqlite beside pyproject.toml)."),
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver
    from profiler.commands._options import session_of
    from profiler.render.console_check import render_check_table
    from profiler.compose.check import CheckOptions, check as run_check, exit_code, raise_for

    check_outputs(output)
    if history is not None and not record:
        from profiler.errors import UsageError

        raise UsageError("--history names --record's store: give --record too")
    store = None
    if record:  # where the runs go is settled before anything is measured
        from profiler.compose.history import open_store, store_path

        store = store_path(history, config)
        open_store(store, create=True).close()  # a corrupt or newer store is said now, not after the runs
    opts = CheckOptions(names=names or [], config=config, update_baseline=update_baseline, min_ms=min_ms)
    with Progress("checking", session_of(ctx)):
        report = run_check(opts, session=session_of(ctx))
    if store is not None:
        import os

        from profiler.compose.history import record_report

        record_report(report, store, os.getcwd(), session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_check_table)
    raise_for(report, exit_code(report))
