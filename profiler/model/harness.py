"""What a `-- COMMAND` that starts Python processes (a test harness) spent importing, as
`startup` carries it: the same three parts `importprof imports -- COMMAND` reports (built by
the same workflow, profiler/workflows/imports.py): the headline, one record per Python process,
and the modules summed over the processes."""

from __future__ import annotations

from dataclasses import dataclass

from profiler.model.document import Record, saved
from profiler.model.import_records import ProcessSummary, SummedModule
from profiler.model.imports_report import HarnessHeadline


@dataclass(frozen=True)
class HarnessView(Record):
    """Its JSON is the headline's keys flattened beside the two lists (as `imports` writes its
    `harness`)."""

    headline: HarnessHeadline = saved(flatten=True)
    per_process: tuple[ProcessSummary, ...] = saved(missing=())
    summed: tuple[SummedModule, ...] = saved(missing=())
