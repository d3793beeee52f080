"""The column store of a one-run imports report: each process's rows as columns on a layout
(names, parents, depths) shared by the processes laid out alike (`ColumnBlock`), the report's
modules as one read-only sequence of `ModuleRecord` over such blocks (`ModuleColumns`), and its
JSON written from %-templates of each layout's rows (made once from stand-in numbers).

The layers above see one storage form: a `Sequence[ModuleRecord]`, read block by block through
`module_blocks` (a ModuleColumns' blocks, any other sequence one block of its records).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, Union, overload

from profiler.model.document import Record
from profiler.model.import_records import ModuleRecord


class ProcessLayout:
    """The rows of a process in pre-order as one-run aggregation lays them out: names,
    parents' names, depths, and the positions of the top-level rows. Shared by every process
    that printed the same names at the same depths (a harness or a loop starts the same
    program many times); `memo` keeps what the views work out once per layout."""

    __slots__ = ("names", "parents", "depths", "roots", "memo")

    def __init__(self, names: tuple[str, ...], parents: tuple[str | None, ...], depths: tuple[int, ...]) -> None:
        self.names, self.parents, self.depths = names, parents, depths
        self.roots = tuple(i for i, d in enumerate(depths) if d == 0)
        self.memo: dict[Any, Any] = {}


class ColumnBlock(NamedTuple):
    """One process of a one-run report as columns: its layout and its self and cumulative
    µs in the layout's order (machine integers: 8 bytes a row, analysis.imports_aggregate._packed)."""

    layout: ProcessLayout
    process: int
    self_us: Sequence[int]  # an array (a list for a stand-in block: render/page_json.py)
    cumulative_us: Sequence[int]

    def record(self, i: int) -> ModuleRecord:
        s, c = self.self_us[i], self.cumulative_us[i]
        lay = self.layout
        return ModuleRecord(lay.names[i], s, c, lay.parents[i], lay.depths[i], self.process, 1, (s,), (c,), 0, 0)


# a process as the column store keeps it: as columns, or as its records
Block = Union[ColumnBlock, "tuple[ModuleRecord, ...]"]


class ModuleColumns(Sequence[ModuleRecord]):
    """The modules of a one-run report of several processes, kept per process: a ColumnBlock
    (a process with regular nesting, the usual case) or a tuple of its ModuleRecords (a cut or
    interleaved one, or one with cached rows). A read-only sequence of ModuleRecord in the
    report's order, each made when it is read: a log of 1,000 processes holds 8 bytes a row
    instead of 500,000 records, and the views that read every row (analysis.imports_views:
    collapse_tree; imports_processes: sum_modules, summarize_processes; records_with) go block by block. Equals
    the tuple of its records; a slice is a tuple."""

    __slots__ = ("blocks", "_ends")

    def __init__(self, blocks: Sequence[Block]) -> None:
        self.blocks: tuple[Block, ...] = tuple(b for b in blocks if len(b.self_us if isinstance(b, ColumnBlock) else b))
        ends: list[int] = []
        n = 0
        for b in self.blocks:
            n += len(b.self_us) if isinstance(b, ColumnBlock) else len(b)
            ends.append(n)
        self._ends = ends

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, i: int) -> ModuleRecord: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[ModuleRecord, ...]: ...

    def __getitem__(self, i: int | slice) -> ModuleRecord | tuple[ModuleRecord, ...]:
        if isinstance(i, slice):
            return tuple(self)[i]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("module index out of range")
        k = bisect_right(self._ends, i)
        b = self.blocks[k]
        j = i - (self._ends[k - 1] if k else 0)
        return b.record(j) if isinstance(b, ColumnBlock) else b[j]

    def __iter__(self) -> Iterator[ModuleRecord]:
        for b in self.blocks:
            if isinstance(b, ColumnBlock):
                yield from map(b.record, range(len(b.self_us)))
            else:
                yield from b

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ModuleColumns, tuple)):
            return len(other) == len(self) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a tuple of records: a record's `extra` is not hashable

    def json_lines(self) -> Iterator[str]:
        """Each record's JSON text, as json.dumps(record.to_dict(), ensure_ascii=False) writes
        it, in order (tested equal): a block's rows through its layout's templates, each made
        once from a record's own to_dict() with stand-in numbers where the block's go, so a
        thousand processes are written without making their records."""
        import json

        dumps = json.dumps
        for b in self.blocks:
            if not isinstance(b, ColumnBlock):
                yield from (dumps(m.to_dict(), ensure_ascii=False) for m in b)
                continue
            templates = json_templates(b.layout)
            if templates is None:
                yield from (dumps(b.record(i).to_dict(), ensure_ascii=False) for i in range(len(b.self_us)))
                continue
            p = b.process
            yield from (t % (s, c, p, s, c) for t, s, c in zip(templates, b.self_us, b.cumulative_us))

    def json_texts(self) -> Iterator[str]:
        """json_lines' texts a process at a time, its records joined by ",\n    " (as
        document_json writes the items of a list): a process kept as columns through one text
        made once for its layout, its numbers put in at once."""
        import json
        from itertools import chain, repeat

        dumps = json.dumps
        sep = ",\n    "
        for b in self.blocks:
            if not isinstance(b, ColumnBlock):
                yield sep.join([dumps(m.to_dict(), ensure_ascii=False) for m in b])
                continue
            templates = json_templates(b.layout)
            if templates is None:
                yield sep.join([dumps(b.record(i).to_dict(), ensure_ascii=False) for i in range(len(b.self_us))])
                continue
            joined: str | None = b.layout.memo.get("json_joined")
            if joined is None:
                joined = b.layout.memo["json_joined"] = sep.join(templates)
            s, c = b.self_us, b.cumulative_us
            yield joined % tuple(chain.from_iterable(zip(s, c, repeat(b.process), s, c)))

    def __repr__(self) -> str:
        return f"ModuleColumns({len(self)} records in {len(self.blocks)} processes)"


