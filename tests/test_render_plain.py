"""The plain-text tables (drawn without rich when stdout is not a terminal) are exactly what rich
draws with the ASCII2 box on an unlimited width, for any text the plain path accepts; text it
does not accept (wide, combining, control characters) goes through rich; no cell or title is
ever read as rich markup."""

from __future__ import annotations

import string

from hypothesis import given, settings, strategies as st

from profiler.render.console import Table, _plain_ok, _rich_text, new_table, render_tables
from conftest import examples

# ASCII, the non-ASCII characters the renderers write (…, Σ, ·, µ, ×, →, é) and markup-looking text
ALPHABET = string.ascii_letters + string.digits + string.punctuation + " " + "…Σ·µ×→é"
texts = st.text(alphabet=ALPHABET, max_size=12)
cells = st.one_of(texts, st.sampled_from(["[red]", "[bold]x[/bold]", "a\nb", "\\[x]", "[/]", ""]))


@st.composite
def tables(draw):
    t = Table(draw(st.one_of(st.none(), texts)))
    n = draw(st.integers(1, 4))
    for _ in range(n):
        t.add_column(draw(texts), justify=draw(st.sampled_from(["left", "right", "center"])), no_wrap=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 5))):
        t.add_row(*draw(st.lists(st.one_of(cells, st.none()), min_size=0, max_size=n)))
    return t


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(tables(), texts), min_size=1, max_size=3))
def test_plain_tables_are_rich_s_ascii2_tables(parts):
    assert all(_plain_ok(p) for p in parts)
    assert render_tables(parts, tty=False) == _rich_text(parts, tty=False)


def test_markup_is_text_in_cells_titles_and_lines():
    t = new_table(False, title="[bold]title[/bold]")
    t.add_column("[red]")
    t.add_row("[bold]x[/bold] [red]")
    for text in (render_tables(["[dim]a line[/dim]", t], tty=False), _rich_text(["[dim]a line[/dim]", t], tty=False)):
        assert "[dim]a line[/dim]" in text and "[bold]title[/bold]" in text
        assert "| [red]" in text and "| [bold]x[/bold] [red] |" in text


def test_text_rich_measures_otherwise_goes_through_rich():
    t = new_table(False, title="wide")
    t.add_column("name")
    t.add_row("漢字")  # two cells each
    t.add_row("e\u0301")  # a combining accent: one cell
    assert not _plain_ok(t)
    text = render_tables([t], tty=False)
    assert text == _rich_text([t], tty=False) and "| 漢字 |" in text


def test_a_row_longer_than_the_columns_is_an_error_and_a_short_one_is_padded():
    t = new_table(False)
    t.add_column("a")
    t.add_column("b")
    t.add_row("x")
    assert t.rows == [("x", "")]
    try:
        t.add_row("1", "2", "3")
    except ValueError as e:
        assert "3 cells" in str(e)
    else:
        raise AssertionError("a row of 3 cells in 2 columns was taken")


def test_the_terminal_path_draws_with_rich():
    t = new_table(True, title="t")
    t.add_column("a", justify="right")
    t.add_row("[x]")
    text = render_tables([t], tty=True)
    assert "[x]" in text and "\x1b[" in text  # colours/bold on a terminal, markup still text


def test_plain_characters_are_one_cell_in_rich_too():
    """rich's width tables are newer than unicodedata's: every character the plain path takes is
    one cell wide in rich (trigrams, hexagrams and Hangul jamo go through rich)."""
    from rich.cells import cell_len

    from profiler.render.console import _simple_char

    taken = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000 and _simple_char(chr(i))]
    assert [hex(ord(c)) for c in taken if cell_len(c) != 1] == []
    assert all(_simple_char(c) for c in "…Σ·µ×→é")  # the renderers' own symbols stay plain
    assert not any(_simple_char(c) for c in "\u2630\u268a\u4dc0\U0001d300\u1160\ud7b0\uffa0")


def test_newline_cells_and_tables_without_columns_draw_as_rich_does():
    no_columns = Table("title")
    newline = Table()
    newline.add_column("a")
    newline.add_row("\n")
    for t in (no_columns, newline):
        assert render_tables([t], False) == _rich_text([t], False)
    assert not _plain_ok(no_columns) and not _plain_ok(newline)
