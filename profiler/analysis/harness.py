"""The harness summary (pure): a capture's processes → per Python process its argv, parent,
wall and total import time, and the headline. One function for `imports`, `trace` and
`startup`, so the three commands say the same thing about the same command."""

from __future__ import annotations

from typing import Mapping

from profiler.model.harness import HarnessProcess, HarnessSummary
from profiler.model.import_tree import ParsedLog
from profiler.model.process import ProcessCapture


def imports_us_of(log: ParsedLog) -> int:
    """Σ of the top-level imports' cumulative times (depth 0 rows) over the log's processes."""
    return sum(r.cumulative_us or 0 for p in log.processes for r in p.rows if r.depth == 0 and not r.cached)


def summarize_harness(capture: ProcessCapture, logs: Mapping[int, ParsedLog]) -> HarnessSummary:
    """`logs`: each Python process's parsed `import time:` lines, by ProcessRecord index."""
    per = []
    for rec in capture.processes:
        if not rec.is_python:
            continue
        log = logs.get(rec.index)
        per.append(HarnessProcess(
            index=rec.index, argv=tuple(rec.argv), python=rec.executable, parent=rec.parent, wall_s=rec.wall_s,
            imports_us=imports_us_of(log) if log is not None else None,
            note=None if log is not None else (rec.importtime_note or "no import time lines"),
        ))
    return HarnessSummary(
        processes=len(capture.processes),
        python_processes=len(per),
        imports_us=sum(p.imports_us or 0 for p in per),
        python_wall_s=sum(p.wall_s or 0.0 for p in per),
        command_wall_s=capture.wall_s,
        unreached=sum(1 for p in per if p.imports_us is None),
        per_process=tuple(per),
    )
