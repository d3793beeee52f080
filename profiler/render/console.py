"""Shared plumbing for the human tables: a rich Console writing into a string.

On a terminal: colours and the terminal's width. Otherwise (a pipe, a file, CI): plain ASCII
text, no escape codes, and a width so large that no table is ever wrapped or cut.
"""

from __future__ import annotations

import io


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


def new_table(tty: bool, title: str | None = None, **kw):
    from rich import box
    from rich.table import Table

    return Table(
        title=title,
        box=box.SIMPLE_HEAVY if tty else box.ASCII2,
        title_justify="left",
        header_style="bold" if tty else "",
        **kw,
    )


def render_tables(tables, tty: bool) -> str:
    console, buf = make_console(tty)
    for t in tables:
        if isinstance(t, str):
            console.print(t, markup=False, highlight=False)
        else:
            console.print(t)
    text = buf.getvalue()
    if not tty:
        text = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
    return text
