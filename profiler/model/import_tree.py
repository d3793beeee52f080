"""Import timings as data: one parsed log (rows → per-run trees) and the report aggregated
over runs (`importprof.imports/1`), plus the `why` answer (`importprof.why/1`).

Extending a module record or a why hop: both carry an `extra` mapping whose keys are merged
into the JSON item (after the contract keys, never replacing one), and read back from it by
`from_dict` (every key it does not know lands in `extra`). E.g. per-module phases:
`dataclasses.replace(m, extra={**m.extra, "exec_us": 120, "compiled": False})`.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

from profiler.model.document import Document, Record, document_json_chunks, saved

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
class Samples(Sequence):
    """One module's per-run values (None where a run did not see it), held as machine integers:
    4 bytes a value (8 for a fold that saw one past 35 minutes) instead of a Python int and a
    slot each (a report of a thousand runs of a 500-module program holds a million of them). A read-only sequence that equals, and hashes
    as, the tuple of its values; a slice is a tuple."""

    __slots__ = ("_a",)
    _NONE = -1  # µs are never negative (the parser reads digits)

    def __init__(self, values: array) -> None:
        self._a = values  # array('q'), owned: the folder that filled it hands it over

    def __len__(self) -> int:
        return len(self._a)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self)[i]
        v = self._a[i]
        return None if v < 0 else v

    def __iter__(self):
        for v in self._a:
            yield None if v < 0 else v

    def __eq__(self, other) -> bool:
        if isinstance(other, Samples):
            return self._a == other._a
        if isinstance(other, (tuple, list)):
            return len(other) == len(self._a) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


class ModuleExtras:
    """Typed reads of the keys later features add to a module record's (or a why hop's) `extra`,
    which stays what is saved: its keys are merged into the JSON item as they are, so a
    document's bytes do not depend on these. Each is None (or False, 0, ()) when the feature did
    not run. `with_extra(**keys)` is the record with keys added."""

    __slots__ = ()
    extra: Mapping[str, Any]

    @property
    def failed(self) -> bool:
        """The import raised (imports: the instrumented warm-up run saw `_find_and_load` fail)."""
        return bool(self.extra.get("failed"))

    @property
    def site(self) -> str | None:
        """`file:line` of the import statement that loaded it (--phases, --lazy-candidates)."""
        return self.extra.get("site")

    @property
    def wrapper(self) -> bool:
        """The outer row of a dotted import (diff marks it: analysis.imports_views.dotted_wrappers)."""
        return bool(self.extra.get("wrapper"))

    @property
    def statements(self) -> tuple[Mapping[str, Any], ...]:
        """Its body's costliest top-level statements, sampled (--statements), costliest first."""
        return tuple(self.extra.get("statements") or ())

    @property
    def statements_sampled_us(self) -> int:
        """Its whole body's sampled time, what the statements' shares are of (0: not sampled)."""
        return self.extra.get("statements_sampled_us") or 0

    # --phases (workflows/phases.py: PHASE_KEYS), from ONE instrumented run, µs; None: not
    # instrumented (or not seen by that run)
    @property
    def find_us(self) -> int | None:
        """Finding its spec (the finders on sys.meta_path and sys.path)."""
        return self.extra.get("find_us")

    @property
    def read_us(self) -> int | None:
        """Reading its file (0 or None: nothing read, e.g. a builtin or frozen module)."""
        return self.extra.get("read_us")

    @property
    def unmarshal_us(self) -> int | None:
        """Unmarshalling its .pyc, or compiling its source when it had none (`compiled`)."""
        return self.extra.get("unmarshal_us")

    @property
    def exec_us(self) -> int | None:
        """Running its body, the imports it makes excluded."""
        return self.extra.get("exec_us")

    @property
    def phase_us(self) -> tuple[int | None, int | None, int | None, int | None]:
        """find, read, unmarshal, exec: the phase columns' order."""
        return self.find_us, self.read_us, self.unmarshal_us, self.exec_us

    @property
    def compiled(self) -> bool:
        """Compiled from source in the instrumented run: no valid .pyc (--phases)."""
        return self.extra.get("compiled") is True

    @property
    def lazy_candidate(self) -> bool:
        """Never called into after its import (--lazy-candidates); False also when not asked
        (`records_with(modules, "lazy_candidate")` tells the two apart)."""
        return bool(self.extra.get("lazy_candidate"))

    # --group kind / distribution (workflows/imports.py: add_groups)
    @property
    def kind(self) -> str | None:
        """stdlib, site-packages, the program's own, builtin, frozen..."""
        return self.extra.get("kind")

    @property
    def distribution(self) -> str | None:
        """The installed distribution that ships it (`python` for the standard library)."""
        return self.extra.get("distribution")

    def with_extra(self, **keys: Any):
        """The record with `keys` added to its extra (a key it had replaced)."""
        return replace(self, extra={**self.extra, **keys})


