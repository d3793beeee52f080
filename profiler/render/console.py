"""Shared plumbing for the human tables.

The renderers build `Table`s (this module's own: columns, rows, a title) and hand them, with
plain strings between them, to `render_tables`:
- on a terminal: rich draws them, with colours and the terminal's width;
- otherwise (a pipe, a file, CI): plain ASCII text, no escape codes, never wrapped or cut,
  written here without importing rich (drawing a few hundred rows through rich cost ~0.1 s of
  every command's run, and its import another ~25 ms). The text is exactly what rich draws
  with the ASCII2 box on an unlimited width (tests/test_render_plain.py holds the two to it);
  text whose width rich would measure differently from one cell per character (wide or
  combining characters, control characters, tabs) is drawn by rich.

Every cell and title is text, never rich markup: a module or target named `[red]` shows as
`[red]`.
"""

from __future__ import annotations

import io
import unicodedata
from functools import lru_cache
from typing import Any, Literal, Optional

# a column's words as rich takes them (Column refuses another justify; rich, another overflow)
_RICH_JUSTIFY: dict[str, Literal["left", "right", "center"]] = {"left": "left", "right": "right", "center": "center"}
_RICH_OVERFLOW: dict[str, Literal["fold", "crop", "ellipsis", "ignore"]] = {
    "fold": "fold", "crop": "crop", "ellipsis": "ellipsis", "ignore": "ignore"}

_JUSTIFY = ("left", "right", "center")


class Column:
    __slots__ = ("header", "justify", "no_wrap", "overflow")

    def __init__(self, header: str, justify: str = "left", no_wrap: bool = False, overflow: str = "ellipsis"):
        if justify not in _JUSTIFY:
            raise ValueError(f"justify {justify!r}")
        self.header, self.justify, self.no_wrap, self.overflow = header, justify, no_wrap, overflow


class Table:
    """A table to render: `add_column(header, justify=, no_wrap=, overflow=)`, `add_row(*cells)`
    (a cell is a str or None for empty)."""

    __slots__ = ("title", "columns", "rows")

    def __init__(self, title: str | None = None):
        self.title = title
        self.columns: list[Column] = []
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, header: str, justify: str = "left", no_wrap: bool = False, overflow: str = "ellipsis") -> None:
        self.columns.append(Column(header, justify, no_wrap, overflow))

    def add_row(self, *cells: Optional[str]) -> None:
        if len(cells) > len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.columns)} columns")
        self.rows.append(tuple("" if c is None else str(c) for c in cells) + ("",) * (len(self.columns) - len(cells)))


def new_table(tty: bool, title: str | None = None) -> Table:
    return Table(title)


def render_tables(tables, tty: bool) -> str:
    """The tables (and plain strings between them) as one text: rich's on a terminal, plain
    ASCII otherwise."""
    parts = list(tables)
    if not tty and all(_plain_ok(p) for p in parts):
        return "".join(_plain_text(p) for p in parts)
    return _rich_text(parts, tty)


def render_tables_each(tables, tty: bool):
    """render_tables' text a table at a time, each drawn as it comes (plain where it can be,
    else by rich: the two draw a table alike); the pieces joined are render_tables' text. On a
    terminal the whole text, drawn together."""
    if tty:
        yield render_tables(tables, tty)
        return
    for t in tables:
        yield render_tables([t], tty)


# ------------------------------------------------------------------------------------------ plain
# Characters at U+1100 and above the renderers write, each one cell wide in rich's tables too.
_WRITTEN = frozenset("→—…±·×σ≈−–Δ²└─≤Σµ")


@lru_cache(maxsize=4096)
def _simple_char(c: str) -> bool:
    """One cell wide and drawn as itself by rich (a printable character that is neither wide nor
    combining). Conservative: rich has its own width tables, newer than unicodedata's (trigrams
    and hexagrams two cells, Hangul jamo none), so beyond U+1100 (where the wide and the
    zero-width scripts begin) only the symbols the renderers write are taken; the rest goes
    through rich."""
    if c in _WRITTEN:
        return True
    if ord(c) >= 0x1100:
        return False
    cat = unicodedata.category(c)
    return cat[0] in "LNPS" and unicodedata.east_asian_width(c) not in ("W", "F") and not unicodedata.combining(c)


