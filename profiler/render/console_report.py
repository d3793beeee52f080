"""The summary `importprof report` prints beside the page it writes: one row per part."""

from __future__ import annotations


def render_report_summary(page, tty: bool = False) -> str:
    from profiler.render.console import new_table, render_tables

    table = new_table(tty, title="importprof report")
    table.add_column("part")
    table.add_column("from")
    table.add_column("what")
    for kind, (source, doc) in zip(page.kinds(), page.documents):
        table.add_row(kind, source, _what(kind, doc))
    for s in page.skipped:
        table.add_row(s["part"], "-", f"not included: {s['reason']}")
    return render_tables([table], tty)


def _what(kind: str, doc: dict) -> str:
    def n(count, word):
        return f"{count} {word}" + ("" if count == 1 else "s")

    if kind in ("startup", "compare"):
        return n(len(doc.get("results") or []), "variant")
    if kind == "imports":
        return n(len(doc.get("modules") or []), "module")
    if kind == "trace":
        if doc.get("variants"):
            return n(len(doc["variants"]), "variant")
        return f"{n(len(doc.get('syscalls') or []), 'syscall kind')}, {n(len(doc.get('modules') or []), 'module')}"
    if kind == "site":  # `pth` holds each pass of site over a file (a venv's site-packages is read twice)
        passes = [p.get("path") for p in doc.get("pth") or []]
        files = len(set(passes))
        return n(files, ".pth file") + (f" ({len(passes)} passes)" if len(passes) > files else "")
    if kind == "doctor":
        return n(len(doc.get("findings") or []), "finding")
    if kind == "lazy":
        return n(len(doc.get("must_stay_eager") or []), "module that must stay eager")
    return str(doc.get("schema") or "")