@dataclass(frozen=True)
class ModuleRecord(ModuleExtras, Record):
    """A module aggregated over runs: medians, per-run values (None where not seen), spread
    (median absolute deviation, µs). `extra` holds keys added by later features: merged into
    its JSON after the contract keys (never replacing one), and every key the record does not
    know is read back into it. A saved record may leave out all but name, self_us and
    cumulative_us (the `missing` values fill them in)."""

    DERIVED = ("in_all_runs",)

    name: str
    self_us: int
    cumulative_us: int
    parent: str | None = saved(missing=None)
    depth: int = saved(missing=0)
    process: int = saved(missing=0)
    runs_seen: int = saved(missing_from=lambda d: len(d.get("self_us_runs") or (None,)))
    self_us_runs: tuple[int | None, ...] = saved(missing_from=lambda d: (d["self_us"],))
    cumulative_us_runs: tuple[int | None, ...] = saved(missing_from=lambda d: (d["cumulative_us"],))
    self_us_spread: int = 0
    cumulative_us_spread: int = 0
    # shared, read-only: a 50 MB log makes 780,000 records
    extra: Mapping[str, Any] = saved(default_factory=lambda: _NO_EXTRA, flatten=True)

    @property
    def in_all_runs(self) -> bool:
        return self.runs_seen == len(self.self_us_runs)


class ProcessLayout:
    """The rows of a process in pre-order as one-run aggregation lays them out: names,
    parents' names, depths, and the positions of the top-level rows. Shared by every process
    that printed the same names at the same depths (a harness or a loop starts the same
    program many times); `memo` keeps what the views work out once per layout."""

    __slots__ = ("names", "parents", "depths", "roots", "memo")

    def __init__(self, names: tuple[str, ...], parents: tuple[str | None, ...], depths: tuple[int, ...]) -> None:
        self.names, self.parents, self.depths = names, parents, depths
        self.roots = tuple(i for i, d in enumerate(depths) if d == 0)
        self.memo: dict = {}


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


