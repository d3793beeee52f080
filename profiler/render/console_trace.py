"""The human tables of `importprof trace` (one variant: modules, syscalls, file system,
processes; several variants: one table of counts side by side)."""

from __future__ import annotations

from profiler.model.syscall_trace import TraceReport, TraceResult
from profiler.render.console import new_table, render_tables
from profiler.render.text import cut_middle, path_cell, shown_argv
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
        f"{fmt_seconds(r.total_seconds)} inside syscalls (traced) · {fmt_count(fs['lookups_failed'])} failed lookups · "
        f"{fmt_count(fs['files_opened'])} files opened · {fmt_bytes(fs['bytes_read'])} read in {fmt_count(fs['reads'])} reads"
        + (f" · {procs} processes/threads" if procs > 1 else "")
    )


_HOW = {"markers": "import markers", "lookups": "inferred from lookups", "importtime": "boundaries from -X importtime"}


def traced_note(r: TraceResult) -> str:
    """strace stops the program at every syscall, so the traced times are mostly strace's: the
    untraced wall time of the same command goes beside them. The counts are the program's own
    (what plain `strace -f` counts) unless a process ran importprof's old markers hook (a saved
    log): that hook's frames made CPython map and unmap frame-stack chunks."""
    h = r.harness or {}
    traced = f"the traced run took {fmt_seconds(h['wall_s'])}" if h.get("wall_s") is not None else "the run was traced"
    if h.get("untraced_wall_s") is not None:
        n = h.get("untraced_runs", 0)
        traced += f", the same command untraced {fmt_seconds(h['untraced_wall_s'])} (median of {n} run{'' if n == 1 else 's'})"
    return f"times are traced: strace stops the program at every syscall; {traced}. " + counts_note(r)


def counts_note(r: TraceResult) -> str:
    """What the counts are: exact (the program's, as plain strace -f counts them) unless
    importprof's markers hook ran inside a process of the log."""
    h = r.harness or {}
    own = h.get("importprof_syscalls")
    left = f" ({fmt_count(own)} `import time:` writes of -X importtime, importprof's boundaries, left out)" if own else ""
    if any(p.attribution == "markers" for p in r.processes):
        return ("The counts include what importprof's markers hook made the program do (its frames make CPython "
                "map and unmap frame-stack chunks: mmap/munmap above the program's own); the times compare only with each other")
    return f"The counts are exact{left}; the times compare only with each other"


def _harness_line(r: TraceResult) -> str | None:
    h = r.harness or {}
    if h.get("processes", 0) <= 1 and h.get("python_processes", 0) <= 1:
        return None
    how = h.get("attribution", {})
    ways = ", ".join(f"{n} by {k}" for k, n in how.items() if n)
    n = h["python_processes"]
    line = f"{fmt_count(n)} Python process{'' if n == 1 else 'es'} of {fmt_count(h['processes'])}" + (f" (attributed {ways})" if ways else "")
    if h.get("python_share") is not None:
        line += (
            f" · a Python process was running during {fmt_seconds(h['python_busy_s'])} of the command's "
            f"{fmt_seconds(h['wall_s'])} ({h['python_share'] * 100:.0f} %); Σ their wall times {fmt_seconds(h['python_wall_s'])}"
        )
    return line


def _module_label(m) -> str:
    return f"{m.name} (import failed)" if m.failed_import else m.name


