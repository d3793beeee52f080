"""`importprof site` as human tables. Renders only: no statistics, no files."""

from __future__ import annotations

from profiler.model.site import SiteReport


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def render_site_table(report: SiteReport, tty: bool) -> str:
    from profiler.render.console import new_table, render_tables
    from profiler.render.text import path_cell

    parts: list = [
        f"site.main() on {report.python} (Python {report.python_version}): {_ms(report.seconds)}"
        f" (median of {report.runs} run{'s' if report.runs != 1 else ''})"
    ]
    pth = new_table(tty, title=".pth files (in processing order)")
    pth.add_column("time", justify="right")
    pth.add_column("file")
    pth.add_column("code lines", justify="right")
    pth.add_column("modules imported")
    for p in report.pth:
        mods = ", ".join(p.modules[:6]) + (f" (+{len(p.modules) - 6})" if len(p.modules) > 6 else "")
        pth.add_row(_ms(p.seconds), path_cell(p.path, tty), str(len(p.lines)), mods or "-")
    parts.append(pth if report.pth else "no .pth file processed")
    lines = [(p, ln) for p in report.pth for ln in p.lines]
    if lines:
        t = new_table(tty, title="executed .pth lines")
        t.add_column("time", justify="right")
        t.add_column("where")
        t.add_column("code")
        for p, ln in lines:
            text = ln.text if len(ln.text) <= 80 else ln.text[:77] + "..."
            where = path_cell(p.path, tty, 48)
            t.add_row(_ms(ln.seconds), f"{where}:{ln.lineno}" if ln.lineno else where, text)
        parts.append(t)
    other = new_table(tty, title="other site work")
    other.add_column("what")
    other.add_column("time", justify="right")
    other.add_column("detail")
    for label, c in (("sitecustomize", report.sitecustomize), ("usercustomize", report.usercustomize)):
        if c is None:
            other.add_row(label, "-", "none imported")
        else:
            other.add_row(label, _ms(c.seconds), path_cell(c.path, tty) or "?")
    u = report.user_site
    if u is not None:
        state = "enabled" if u.enabled else "disabled"
        state += ", exists" if u.exists else ", does not exist"
        other.add_row("user site", _ms(u.seconds), f"{path_cell(u.path, tty)} ({state})")
    other.add_row("sys.path entries added", str(report.sys_path_added), ", ".join(report.sys_path_entries))
    parts.append(other)
    for w in report.warnings:
        parts.append(f"warning: {w}")
    return render_tables(parts, tty)
