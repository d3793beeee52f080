"""`importprof bisect`: the first bad commit, what it added, and every commit tested."""

from __future__ import annotations

from profiler.model.bisect import BisectReport
from profiler.render.console import new_table, render_tables


def _delta(v: float | None, unit: str, digits: int = 1) -> str:
    if v is None:
        return ""
    return f"{v:+,.{digits}f}{unit}"


def _ms(v: float | None) -> str:
    return "" if v is None else f"{v:.1f} ms"


def render_bisect_table(report: BisectReport, tty: bool) -> str:
    fb, lg = report.first_bad, report.last_good
    parts: list = [f"first bad commit: {fb.commit} {fb.subject}",
                   f"  after {lg.commit[:10]} {lg.subject} (passes)"]
    added = []
    if report.added("wall_ms") is not None:
        added.append(f"start-up {_delta(report.added('wall_ms'), ' ms')} ({_ms(lg.wall_ms)} -> {_ms(fb.wall_ms)})")
    if report.added("import_ms") is not None:
        added.append(f"imports {_delta(report.added('import_ms'), ' ms')}")
    if report.added("instructions") is not None:
        added.append(f"instructions {_delta(report.added('instructions'), '', 0)} ({lg.instructions:,} -> {fb.instructions:,})")
    if added:
        parts.append("  added: " + ", ".join(added))
    if report.appeared:
        shown = ", ".join(f"{m['name']} ({m['cumulative_us'] / 1000:.1f} ms)" for m in report.appeared[:12])
        more = f" and {len(report.appeared) - 12} more" if len(report.appeared) > 12 else ""
        parts.append(f"  modules that appeared at start-up: {shown}{more}")
    for msg in fb.failing:
        parts.append(f"  fails: {msg}")
    table = new_table(tty, title=f"commits tested ({len(report.steps)} of {report.commits + 1}, check {report.check})")
    for col, just in (("commit", "left"), ("status", "left"), ("start-up", "right"), ("imports", "right"), ("instructions", "right"), ("subject", "left")):
        table.add_column(col, justify=just, no_wrap=not tty)
    for s in report.steps:
        table.add_row(s.commit[:10], s.status, _ms(s.wall_ms), _ms(s.import_ms), "" if s.instructions is None else f"{s.instructions:,}", s.subject)
    parts.append(table)
    return render_tables(parts, tty)
