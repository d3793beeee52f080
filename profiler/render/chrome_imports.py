"""`--format chrome` for imports: Trace Event Format, one complete ("X") event per module with
µs `ts`/`dur` (medians laid out as a nested timeline), one pid per process."""

from __future__ import annotations

import json


def render_chrome_imports(report) -> str:
    from profiler.analysis.imports import lay_out_timeline

    events: list[dict] = []
    label = report.target or "import log"
    procs = sorted({m.process for m in report.modules})
    for p in procs:
        events.append({"name": "process_name", "ph": "M", "pid": p + 1, "tid": 1, "args": {"name": f"python {p}: {label}"}})
        events.append({"name": "thread_name", "ph": "M", "pid": p + 1, "tid": 1, "args": {"name": "imports"}})
    for s in lay_out_timeline(report.modules):
        events.append(
            {
                "name": s.name,
                "cat": "import",
                "ph": "X",
                "ts": s.start_us,
                "dur": s.dur_us,
                "pid": s.process + 1,
                "tid": 1,
                "args": {"self_us": s.self_us, "depth": s.depth},
            }
        )
    doc = {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"schema": report.SCHEMA, "python": report.python, "runs": report.runs, "target": report.target},
    }
    return json.dumps(doc, ensure_ascii=False) + "\n"
