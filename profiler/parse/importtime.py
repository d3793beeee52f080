"""`-X importtime` / PYTHONPROFILEIMPORTTIME text → ParsedLog (pure).

The format (CPython Python/import.c):
    header  "import time: self [us] | cumulative | imported package"   (once per process)
    row     "import time: %9ld | %10ld | %*s%s"   indent = 2 spaces per level, post-order
    cached  "import time: cached    | cached     | %*s"   (3.14, -X importtime=2): the name
            right-aligned in a field 2*level wide, so a long name carries no depth.

Tolerant of noise (the program's own output between rows, even glued in front of a row when it
wrote no newline), CRLF, repeated headers (one per process: the log is split there), a
truncated last line (dropped, with a warning). Strict about meaning: a malformed number is an
error naming the line; a log with no import rows is an error.
"""

from __future__ import annotations

import re

from profiler.errors import BadInput
from profiler.model.import_tree import ImportRow, ParsedLog, ProcessLog

MARK = "import time:"
_HEADER_REST = "self [us] | cumulative | imported package"
_ROW = re.compile(r"^ *([^|\s]*) *\| *([^|\s]*) *\| ?(.*)$")
# the common case, a whole clean row (fast path; everything else goes the careful way)
_CLEAN = re.compile(r"import time: +([0-9]+) \| +([0-9]+) \| ( *)(\S+)\r?")


def _digits(s: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²' (which int() refuses) and '٣'."""
    return s.isascii() and s.isdigit()


def parse_importtime(text: str, source: str = "log") -> ParsedLog:
    lines = text.split("\n")
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    processes: list[ProcessLog] = []
    rows: list[ImportRow] = []
    header_line: int | None = None
    other: list[str] = []
    warnings: list[str] = []
    last = len(lines)
    clean = _CLEAN.fullmatch
    append = rows.append
    for no, raw in enumerate(lines, 1):
        m = clean(raw)
        if m is not None and (no != last or ends_with_newline):
            a, b, indent, name = m.groups()
            append(ImportRow(name, int(a), int(b), len(indent) // 2, no))
            continue
        line = raw[:-1] if raw.endswith("\r") else raw
        at = line.find(MARK)
        if at < 0:
            other.append(line)
            continue
        if at > 0:
            other.append(line[:at])  # program output glued in front (no newline)
        rest = line[at + len(MARK) :]
        if rest.strip() == _HEADER_REST:
            if rows or header_line is not None:
                processes.append(ProcessLog(tuple(rows), header_line))
            rows = []
            append = rows.append
            header_line = no
            continue
        m = _ROW.match(rest)
        truncated_tail = no == last and not ends_with_newline
        if m is None:
            if truncated_tail:
                warnings.append(f"{source}: line {no} is truncated (no newline at the end); ignored it")
                continue
            other.append(line[at:])  # "import time:" written by the program itself
            continue
        a, b, name_field = m.groups()
        name = name_field.strip()
        if a == "cached" and b == "cached":
            pad = len(name_field) - len(name_field.lstrip(" "))
            depth = (pad + len(name)) // 2 if pad else None
            if name:
                rows.append(ImportRow(name, None, None, depth, no, cached=True))
                continue
        if not (_digits(a) and _digits(b)) or not name or " " in name:
            if truncated_tail:
                warnings.append(f"{source}: line {no} is truncated (no newline at the end); ignored it")
                continue
            bad = a if not _digits(a) else b if not _digits(b) else name_field
            raise BadInput(f"{source}: line {no}: malformed import time row ({bad.strip() or 'empty'!r}): {line[at:][:120]!r}")
        indent = len(name_field) - len(name_field.lstrip(" "))
        if truncated_tail:
            warnings.append(f"{source}: line {no} has no newline at the end (truncated log?)")
        rows.append(ImportRow(name, int(a), int(b), indent // 2, no))
    if rows or header_line is not None:
        processes.append(ProcessLog(tuple(rows), header_line))
    timed = sum(1 for p in processes for r in p.rows if not r.cached)
    if timed == 0:
        raise BadInput(f"{source}: no import time rows (was it made with -X importtime?)")
    if processes and processes[0].header_line is None:
        warnings.append(f"{source}: import rows before the first header (log cut at the start?)")
    processes = [p for p in processes if p.rows]
    return ParsedLog(tuple(processes), tuple(other), tuple(warnings))
