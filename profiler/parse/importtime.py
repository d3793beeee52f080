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
from typing import Iterable, Iterator

from profiler.errors import BadInput
from profiler.model.import_tree import ImportRow, ParsedLog, ProcessLog

MARK = "import time:"
_HEADER_REST = "self [us] | cumulative | imported package"
_ROW = re.compile(r"^ *([^|\s]*) *\| *([^|\s]*) *\| ?(.*)$")
# the common case, a whole clean row (fast path; everything else goes the careful way)
# µs fit in 15 digits (31 years); a longer number is no time, and past 4300 digits int() refuses it
MAX_DIGITS = 15
_CLEAN = re.compile(r"import time: +([0-9]{1,15}) \| +([0-9]{1,15}) \| ( *)(\S+)\r?")


def _digits(s: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²' (which int() refuses) and '٣'; at most
    MAX_DIGITS of them."""
    return s.isascii() and s.isdigit() and len(s) <= MAX_DIGITS


# the whole-text fast path: a log made only of header lines and clean rows (what -X importtime
# writes when the program prints nothing to stderr) is read by two compiled patterns over the
# whole text; anything else (noise, CRLF mixes, truncation, a malformed row) goes line by line.
_ROWS = re.compile("^" + _CLEAN.pattern + "$", re.M)  # _CLEAN, anchored to whole lines


class NotClean(Exception):
    """The log has more than header lines and clean rows: it is read the careful way."""


HEADER = MARK + " " + _HEADER_REST


def iter_clean_processes(pieces: Iterable[str]) -> Iterator[tuple]:
    """The processes of a clean log given as consecutive pieces of its text (any sizes: a
    file read a chunk at a time), each as soon as the header after it (or the end) is read:
    (header_line, names, self_us, cumulative_us, indents) per process with rows (a process
    with no rows is skipped; its lines are counted). Holds one process's text at a time.
    Raises NotClean as soon as the text is anything but header lines (the first at the start)
    and clean rows ending with a newline, or has no rows: the caller reads it the careful way
    (parse_importtime_lines), which says what is wrong, if anything."""
    header = HEADER
    hlen = len(header)
    buf = ""
    scanned = 1  # buf[:scanned] holds no header start but the one at 0
    line = 1  # the current process's header line
    started = False
    any_rows = False
    # one string per distinct name and indent: a log of many processes of one program repeats them
    shared: dict[str, str] = {}
    share = shared.setdefault
    rows = _ROWS.findall

    def one(text: str, start: int, end: int, line: int):
        if not (text.startswith("\n", start + hlen) or text.startswith("\r\n", start + hlen)):
            raise NotClean
        found = rows(text, start, end)
        n = text.count("\n", start, end) - 1
        if len(found) != n:
            raise NotClean
        if not n:
            return None, line + 1
        selfs, cums, indents, names = zip(*found)
        names = tuple([share(x, x) for x in names])
        indents = tuple([share(x, x) for x in indents])
        return (line, names, list(map(int, selfs)), list(map(int, cums)), indents), line + n + 1

    at = -1
    for piece in pieces:
        buf = buf + piece if buf else piece
        if not started:
            if len(buf) < hlen:
                continue
            if not buf.startswith(header):
                raise NotClean
            started = True
        start = 0  # buf[start:] is the current process's text so far
        while True:
            at = buf.find(header, scanned)
            if at < 0 or at + hlen + 2 > len(buf):  # no next header yet, or not its line end
                break
            if buf[at - 1] != "\n":
                raise NotClean
            proc, line = one(buf, start, at, line)
            start, scanned = at, at + 1
            if proc is not None:
                any_rows = True
                yield proc
        if start:
            buf = buf[start:]
            scanned -= start
            at = at - start if at >= 0 else -1
        if at < 0:
            scanned = max(1, len(buf) - hlen)
    if not started or not buf.endswith("\n"):
        raise NotClean
    # the last process (and a header that came too close to the end to be split at)
    start = 0
    while True:
        at = buf.find(header, scanned)
        if at < 0:
            break
        if buf[at - 1] != "\n":
            raise NotClean
        proc, line = one(buf, start, at, line)
        start, scanned = at, at + 1
        if proc is not None:
            any_rows = True
            yield proc
    proc, line = one(buf, start, len(buf), line)
    if proc is not None:
        any_rows = True
        yield proc
    if not any_rows:
        raise NotClean


def _parse_clean(text: str) -> ParsedLog | None:
    """ParsedLog of a clean log (exactly what the line-by-line path would return), or None."""
    try:
        found = list(iter_clean_processes((text,)))
    except NotClean:
        return None
    processes = []
    for line, names, selfs, cums, indents in found:
        n = len(names)
        columns = (names, selfs, cums, None, range(line + 1, line + 1 + n))
        processes.append(ProcessLog(header_line=line, columns=columns, indents=indents))
    return ParsedLog(tuple(processes), (), ())


def parse_importtime(text: str, source: str = "log") -> ParsedLog:
    fast = _parse_clean(text)
    if fast is not None:
        return fast
    return parse_importtime_lines(text, source)


def parse_importtime_lines(text: str, source: str = "log") -> ParsedLog:
    """parse_importtime line by line: any log (noise, CRLF, truncation, 3.14 cached rows)."""
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
            shown = bad.strip()
            shown = f"{shown[:20]}... ({len(shown)} characters)" if len(shown) > 40 else shown
            raise BadInput(f"{source}: line {no}: malformed import time row ({shown or 'empty'!r}): {line[at:][:120]!r}")
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