class ModuleColumns(Sequence):
    """The modules of a one-run report of several processes, kept per process: a ColumnBlock
    (a process with regular nesting, the usual case) or a tuple of its ModuleRecords (a cut or
    interleaved one, or one with cached rows). A read-only sequence of ModuleRecord in the
    report's order, each made when it is read: a log of 1,000 processes holds 8 bytes a row
    instead of 500,000 records, and the views that read every row (analysis.imports_views:
    collapse_tree; imports_processes: sum_modules, summarize_processes; records_with) go block by block. Equals
    the tuple of its records; a slice is a tuple."""

    __slots__ = ("blocks", "_ends")

    def __init__(self, blocks: Sequence[ColumnBlock | tuple[ModuleRecord, ...]]) -> None:
        self.blocks = tuple(b for b in blocks if len(b.self_us if isinstance(b, ColumnBlock) else b))
        ends, n = [], 0
        for b in self.blocks:
            n += len(b.self_us) if isinstance(b, ColumnBlock) else len(b)
            ends.append(n)
        self._ends = ends

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i):
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

    def __iter__(self):
        for b in self.blocks:
            if isinstance(b, ColumnBlock):
                yield from map(b.record, range(len(b.self_us)))
            else:
                yield from b

    def __eq__(self, other) -> bool:
        if isinstance(other, (ModuleColumns, tuple)):
            return len(other) == len(self) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # as a tuple of records: a record's `extra` is not hashable

    def json_lines(self):
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
            templates = _json_templates(b.layout)
            if templates is None:
                yield from (dumps(b.record(i).to_dict(), ensure_ascii=False) for i in range(len(b.self_us)))
                continue
            p = b.process
            yield from (t % (s, c, p, s, c) for t, s, c in zip(templates, b.self_us, b.cumulative_us))

    def json_texts(self):
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
            templates = _json_templates(b.layout)
            if templates is None:
                yield sep.join([dumps(b.record(i).to_dict(), ensure_ascii=False) for i in range(len(b.self_us))])
                continue
            joined = b.layout.memo.get("json_joined")
            if joined is None:
                joined = b.layout.memo["json_joined"] = sep.join(templates)
            s, c = b.self_us, b.cumulative_us
            yield joined % tuple(chain.from_iterable(zip(s, c, repeat(b.process), s, c)))

    def __repr__(self) -> str:
        return f"ModuleColumns({len(self)} records in {len(self.blocks)} processes)"


# stand-ins for a row's self, cumulative and process in a JSON template: no real row has them
_STAND_INS = ("-7000000000000001", "-7000000000000002", "-7000000000000003")


def _json_templates(layout: ProcessLayout) -> tuple[str, ...] | None:
    """%-templates of a layout's rows' JSON (ModuleColumns.json_lines), in which self,
    cumulative and process go as (self, cumulative, process, self, cumulative) — the order
    to_dict() writes them; None when a row's text does not have them so (a name holding a
    stand-in's digits), and the rows are written from their records."""
    if "json" in layout.memo:
        return layout.memo["json"]
    import json
    import re

    s, c, p = (int(x) for x in _STAND_INS)
    n = len(layout.names)
    stand_in = ColumnBlock(layout, p, [s] * n, [c] * n)  # its rows are the records a block of this layout makes
    split = re.compile("(" + "|".join(_STAND_INS) + ")").split
    out = []
    for i in range(n):
        parts = split(json.dumps(stand_in.record(i).to_dict(), ensure_ascii=False))
        if parts[1::2] != [_STAND_INS[k] for k in (0, 1, 2, 0, 1)]:
            out = None
            break
        out.append("%d".join(x.replace("%", "%%") for x in parts[0::2]))
    layout.memo["json"] = templates = None if out is None else tuple(out)
    return templates


_LARGEST = 2**53  # the largest number a saved document holds (inputs.MAX_JSON_INT)


def _json_readers(layout: ProcessLayout):
    """Each row's (template, length of the text before its self, of the text between self and
    cumulative, of the text between cumulative and process) for reading back the line
    ModuleColumns.json_lines writes for it; None when the layout has no templates."""
    if "read" in layout.memo:
        return layout.memo["read"]
    templates = _json_templates(layout)
    out = None
    if templates is not None:
        out = []
        for t in templates:
            parts = t.split("%d")
            if len(parts) != 6:  # a name with "%d" in it: such rows are read by their records
                out = None
                break
            a, b, c = (len(x.replace("%%", "%")) for x in parts[:3])
            out.append((t, a, b, c))
    layout.memo["read"] = out
    return out