def _one(r: TraceResult, tty: bool, top: int) -> list:
    parts: list = [_headline(r), traced_note(r)]
    harness = _harness_line(r)
    if harness:
        parts.append(harness)
    if r.modules:
        many = sum(1 for p in r.processes if p.attribution) > 1
        ways = sorted({p.attribution for p in r.processes if p.attribution})
        t = new_table(
            tty,
            title=f"Syscalls per imported module (top {top} by syscalls; self: nested imports count for the inner module, "
            f"cumulative: with them; {', '.join(_HOW.get(w, w) for w in ways)}" + ("; summed over processes)" if many else ")"),
        )
        cols = ["module", "syscalls", "cumulative", "failed lookups", "files opened", "bytes read", "time in syscalls"]
        if many:
            cols.insert(1, "processes")
        for col in cols:
            t.add_column(col, justify="left" if col == "module" else "right")
        for m in r.modules[:top]:
            row = [_module_label(m), fmt_count(m.syscalls), fmt_count(m.cumulative_syscalls), fmt_count(m.failed), fmt_count(m.opened), fmt_bytes(m.bytes_read), fmt_seconds(m.seconds)]
            if many:
                row.insert(1, fmt_count(m.processes) if m.imports else "")
            t.add_row(*row)
        if len(r.modules) > top:
            t.add_row(f"... {len(r.modules) - top} more modules", *[""] * (len(cols) - 1))
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
        t = new_table(tty, title="Processes and threads (argv shortened; whole in the JSON)")
        for col in ("process", "parent", "argv", "wall", "syscalls", "errors", "time", "attribution", "exit"):
            t.add_column(col, justify="left" if col in ("process", "argv", "attribution") else "right")
        for p in r.processes:
            ex = f"killed by {p.signal}" if p.signal else ("" if p.exit_code is None else str(p.exit_code))
            t.add_row(
                p.name, "" if p.parent is None else str(p.parent), "" if p.thread else shown_argv(p.argv),
                fmt_seconds(p.wall_s) if p.wall_s is not None else "", fmt_count(p.syscalls), fmt_count(p.errors),
                fmt_seconds(p.seconds), p.attribution or "", ex,
            )
        parts.append(t)
    return parts


def _side_by_side(results, tty: bool, top: int) -> list:
    t = new_table(tty, title="Syscalls per variant")
    t.add_column("")
    for r in results:
        t.add_column(r.variant, justify="right")

    def row(label, values):
        # a failed variant shows no figures: they describe a run that did not do its work
        t.add_row(label, *("" if r.failed else v for r, v in zip(results, values)))

    if any(r.failed for r in results):
        t.add_row("status", *(cut_middle(f"failed: {r.error}", 72) if r.failed else "ok" for r in results))

    row("syscalls", [fmt_count(r.total_syscalls) for r in results])
    row("failed syscalls", [fmt_count(r.total_errors) for r in results])
    row("time in syscalls (traced)", [fmt_seconds(r.total_seconds) for r in results])
    row("wall time (traced)", [fmt_seconds(r.harness["wall_s"]) if r.harness.get("wall_s") is not None else "" for r in results])
    row("wall time untraced (median)", [fmt_seconds(r.harness["untraced_wall_s"]) if r.harness.get("untraced_wall_s") is not None
                                        else "" for r in results])
    row("failed lookups", [fmt_count(r.filesystem["lookups_failed"]) for r in results])
    row("files opened", [fmt_count(r.filesystem["files_opened"]) for r in results])
    for fam in ("stat", "open", "getdents", "readlink", "access"):
        row(f"{fam} calls", [fmt_count(_family(r, fam)["count"]) for r in results])
    row("reads", [fmt_count(r.filesystem["reads"]) for r in results])
    row("bytes read", [fmt_bytes(r.filesystem["bytes_read"]) for r in results])
    row("modules imported", [fmt_count(sum(1 for m in r.modules if m.imports and not m.failed_import)) if r.modules else "n/a" for r in results])
    row("failed imports", [fmt_count(sum(1 for m in r.modules if m.failed_import)) if r.modules else "n/a" for r in results])
    row("processes/threads", [fmt_count(len(r.processes)) for r in results])
    parts: list = [t]

    counts = [{s.name: s.count for s in r.syscalls} for r in results]
    names = sorted({n for c in counts for n in c}, key=lambda n: (-max(c.get(n, 0) for c in counts), n))
    t2 = new_table(tty, title=f"Syscall counts per variant (top {top})")
    t2.add_column("syscall")
    for r in results:
        t2.add_column(r.variant, justify="right")
    for n in names[:top]:
        t2.add_row(n, *("" if r.failed else fmt_count(c.get(n, 0)) for r, c in zip(results, counts)))
    parts.append(t2)
    return parts
