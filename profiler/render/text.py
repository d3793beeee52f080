"""Text shown in the human tables: targets as a user types them, and long paths
abbreviated in the middle on a terminal. JSON keeps both whole: only tables call these.

The JSON label of `-c "print('hi')"` is shlex's `-c 'print('"'"'hi'"'"')'`; a table shows
`-c "print('hi')"`: the label's words are split back and each one is quoted the way a person
would (nothing when it needs nothing, "double" quotes first, 'single' quotes when the word holds
characters double quotes do not protect, backslashes inside double quotes when it holds both).
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"^[\w@%+=:,./-]+$")  # a word the shell takes as is
_IN_DOUBLE = re.compile(r'["$`\\!]')  # characters double quotes do not protect


def _quote(word: str) -> str:
    if word and _PLAIN.match(word):
        return word
    if not _IN_DOUBLE.search(word):
        return f'"{word}"'
    if "'" not in word:
        return f"'{word}'"
    return '"' + re.sub(r'(["$`\\])', r"\\\1", word) + '"'


def shown_target(label: str | None) -> str:
    """A target label (shlex-joined argv) → the words as a user would type them."""
    if not label:
        return ""
    import shlex

    try:
        words = shlex.split(label)
    except ValueError:  # not a shell-quoted label (a hand-made document): show it as it is
        return label
    if shlex.join(words) != label:  # free text, not a label: leave it alone
        return label
    return " ".join(_quote(w) for w in words)


def short_path(path: str | None, width: int = 56) -> str:
    """`/root/.venv/lib/python3.11/site-packages/certifi/core.py` → `…/site-packages/certifi/core.py`:
    the last components that fit in `width` characters, the middle elided."""
    if not path or len(path) <= width:
        return path or ""
    parts = path.split("/")
    kept = parts[-1]
    if len(kept) + 2 > width:  # even the file name is too long: keep its end
        return "…" + kept[-(width - 1):]
    for part in reversed(parts[:-1]):
        if len(part) + 1 + len(kept) + 2 > width:
            break
        kept = f"{part}/{kept}"
    return "…/" + kept


def path_cell(path: str | None, tty: bool, width: int = 56) -> str:
    """A path in a table: abbreviated on a terminal; whole when the table goes to a pipe or a
    file (ARCHITECTURE.md: plain-text tables are never cut, scripts read them)."""
    return short_path(path, width) if tty else (path or "")


def cut_middle(text: str, width: int = 60) -> str:
    """`python3 -c "import…subprocess.run(x)"`: the start and the end of a long text."""
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep - keep // 3] + "…" + text[len(text) - keep // 3 :]


def shown_argv(argv, width: int = 60) -> str:
    """A process's argv as a user would type it, cut in the middle in every table (shortened
    in tables, whole in JSON: a harness's argv can be kilobytes)."""
    if argv is None:
        return "?"
    return cut_middle(" ".join(_quote(a) for a in argv), width)
