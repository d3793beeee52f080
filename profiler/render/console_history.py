"""`importprof history`: each series as a table with a sparkline, then its change points with
the modules behind each."""

from __future__ import annotations

from profiler.model.history import ChangePoint, HistoryReport, HistorySeries
from profiler.render.console import new_table, render_tables

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values) -> str:
    """One block per value, scaled between the series' minimum and maximum (a gap: a space)."""
    vals = [v for v in values if v is not None]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    span = hi - lo
    out = []
    for v in values:
        if v is None:
            out.append(" ")
        else:
            out.append(SPARKS[0] if not span else SPARKS[min(len(SPARKS) - 1, int((v - lo) / span * (len(SPARKS) - 1) + 0.5))])
    return "".join(out)


def figure_text(value: float | None, figure: str) -> str:
    if value is None:
        return ""
    if figure == "instructions":
        return f"{value:,.0f}"
    return f"{value:.1f} ms"


def _spread(p, figure: str) -> str:
    if p.low is None or p.high is None or len(p.runs) < 2:
        return ""
    if figure == "instructions":
        return f"{p.low:,.0f}..{p.high:,.0f}"
    return f"{p.low:.1f}..{p.high:.1f}"


def _change_line(c: ChangePoint, figure: str) -> list[str]:
    pct = f" ({c.delta_pct:+.1f}%)" if c.delta_pct is not None else ""
    gap = ""
    if c.unrecorded_between:
        gap = f" [{c.unrecorded_between} unrecorded commits since {(c.previous or '')[:10]}: `importprof history bisect` narrows it]"
    lines = [f"  change point at {(c.commit or '(no commit)')[:10]} {c.subject or ''}: "
             f"{figure_text(c.before, figure)} -> {figure_text(c.after, figure)}{pct}{gap}"]
    for m in c.modules:
        share = f", {m.share_pct:.0f}% of the step" if m.share_pct is not None else ""
        lines.append(f"    {m.change:<11} {m.name}: {m.before_us / 1000:.1f} -> {m.after_us / 1000:.1f} ms self "
                     f"({m.delta_us / 1000:+.1f} ms{share})")
    if not c.modules:
        lines.append("    (no module's import time moved: the step is outside the imports)")
    return lines


def render_series(s: HistorySeries, changes, tty: bool) -> list:
    starts = {c.commit for c in changes}
    spark = sparkline([p.value for p in s.points])
    parts: list = [f"{s.name}: {s.figure} over {len(s.points)} commits  {spark}"]
    table = new_table(tty)
    for col, just in (("commit", "left"), (s.figure, "right"), ("runs' spread", "right"), ("status", "left"),
                      ("", "left"), ("subject", "left")):
        table.add_column(col, justify=just, no_wrap=not tty)
    for p in s.points:
        mark = "step" if p.commit in starts else ""
        commit = (p.commit or "(none)")[:10] + ("+" if p.dirty else "")
        status = p.status if p.status != "error" else f"error: {p.error or ''}"[:60]
        table.add_row(commit, figure_text(p.value, s.figure), _spread(p, s.figure), status, mark, p.subject or "")
    parts.append(table)
    if changes:
        for c in changes:
            parts.extend(_change_line(c, s.figure))
    else:
        parts.append("  no change point: every step stays within the runs' spread")
    return parts


def render_history_table(report: HistoryReport, tty: bool) -> str:
    if not report.series:
        return render_tables([f"no check run recorded in {report.store}"], tty)
    parts: list = []
    for s in report.series:
        if parts:
            parts.append("")
        parts += render_series(s, [c for c in report.change_points if c.series == s.name], tty)
    return render_tables(parts, tty)
