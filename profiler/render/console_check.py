"""`importprof check`: one row per check (status, start-up, instructions with their run-to-run
variation, what failed), then each failing rule on a line of its own with the import chain."""

from __future__ import annotations

from profiler.model.check import CheckReport, CheckResult
from profiler.render.console import new_table, render_tables
from profiler.render.text import shown_argv

_MARK = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}


def _wall(r: CheckResult) -> str:
    if r.wall_ms is None:
        return ""
    spread = r.wall_variation_pct
    return f"{r.wall_ms:.1f} ms" + (f" (range {spread:.1f} %)" if spread is not None else "")


def _instructions(r: CheckResult) -> str:
    if r.instructions is None:
        return ""
    spread = r.instructions_variation_pct
    return f"{r.instructions:,}" + (f" (range {spread:.2f} %)" if spread is not None else "")


def _what(r: CheckResult) -> str:
    if r.status == "error":
        return r.error or "could not run"
    bad = [f for f in r.findings if f.status == "fail"]
    if bad:
        return "; ".join(f.rule + (f" {f.module}" if f.module else "") for f in bad)
    n = sum(f.status == "pass" for f in r.findings)
    return "1 rule passes" if n == 1 else f"{n} rules pass"


def render_check_table(report: CheckReport, tty: bool) -> str:
    table = new_table(tty, title=f"importprof check ({report.config})" if report.config else "importprof check")
    for col, just in (("check", "left"), ("status", "left"), ("target", "left"), ("python", "left"),
                      ("start-up (median)", "right"), ("imports", "right"), ("instructions (median)", "right"), ("result", "left")):
        table.add_column(col, justify=just, no_wrap=not tty, overflow="fold")
    for r in report.results:
        table.add_row(r.name, _MARK.get(r.status, r.status), shown_argv(r.target, 40), r.python_version or "",
                      _wall(r), "" if r.import_ms is None else f"{r.import_ms:.1f} ms", _instructions(r), _what(r))
    parts: list = [table]
    for r in report.results:
        for f in r.findings:
            if f.status != "pass":
                parts.append(f"{r.name}: {f.status.upper()} {f.rule}: {f.message}")
    if any(r.instructions_runs for r in report.results):
        parts.append("range: (max - min) / median over the runs of that metric, run to run on this machine")
    for path in report.updated_baselines:
        parts.append(f"baseline written: {path}")
    n = len(report.results)
    failed = sum(r.status != "pass" for r in report.results)
    parts.append(f"{n - failed} of {n} checks passed" + (f", {failed} failed" if failed else ""))
    return render_tables(parts, tty)