def _numbers(row: tuple, text: str) -> tuple[int, int, int] | None:
    """(self, cumulative, process) of a line that is exactly the row's template with them (whole
    numbers from 0 to 2**53, as JSON writes them), else None. The numbers are cut out where the
    template puts them, and the line is made again from them and compared whole."""
    t, a, b, c = row
    i = text.find(",", a)
    j = text.find(",", i + b)
    k = text.find(",", j + c)
    if k < 0:
        return None
    try:
        s, cu, p = int(text[a:i]), int(text[i + b:j]), int(text[j + c:k])
    except ValueError:
        return None
    if not (0 <= s <= _LARGEST and 0 <= cu <= _LARGEST and 0 <= p <= _LARGEST) or t % (s, cu, p, s, cu) != text:
        return None
    return s, cu, p


class ModuleColumnsReader:
    """The modules of a saved imports report, read back one record line at a time into the form
    `imports --from-log` makes (ModuleColumns: each process as columns on a layout shared by the
    processes laid out alike; a process whose records do not all have one run's shape as its
    records). `take(i, text)` reads a line written from a layout's template
    (ModuleColumns.json_lines) as its numbers alone — the process being read continues the
    layout of a process read before — and returns False for any other line, whose value, once
    validated, comes to `record(i, value)`. `finish()` gives the modules: a tuple of records for
    one process, else a ModuleColumns. `segments` lists (process, first index, layout or records)
    per process in order (for the checks a schema cannot make); `processes` (1 + the largest
    process number) and `roots_cumulative_us` (Σ cumulative of the rows without a parent) are
    the figures a saved report may leave out."""

    RECENT = 8  # the layouts a new process is matched against (the latest first)

    def __init__(self, on_block=None) -> None:
        self.on_block = on_block
        self.blocks: list = []
        self.segments: list = []
        self.layouts: dict[tuple, ProcessLayout] = {}
        self.recent: list[ProcessLayout] = []
        self.processes = 1
        self.roots_cumulative_us = 0
        # the process being read: [process, first index, layout, matchers, rows matched, selfs, cumulatives] on a layout,
        # or [process, first index, None, None, 0, records] when read record by record
        self.cur: list | None = None

    def take(self, i: int, text: str) -> bool:
        cur = self.cur
        if cur is not None and cur[2] is not None and cur[4] < len(cur[3]):
            got = _numbers(cur[3][cur[4]], text)
            if got is None:
                return False  # its record says whose it is (record())
            s, c, process = got
            if process == cur[0]:
                try:
                    cur[5].append(s)
                except OverflowError:  # past 4-byte µs (71 minutes): the column as 8-byte integers
                    cur[5] = array("q", cur[5])
                    cur[5].append(s)
                try:
                    cur[6].append(c)
                except OverflowError:
                    cur[6] = array("q", cur[6])
                    cur[6].append(c)
                cur[4] += 1
                return True
            # another process, whose row is this layout's row too: matched below from its own first row
        for layout in self.recent:
            readers = layout.memo["read"]
            got = _numbers(readers[0], text)
            if got is not None:
                s, c, process = got
                if cur is not None and process == cur[0]:
                    return False  # the process goes on past its layout: its rows as records (record())
                self._finish_process()
                self.cur = [process, i, layout, readers, 1, _column([s]), _column([c])]
                return True
        return False

    def record(self, i: int, value: dict) -> None:
        m = ModuleRecord.from_dict(value)
        cur = self.cur
        if cur is None or m.process != cur[0]:
            self._finish_process()
            self.cur = cur = [m.process, i, None, None, 0, []]
        elif cur[2] is not None:  # the process leaves its layout: the rows matched so far as records
            block = ColumnBlock(cur[2], cur[0], cur[5], cur[6])
            self.cur = cur = [cur[0], cur[1], None, None, 0, [block.record(j) for j in range(cur[4])]]
        cur[5].append(m)

    def _finish_process(self) -> None:
        cur, self.cur = self.cur, None
        if cur is None:
            return
        process, start, layout = cur[0], cur[1], cur[2]
        self.processes = max(self.processes, process + 1)
        if layout is not None and cur[4] < len(layout.names):  # a shorter process: its rows as records
            block = ColumnBlock(layout, process, cur[5], cur[6])
            cur = [process, start, None, None, 0, [block.record(j) for j in range(cur[4])]]
            layout = None
        if layout is None:
            records = cur[5]
            if all(map(_one_run, records)):
                names = tuple([m.name for m in records])
                parents = tuple([m.parent for m in records])
                depths = tuple([m.depth for m in records])
                layout = self.layouts.get((names, parents, depths))
                if layout is None:
                    layout = self.layouts[names, parents, depths] = ProcessLayout(names, parents, depths)
                selfs, cums = _column([m.self_us for m in records]), _column([m.cumulative_us for m in records])
            else:
                self.roots_cumulative_us += sum(m.cumulative_us for m in records if m.parent is None)
                self._block(process, start, tuple(records))
                self.segments.append((process, start, tuple(records)))
                return
        else:
            selfs, cums = cur[5], cur[6]
        roots = layout.memo.get("parentless")
        if roots is None:
            roots = layout.memo["parentless"] = [j for j, p in enumerate(layout.parents) if p is None]
        self.roots_cumulative_us += sum(map(cums.__getitem__, roots))
        self._block(process, start, ColumnBlock(layout, process, selfs, cums))
        self.segments.append((process, start, layout))
        if _json_readers(layout) is not None and layout not in self.recent[:1]:
            if layout in self.recent:
                self.recent.remove(layout)
            self.recent.insert(0, layout)
            del self.recent[self.RECENT:]

    def _block(self, process: int, start: int, block) -> None:
        """A process read whole: kept, or handed to `on_block(process, first index, block)` and
        dropped (a reader that pairs each process as it comes: diff)."""
        if self.on_block is not None:
            self.on_block(process, start, block)
        else:
            self.blocks.append(block)

    def finish(self) -> Sequence[ModuleRecord]:
        self._finish_process()
        modules = ModuleColumns(self.blocks)
        return tuple(modules) if len(self.segments) <= 1 else modules


