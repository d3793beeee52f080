"""`importprof pythons`: the interpreters found on this machine and what each can do."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import python_value, OutputOpt, TimeoutOpt, apply_timeout, format_opt


def register(app: typer.Typer) -> None:
    app.command(
        "pythons",
        help=(
            "List the Python interpreters found (pyenv, asdf, uv-managed, the system's python3.*, "
            "the active venv): path, version, implementation, --enable-shared, and which importprof "
            "commands and variants each supports (and why not). Any --python spec works here too: "
            "PATH, NAME, pyenv:3.12, pyenv:*, venv, all."
        ),
    )(pythons)


def pythons(
    ctx: typer.Context,
    python: Optional[List[str]] = typer.Option(
        None, "--python", parser=python_value, help="Interpreters to list (repeatable; PATH, NAME, pyenv:3.12, pyenv:*, venv, all). Default: all."
    ),
    fmt: format_opt("json") = None,
    output: OutputOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    from profiler.commands._common import check_outputs, deliver
    from profiler.render.console_pythons import render_pythons_table
    from profiler.workflows.pythons import pythons as run_pythons
    check_outputs(output)
    session = apply_timeout(ctx, timeout)
    report = run_pythons(python or None, session=session)
    deliver(report, fmt=fmt, output=output, table=render_pythons_table)
