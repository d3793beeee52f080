"""Import timings as data: one parsed log (rows → per-run trees) and the report aggregated
over runs (`importprof.imports/1`), plus the `why` answer (`importprof.why/1`).

Extending a module record or a why hop: both carry an `extra` mapping whose keys are merged
into the JSON item (after the contract keys, never replacing one), and read back from it by
`from_dict` (every key it does not know lands in `extra`). E.g. per-module phases:
`dataclasses.replace(m, extra={**m.extra, "exec_us": 120, "compiled": False})`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

from profiler.model.document import Document, Record

IMPORTS_SCHEMA = "importprof.imports/1"
WHY_SCHEMA = "importprof.why/1"


# ---------------------------------------------------------------------------- one log
class ImportRow(NamedTuple):
    """One `import time:` row as printed (post-order). `cached` rows (3.14 `-X importtime=2`)
    have no times; their `depth` is None when the name filled its right-aligned field.
    (A NamedTuple: immutable and cheap, a log has thousands of rows per run.)"""

    name: str
    self_us: int | None
    cumulative_us: int | None
    depth: int | None
    line: int  # 1-based line number in the log
    cached: bool = False


class ProcessLog:
    """The rows one Python process printed (a log is split at each header line).

    Built from rows, or (the parser's fast path) from columns of timed rows only — names,
    self_us, cumulative_us, depths, line numbers — with `rows` made on first use: aggregating
    20 runs of a 1,500-module log reads the columns and never makes 30,000 row objects.
    Immutable by convention (a plain slotted class so that both views can be cached)."""

    __slots__ = ("_rows", "_columns", "_indents", "header_line")

    def __init__(self, rows=None, header_line: int | None = None, *, columns: tuple | None = None, indents: tuple | None = None):
        """`columns`: (names, self_us, cumulative_us, depths, lines); depths may be None when
        `indents` (the raw indentation strings, two spaces a level) are given instead."""
        if (rows is None) == (columns is None):
            raise ValueError("ProcessLog needs rows or columns")
        self._rows: tuple[ImportRow, ...] | None = None if rows is None else tuple(rows)
        self._columns = columns
        self._indents = indents
        self.header_line = header_line  # None: rows came before any header

    @property
    def rows(self) -> tuple[ImportRow, ...]:
        if self._rows is None:
            names, selfs, cums, depths, lines = self.columns
            make = ImportRow._make
            self._rows = tuple(make((n, a, b, d, no, False)) for n, a, b, d, no in zip(names, selfs, cums, depths, lines))
        return self._rows

    @property
    def columns(self) -> tuple | None:
        """(names, self_us, cumulative_us, depths, lines) of the timed rows, or None when the
        process has cached rows (3.14) or a row without a depth."""
        if self._columns is None:
            rows = self._rows
            if any(r.cached or r.depth is None for r in rows):
                return None
            self._columns = (
                tuple(r.name for r in rows),
                [r.self_us for r in rows],
                [r.cumulative_us for r in rows],
                tuple(r.depth for r in rows),
                [r.line for r in rows],
            )
        elif self._columns[3] is None:
            names, selfs, cums, _, lines = self._columns
            self._columns = (names, selfs, cums, tuple([len(i) // 2 for i in self._indents]), lines)
        return self._columns

    def same_shape(self, other: "ProcessLog") -> bool:
        """The same names at the same depths, in the same order (timed rows only; False when
        either has cached rows). Cheap between two fast-parsed logs (indentation strings)."""
        a, b = self.columns, other.columns
        if a is None or b is None or a[0] != b[0]:
            return False
        if self._indents is not None and other._indents is not None and self._columns[3] is None and other._columns[3] is None:
            return self._indents == other._indents
        return a[3] == b[3]

    def __eq__(self, other) -> bool:
        if not isinstance(other, ProcessLog):
            return NotImplemented
        return self.header_line == other.header_line and self.rows == other.rows

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ProcessLog(rows={len(self.rows)}, header_line={self.header_line})"


@dataclass(frozen=True)
class ParsedLog:
    processes: tuple[ProcessLog, ...]
    other_lines: tuple[str, ...] = ()  # the program's own output, in order
    warnings: tuple[str, ...] = ()

    @property
    def row_count(self) -> int:
        return sum(1 for p in self.processes for r in p.rows if not r.cached)


class ImportNode:
    """One module imported in one run (a tree node; children in import order). A slotted
    plain class: a 20-run aggregation builds tens of thousands."""

    __slots__ = ("name", "self_us", "cumulative_us", "depth", "children")

    def __init__(self, name: str, self_us: int, cumulative_us: int, depth: int, children: list | None = None):
        self.name = name
        self.self_us = self_us
        self.cumulative_us = cumulative_us
        self.depth = depth
        self.children: list[ImportNode] = children if children is not None else []

    def __repr__(self) -> str:
        return f"ImportNode({self.name!r}, self_us={self.self_us}, cumulative_us={self.cumulative_us}, depth={self.depth}, children={len(self.children)})"


@dataclass(frozen=True)
class ProcessTree:
    roots: tuple[ImportNode, ...]
    cached: tuple[ImportRow, ...] = ()

    @property
    def total_us(self) -> int:
        return sum(r.cumulative_us for r in self.roots)


@dataclass(frozen=True)
class RunTree:
    """Every process of one run."""

    processes: tuple[ProcessTree, ...]


# ---------------------------------------------------------------------------- aggregated
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ModuleRecord:
    """A module aggregated over runs: medians, per-run values (None where not seen), spread
    (median absolute deviation, µs). `extra` holds keys added by later features.

    Its own to_dict/from_dict: the `extra` keys are merged into its JSON (and everything
    unknown read back into `extra`), a saved record may leave out all but name, self_us and
    cumulative_us, and a 50 MB log writes 780,000 of them (a hand-written dict is the fast way)."""

    name: str
    self_us: int
    cumulative_us: int
    parent: str | None
    depth: int
    process: int
    runs_seen: int
    self_us_runs: tuple[int | None, ...]
    cumulative_us_runs: tuple[int | None, ...]
    self_us_spread: int = 0
    cumulative_us_spread: int = 0
    extra: Mapping[str, Any] = field(default_factory=lambda: _NO_EXTRA)  # shared, read-only: a 50 MB log makes 780,000 records

    _KEYS = (
        "name",
        "self_us",
        "cumulative_us",
        "parent",
        "depth",
        "process",
        "runs_seen",
        "self_us_runs",
        "cumulative_us_runs",
        "self_us_spread",
        "cumulative_us_spread",
    )

    @property
    def in_all_runs(self) -> bool:
        return self.runs_seen == len(self.self_us_runs)

    def to_dict(self) -> dict:
        d = {
            "name": self.name,
            "self_us": self.self_us,
            "cumulative_us": self.cumulative_us,
            "parent": self.parent,
            "depth": self.depth,
            "process": self.process,
            "runs_seen": self.runs_seen,
            "self_us_runs": list(self.self_us_runs),
            "cumulative_us_runs": list(self.cumulative_us_runs),
            "self_us_spread": self.self_us_spread,
            "cumulative_us_spread": self.cumulative_us_spread,
            "in_all_runs": self.in_all_runs,
        }
        for k, v in self.extra.items():
            d.setdefault(k, v)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ModuleRecord":
        self_runs = tuple(d.get("self_us_runs") or (d["self_us"],))
        return cls(
            name=str(d["name"]),
            self_us=int(d["self_us"]),
            cumulative_us=int(d["cumulative_us"]),
            parent=d.get("parent"),
            depth=int(d.get("depth", 0)),
            process=int(d.get("process", 0)),
            runs_seen=int(d.get("runs_seen", len(self_runs))),
            self_us_runs=self_runs,
            cumulative_us_runs=tuple(d.get("cumulative_us_runs") or (d["cumulative_us"],)),
            self_us_spread=int(d.get("self_us_spread", 0)),
            cumulative_us_spread=int(d.get("cumulative_us_spread", 0)),
            extra={k: v for k, v in d.items() if k not in cls._KEYS and k != "in_all_runs"},
        )


@dataclass(frozen=True)
class CachedRecord(Record):
    """A 3.14 `cached | cached` row: a module found in sys.modules (hits = median per run)."""

    name: str
    process: int = 0
    hits: int = 1
    depth: int | None = None


@dataclass(frozen=True)
class GroupRecord(Record):
    """Modules grouped by package, distribution or kind. `cumulative_us` counts each group
    member once: Σ cumulative of members whose parent is outside the group."""

    name: str
    self_us: int
    cumulative_us: int
    modules: int


@dataclass(frozen=True)
class ProcessSummary(Record):
    """One Python process of a `-- COMMAND` (or of a log with several headers), over runs.
    `index` is the `process` number of its module records; `parent` the index of the nearest
    Python process above it (None: started by the command itself, or unknown); `argv`,
    `python`, `wall_s` (exec to exit, median over runs) are None when read from a log;
    `imports_us`: median over runs of Σ its roots' cumulative."""

    index: int
    argv: tuple[str, ...] | None
    python: str | None
    parent: int | None
    wall_s: float | None
    imports_us: int

    def to_dict(self) -> dict:
        # wall_s, a median of clock differences, is written to the microsecond
        return {**super().to_dict(), "wall_s": None if self.wall_s is None else round(self.wall_s, 6)}


@dataclass(frozen=True)
class SummedModule(Record):
    """A module summed across processes: in how many processes it was imported, Σ self and
    Σ cumulative of its per-process medians (a dotted import's wrapper row adds its self, not
    its cumulative: only rows not nested in a row of the same name count)."""

    name: str
    processes: int
    self_us: int
    cumulative_us: int


@dataclass(frozen=True)
class ImportsReport(Document):
    """`importprof.imports/1`. `modules` are in pre-order (a parent before its children,
    children in import order), per process."""

    SCHEMA = IMPORTS_SCHEMA

    machine: dict
    python: str | None
    python_version: str | None
    runs: int
    # (fields in the order of the JSON's keys: the headline before the lists)
    target: str | None = None
    source: str = "capture"  # "capture" | "log"
    processes: int = 1
    total_us: int = 0  # median over runs of Σ roots' cumulative
    total_us_runs: tuple[int, ...] = ()
    modules: tuple[ModuleRecord, ...] = ()
    cached: tuple[CachedRecord, ...] = ()
    warnings: tuple[str, ...] = ()
    group_by: str | None = None
    groups: tuple[GroupRecord, ...] = ()
    # several Python processes (a `-- COMMAND` harness, or a log with several headers):
    per_process: tuple[ProcessSummary, ...] = ()
    summed: tuple[SummedModule, ...] = ()  # sorted by Σ cumulative, largest first
    # the headline of a `-- COMMAND` capture: python_processes, imports_us (Σ per-process
    # imports_us), python_wall_s (Σ per-process wall_s), command_wall_s, imports_share (imports_us
    # / command wall; processes running in parallel can make it exceed 1)
    harness: Mapping[str, Any] | None = None
    # --metric instructions: instructions retired by the target and by the bare interpreter
    # (`python [flags] -c pass`), each counted several times: method, target, target_runs, bare,
    # bare_runs, difference (target - bare: what the program adds, imports first), variation_pct
    instructions: Mapping[str, Any] | None = None

    def to_dict(self) -> dict:
        # the keys of a feature are written only when it ran (group_by, several processes,
        # a -- COMMAND harness, --metric instructions): a plain capture's document stays small
        d = super().to_dict()
        if not self.group_by:
            del d["group_by"], d["groups"]
        if not (self.per_process or self.summed):
            del d["per_process"], d["summed"]
        for key in ("harness", "instructions"):
            if d[key] is None:
                del d[key]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ImportsReport":
        # a saved report needs only its modules: the figures it leaves out are taken from them
        if not isinstance(d, Mapping) or "modules" not in d:
            return super().from_dict(d)  # refuses another kind of document
        modules = [m if isinstance(m, ModuleRecord) else ModuleRecord.from_dict(m) for m in d["modules"]]
        return super().from_dict({
            "python": None, "python_version": None, "runs": 1,
            "total_us": sum(m.cumulative_us for m in modules if m.parent is None),
            "processes": 1 + max((m.process for m in modules), default=0),
            **d, "machine": d.get("machine") or {}, "modules": modules,
        })

    def to_json(self) -> str:
        """The to_dict() document as JSON text, indented, with each record of a list of
        records (modules, cached, groups, per_process, summed) on one line: json's C encoder
        writes those (with indent= json falls back to its pure-Python encoder), so a report of
        a 50 MB log is written in seconds, not minutes, and is a sixth of the size."""
        import json

        dumps = json.dumps
        records = {"modules": self.modules, "cached": self.cached, "groups": self.groups, "per_process": self.per_process, "summed": self.summed}
        shallow = replace(self, modules=(), cached=(), groups=(), per_process=(), summed=())
        keys = shallow.to_dict()
        if self.per_process or self.summed:
            keys.setdefault("per_process", [])
            keys.setdefault("summed", [])
        parts = []
        for key, value in keys.items():
            items = records.get(key)
            if items:  # one record at a time: its dict lives only while it is encoded
                body = ",\n".join(["    " + dumps(v.to_dict(), ensure_ascii=False) for v in items])
                text = "[\n" + body + "\n  ]"
            else:
                text = dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            parts.append(f"  {dumps(key)}: {text}")
        return "{\n" + ",\n".join(parts) + "\n}\n"


# ---------------------------------------------------------------------------- why
@dataclass(frozen=True)
class WhyHop(Record):
    """One hop of an import chain: the module and its cost. `extra` (merged into the JSON
    item) starts as the module record's `extra`; a later feature adds e.g. `"site": "f.py:12"`."""

    NOT_SAVED = ("extra",)  # its keys are written beside the fields instead

    name: str
    self_us: int
    cumulative_us: int
    depth: int
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = super().to_dict()
        for k, v in self.extra.items():
            d.setdefault(k, v)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WhyHop":
        known = cls.saved_fields()
        return replace(super().from_dict(d), extra={k: v for k, v in d.items() if k not in known})


@dataclass(frozen=True)
class WhyChain(Record):
    """From a root import (the entry point's import) down to the asked module."""

    process: int
    hops: tuple[WhyHop, ...]
    loaded: bool = True  # False: the last hop imported MODULE when it was already loaded (why --all)


@dataclass(frozen=True)
class WhyReport(Document):
    SCHEMA = WHY_SCHEMA
    NOT_SAVED = ("cached_in",)  # in memory only: the why document has never carried it

    module: str
    chains: tuple[WhyChain, ...]
    machine: dict
    python: str | None
    python_version: str | None
    runs: int
    target: str | None = None
    cached_in: tuple[int, ...] = ()  # processes where 3.14 saw it only as cached
    importers: tuple[str, ...] | None = None  # every module with an import statement of MODULE (why --all)
    statements: tuple[dict, ...] | None = None  # why --statements: MODULE's costliest top-level statements

    def to_dict(self) -> dict:
        # importers and statements are written only when asked for (why --all, --statements)
        d = super().to_dict()
        for key in ("importers", "statements"):
            if d[key] is None:
                del d[key]
        return d


# ---------------------------------------------------------------------------- diff
DIFF_SCHEMA = "importprof.diff/1"


@dataclass(frozen=True)
class ModuleChange(Record):
    """A module in both reports whose median self or cumulative changed. `significant` is
    None when either report has fewer than 3 runs (no spread to judge by); otherwise see
    analysis.diff.is_significant. `wrapper`: the pair is two dotted-import outer rows."""

    name: str
    process: int
    old_self_us: int
    new_self_us: int
    old_cumulative_us: int
    new_cumulative_us: int
    significant: bool | None = None
    wrapper: bool = False  # the outer row of a dotted import (analysis.imports.dotted_wrappers)

    DERIVED = ("delta_self_us", "delta_cumulative_us")

    @property
    def delta_self_us(self) -> int:
        return self.new_self_us - self.old_self_us

    @property
    def delta_cumulative_us(self) -> int:
        return self.new_cumulative_us - self.old_cumulative_us


@dataclass(frozen=True)
class DiffReport:
    """`importprof.diff/1`. Its added and removed modules are written as brief records (name,
    process, parent, self_us, cumulative_us, wrapper), not whole module records, so it keeps
    its own to_dict (and is not read back)."""

    SCHEMA = DIFF_SCHEMA

    machine: dict
    old: dict  # {path, python, python_version, runs, target, total_us}
    new: dict
    added: tuple[ModuleRecord, ...]
    removed: tuple[ModuleRecord, ...]
    changed: tuple[ModuleChange, ...]
    totals: dict  # {old_us, new_us, delta_us, delta_pct}
    notes: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed) and self.totals.get("delta_us", 0) == 0

    def to_dict(self) -> dict:
        def brief(m: ModuleRecord) -> dict:
            return {
                "name": m.name,
                "process": m.process,
                "parent": m.parent,
                "self_us": m.self_us,
                "cumulative_us": m.cumulative_us,
                "wrapper": bool(m.extra.get("wrapper")),
            }

        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "old": self.old,
            "new": self.new,
            "totals": self.totals,
            "added": [brief(m) for m in self.added],
            "removed": [brief(m) for m in self.removed],
            "changed": [c.to_dict() for c in self.changed],
            "notes": list(self.notes),
        }