def _column(values: list[int]) -> array:
    """µs as 4-byte machine integers (up to 71 minutes), 8-byte ones past that (as the log's
    reader packs them: the memory of a thousand processes stays flat)."""
    try:
        return array("I", values)
    except OverflowError:
        return array("q", values)


def _one_run(m: ModuleRecord) -> bool:
    """The record is exactly the one a ColumnBlock makes of its row (one run, no spread, no
    extra keys; whole numbers as JSON writes them): the process can be kept as columns."""
    s, c = m.self_us, m.cumulative_us
    return (type(s) is int and type(c) is int and type(m.depth) is int and type(m.process) is int and type(m.name) is str
            and (m.parent is None or type(m.parent) is str) and m.runs_seen == 1 and type(m.runs_seen) is int
            and len(m.self_us_runs) == 1 and len(m.cumulative_us_runs) == 1
            and type(m.self_us_runs[0]) is int and m.self_us_runs[0] == s and type(m.cumulative_us_runs[0]) is int and m.cumulative_us_runs[0] == c
            and type(m.self_us_spread) is int and m.self_us_spread == 0 and type(m.cumulative_us_spread) is int and m.cumulative_us_spread == 0
            and not m.extra)


def records_with(modules: Sequence[ModuleRecord], key: str):
    """The records whose `extra` holds `key`, in order: of a ModuleColumns only its records
    kept whole (a process kept as columns has no extra keys), so asking which rows carry phases,
    statements or a failure does not make the records of a thousand processes."""
    if isinstance(modules, ModuleColumns):
        return (m for b in modules.blocks if not isinstance(b, ColumnBlock) for m in b if key in m.extra)
    return (m for m in modules if key in m.extra)


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
    wall_s: float | None = saved(round=6)  # a median of clock differences: to the microsecond
    imports_us: int  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see


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

    machine: dict = saved(missing={})
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

    def json_chunks(self):
        """to_json()'s text in pieces made as they are read (model.document.document_json_chunks):
        a writer that writes each as it comes never holds the document."""
        import json

        dumps = json.dumps
        records = {"modules": self.modules, "cached": self.cached, "groups": self.groups, "per_process": self.per_process, "summed": self.summed}
        shallow = replace(self, modules=(), cached=(), groups=(), per_process=(), summed=())
        keys = shallow.to_dict()
        if self.per_process or self.summed:
            keys.setdefault("per_process", [])
            keys.setdefault("summed", [])

        def lines(items):
            if isinstance(items, ModuleColumns):
                return items.json_texts()
            return (dumps(v.to_dict(), ensure_ascii=False) for v in items)  # one record at a time: its dict lives only while it is encoded

        return document_json_chunks(keys, {key: lines(items) for key, items in records.items()})


