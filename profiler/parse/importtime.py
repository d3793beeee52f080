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


# the fast path: a log made only of header lines and clean rows (what -X importtime writes when
# the program prints nothing to stderr) is read by one compiled pattern over each stretch of rows
# between headers; anything else (noise, CRLF mixes, truncation, a malformed row) goes line by line.
# Both read a log given in pieces (a file read a chunk at a time), a process at a time.
_ROWS = re.compile("^" + _CLEAN.pattern + "$", re.M)  # _CLEAN, anchored to whole lines


class NotClean(Exception):
    """The log has more than header lines and clean rows: it is read the careful way."""


HEADER = MARK + " " + _HEADER_REST


# a clean log's lines are short: a longer one (no newline for a MiB) sends the log the careful way
_MAX_CLEAN_LINE = 1 << 20


def iter_clean_processes(pieces: Iterable[str]) -> Iterator[tuple]:
    """The processes of a clean log given as consecutive pieces of its text (any sizes: a
    file read a chunk at a time), each as soon as the header after it (or the end) is read:
    (header_line, names, self_us, cumulative_us, indents) per process with rows (a process
    with no rows is skipped; its lines are counted). Holds one piece and the current
    process's rows, never the text. Raises NotClean as soon as the text is anything but
    header lines (the first at the start) and clean rows ending with a newline, or has no rows:
    the caller reads it the careful way (iter_log_processes), which says what is wrong, if
    anything."""
    header = HEADER
    hlen = len(header)
    rows = _ROWS.findall
    # one string per distinct name and indent: a log of many processes of one program repeats them
    shared: dict[str, str] = {}
    share = shared.setdefault
    started = False  # a header was read
    any_rows = False
    line = 1  # the current process's header line
    parts: list[list] = []  # the current process's rows, as found segment by segment
    count = 0  # how many
    rest = ""  # the piece's last line, unfinished

    def process(line: int, parts: list[list], count: int) -> tuple:
        found = parts[0] if len(parts) == 1 else [r for part in parts for r in part]
        selfs, cums, indents, names = zip(*found)
        names = tuple([share(x, x) for x in names])
        indents = tuple([share(x, x) for x in indents])
        return line, names, list(map(int, selfs)), list(map(int, cums)), indents

    for piece in pieces:
        if rest:
            piece = rest + piece
        end = piece.rfind("\n") + 1  # the piece's whole lines
        rest = piece[end:]
        if len(rest) > _MAX_CLEAN_LINE:
            raise NotClean
        pos = 0
        while pos < end:
            at = piece.find(header, pos, end)
            stop = end if at < 0 else at
            if stop > pos:  # rows
                if not started:
                    raise NotClean
                found = rows(piece, pos, stop)
                if len(found) != piece.count("\n", pos, stop):
                    raise NotClean
                if found:
                    parts.append(found)
                    count += len(found)
            if at < 0:
                break
            # a header: a line of its own (pieces end at a line's end, so a piece starts a line)
            if at and piece[at - 1] != "\n":
                raise NotClean
            if piece.startswith("\n", at + hlen):
                pos = at + hlen + 1
            elif piece.startswith("\r\n", at + hlen):
                pos = at + hlen + 2
            else:
                raise NotClean
            if started:
                if count:
                    any_rows = True
                    yield process(line, parts, count)
                line += count + 1
            started = True
            parts, count = [], 0
    if rest or not started:
        raise NotClean
    if count:
        any_rows = True
        yield process(line, parts, count)
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
    other: list[str] = []
    warnings: list[str] = []
    processes = tuple(iter_log_processes((text,), source, warnings, other))
    return ParsedLog(processes, tuple(other), tuple(warnings))


def _lines(pieces: Iterable[str], tail: list[bool]) -> Iterator[str]:
    """The lines of the text the pieces make, without their newlines; the last one, when the
    text does not end with a newline, after setting tail[0]. Linear in any line's length."""
    pending: list[str] = []  # the pieces of a line not finished yet
    for piece in pieces:
        if "\n" not in piece:
            if piece:
                pending.append(piece)
            continue
        lines = piece.split("\n")
        if pending:
            pending.append(lines[0])
            lines[0] = "".join(pending)
            pending = []
        last = lines.pop()
        if last:
            pending.append(last)
        yield from lines
    if pending:
        tail[0] = True
        yield "".join(pending)


def iter_log_processes(pieces: Iterable[str], source: str = "log", warnings: list[str] | None = None,
                       other: list[str] | None = None) -> Iterator[ProcessLog]:
    """The processes of any log (noise, CRLF, truncation, 3.14 cached rows) given as
    consecutive pieces of its text, each (with rows) as soon as the header after it (or the
    end) is read; its warnings appended to `warnings` and the program's own lines to `other`
    (each when given). Holds one process's rows at a time. Strict about meaning: a malformed
    number raises BadInput naming the line (the processes before it were given); so does a log
    with no import rows, at its end."""
    warnings = [] if warnings is None else warnings
    keep = other.append if other is not None else None
    rows: list[ImportRow] = []
    header_line: int | None = None
    before_first = False  # rows came before the first header
    timed = 0
    tail = [False]  # the line being read is the last and has no newline
    clean = _CLEAN.fullmatch
    append = rows.append
    row = ImportRow
    # one string per distinct name: a log of many processes of one program repeats them
    shared: dict[str, str] = {}
    share = shared.setdefault
    no = 0
    for no, raw in enumerate(_lines(pieces, tail), 1):
        m = clean(raw)
        if m is not None and not tail[0]:
            a, b, indent, name = m.groups()
            append(row(share(name, name), int(a), int(b), len(indent) // 2, no))
            continue
        line = raw[:-1] if raw.endswith("\r") else raw
        at = line.find(MARK)
        if at < 0:
            if keep:
                keep(line)
            continue
        if at > 0 and keep:
            keep(line[:at])  # program output glued in front (no newline)
        rest = line[at + len(MARK) :]
        if rest.strip() == _HEADER_REST:
            if rows:
                timed += sum(1 for r in rows if not r.cached)
                before_first = before_first or header_line is None
                yield ProcessLog(tuple(rows), header_line)
            rows = []
            append = rows.append
            header_line = no
            continue
        m = _ROW.match(rest)
        truncated_tail = tail[0]
        if m is None:
            if truncated_tail:
                warnings.append(f"{source}: line {no} is truncated (no newline at the end); ignored it")
                continue
            if keep:
                keep(line[at:])  # "import time:" written by the program itself
            continue
        a, b, name_field = m.groups()
        name = name_field.strip()
        if a == "cached" and b == "cached":
            pad = len(name_field) - len(name_field.lstrip(" "))
            depth = (pad + len(name)) // 2 if pad else None
            if name:
                rows.append(row(share(name, name), None, None, depth, no, cached=True))
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
        rows.append(row(share(name, name), int(a), int(b), indent // 2, no))
    if rows:
        timed += sum(1 for r in rows if not r.cached)
        before_first = before_first or header_line is None
        yield ProcessLog(tuple(rows), header_line)
    if timed == 0:
        raise BadInput(f"{source}: no import time rows (was it made with -X importtime?)")
    if before_first:
        warnings.append(f"{source}: import rows before the first header (log cut at the start?)")
