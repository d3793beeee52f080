"""`importprof bisect --good REV --bad REV --check NAME`: the first commit that makes a declared
start-up check fail, in temporary git worktrees."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import OutputOpt, format_opt
from profiler.render import formats_for

FORMATS = formats_for("bisect")


def register(app: typer.Typer) -> None:
    app.command(
        "bisect",
        help=(
            "Find the first commit between --good and --bad that makes the check NAME (declared in pyproject.toml) "
            "fail: each commit tested in a temporary git worktree, after the --install steps; prints what it added "
            "(ms, instructions, the modules that appeared at start-up)."
        ),
    )(bisect)


def bisect(
    ctx: typer.Context,
    good: str = typer.Option(..., "--good", metavar="REV", help="A revision where the check passes."),
    bad: str = typer.Option(..., "--bad", metavar="REV", help="A later revision where it fails."),
    check: str = typer.Option(..., "--check", metavar="NAME", help="The check ([tool.importprof.checks.NAME]), as declared now."),
    install: Optional[List[str]] = typer.Option(None, "--install", metavar="CMD", help='The project\'s install step, run in each worktree before the check (repeatable, in order; split like a shell line, no shell runs it). Default: none, the worktree is the current directory of the target. E.g. --install "python3 -m venv .venv" --install ".venv/bin/pip install -e ." with python = ".venv/bin/python" in the check.'),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help="The file declaring the check (default: ./pyproject.toml)."),
    fmt: format_opt(*FORMATS) = None,
    output: OutputOpt = None,
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver
    from profiler.commands._options import session_of
    from profiler.render.console_bisect import render_bisect_table
    from profiler.compose.bisect import BisectOptions, bisect as run_bisect

    check_outputs(output)
    opts = BisectOptions(good=good, bad=bad, check=check, install=install or [], config=config)
    with Progress("bisecting", session_of(ctx)):
        report = run_bisect(opts, session=session_of(ctx))
    deliver(report, fmt=fmt, output=output, table=render_bisect_table)
