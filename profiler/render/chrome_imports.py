"""`--format chrome` for imports: Trace Event Format, one complete ("X") event per module with
µs `ts`/`dur` (medians laid out as a nested timeline), one pid per process.

Written process by process (render_chrome_imports_chunks) from the columns of
analysis.imports_views.timeline_blocks: the events of the processes laid out alike go through one
text made once for their layout."""

from __future__ import annotations

import json
from itertools import chain, repeat


def render_chrome_imports(report) -> str:
    return "".join(render_chrome_imports_chunks(report))


def render_chrome_imports_chunks(report):
    """The document's text in pieces: the process names, then a piece per process (exactly
    json.dumps of the whole document, tested)."""
    from profiler.analysis.imports_views import timeline_blocks

    dumps = json.dumps
    label = report.target or "import log"
    procs = sorted({b.process for b in timeline_blocks(report.modules)})
    meta = []
    for p in procs:
        meta.append({"name": "process_name", "ph": "M", "pid": p + 1, "tid": 1, "args": {"name": f"python {p}: {label}"}})
        meta.append({"name": "thread_name", "ph": "M", "pid": p + 1, "tid": 1, "args": {"name": "imports"}})
    other = {"schema": report.SCHEMA, "python": report.python, "runs": report.runs, "target": report.target}

    def pieces():
        yield '{"traceEvents": [' + ", ".join(dumps(e, ensure_ascii=False) for e in meta)
        first = not meta
        templates: dict = {}  # layout → its rows' events' text, with %d where ts, dur, pid and self_us go
        for block in timeline_blocks(report.modules):
            if not len(block.names):
                continue
            starts, durs = block.spans()
            if block.layout is not None:
                text = templates.get(block.layout)
                if text is None:
                    text = templates[block.layout] = ", ".join(
                        '{"name": %s, "cat": "import", "ph": "X", "ts": %%d, "dur": %%d, "pid": %%d, "tid": 1, "args": {"self_us": %%d, "depth": %d}}'
                        % (dumps(name, ensure_ascii=False).replace("%", "%%"), depth) for name, depth in zip(block.names, block.depths))
                events = text % tuple(chain.from_iterable(zip(starts, durs, repeat(block.process + 1), block.selfs)))
            else:
                events = ", ".join(dumps({"name": n, "cat": "import", "ph": "X", "ts": s, "dur": d, "pid": block.process + 1, "tid": 1,
                                          "args": {"self_us": x, "depth": depth}}, ensure_ascii=False)
                                   for n, s, d, x, depth in zip(block.names, starts, durs, block.selfs, block.depths))
            yield events if first else ", " + events
            first = False
        yield f'], "displayTimeUnit": "ms", "otherData": {dumps(other, ensure_ascii=False)}}}\n'

    return pieces()