# stand-ins for a row's self, cumulative and process in a JSON template: no real row has them
_STAND_INS = ("-7000000000000001", "-7000000000000002", "-7000000000000003")


def json_templates(layout: ProcessLayout, compact: bool = False) -> tuple[str, ...] | None:
    """%-templates of a layout's rows' JSON (ModuleColumns.json_lines), in which self,
    cumulative and process go as (self, cumulative, process, self, cumulative) — the order
    to_dict() writes them; None when a row's text does not have them so (a name holding a
    stand-in's digits), and the rows are written from their records. `compact`: the rows as
    json.dumps(separators=(",", ":")) writes them (a compact report read back:
    model.import_columns_reader)."""
    memo_key = "json_compact" if compact else "json"
    if memo_key in layout.memo:
        known: tuple[str, ...] | None = layout.memo[memo_key]
        return known
    import json
    import re

    s, c, p = (int(x) for x in _STAND_INS)
    n = len(layout.names)
    stand_in = ColumnBlock(layout, p, [s] * n, [c] * n)  # its rows are the records a block of this layout makes
    split = re.compile("(" + "|".join(_STAND_INS) + ")").split
    out: list[str] = []
    for i in range(n):
        parts = split(json.dumps(stand_in.record(i).to_dict(), ensure_ascii=False, separators=(",", ":") if compact else None))
        if parts[1::2] != [_STAND_INS[k] for k in (0, 1, 2, 0, 1)]:
            break
        out.append("%d".join(x.replace("%", "%%") for x in parts[0::2]))
    templates = tuple(out) if len(out) == n else None
    layout.memo[memo_key] = templates
    return templates


def records_with(modules: Sequence[ModuleRecord], key: str) -> Iterator[ModuleRecord]:
    """The records whose `extra` holds `key`, in order: of a ModuleColumns only its records
    kept whole (a process kept as columns has no extra keys), so asking which rows carry phases,
    statements or a failure does not make the records of a thousand processes."""
    if isinstance(modules, ModuleColumns):
        return (m for b in modules.blocks if not isinstance(b, ColumnBlock) for m in b if key in m.extra)
    return (m for m in modules if key in m.extra)


def module_blocks(modules: Sequence[ModuleRecord]) -> tuple[ColumnBlock | Sequence[ModuleRecord], ...]:
    """The modules as the column store keeps them, in order: a ModuleColumns' blocks (a
    ColumnBlock, or one process's records), any other sequence of records one block of them (its
    processes in turn). The one way the layers above read a report's modules block by block."""
    if isinstance(modules, ModuleColumns):
        return modules.blocks
    return (modules,)


def json_texts(items: Sequence[Record]) -> Iterator[str]:
    """A list of records' items as JSON texts (json.dumps(record.to_dict(), ensure_ascii=False)),
    a ModuleColumns' a process at a time (ModuleColumns.json_texts), any other a record at a time:
    its dict lives only while it is encoded."""
    if isinstance(items, ModuleColumns):
        return items.json_texts()
    import json

    dumps = json.dumps
    return (dumps(v.to_dict(), ensure_ascii=False) for v in items)


def records_of(modules: Sequence[ModuleRecord]) -> Sequence[ModuleRecord]:
    """The modules as a read-only sequence: a tuple or a ModuleColumns as it is (not copied),
    any other sequence of records made a tuple."""
    return modules if isinstance(modules, (tuple, ModuleColumns)) else tuple(modules)
