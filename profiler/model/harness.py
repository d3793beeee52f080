"""What a `-- COMMAND` that starts Python processes (a test harness) spent importing, as
`startup` carries it: the same three parts `importprof imports -- COMMAND` reports (built by
the same workflow, profiler/workflows/imports.py): the headline, one record per Python process,
and the modules summed over the processes."""

from __future__ import annotations

from dataclasses import dataclass

from profiler.model.document import Record
from profiler.model.import_tree import ProcessSummary, SummedModule


@dataclass(frozen=True)
class HarnessView(Record):
    """Its JSON is the headline's keys flattened beside the two lists (as `imports` writes its
    `harness`), so it keeps its own to_dict/from_dict."""

    headline: dict  # python_processes, imports_us, python_wall_s, command_wall_s, imports_share, capture
    per_process: tuple[ProcessSummary, ...]
    summed: tuple[SummedModule, ...]

    def to_dict(self) -> dict:
        return {**self.headline, "per_process": [p.to_dict() for p in self.per_process],
                "summed": [m.to_dict() for m in self.summed]}

    @classmethod
    def from_dict(cls, d: dict) -> "HarnessView":
        head = {k: v for k, v in d.items() if k not in ("per_process", "summed")}
        return cls(head, tuple(ProcessSummary.from_dict(p) for p in d.get("per_process") or ()),
                   tuple(SummedModule.from_dict(m) for m in d.get("summed") or ()))
