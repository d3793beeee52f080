"""The steps every spelling of `importprof imports` (one capture or one log) ends in: measured,
its warnings said, delivered, the budget judged. Typer's callback (commands/imports.py) and the
fast path for `imports --from-log FILE [--format FMT]` (commands/__init__.py: fast_path, which
imports no typer) both call it, so the two cannot drift apart."""

from __future__ import annotations


def run_imports_command(session, opts, view, *, fmt=None, output=None, budget=None) -> None:
    from profiler.commands._common import Progress, deliver, suggesting_ignore_failure
    from profiler.render.console_imports import render_imports_table
    from profiler.workflows.imports import check_budget, imports as run_imports

    warn = session.warn
    with suggesting_ignore_failure(), Progress("importing", session):
        report = run_imports(opts, session=session)
    for w in report.warnings:
        warn(w)
    deliver(report, fmt=fmt, output=output, table=lambda r, tty: render_imports_table(r, tty, view))
    check_budget(report, budget)
