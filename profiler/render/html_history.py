"""`importprof.history/1` → ONE self-contained HTML page in the report's style (its style sheet,
html_assets/report.css, inline): per series the curve (an SVG drawn here: each commit's runs as
a bar from their low to their high, the median as a dot, change points marked), the table of
commits, and the change points, each a <details> that opens its module diff. No script and
nothing fetched: the page's Content-Security-Policy allows inline style only. Every text taken
from the store (commit subjects, module names) is HTML-escaped."""

from __future__ import annotations

from html import escape
from importlib import resources

from profiler.model.history import ChangePoint, HistoryReport, HistorySeries

_EXTRA_STYLE = """
svg.history { width: 100%; height: auto; display: block; margin: 6px 0 10px; font-size: 12px;
  border: 1px solid var(--line); border-radius: 4px; background: #fbfcfd; }
svg.history text { fill: var(--fg); }
svg.history text.tick { fill: var(--muted); font-size: 11px; }
svg.history line.grid { stroke: var(--line); stroke-width: 1; }
svg.history polyline.curve { fill: none; stroke: var(--accent); stroke-width: 1.5; }
svg.history line.spread { stroke: #8896a8; stroke-width: 3; stroke-linecap: round; }
svg.history circle.point { fill: var(--accent); }
svg.history circle.point.error { fill: #c0392b; }
svg.history line.step { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.history text.step { fill: #c0392b; font-size: 11px; }
details.change { margin: 8px 0; padding: 6px 10px; border-left: 4px solid #c0392b; background: var(--panel); border-radius: 3px; }
details.change summary { color: var(--fg); }
details.change summary .delta { font-weight: 700; }
td.appeared { color: #8a1c1c; } td.disappeared { color: #1e6b34; }
"""


def _css() -> str:
    text = resources.files("profiler.render.html_assets").joinpath("report.css").read_text(encoding="utf-8")
    return text + _EXTRA_STYLE


def _fig(value: float | None, figure: str) -> str:
    if value is None:
        return ""
    return f"{value:,.0f}" if figure == "instructions" else f"{value:.1f} ms"


