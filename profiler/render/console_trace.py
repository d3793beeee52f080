"""The human tables of `importprof trace` (one variant: modules, syscalls, file system,
processes; several variants: one table of counts side by side)."""

from __future__ import annotations

from profiler.model.syscall_trace import TraceReport, TraceResult
from profiler.render.console import new_table, render_tables
from profiler.render.text import path_cell
from profiler.render.units import fmt_bytes, fmt_count, fmt_seconds


def render_trace_table(report: TraceReport, tty: bool, top: int = 20) -> str:
    if len(report.results) == 1:
        return render_tables(_one(report.results[0], tty, top), tty)
    return render_tables(_side_by_side(report.results, tty, top), tty)


def _family(r: TraceResult, name: str) -> dict:
    for f in r.filesystem.get("families", ()):
        if f["name"] == name:
            return f
    return {"count": 0, "errors": 0, "seconds": 0.0}


def _headline(r: TraceResult) -> str:
    fs = r.filesystem
    procs = len(r.processes)
    return (
        f"{fmt_count(r.total_syscalls)} syscalls ({fmt_count(r.total_errors)} failed) · "
        f"{fmt_seconds(r.total_seconds)} inside syscalls · {fmt_count(fs['lookups_failed'])} failed lookups · "
        f"{fmt_count(fs['files_opened'])} files opened · {fmt_bytes(fs['bytes_read'])} read in {fmt_count(fs['reads'])} reads"
        + (f" · {procs} processes/threads" if procs > 1 else "")
    )


def _one(r: TraceResult, tty: bool, top: int) -> list:
    parts: list = [_headline(r)]
    if r.modules:
        t = new_table(tty, title=f"Syscalls per imported module (top {top} by syscalls; nested imports count for the inner module)")
        for col in ("module", "syscalls", "failed lookups", "files opened", "bytes read", "time in syscalls"):
            t.add_column(col, justify="left" if col == "module" else "right")
        for m in r.modules[:top]:
            t.add_row(m.name, fmt_count(m.syscalls), fmt_count(m.failed), fmt_count(m.opened), fmt_bytes(m.bytes_read), fmt_seconds(m.seconds))
        if len(r.modules) > top:
            t.add_row(f"... {len(r.modules) - top} more modules", "", "", "", "", "")
        parts.append(t)
    t = new_table(tty, title=f"Syscalls (top {top} by count)")
    for col in ("syscall", "count", "errors", "time"):
        t.add_column(col, justify="left" if col == "syscall" else "right")
    for s in r.syscalls[:top]:
        t.add_row(s.name, fmt_count(s.count), fmt_count(s.errors), fmt_seconds(s.seconds))
    parts.append(t)

    fs = r.filesystem
    t = new_table(tty, title="File system")
    for col in ("calls", "count", "errors", "time"):
        t.add_column(col, justify="left" if col == "calls" else "right")
    for f in fs["families"]:
        t.add_row(f["name"], fmt_count(f["count"]), fmt_count(f["errors"]), fmt_seconds(f["seconds"]))
    parts.append(t)
    if fs["failed_lookup_dirs"]:
        t = new_table(tty, title="Directories where lookups failed (ENOENT/ENOTDIR)")
        t.add_column("directory")
        t.add_column("failed lookups", justify="right")
        for d in fs["failed_lookup_dirs"][: min(top, 10)]:
            t.add_row(path_cell(d["name"], tty), fmt_count(d["count"]))
        parts.append(t)
    if fs["read_sizes"]:
        t = new_table(tty, title="Read sizes (bytes returned per read)")
        for col in ("size", "reads", "bytes"):
            t.add_column(col, justify="left" if col == "size" else "right")
        for b in fs["read_sizes"]:
            t.add_row(b["name"], fmt_count(b["count"]), fmt_bytes(b["bytes"]))
        parts.append(t)
    if fs["files"]:
        t = new_table(tty, title=f"Files ({fmt_count(fs['files_opened'])} distinct opened; top {min(top, 10)} by bytes read)")
        for col in ("file", "opens", "bytes read"):
            t.add_column(col, justify="left" if col == "file" else "right")
        for f in fs["files"][: min(top, 10)]:
            t.add_row(path_cell(f["name"], tty), fmt_count(f["opens"]), fmt_bytes(f["bytes_read"]))
        parts.append(t)
    if len(r.processes) > 1:
        t = new_table(tty, title="Processes and threads")
        for col in ("process", "parent", "syscalls", "errors", "time", "exit"):
            t.add_column(col, justify="left" if col == "process" else "right")
        for p in r.processes:
            ex = f"killed by {p.signal}" if p.signal else ("" if p.exit_code is None else str(p.exit_code))
            t.add_row(p.name, "" if p.parent is None else str(p.parent), fmt_count(p.syscalls), fmt_count(p.errors), fmt_seconds(p.seconds), ex)
        parts.append(t)
    return parts


def _side_by_side(results, tty: bool, top: int) -> list:
    t = new_table(tty, title="Syscalls per variant")
    t.add_column("")
    for r in results:
        t.add_column(r.variant, justify="right")

    def row(label, values):
        t.add_row(label, *values)

    row("syscalls", [fmt_count(r.total_syscalls) for r in results])
    row("failed syscalls", [fmt_count(r.total_errors) for r in results])
    row("time in syscalls", [fmt_seconds(r.total_seconds) for r in results])
    row("failed lookups", [fmt_count(r.filesystem["lookups_failed"]) for r in results])
    row("files opened", [fmt_count(r.filesystem["files_opened"]) for r in results])
    for fam in ("stat", "open", "getdents", "readlink", "access"):
        row(f"{fam} calls", [fmt_count(_family(r, fam)["count"]) for r in results])
    row("reads", [fmt_count(r.filesystem["reads"]) for r in results])
    row("bytes read", [fmt_bytes(r.filesystem["bytes_read"]) for r in results])
    row("modules imported", [fmt_count(sum(1 for m in r.modules if m.imports)) if r.modules else "n/a" for r in results])
    row("processes/threads", [fmt_count(len(r.processes)) for r in results])
    parts: list = [t]

    counts = [{s.name: s.count for s in r.syscalls} for r in results]
    names = sorted({n for c in counts for n in c}, key=lambda n: (-max(c.get(n, 0) for c in counts), n))
    t2 = new_table(tty, title=f"Syscall counts per variant (top {top})")
    t2.add_column("syscall")
    for r in results:
        t2.add_column(r.variant, justify="right")
    for n in names[:top]:
        t2.add_row(n, *(fmt_count(c.get(n, 0)) for c in counts))
    parts.append(t2)
    return parts
