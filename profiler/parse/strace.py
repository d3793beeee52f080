"""strace text → StraceLog. Pure; written for `strace -f -tt -T -y` logs (also accepts logs
without -f pids, with -ttt or no timestamps, and without -T or -y).

What a line can be (PID and timestamp prefixes optional):

    1234  04:38:56.794694 read(3</lib/x.so>, "\\177ELF\\2"..., 832) = 832 <0.000066>
    1234  04:38:56.945913 futex(0x55, FUTEX_WAIT, 0, NULL <unfinished ...>
    1234  04:38:56.947232 <... futex resumed>) = 0 <0.001307>
    1234  04:38:56.979804 --- SIGCHLD {si_signo=SIGCHLD, ...} ---
    1234  04:38:56.979735 +++ exited with 3 +++          (or: +++ killed by SIGKILL +++)
    1234  04:38:56.990956 exit_group(0)     = ?
    1234  ... openat(AT_FDCWD</w>, "x", O_RDONLY) = -1 ENOENT (No such file or directory) <0.00001>

Tolerant of noise (a line that is no strace record is counted in `noise`), of CRLF, and of a
truncated last line; strict about meaning: a record whose duration or return value is not a
number is an error naming the line.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Iterator

from profiler.errors import BadInput
from profiler.model.syscall_trace import StraceLog, SyscallColumns

# the rooms of the parser (this module is its entry): a call's arguments (strace_args), the
# Python general and fast paths (strace_lines), the native fast path (strace_rows)
from profiler.parse.strace_args import decode_string as decode_string, fd_path as fd_path, split_args as split_args
from profiler.parse.strace_lines import _FAST, _fast_call, _odd_breaks, _parse_text, _Parse
from profiler.parse.strace_rows import (
    _EVENT,
    _RECORD,
    OddLineBreaks,
    _native,
    _parse_native,
    _parse_piece,
    _to_columns,
    _ToColumns,
)


def parse_strace(source: str | Iterable[str], fast: bool = True, native: bool = True) -> StraceLog:
    """Parse a whole log (see _parse_strace). A number past Python's digit limit for int()
    (4300 digits: no pid, time or return value strace writes comes near it) is bad input."""
    try:
        return _parse_strace(source, fast, native)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        raise BadInput("not an strace log: it holds a number thousands of digits long, which strace never writes") from None


def _parse_strace(source: str | Iterable[str], fast: bool = True, native: bool = True) -> StraceLog:
    """Parse a whole log (a string or an iterable of lines). `fast=False` sends every line
    through the general path (the same result, slower: for tests and for comparison);
    `native=False` uses the pure-Python fast path even when the native one is built."""
    if isinstance(source, str) and fast and not _odd_breaks(source):
        mod = _native() if native else None
        if mod is not None:
            return _parse_native(source, mod)
        return _parse_text(source)
    if isinstance(source, str):
        lines = source.splitlines()
        ends_with_newline = source.endswith("\n")
    else:
        lines = list(source)
        ends_with_newline = bool(lines) and lines[-1].endswith("\n")
        lines = [ln.rstrip("\n") for ln in lines]
    state = _Parse(len(lines), ends_with_newline)
    last_full = state.n - 1 if (state.n and not ends_with_newline) else state.n  # a cut last line: general path
    for idx, raw in enumerate(lines):
        if fast and idx < last_full:
            m = _FAST(raw)
            if m is not None:
                pid_s, hh, mm, ss, tt, name, text, ret_s, rpath, extra, dur_s = m.groups()
                t = int(hh) * 3600 + int(mm) * 60 + float(ss) if hh is not None else float(tt)
                if state.last_t is not None and t + state.day < state.last_t - 43200:  # the clock passed midnight
                    state.day += 86400.0
                t += state.day
                state.last_t = t
                call = _fast_call(name, text, ret_s, rpath, extra, dur_s, int(pid_s), t, idx + 1)
                if call is not None:
                    state.syscalls.append(call)
                    continue
        state.general(raw, idx + 1)
    return state.result()


def parse_strace_pieces(pieces: Iterable[str], native: bool = True, keep_args: dict[str, int] | None = None) -> StraceLog:
    """parse_strace of a log given a piece at a time (any cuts: a line cut by a piece boundary is
    joined), the same StraceLog, without ever holding the log's text: with the native parser
    each run of whole lines is parsed as it comes, the general path's state (the unfinished
    calls it holds, the day a log passing midnight adds, the events) kept across pieces.
    Without the native parser the pieces are joined and parsed whole. Raises OddLineBreaks for
    a log whose line breaks are not all \\n or \\r\\n (the caller reads it whole). `keep_args`:
    None (every record keeps its arguments), or {syscall name: 1, or 2 for "when it has no -y
    fd path"}: the native rows of other calls get () for their arguments (a summary reads few
    calls' arguments, and a big log's records are most of its memory); the other fields stay."""
    try:
        return _parse_strace_pieces(pieces, native, keep_args)
    except ValueError as exc:  # as parse_strace: a number past Python's digit limit
        if isinstance(exc, OddLineBreaks) or "integer string conversion" not in str(exc):
            raise
        raise BadInput("not an strace log: it holds a number thousands of digits long, which strace never writes") from None


def _parse_strace_pieces(pieces: Iterable[str], native: bool, keep_args: dict[str, int] | None) -> StraceLog:
    mod = _native() if native else None
    if mod is None or _RECORD is None or _EVENT is None:
        return parse_strace("".join(pieces), native=native)
    state = _Parse(-1, True)  # no line is the last one until the last piece (n is set there)
    memo = mod.Memo()  # one str per path and one int per pid across the pieces
    # a summary's records (keep_args given) go into columns as each piece is read
    columns = mod.Calls(_RECORD) if _COLUMNS and keep_args is not None and hasattr(mod, "Calls") else None
    if columns is not None:
        state.syscalls = _ToColumns(columns)
    first = 1  # the line number of the next piece's first line
    raw_last = None  # the last time the native parser read (without the days added)
    carry = ""
    for text in _batches(pieces):
        if not text.endswith("\n"):  # the log's end, its last line without a line break
            end = text.rfind("\n") + 1
            carry = text[end:]
            if not end:
                break
            text = text[:end]
        first, raw_last = _parse_piece(state, text, mod, first, raw_last, False, keep_args, memo)
        if columns is not None:
            _to_columns(state, columns)
    if carry:
        first, raw_last = _parse_piece(state, carry, mod, first, raw_last, True, keep_args, memo)
    else:
        state.n = first - 1
    had_pending = bool(state.pending)
    log = state.result()
    if columns is None:
        return log
    columns.extend(log.syscalls)
    columns.compact()  # the places of unfinished calls that never became a record
    # result() counted the unfinished calls of the last records only
    unfinished = columns.unfinished() if had_pending or state.holes else 0
    return replace(log, syscalls=SyscallColumns(columns), unfinished=unfinished)


_COLUMNS = True  # False: a summary's records stay a tuple too (tests compare both)


_BATCH = 2 << 20  # characters parsed at once: at each cut the calls in progress go to the general path


def _batches(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces joined into runs of whole lines of about _BATCH characters (each ends with a
    line break; the last may not: the log's end). At a cut, every process in the middle of a
    call (`<unfinished ...>` before it, `<... resumed>` after) is joined by the general path: a
    log of 32 processes at once had 11,000 such lines more with 256 KiB cuts than whole (1,700),
    15 % of the parse's time. A run is joined once (the line its last piece cuts goes to the next
    run), not joined and then cut again."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= _BATCH:
            last = held[-1]
            cut = last.rfind("\n") + 1
            if not cut:  # no line ends in it: the run goes on
                continue
            tail = last[cut:]
            held[-1] = last[:cut]
            yield "".join(held)
            held.clear()
            size = len(tail)
            if tail:
                held.append(tail)
    if held:
        yield "".join(held)
