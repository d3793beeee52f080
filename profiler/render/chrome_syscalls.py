"""`importprof trace --format chrome`: Trace Event Format (chrome://tracing, Perfetto).

Each traced process/thread is a track; imports are spans (cat "import") and each syscall is a
complete event (cat "syscall") at its strace -tt time with its -T duration, so syscalls sit
inside the import that made them. Several variants: one process group per variant.
Timestamps are µs from the first record of each variant.
"""

from __future__ import annotations

import json

from profiler.model.syscall_trace import MARKER_PREFIX, TraceReport


_PIECE = 1 << 19  # characters a piece gathers before it is given to the writer


def render_chrome_syscalls(report: TraceReport) -> str:
    return "".join(render_chrome_syscalls_chunks(report))


def render_chrome_syscalls_chunks(report: TraceReport):
    """The document in pieces of about 0.5 MB, each event written as it is made (a big log's
    hundreds of thousands of syscall events are never held as a list): the same bytes as
    json.dumps of the whole document."""
    dumps = json.dumps
    yield '{"traceEvents": ['
    held: list[str] = []
    size = 0
    first = True
    for e in _events(report):
        text = dumps(e)
        if not first:
            text = ", " + text
        first = False
        held.append(text)
        size += len(text)
        if size >= _PIECE:
            yield "".join(held)
            held.clear()
            size = 0
    if held:
        yield "".join(held)
    yield '], "displayTimeUnit": "ms", "otherData": ' + dumps({"schema": report.SCHEMA}) + "}\n"


def _events(report: TraceReport):
    """The trace events, one at a time, in the document's order."""
    for vi, r in enumerate(report.results):
        calls = r.log.syscalls if r.log is not None else ()
        times = [c.time_s for c in calls if c.time_s is not None]
        t0 = min(times) if times else 0.0
        t_end = max(times) if times else None
        del times
        # a distinct chrome pid per variant; strace pids become chrome tids
        gpid = vi + 1
        yield {"ph": "M", "name": "process_name", "pid": gpid, "tid": 0, "args": {"name": f"variant {r.variant}"}}
        for p in r.processes:
            yield {"ph": "M", "name": "thread_name", "pid": gpid, "tid": p.pid, "args": {"name": p.name}}
        for s in r.spans:
            if s.begin_s is None:
                continue
            end = s.end_s if s.end_s is not None else (t_end if t_end is not None else s.begin_s)
            yield {
                "ph": "X",
                "cat": "import",
                "name": s.name,
                "pid": gpid,
                "tid": s.pid,
                "ts": round((s.begin_s - t0) * 1e6, 3),
                "dur": round(max(end - s.begin_s, 0.0) * 1e6, 3),
                "args": {"depth": s.depth},
            }
        for c in calls:
            text = c.args_text  # the arguments unsplit: a substring test and a label need no split
            if c.time_s is None or MARKER_PREFIX in text[:512]:
                continue  # markers are drawn as the import spans
            args = {"args": text[:200], "ret": c.ret}
            if c.errno:
                args["errno"] = c.errno
            if c.ret_path:
                args["path"] = c.ret_path
            yield {
                "ph": "X",
                "cat": "syscall",
                "name": c.name,
                "pid": gpid,
                "tid": c.pid,
                "ts": round((c.time_s - t0) * 1e6, 3),
                "dur": round((c.duration_s or 0.0) * 1e6, 3),
                "args": args,
            }
        if r.log is not None:
            for e in r.log.events:
                if e.time_s is None:
                    continue
                yield {
                    "ph": "i",
                    "s": "t",
                    "cat": "process",
                    "name": f"{e.kind} {e.value}",
                    "pid": gpid,
                    "tid": e.pid,
                    "ts": round((e.time_s - t0) * 1e6, 3),
                }
