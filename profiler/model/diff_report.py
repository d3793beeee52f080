"""`importprof.diff/1`: two imports reports compared, module by module."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, overload

from profiler.model.document import Document, Record, saved
from profiler.model.import_records import ModuleRecord

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
    wrapper: bool = False  # the outer row of a dotted import (analysis.imports_views.dotted_wrappers)

    DERIVED = ("delta_self_us", "delta_cumulative_us")

    @property
    def delta_self_us(self) -> int:
        return self.new_self_us - self.old_self_us

    @property
    def delta_cumulative_us(self) -> int:
        return self.new_cumulative_us - self.old_cumulative_us


class ChangeColumns(Sequence[ModuleChange]):
    """DiffReport.changed of two big reports (a harness's, every row changed): the changes kept
    as columns (8 bytes a number) in the old report's order, read as ModuleChange records in
    the report's order — by impact: |Δ cumulative|, then |Δ self|, largest first, then by name,
    then in the old report's order — each made when it is read. The first few (a table's top
    25) are found without sorting them all. Equals the tuple of its records."""

    __slots__ = ("names", "process", "old_self", "new_self", "old_cum", "new_cum", "wrapper", "significant", "position", "_order")

    def __init__(self) -> None:
        self.names: list[str] = []
        # machine integers; lists once a number is not one (a saved 5.0)
        self.process: MutableSequence[Any] = array("q")
        self.old_self: MutableSequence[Any] = array("q")
        self.new_self: MutableSequence[Any] = array("q")
        self.old_cum: MutableSequence[Any] = array("q")
        self.new_cum: MutableSequence[Any] = array("q")
        self.wrapper = bytearray()
        self.significant = bytearray()  # 0 no, 1 yes, 2 not judged
        self.position = array("q")  # the row's place in the old report (ties in impact keep its order)
        self._order: array[int] | None = None

    def append(self, name: str, process: int, old_self: int, new_self: int, old_cum: int, new_cum: int,
               significant: bool | None, wrapper: bool, position: int | None = None) -> None:
        self.position.append(len(self.names) if position is None else position)
        try:
            self.process.append(process)
        except (TypeError, OverflowError):
            self.process = list(self.process)
            self.process.append(process)
        values = (self.old_self, self.new_self, self.old_cum, self.new_cum)
        try:
            for column, v in zip(values, (old_self, new_self, old_cum, new_cum)):
                column.append(v)
        except (TypeError, OverflowError):  # a number that is not a machine integer (a saved 5.0): every column a list
            self.old_self, self.new_self, self.old_cum, self.new_cum = (list(c[:len(self.names)]) for c in values)
            for column, v in zip((self.old_self, self.new_self, self.old_cum, self.new_cum), (old_self, new_self, old_cum, new_cum)):
                column.append(v)
        self.names.append(name)
        self.significant.append(2 if significant is None else int(significant))
        self.wrapper.append(int(wrapper))

    def extend(self, names: Sequence[str], process: int, old_self: Sequence[Any], new_self: Sequence[Any], old_cum: Sequence[Any],
               new_cum: Sequence[Any], rows: Sequence[int], wrapper: bytes, start: int) -> None:
        """append() of rows `rows` of one process laid out alike in both reports (its layout's
        `names`, its columns, each row's `wrapper` 0/1, its first row's place `start`), not
        judged: a column at a time."""
        if not rows:
            return
        try:
            made = [array("q", [c[i] for i in rows]) for c in (old_self, new_self, old_cum, new_cum)]
            made.append(array("q", [process]) * len(rows))
        except (TypeError, OverflowError):  # not machine integers: a change at a time
            for i in rows:
                self.append(names[i], process, old_self[i], new_self[i], old_cum[i], new_cum[i], None, bool(wrapper[i]), start + i)
            return
        self.position.extend(array("q", [start + i for i in rows]))
        for column, values in zip((self.old_self, self.new_self, self.old_cum, self.new_cum, self.process), made):
            column.extend(values)
        self.names.extend([names[i] for i in rows])
        self.significant.extend(b"\x02" * len(rows))
        self.wrapper.extend(bytes([wrapper[i] for i in rows]))

    def settled(self) -> "ChangeColumns":
        """The changes once every one came (analysis.diff: what holds them; compose.diff_spill's
        ChangeRuns spills them)."""
        return self

    def close(self) -> None:
        """(Nothing held outside memory.)"""

    def __len__(self) -> int:
        return len(self.names)

    def _change(self, k: int) -> "ModuleChange":
        sig = self.significant[k]
        return ModuleChange(self.names[k], self.process[k], self.old_self[k], self.new_self[k], self.old_cum[k], self.new_cum[k],
                            None if sig == 2 else bool(sig), bool(self.wrapper[k]))

    def _keys(self) -> Iterator[int]:
        """One integer a change that orders as (-|Δ cumulative|, -|Δ self|, name, position)."""
        n = len(self.names)
        rank = {name: r for r, name in enumerate(sorted(set(self.names)))}
        top, names, where = 1 << 56, len(rank), max(self.position, default=0) + 1
        position = self.position
        for k, (name, os, ns, oc, nc) in enumerate(zip(self.names, self.old_self, self.new_self, self.old_cum, self.new_cum)):
            yield ((((top - abs(nc - oc)) * top + (top - abs(ns - os))) * names + rank[name]) * where + position[k]) * n + k

    def _whole(self) -> bool:
        """Every number a machine integer (the keys of _keys are exact)."""
        return isinstance(self.old_self, array)

    def _sorted(self) -> array[int]:
        if self._order is None:
            n = len(self.names)
            if not self._whole():
                os, ns, oc, nc, names = self.old_self, self.new_self, self.old_cum, self.new_cum, self.names
                position = self.position
                self._order = array("q", sorted(range(n), key=lambda k: (-abs(nc[k] - oc[k]), -abs(ns[k] - os[k]), names[k], position[k])))
            else:
                keys = sorted(self._keys())  # n large integers: their places taken out one by one, not as a second list
                order = self._order = array("q", bytes(8 * n))
                for k, key in enumerate(keys):
                    order[k] = key % n
                del keys
        return self._order

    @overload
    def __getitem__(self, i: int) -> ModuleChange: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[ModuleChange, ...]: ...

    def __getitem__(self, i: int | slice) -> ModuleChange | tuple[ModuleChange, ...]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if self._order is None and start == 0 and step == 1 and stop <= 1000 and self._whole():
                import heapq

                n = len(self)
                return tuple(self._change(key % n) for key in heapq.nsmallest(stop, self._keys()))
            order = self._sorted()
            return tuple(self._change(order[k]) for k in range(start, stop, step))
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("change index out of range")
        return self._change(self._sorted()[i])

    def __iter__(self) -> Iterator[ModuleChange]:
        for k in self._sorted():
            yield self._change(k)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ChangeColumns, tuple)):
            return len(other) == len(self) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChangeColumns({len(self)} changes)"


@dataclass(frozen=True)
class ModuleBrief(Record):
    """An added or removed module as the diff document writes it."""

    name: str
    process: int
    parent: str | None
    self_us: int
    cumulative_us: int
    wrapper: bool = False

    @classmethod
    def of(cls, m: ModuleRecord) -> "ModuleBrief":
        return cls(m.name, m.process, m.parent, m.self_us, m.cumulative_us, m.wrapper)


@dataclass(frozen=True)
class DiffTotals(Record):
    """The two reports' total import time and its change (µs); `delta_pct` None when the old
    total is 0; `significant` None when not judged (fewer than 3 runs in a report: not written).
    Modules added or removed are a change whatever the times' spread (deterministic evidence):
    then `significant` is true, `modules_added`/`modules_removed` count them and
    `times_significant` keeps what the times alone said (written only then)."""

    old_us: int
    new_us: int
    delta_us: int
    delta_pct: float | None = saved(default=None, missing=None)
    significant: bool | None = saved(default=None, omit="none")
    modules_added: int | None = saved(default=None, omit="none")
    modules_removed: int | None = saved(default=None, omit="none")
    times_significant: bool | None = saved(default=None, omit="none")


@dataclass(frozen=True)
class DiffReport(Document):
    """`importprof.diff/1`. Its added and removed modules are written as brief records
    (ModuleBrief), not whole module records."""

    SCHEMA = DIFF_SCHEMA

    machine: dict[str, Any]
    old: dict[str, Any]  # {path, python, python_version, runs, target, total_us}
    new: dict[str, Any]
    totals: DiffTotals
    added: tuple[ModuleRecord, ...] = saved(write_as=ModuleBrief)
    removed: tuple[ModuleRecord, ...] = saved(write_as=ModuleBrief)
    changed: tuple[ModuleChange, ...]  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see
    notes: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed) and self.totals.delta_us == 0
