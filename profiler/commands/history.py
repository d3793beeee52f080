"""`importprof history [record|bisect|export|import]`: the start-up history kept by `check
--record` and `history record` in a SQLite store; each series' table, sparkline and change
points (the modules behind each step); backfilled commit by commit; merged across machines."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import OutputOpt, format_opt, integer, path_value
from profiler.render import formats_for

FORMATS = formats_for("history")
ACTIONS = ("show", "record", "bisect", "export", "import")


def register(app: typer.Typer) -> None:
    app.command(
        "history",
        help=(
            "The start-up history of the checks declared in pyproject.toml, commit by commit: each series (check x "
            "machine x interpreter) with a sparkline and its change points, each with the modules that explain it. "
            "`history record --commits A..B --check NAME` backfills it (each commit in a temporary git worktree), "
            "`check --record` adds what a check measured, `history bisect` narrows a change point between recorded "
            "commits, `history export` / `history import FILE...` merge stores (JSON lines). "
            "--format json writes importprof.history/1; -o history.html a page."
        ),
    )(history)


def history(
    ctx: typer.Context,
    action: Optional[str] = typer.Argument(None, metavar="[record|bisect|export|import]",
                                           help="What to do (default: show the history)."),
    files: Optional[List[str]] = typer.Argument(None, metavar="[FILE...]", help="history import: the export files to merge."),
    check: Optional[str] = typer.Option(None, "--check", metavar="NAME", help="The check ([tool.importprof.checks.NAME]); showing: only its series (default: every check)."),
    store: Optional[str] = typer.Option(None, "--history", metavar="PATH", parser=path_value("--history"),
                                        help="The store (default: [tool.importprof] history, else .importprof/history.sqlite beside pyproject.toml)."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", parser=path_value("--config"), help="The file declaring the checks (default: ./pyproject.toml)."),
    commits: Optional[str] = typer.Option(None, "--commits", metavar="A..B", help="history record: A and every commit after it up to B (first parents)."),
    every: int = typer.Option(1, "--every", metavar="N", parser=integer("--every", 1), help="history record: every Nth commit of the range (the first and last always)."),
    install: Optional[List[str]] = typer.Option(None, "--install", metavar="CMD", help="history record / bisect: the project's install step, run in each worktree before the check (repeatable; as bisect's)."),
    commit: Optional[str] = typer.Option(None, "--commit", metavar="REV", help="history bisect: the change point to narrow (default: every one with unrecorded commits before it)."),
    figure: Optional[str] = typer.Option(None, "--figure", metavar="FIGURE", help="What the series follow: wall_ms, import_ms or instructions (default: instructions where counted, else wall_ms)."),
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.errors import UsageError

    act = action or "show"
    if act not in ACTIONS:
        raise UsageError(f"unknown history action {act!r} (known: record, bisect, export, import; none: show the history)")
    if files and act != "import":
        raise UsageError(f"history {act} takes no FILE ({files[0]!r}): only history import does")
    given = {"--commits": commits is not None, "--every": every != 1, "--install": bool(install), "--commit": commit is not None,
             "--figure": figure is not None, "--format": fmt is not None}
    takes = {"show": {"--figure", "--format"}, "record": {"--commits", "--every", "--install"},
             "bisect": {"--install", "--commit", "--figure", "--format"}, "export": set(), "import": set()}[act]
    extra = [name for name, on in given.items() if on and name not in takes]
    if extra:
        raise UsageError(f"history {act} does not take {extra[0]}")
    if act in ("record", "bisect") and not check:
        raise UsageError(f"history {act} needs --check NAME")
    if act == "record" and not commits:
        raise UsageError("history record needs --commits A..B")
    if figure is not None and figure not in ("wall_ms", "import_ms", "instructions"):
        raise UsageError(f"unknown --figure {figure!r} (known: wall_ms, import_ms, instructions)")
    from profiler.commands._common import check_outputs

    check_outputs(output)
    if fmt is None and output is not None and output.lower().endswith((".html", ".htm")) and act in ("show", "bisect"):
        fmt = "html"
    {"show": _show, "record": _record, "bisect": _bisect, "export": _export, "import": _import}[act](
        ctx, check=check, store=store, config=config, commits=commits, every=every, install=install or [], commit=commit,
        figure=figure, fmt=fmt, output=output, files=files or [])


def _show(ctx, *, check, store, config, figure, fmt, output, **_) -> None:
    from profiler.commands._common import deliver
    from profiler.commands._options import session_of
    from profiler.compose.history import HistoryOptions, history as read_history
    from profiler.render.console_history import render_history_table

    report = read_history(HistoryOptions(check=check, store=store, config=config, figure=figure), session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_history_table)


def _bisect(ctx, *, check, store, config, install, commit, fmt, output, **_) -> None:
    from profiler.commands._common import Progress, deliver
    from profiler.commands._options import session_of
    from profiler.compose.history import BisectHistoryOptions, bisect_history
    from profiler.render.console_history import render_history_table

    opts = BisectHistoryOptions(check=check, commit=commit, install=install, store=store, config=config)
    with Progress("narrowing", session_of(ctx)):
        report = bisect_history(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_history_table)


def _record(ctx, *, check, store, config, commits, every, install, output, **_) -> None:
    from profiler import sinks
    from profiler.commands._common import Progress
    from profiler.commands._options import session_of
    from profiler.compose.history import RecordOptions, record_commits

    if output is not None:
        from profiler.errors import UsageError

        raise UsageError("history record writes to the store; read it with `importprof history`")
    opts = RecordOptions(commits=commits, check=check, every=every, install=install, store=store, config=config)
    with Progress("recording", session_of(ctx)):
        summary = record_commits(opts, session=session_of(ctx))
    errors = sum(1 for _, status, _ in summary.recorded if status == "error")
    lines = [f"recorded {len(summary.recorded)} of {len(summary.commits)} commits of the check {summary.check}"
             + (f" ({errors} could not be measured)" if errors else "")
             + (f"; {len(summary.skipped)} already recorded on this machine, skipped" if summary.skipped else "")
             + f" into {summary.store}"]
    for c, status, error in summary.recorded:
        lines.append(f"  {c[:10]} {status}" + (f": {error}" if error else ""))
    sinks.write_stdout("\n".join(lines) + "\n")


def _export(ctx, *, check, store, config, output, **_) -> None:
    from profiler import sinks
    from profiler.compose.history import HistoryOptions, export_history

    lines = export_history(HistoryOptions(check=check, store=store, config=config))
    sinks.emit(lines, output if output not in (None, "-") else None)


def _import(ctx, *, check, store, config, output, files, **_) -> None:
    from profiler import sinks
    from profiler.compose.history import HistoryOptions, import_history
    from profiler.errors import UsageError

    if output is not None:
        raise UsageError("history import writes to the store, not to -o")
    if check is not None:
        raise UsageError("history import does not take --check: it merges every run of the files")
    path, added, known = import_history(HistoryOptions(store=store, config=config), files)
    sinks.write_stdout(f"imported {added} check runs into {path}" + (f" ({known} already there)" if known else "") + "\n")
