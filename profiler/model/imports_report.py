"""`importprof.imports/1`: import logs aggregated over their runs (`Aggregation`) and the
document made of them (`ImportsReport`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Mapping

from profiler.model.document import Document, Record, document_json_chunks, saved
from profiler.model.import_columns import json_texts
from profiler.model.import_records import CachedRecord, GroupRecord, ModuleRecord, ProcessSummary, SummedModule

IMPORTS_SCHEMA = "importprof.imports/1"


@dataclass(frozen=True)
class HarnessHeadline(Record):
    """The headline of a `-- COMMAND` capture: how many Python processes wrote import times,
    Σ their import time (each process's imports_us), Σ their wall time (exec to exit), the
    command's wall time, and the share import time is of it (processes running in parallel can
    make it exceed 1); then how they were captured and the processes that wrote no import times
    (with why), which older documents lack. Built by analysis/imports_processes.py: harness_headline,
    completed by the workflow (workflows/imports.py: add_processes), read by the renderers."""

    python_processes: int
    imports_us: int
    python_wall_s: float | None = saved(default=None, missing=None)
    command_wall_s: float | None = saved(default=None, missing=None)
    imports_share: float | None = saved(default=None, missing=None)
    capture: str | None = saved(default=None, omit="none")  # "strace"
    python_processes_total: int | None = saved(default=None, omit="none")  # with those that wrote none
    # {pid, argv, reason} each (a bare `dict`: model.document reads a tuple of dict[...] otherwise)
    unreached: tuple[dict, ...] | None = saved(default=None, omit="none")  # type: ignore[type-arg]


@dataclass(frozen=True)
class Aggregation:
    """Import logs aggregated over their runs (analysis/imports_aggregate.py), what an
    ImportsReport is made of: the modules in pre-order per process (medians over the runs; a
    one-run log of several processes keeps them as a ModuleColumns), the 3.14 cached rows, the
    total (median over the runs of Σ the roots' cumulative, µs) and each run's, how many Python
    processes a run started (the most any did), the notes on the logs (a cut log, overlapping
    processes...) and how many runs there were. Built once by the fold and read by name."""

    modules: Sequence[ModuleRecord]
    cached: tuple[CachedRecord, ...]
    total_us: int
    total_us_runs: tuple[int, ...]
    processes: int
    warnings: tuple[str, ...]
    runs: int


@dataclass(frozen=True)
class ImportsReport(Document):
    """`importprof.imports/1`. `modules` are in pre-order (a parent before its children,
    children in import order), per process."""

    SCHEMA = IMPORTS_SCHEMA

    machine: dict[str, Any] = saved(missing={})
    python: str | None = saved(missing=None)
    python_version: str | None = saved(missing=None)
    runs: int = saved(missing=1)
    # (fields in the order of the JSON's keys: the headline before the lists)
    target: str | None = None
    source: str = "capture"  # "capture" | "log"
    processes: int = saved(default=1, missing_from=lambda d: 1 + max((m.get("process", 0) for m in d["modules"]), default=0))
    # a saved report needs only its modules: the figures it leaves out are taken from them
    total_us: int = saved(default=0, missing_from=lambda d: sum(m["cumulative_us"] for m in d["modules"] if m.get("parent") is None))  # median over runs of Σ roots' cumulative
    total_us_runs: tuple[int, ...] = ()
    # a tuple as the annotation says when read whole (model.document loads a field by its
    # annotation: a tuple of records); as made (Aggregation.modules) or read back a line at a time
    # (inputs.saved_imports) it may be a ModuleColumns: read it as a Sequence[ModuleRecord]
    # (import_columns.module_blocks, records_of)
    modules: tuple[ModuleRecord, ...] = ()
    cached: tuple[CachedRecord, ...] = ()
    warnings: tuple[str, ...] = ()
    # the keys of a feature are written only when it ran (group_by, several processes, a
    # -- COMMAND harness, --metric instructions): a plain capture's document stays small
    group_by: str | None = saved(default=None, omit=("group_by",))
    groups: tuple[GroupRecord, ...] = saved(default=(), omit=("group_by",))
    # several Python processes (a `-- COMMAND` harness, or a log with several headers):
    per_process: tuple[ProcessSummary, ...] = saved(default=(), omit=("per_process", "summed"))
    summed: tuple[SummedModule, ...] = saved(default=(), omit=("per_process", "summed"))  # sorted by Σ cumulative, largest first
    # the headline of a `-- COMMAND` capture (HarnessHeadline)
    harness: HarnessHeadline | None = saved(default=None, omit="none")
    # --metric instructions: instructions retired by the target and by the bare interpreter
    # (`python [flags] -c pass`), each counted several times: method, target, target_runs, bare,
    # bare_runs, difference (target - bare: what the program adds, imports first), variation_pct
    instructions: Mapping[str, Any] | None = saved(default=None, omit="none")

    def to_json(self) -> str:
        """The to_dict() document as JSON text (model.document.document_json), each record of
        a list of records (modules, cached, groups, per_process, summed) on one line, a
        ModuleColumns' rows from its columns."""
        return "".join(self.json_chunks())

    def json_chunks(self) -> Iterator[str]:
        """to_json()'s text in pieces made as they are read (model.document.document_json_chunks):
        a writer that writes each as it comes never holds the document."""
        records = {"modules": self.modules, "cached": self.cached, "groups": self.groups, "per_process": self.per_process, "summed": self.summed}
        shallow = replace(self, modules=(), cached=(), groups=(), per_process=(), summed=())
        keys = shallow.to_dict()
        if self.per_process or self.summed:
            keys.setdefault("per_process", [])
            keys.setdefault("summed", [])

        chunks: Iterator[str] = document_json_chunks(keys, {key: json_texts(items) for key, items in records.items()})
        return chunks
