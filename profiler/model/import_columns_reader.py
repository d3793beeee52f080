"""The modules of a saved imports report read back into the column store (`ModuleColumnsReader`):
a line written from a layout's template is read as its numbers alone."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from profiler.model.import_columns import Block, ColumnBlock, ModuleColumns, ProcessLayout, json_templates
from profiler.model.import_records import ModuleRecord

# a row's template and the lengths of its text before self, between self and cumulative, between
# cumulative and process
RowReader = tuple[str, int, int, int]

_LARGEST = 2**53  # the largest number a saved document holds (inputs.strict_json.MAX_JSON_INT)


def _json_readers(layout: ProcessLayout, compact: bool = False) -> list[RowReader] | None:
    """Each row's (template, length of the text before its self, of the text between self and
    cumulative, of the text between cumulative and process) for reading back the line
    ModuleColumns.json_lines writes for it (`compact`: the row as json.dumps(separators=(",",
    ":")) writes it); None when the layout has no templates."""
    memo_key = "read_compact" if compact else "read"
    if memo_key in layout.memo:
        known: list[RowReader] | None = layout.memo[memo_key]
        return known
    templates = json_templates(layout, compact)
    out: list[RowReader] | None = None
    if templates is not None:
        rows: list[RowReader] = []
        for t in templates:
            parts = t.split("%d")
            if len(parts) != 6:  # a name with "%d" in it: such rows are read by their records
                break
            a, b, c = (len(x.replace("%%", "%")) for x in parts[:3])
            rows.append((t, a, b, c))
        else:
            out = rows
    layout.memo[memo_key] = out
    return out


def _numbers(row: RowReader, text: str) -> tuple[int, int, int] | None:
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
    (ModuleColumns.json_lines, or its compact form) as its numbers alone — the process being read continues the
    layout of a process read before — and returns False for any other line, whose value, once
    validated, comes to `record(i, value)`. `finish()` gives the modules: a tuple of records for
    one process, else a ModuleColumns. `segments` lists (process, first index, layout or records)
    per process in order (for the checks a schema cannot make); `processes` (1 + the largest
    process number) and `roots_cumulative_us` (Σ cumulative of the rows without a parent) are
    the figures a saved report may leave out."""

    RECENT = 8  # the layouts a new process is matched against (the latest first)

    def __init__(self, on_block: Callable[[int, int, Block], object] | None = None) -> None:
        self.on_block = on_block
        self.blocks: list[Block] = []
        self.segments: list[tuple[int, int, ProcessLayout | tuple[ModuleRecord, ...]]] = []
        self.layouts: dict[tuple[tuple[str, ...], tuple[str | None, ...], tuple[int, ...]], ProcessLayout] = {}
        self.recent: list[ProcessLayout] = []
        self.processes = 1
        self.roots_cumulative_us = 0
        # the process being read: [process, first index, layout, matchers, rows matched, selfs, cumulatives] on a layout,
        # or [process, first index, None, None, 0, records] when read record by record
        self.cur: list[Any] | None = None
        self.makers: dict[tuple[str, ...], Callable[[dict[str, Any]], ModuleRecord]] = {}  # record() by a value's keys

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
        compact = text.startswith('{"name":"')  # a compact document's record (layout.relaid hands it as written)
        for layout in self.recent:
            readers = _json_readers(layout, True) if compact else layout.memo["read"]
            if readers is None:
                continue
            got = _numbers(readers[0], text)
            if got is not None:
                s, c, process = got
                if cur is not None and process == cur[0]:
                    return False  # the process goes on past its layout: its rows as records (record())
                self._finish_process()
                self.cur = [process, i, layout, readers, 1, _column([s]), _column([c])]
                return True
        return False

    def record(self, i: int, value: dict[str, Any]) -> None:
        keys = tuple(value)
        make = self.makers.get(keys)
        if make is None:
            if len(self.makers) < 64:
                make = self.makers[keys] = _record_maker(keys)
            else:  # a document of many key orders: none kept past the 64th (each would hold its record's keys)
                make = ModuleRecord.from_dict
        m = make(value)
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

    def _block(self, process: int, start: int, block: Block) -> None:
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


def _column(values: list[int]) -> array[int]:
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


# ModuleRecord's fields as its from_dict reads them (model.document: a list made a tuple, the keys it
# does not know its `extra`); a record maker is compiled only while they are these
_FIELDS = ("name", "self_us", "cumulative_us", "parent", "depth", "process", "runs_seen", "self_us_runs",
           "cumulative_us_runs", "self_us_spread", "cumulative_us_spread", "extra")
_TUPLES = ("self_us_runs", "cumulative_us_runs")


def _record_maker(keys: tuple[str, ...]) -> Callable[[dict[str, Any]], ModuleRecord]:
    """ModuleRecord.from_dict for a value with these keys in this order, compiled once for them:
    the values taken in order and set as the fields at once (from_dict's is a lookup a field and
    the frozen dataclass's __init__, a third of a saved report's read). The same record
    (tests/test_item_shape_check.py); from_dict itself when a field is missing (its defaults), a
    key said twice, more than 64 keys, or ModuleRecord's fields are not the ones this knows."""
    from dataclasses import fields

    from profiler.model.import_records import _NO_EXTRA

    if tuple(f.name for f in fields(ModuleRecord)) != _FIELDS or hasattr(ModuleRecord, "__post_init__") or \
            not set(_FIELDS[:-1]) <= set(keys) or len(set(keys)) != len(keys) or len(keys) > 64:
        return ModuleRecord.from_dict
    known = set(ModuleRecord.saved_fields())
    at = {k: f"v{n}" for n, k in enumerate(keys)}
    items = [f"{k!r}: (None if {at[k]} is None else tuple({at[k]}))" if k in _TUPLES else f"{k!r}: {at[k]}" for k in _FIELDS[:-1]]
    extra = [f"{k!r}: {at[k]}" for k in keys if k not in known]
    items.append(f"'extra': {{{', '.join(extra)}}}" if extra else "'extra': NO_EXTRA")
    lines = ["def make(d):", f"    ({''.join(v + ', ' for v in at.values())}) = d.values()", "    m = new(MR)",
             f"    put(m, '__dict__', {{{', '.join(items)}}})", "    return m"]
    env: dict[str, Any] = {"new": object.__new__, "put": object.__setattr__, "MR": ModuleRecord, "NO_EXTRA": _NO_EXTRA}
    exec(compile("\n".join(lines) + "\n", "<record_maker>", "exec"), env)
    maker: Callable[[dict[str, Any]], ModuleRecord] = env["make"]
    return maker