def _simple(text: str) -> bool:
    if text.isascii():
        return text.isprintable()
    return all(c == " " or _simple_char(c) for c in text)


def _plain_ok(part) -> bool:
    if isinstance(part, str):
        return all(_simple(line) for line in part.split("\n"))
    if not part.columns:  # rich draws a table without columns as a blank line, title or not
        return False
    texts = [c.header for c in part.columns] + ([part.title] if part.title else [])
    cells = [c.header for c in part.columns] + [cell for row in part.rows for cell in row]
    if any(t and not t.strip("\n") for t in cells + [part.title or ""]):
        return False  # text of newlines alone: rich draws fewer lines than it holds
    return all(_simple(t) for t in texts) and all(_simple(line) for row in part.rows for cell in row for line in cell.split("\n"))


def _plain_text(part) -> str:
    if isinstance(part, str):
        return "\n".join(line.rstrip() for line in part.split("\n")) + "\n"
    return _plain_table(part)


def _fit(text: str, width: int, justify: str) -> str:
    if justify != "left":
        text = text.rstrip(" ")  # rich drops a right/centred line's trailing spaces before aligning it
    gap = width - len(text)
    if justify == "right":
        return " " * gap + text
    if justify == "center":
        left = gap // 2
        return " " * left + text + " " * (gap - left)
    return text + " " * gap


def _plain_table(t: Table) -> str:
    """rich's ASCII2 box on an unlimited width, trailing spaces dropped (what the rich path's
    text becomes)."""
    out: list[str] = []
    if t.title:
        out.extend(line.rstrip() for line in t.title.split("\n"))
    if not t.columns:
        return "\n".join(out) + "\n" if out else ""
    rows = [[cell.split("\n") for cell in row] for row in t.rows]
    widths = []
    for i, col in enumerate(t.columns):
        w = max((len(x) for x in col.header.split("\n")), default=0)
        for row in rows:
            w = max(w, max(len(x) for x in row[i]))
        widths.append(w)
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    justs = [c.justify for c in t.columns]

    def lines_of(cells: list[list[str]]) -> None:
        height = max(len(c) for c in cells)
        for k in range(height):
            out.append(("| " + " | ".join(_fit(c[k] if k < len(c) else "", w, j) for c, w, j in zip(cells, widths, justs)) + " |").rstrip())

    out.append(rule)
    lines_of([c.header.split("\n") for c in t.columns])
    out.append(rule)
    for row in rows:
        lines_of(row)
    out.append(rule)
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------ rich
def make_console(tty: bool):
    from rich.console import Console

    buf = io.StringIO()
    if tty:
        import shutil

        width = shutil.get_terminal_size((120, 24)).columns
        console = Console(file=buf, force_terminal=True, width=width, highlight=False)
    else:
        console = Console(
            file=buf,
            force_terminal=False,
            no_color=True,
            color_system=None,
            width=100_000,
            highlight=False,
            soft_wrap=True,
            emoji=False,
        )
    return console, buf


def to_rich(t: Table, tty: bool) -> Any:
    """The rich Table of `t`: every cell and the title as Text (no markup)."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    rt = RichTable(
        title=Text(t.title) if t.title else None,
        box=box.SIMPLE_HEAVY if tty else box.ASCII2,
        title_justify="left",
        header_style="bold" if tty else "",
    )
    for c in t.columns:
        rt.add_column(Text(c.header), justify=_RICH_JUSTIFY[c.justify], no_wrap=c.no_wrap, overflow=_RICH_OVERFLOW[c.overflow])
    for row in t.rows:
        rt.add_row(*(Text(cell) for cell in row))
    return rt


def _rich_text(parts, tty: bool) -> str:
    console, buf = make_console(tty)
    for p in parts:
        if isinstance(p, str):
            console.print(p, markup=False, highlight=False, emoji=False)
        else:
            console.print(to_rich(p, tty))
    text = buf.getvalue()
    if not tty:
        text = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
    return text