# ---------------------------------------------------------------------------- why
@dataclass(frozen=True)
class WhyHop(ModuleExtras, Record):
    """One hop of an import chain: the module and its cost. `extra` (merged into the JSON
    item) starts as the module record's `extra`; a later feature adds e.g. `"site": "f.py:12"`."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int
    extra: Mapping[str, Any] = saved(default_factory=dict, flatten=True)  # its keys beside the fields


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
    # written only when asked for:
    importers: tuple[str, ...] | None = saved(default=None, omit="none")  # every module with an import statement of MODULE (why --all)
    statements: tuple[dict, ...] | None = saved(default=None, omit="none")  # why --statements: MODULE's costliest top-level statements


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
    wrapper: bool = False  # the outer row of a dotted import (analysis.imports_views.dotted_wrappers)

    DERIVED = ("delta_self_us", "delta_cumulative_us")

    @property
    def delta_self_us(self) -> int:
        return self.new_self_us - self.old_self_us

    @property
    def delta_cumulative_us(self) -> int:
        return self.new_cumulative_us - self.old_cumulative_us


class ChangeColumns(Sequence):
    """DiffReport.changed of two big reports (a harness's, every row changed): the changes kept
    as columns (8 bytes a number) in the old report's order, read as ModuleChange records in
    the report's order — by impact: |Δ cumulative|, then |Δ self|, largest first, then by name,
    then in the old report's order — each made when it is read. The first few (a table's top
    25) are found without sorting them all. Equals the tuple of its records."""

    __slots__ = ("names", "process", "old_self", "new_self", "old_cum", "new_cum", "wrapper", "significant", "position", "_order")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.process = array("q")
        self.old_self, self.new_self, self.old_cum, self.new_cum = array("q"), array("q"), array("q"), array("q")
        self.wrapper = bytearray()
        self.significant = bytearray()  # 0 no, 1 yes, 2 not judged
        self.position = array("q")  # the row's place in the old report (ties in impact keep its order)
        self._order: array | None = None

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

    def extend(self, names, process: int, old_self, new_self, old_cum, new_cum, rows, wrapper: bytes, start: int) -> None:
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

    def _keys(self):
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

    def _sorted(self) -> array:
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

    def __getitem__(self, i):
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

    def __iter__(self):
        for k in self._sorted():
            yield self._change(k)

    def __eq__(self, other) -> bool:
        if isinstance(other, (ChangeColumns, tuple)):
            return len(other) == len(self) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None

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
    unreached: tuple[dict, ...] | None = saved(default=None, omit="none")  # {pid, argv, reason} each


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

    machine: dict
    old: dict  # {path, python, python_version, runs, target, total_us}
    new: dict
    totals: DiffTotals
    added: tuple[ModuleRecord, ...] = saved(write_as=ModuleBrief)
    removed: tuple[ModuleRecord, ...] = saved(write_as=ModuleBrief)
    changed: tuple[ModuleChange, ...]  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see
    notes: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed) and self.totals.delta_us == 0