def _chart(s: HistorySeries, changes: list[ChangePoint]) -> str:
    pts = s.points
    width, height, left, right, top, bottom = 900, 260, 90, 44, 16, 40
    values = [v for p in pts for v in ((p.low, p.high, p.value)) if v is not None]
    if not values:
        return '<p class="muted">No measured commit in this series.</p>'
    lo, hi = min(values), max(values)
    if hi == lo:
        hi, lo = hi + (abs(hi) * 0.05 or 1), lo - (abs(lo) * 0.05 or 1)
    pad = (hi - lo) * 0.08
    lo, hi = lo - pad, hi + pad
    n = len(pts)
    plot_w = width - left - right
    plot_h = height - top - bottom

    def x(i: int) -> float:
        return left + (plot_w / 2 if n == 1 else plot_w * i / (n - 1))

    def y(v: float) -> float:
        return top + plot_h * (1 - (v - lo) / (hi - lo))

    out = [f'<svg class="history" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{escape(s.figure)} commit by commit">']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                   f'<text class="tick" x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{escape(_fig(v, s.figure))}</text>')
    starts = {c.commit: c for c in changes}
    for i, p in enumerate(pts):
        if p.commit in starts:
            xs = (x(i - 1) + x(i)) / 2 if i else x(i)
            out.append(f'<line class="step" x1="{xs:.1f}" x2="{xs:.1f}" y1="{top}" y2="{height - bottom}"/>'
                       f'<text class="step" x="{xs + 3:.1f}" y="{top + 10}">step</text>')
    line = " ".join(f"{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(pts) if p.value is not None)
    if line:
        out.append(f'<polyline class="curve" points="{line}"/>')
    for i, p in enumerate(pts):
        label = f"{(p.commit or '(no commit)')[:10]} {p.subject or ''}: {_fig(p.value, s.figure) or p.status}"
        if p.low is not None and p.high is not None and p.high > p.low:
            out.append(f'<line class="spread" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(p.low):.1f}" y2="{y(p.high):.1f}"/>')
        if p.value is not None:
            out.append(f'<circle class="point" cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="3.5"><title>{escape(label)}</title></circle>')
        else:
            out.append(f'<circle class="point error" cx="{x(i):.1f}" cy="{height - bottom - 4}" r="3.5"><title>{escape(label)}</title></circle>')
        if n <= 30 or i % max(1, n // 15) == 0 or i == n - 1:
            out.append(f'<text class="tick" x="{x(i):.1f}" y="{height - bottom + 16}" text-anchor="middle">'
                       f'{escape((p.commit or "-")[:7])}</text>')
    out.append("</svg>")
    return "".join(out)


def _change(c: ChangePoint, figure: str) -> str:
    pct = f" ({c.delta_pct:+.1f}%)" if c.delta_pct is not None else ""
    gap = (f' <span class="muted">({c.unrecorded_between} unrecorded commits before it: '
           f"<code>importprof history bisect</code> narrows it)</span>" if c.unrecorded_between else "")
    rows = "".join(
        f'<tr><td class="{escape(m.change)}">{escape(m.change)}</td><td><code>{escape(m.name)}</code></td>'
        f'<td class="num">{m.before_us / 1000:.1f} ms</td><td class="num">{m.after_us / 1000:.1f} ms</td>'
        f'<td class="num">{m.delta_us / 1000:+.1f} ms</td>'
        f'<td class="num">{"" if m.share_pct is None else f"{m.share_pct:.0f}%"}</td></tr>'
        for m in c.modules)
    table = ('<div class="scroll"><table class="data"><thead><tr><th>change</th><th>module</th><th class="num">before (self)</th>'
             '<th class="num">after (self)</th><th class="num">delta</th><th class="num">share of the step</th></tr></thead>'
             f"<tbody>{rows}</tbody></table></div>" if rows
             else '<p class="muted">No module\'s import time moved: the step is outside the imports.</p>')
    return (f'<details class="change"><summary><code>{escape((c.commit or "(no commit)")[:10])}</code> '
            f"{escape(c.subject or '')}: <span class=\"delta\">{escape(_fig(c.before, figure))} → "
            f"{escape(_fig(c.after, figure))}{pct}</span>{gap}</summary>"
            f'<p class="meta">after <code>{escape((c.previous or "")[:10])}</code>; the step stands beyond a noise of '
            f"{escape(_fig(c.noise, figure))}</p>{table}</details>")


def _points_table(s: HistorySeries, starts: set) -> str:
    rows = []
    for p in s.points:
        spread = f"{_fig(p.low, s.figure)} … {_fig(p.high, s.figure)}" if p.low is not None and len(p.runs) > 1 else ""
        status = escape(p.status + (f": {p.error}" if p.error else ""))
        rows.append(f'<tr><td class="nowrap"><code>{escape((p.commit or "(none)")[:10])}{"+" if p.dirty else ""}</code></td>'
                    f'<td class="num">{escape(_fig(p.value, s.figure))}</td><td class="num">{escape(spread)}</td>'
                    f'<td>{status}</td><td>{"step" if p.commit in starts else ""}</td><td>{escape(p.subject or "")}</td></tr>')
    return ('<details class="rest"><summary>every commit</summary><div class="scroll"><table class="data"><thead><tr>'
            f'<th>commit</th><th class="num">{escape(s.figure)}</th><th class="num">runs\' spread</th><th>status</th>'
            f"<th></th><th>subject</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>")


def render_history_html(report: HistoryReport) -> str:
    sections = []
    for i, s in enumerate(report.series):
        changes = [c for c in report.change_points if c.series == s.name]
        head = (f'<section class="part" id="series-{i}"><h2>{escape(s.check)}</h2>'
                f'<p class="meta">{escape(s.machine_label)} [{escape(s.machine[:8])}], python {escape(s.python or "-")}; '
                f"{escape(s.figure)} over {len(s.points)} commits</p>")
        body = _chart(s, changes)
        if changes:
            body += f"<h3>Change points ({len(changes)})</h3>" + "".join(_change(c, s.figure) for c in changes)
        else:
            body += '<p class="lead">No change point: every step stays within the runs\' spread.</p>'
        sections.append(head + body + _points_table(s, {c.commit for c in changes}) + "</section>")
    if not sections:
        sections.append('<p class="lead">No check run recorded yet.</p>')
    title = "importprof history" + (f": {report.check}" if report.check else "")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>{escape(title)}</title>\n<style>\n{_css()}</style>\n</head>\n<body>\n"
        f'<main id="history"><h1>{escape(title)}</h1>'
        f'<p class="meta">{report.runs} check runs in <code>{escape(report.store)}</code>; '
        f"{len(report.series)} series, {len(report.change_points)} change points</p>"
        + "".join(sections) + "</main>\n</body>\n</html>\n"
    )
