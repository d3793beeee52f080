"""Import timings of one log: the `import time:` rows each process printed (post-order, as
parsed) and the per-run trees built from them. What the rows aggregate into lives beside it:
`import_records` (a module over runs), `import_columns` (a one-run report kept as columns),
`import_columns_reader` (those columns read back from a saved report), and the documents
`imports_report` (`importprof.imports/1`), `why_report` (`importprof.why/1`) and
`diff_report` (`importprof.diff/1`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, cast

if TYPE_CHECKING:
    # a process's timed rows as columns: names, self_us, cumulative_us, depths, line numbers
    # (depths None where the indentation strings stand in for them)
    LogColumns = tuple[Sequence[str], Sequence[int], Sequence[int], Sequence[int] | None, Sequence[int]]
    Columns = tuple[Sequence[str], Sequence[int], Sequence[int], Sequence[int], Sequence[int]]


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

    def __init__(self, rows: Iterable[ImportRow] | None = None, header_line: int | None = None, *,
                 columns: LogColumns | None = None, indents: Sequence[str] | None = None) -> None:
        """`columns`: (names, self_us, cumulative_us, depths, lines); depths may be None when
        `indents` (the raw indentation strings, two spaces a level) are given instead."""
        if (rows is None) == (columns is None):
            raise ValueError("ProcessLog needs rows or columns")
        self._rows: tuple[ImportRow, ...] | None = None if rows is None else tuple(rows)
        self._columns: LogColumns | None = columns
        self._indents = indents
        self.header_line = header_line  # None: rows came before any header

    @property
    def rows(self) -> tuple[ImportRow, ...]:
        if self._rows is None:
            columns = self.columns
            assert columns is not None  # made from columns
            names, selfs, cums, depths, lines = columns
            make = ImportRow._make
            self._rows = tuple(make((n, a, b, d, no, False)) for n, a, b, d, no in zip(names, selfs, cums, depths, lines))
        return self._rows

    @property
    def columns(self) -> Columns | None:
        """(names, self_us, cumulative_us, depths, lines) of the timed rows, or None when the
        process has cached rows (3.14) or a row without a depth."""
        if self._columns is None:
            rows = self._rows or ()
            if any(r.cached or r.depth is None for r in rows):
                return None
            self._columns = cast("Columns", (  # timed rows: their times and depths are numbers
                tuple(r.name for r in rows),
                [r.self_us for r in rows],
                [r.cumulative_us for r in rows],
                tuple(r.depth for r in rows),
                [r.line for r in rows],
            ))
        elif self._columns[3] is None:
            names, selfs, cums, _, lines = self._columns
            self._columns = (names, selfs, cums, tuple([len(i) // 2 for i in self._indents or ()]), lines)
        return cast("Columns", self._columns)

    def same_shape(self, other: "ProcessLog") -> bool:
        """The same names at the same depths, in the same order (timed rows only; False when
        either has cached rows). Cheap between two fast-parsed logs (indentation strings)."""
        a, b = self.columns, other.columns
        if a is None or b is None or a[0] != b[0]:
            return False
        if (self._indents is not None and other._indents is not None and self._columns is not None and other._columns is not None
                and self._columns[3] is None and other._columns[3] is None):
            return self._indents == other._indents
        return a[3] == b[3]

    def __eq__(self, other: object) -> bool:
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

    def __init__(self, name: str, self_us: int, cumulative_us: int, depth: int, children: list[ImportNode] | None = None) -> None:
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

