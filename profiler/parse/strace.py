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

import operator
import posixpath
import re
from dataclasses import replace
from typing import Iterable, Iterator

from profiler.errors import BadInput
from profiler.model.syscall_trace import PATH_ARG, ProcessEvent, StraceLog, Syscall, SyscallColumns

_HEAD = re.compile(
    r"(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?"  # pid (-f to a file: "1234 "; to stderr: "[pid 1234] ")
    r"(?:(\d+):(\d\d):(\d\d(?:\.\d+)?)\s+|(\d+\.\d+)\s+)?"  # -tt / -t  or  -ttt
)
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")
_RESUMED = re.compile(r"<\.\.\. ([A-Za-z_][A-Za-z0-9_]*) resumed>\s?")
_UNFINISHED = " <unfinished ...>"
# a quoted string (with `...` when strace cut it), a -y fd decoration, a bracket, a comma
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"(?:\.\.\.)?|(?<=[0-9D])<(?:[^<>\\]|\\.)*>|[()\[\]{},]')
_RESULT = re.compile(
    r"\s*=\s+(?P<ret>-?\d+|0x[0-9a-fA-F]+|\?)(?:<(?P<path>(?:[^<>\\]|\\.)*)>)?"
    r"(?P<extra>.*?)(?:\s+<(?P<dur>[^<>]*)>)?\s*$"
)
_ERRNO = re.compile(r"\s+(E[A-Z0-9_]+)\b")
_EXITED = re.compile(r"\+\+\+ exited with (-?\d+) \+\+\+")
_KILLED = re.compile(r"\+\+\+ killed by (\w+)")
_SIGNAL = re.compile(r"--- (?:stopped by )?(\w+)")
_OPEN = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


# The fast path: a completed call in the usual `-f -tt -T -y` (or -ttt) form, in one match.
# Everything else (unfinished/resumed halves, signals, exits, noise, other formats, the last
# line of a log cut short) goes through the general path below, which gives the same result
# for these lines too (tests/test_strace_parse.py checks both paths line by line).
_STR = r'"([^"\\]*(?:\\.[^"\\]*)*)"'  # a quoted string's inside (unrolled: no per-character alternation)
_DECO = r"<([^<>\\]*(?:\\.[^<>\\]*)*)>"  # a -y decoration's inside
_FAST = re.compile(
    r"(\d+) +(?:(\d+):(\d\d):(\d\d\.\d+)|(\d+\.\d+)) ([A-Za-z_][A-Za-z0-9_]*)\((.*)\) *= "
    r"(-?\d+|0x[0-9a-fA-F]+|\?)(?:" + _DECO + r")?(.*?) <(\d+\.\d+)>\r?$"
).match
_FAST_BODY = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\) *= (-?\d+|0x[0-9a-fA-F]+|\?)(?:" + _DECO + r")?(.*?) <(\d+\.\d+)>\r?$"
).match
_PATH_AT_0 = re.compile(_STR + r"(\.\.\.)?(?:, |$)").match
_PATH_AT_1 = re.compile(r"(?:AT_FDCWD|-?\d+)(?:" + _DECO + r")?, " + _STR + r"(\.\.\.)?(?:, |$)").match
# the first decorated fd, after plain arguments only (read(3</x>...), mmap(NULL, 8, PROT_READ, MAP_PRIVATE, 3</x.so>, 0))
_FD_AT_0 = re.compile(r"(?:[^,\"<>(\[{]*, )*?(?:AT_FDCWD|-?\d+)" + _DECO + r"(?:, |$)").match


def _fast_paths(name: str, text: str):
    """decoded_paths() from the unsplit argument text, for the usual shapes; None otherwise."""
    where = PATH_ARG.get(name)
    if where is None:
        if "<" not in text:
            return None, None, False
        m = _FD_AT_0(text)
        return (None, m.group(1), False) if m is not None else None
    if where[1] == 0:
        m = _PATH_AT_0(text)
        if m is None:
            return None
        base, raw, cut = None, m.group(1), m.group(2)
    else:
        m = _PATH_AT_1(text)
        if m is None:
            return None
        base, raw, cut = m.group(1), m.group(2), m.group(3)
    if not raw:
        return None, base, False
    if "\\" in raw:
        path = decode_string('"' + raw + '"')[0]
    else:
        path = raw
    if base and not path.startswith("/"):
        path = posixpath.join(base, path)
    return path, None, bool(cut)


def _split_text(text: str) -> tuple[str, ...]:
    args, _ = split_args(text + ")", 0)
    return tuple(args)


Syscall.splitter = staticmethod(_split_text)


_LINE = re.compile(
    r"^(?:(\d+) +(?:(\d+:\d\d):(\d\d\.\d+)|(\d+\.\d+)) ([A-Za-z_][A-Za-z0-9_]*)\("
    r"(.*)\) *= (-?\d+|0x[0-9a-fA-F]+|\?)(?:" + _DECO + r")?(.*?) <(\d+\.\d+)>\r?"
    r"|(.*))$",
    re.M,
)
# line breaks other than \n and \r\n (str.splitlines breaks there too): such a text takes the
# line-by-line loop, so line numbers stay splitlines' ones
_ODD_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


_ASCII_ODD_BREAKS = tuple(ch for ch in _ODD_BREAKS if ch.isascii())


def _odd_breaks(text: str) -> bool:
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return True
    # an ASCII text (str.isascii() costs nothing) cannot hold the others: three scans fewer
    return any(ch in text for ch in (_ASCII_ODD_BREAKS if text.isascii() else _ODD_BREAKS))


_tuple_new = tuple.__new__


class _Parse:
    """The parser's state: what the general (line by line) path needs."""

    def __init__(self, n: int, ends_with_newline: bool) -> None:
        self.syscalls: list[Syscall] = []
        self.events: list[ProcessEvent] = []
        # pid -> (text so far, time, line, index of its place in syscalls)
        self.pending: dict[int, tuple[str, float | None, int, int]] = {}
        self.noise = 0
        self.truncated = False
        self.day = 0.0
        self.last_t: float | None = None
        self.n = n
        self.ends_with_newline = ends_with_newline
        self.holes = False  # places of unfinished calls that never became a record

    def general(self, raw: str, lineno: int) -> None:
        """One line that the fast path did not take (any record, noise, a cut last line)."""
        line = raw.rstrip("\r")
        if not line:
            return
        syscalls = self.syscalls
        pending = self.pending
        head = _HEAD.match(line)
        pid_s = head.group(1) or head.group(2)
        pid = int(pid_s) if pid_s else 0
        t = None
        if head.group(3) is not None:
            t = int(head.group(3)) * 3600 + int(head.group(4)) * 60 + float(head.group(5))
        elif head.group(6) is not None:
            t = float(head.group(6))
        if t is not None:
            if self.last_t is not None and t + self.day < self.last_t - 43200:  # the clock passed midnight
                self.day += 86400.0
            t += self.day
            self.last_t = t
        body = line[head.end():]
        cut = lineno == self.n and not self.ends_with_newline  # the log ends inside this line
        try:
            if body.startswith("+++ "):
                self.holes |= _drop_pending(pending, pid, syscalls)
                m = _EXITED.match(body) or _KILLED.match(body)
                if m is None:
                    raise _NotARecord
                self.events.append(ProcessEvent(pid, t, "exit" if m.re is _EXITED else "killed", m.group(1), lineno))
            elif body.startswith("--- "):
                m = _SIGNAL.match(body)
                if m is None or (cut and not body.endswith("---")):
                    raise _NotARecord
                self.events.append(ProcessEvent(pid, t, "signal", m.group(1), lineno))
            elif body.startswith("<... "):
                m = _RESUMED.match(body)
                started = pending.pop(pid, None)
                if m is None or started is None or not started[0].startswith(m.group(1) + "("):
                    if started is not None:
                        self.holes |= _keep_unfinished(started, pid, syscalls)
                    if m is None:
                        raise _NotARecord
                    # the start is not in this log (attached late): keep what we can
                    syscalls.append(None)
                    started = (m.group(1) + "(", t, lineno, len(syscalls) - 1)
                text, t0, line0, slot = started
                try:
                    syscalls[slot] = _parse_call(text + body[m.end():], pid, t0, line0)
                except (_NotARecord, _Malformed):
                    self.holes = True
                    raise
            elif body.endswith(_UNFINISHED) and _CALL.match(body):
                self.holes |= _drop_pending(pending, pid, syscalls)
                syscalls.append(None)
                pending[pid] = (body[: -len(_UNFINISHED)], t, lineno, len(syscalls) - 1)
            else:
                syscalls.append(_parse_call(body, pid, t, lineno))
        except _NotARecord:
            if cut:
                self.truncated = True
            else:
                self.noise += 1
        except _Malformed as exc:
            if not cut:
                raise BadInput(f"strace log line {lineno}: {exc}: {line[:200]}") from None
            self.truncated = True

    def result(self) -> StraceLog:
        syscalls = self.syscalls
        unfinished = bool(self.pending)
        for pid, started in self.pending.items():
            self.holes |= _keep_unfinished(started, pid, syscalls)
        if self.holes:
            syscalls = [c for c in syscalls if c is not None]
        unfinished = sum(1 for s in syscalls if s.unfinished) if unfinished or self.holes else 0
        return StraceLog(
            syscalls=tuple(syscalls),
            events=tuple(self.events),
            lines=self.n,
            noise=self.noise,
            truncated_last_line=self.truncated,
            unfinished=unfinished,
        )


def _native():
    """The native fast path (profiler/native/, built by `make setup`), or None without it (or
    with a build older than the sources: parse_lines' arguments and results changed)."""
    try:
        from profiler.parse import _strace_native
    except ImportError:
        return None
    return _strace_native if getattr(_strace_native, "PARSE_LINES_VERSION", 0) == _PARSE_LINES_VERSION else None


_PARSE_LINES_VERSION = 6  # the parse_lines this module calls (profiler/native/src/parser.rs)


# the native parser makes its rows Syscall instances directly when Syscall has tuple's exact
# layout (a NamedTuple with __slots__ = () everywhere: no __dict__, no __weakref__)
_RECORD = Syscall if (Syscall.__basicsize__, Syscall.__itemsize__) == (tuple.__basicsize__, tuple.__itemsize__) and "__dict__" not in dir(Syscall) else None
# the same for the native process events (ProcessEvent, a NamedTuple)
_EVENT = (ProcessEvent if (ProcessEvent.__basicsize__, ProcessEvent.__itemsize__) == (tuple.__basicsize__, tuple.__itemsize__)
          and "__dict__" not in dir(ProcessEvent) else None)
_LINE_OF_EVENT = operator.itemgetter(4)
_KINDS = {name: where[1] for name, where in PATH_ARG.items()}
_KINDS.update((name, 2) for name in ("execve", "execveat"))  # = _EXECS


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


def _parse_native(text: str, mod, pairs: bool = True) -> StraceLog:
    """The native fast path: profiler/native/src/lib.rs makes the fields of each usual line
    (the same decisions as _parse_text) and joins the usual `<unfinished ...>`/`<... resumed>`
    pairs (the same record the general path makes of them: a multi-process log is half made of
    such halves), the general path takes the others. Every head strace writes is read natively
    (a pid, `[pid N]` or none; a -t, -tt or -ttt time or none), and calls with or without -T
    durations and -y paths. Runs of native rows become Syscalls in one C-level extend; a log
    that passes midnight (or holds a head the native parser leaves to Python) is read again
    without the joined pairs, row by row."""
    ends_with_newline = text.endswith("\n")
    pairs = pairs and _RECORD is not None  # the row-by-row way below reads a row's place as its line
    rows, general_at, general_lines, jumps, n, events, _ = mod.parse_lines(text, _KINDS, _RECORD, pairs, _EVENT if pairs else None)
    if jumps and pairs:
        return _parse_native(text, mod, pairs=False)
    state = _Parse(n, ends_with_newline)
    if not jumps and _RECORD is not None:  # the rows are Syscalls already
        _extend_native(state, rows, general_at, general_lines)
        if events:  # the native ones and the general path's, in line order
            state.events = sorted(state.events + events, key=_LINE_OF_EVENT)
        return state.result()
    # without pairs, a row's place is its line
    _extend_with_days(state, rows, 1, state.day, state.last_t)
    return state.result()


def _extend_native(state: _Parse, rows, general_at, general_lines) -> None:
    """Rows of a log (or piece) that passes no midnight: runs of native rows extend the
    Syscalls at C speed, the general path takes its lines. The native parser read every time
    and none passed midnight, so the general path adds no day (its last time is left unset,
    the native rows between its lines not being read for their times)."""
    syscalls, general = state.syscalls, state.general
    start = 0
    for i, lineno in zip(general_at, general_lines):
        if start < i:
            syscalls.extend(rows[start:i])
        state.last_t = None
        general(rows[i], lineno)
        start = i + 1
    if start < len(rows):
        syscalls.extend(rows[start:])


def _extend_with_days(state: _Parse, rows, first: int, day: float, last_t) -> None:
    """Rows read row by row, a row's place its line (`first` the first's): a day added to every
    time once the clock passed midnight; the general path's lines in between."""
    syscalls, general, new = state.syscalls, state.general, _tuple_new
    for idx, row in enumerate(rows):
        lineno = first + idx
        if row.__class__ is str:
            state.day, state.last_t = day, last_t
            general(row, lineno)
            day, last_t = state.day, state.last_t
            continue
        t = row[1]
        if t is None:  # no time on this line: nothing to add
            syscalls.append(row if row.__class__ is Syscall else new(Syscall, row))
            continue
        if last_t is not None and t + day < last_t - 43200:  # the clock passed midnight
            day += 86400.0
        if day:
            t += day
            row = (row[0], t, *row[2:])
        last_t = t
        syscalls.append(row if row.__class__ is Syscall else new(Syscall, row))
    state.day, state.last_t = day, last_t


class OddLineBreaks(ValueError):
    """A piece of the log holds line breaks other than \\n and \\r\\n (parse_strace_pieces): such a
    log is read whole (its line numbers are str.splitlines' ones)."""


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
        state.syscalls = _ToColumns()
        state.syscalls.columns = columns
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


class _Placed(int):
    """The place of a call waiting for its `<... resumed>` once the records around it went into
    the columns: its row there."""


class _ToColumns(list):
    """The records since the last move into the columns (_to_columns); a waiting call's place
    already there (_Placed) is filled in the columns."""

    __slots__ = ("columns",)

    def __setitem__(self, i, call) -> None:
        if i.__class__ is _Placed:
            self.columns.set(int(i), call)
        else:
            list.__setitem__(self, i, call)


def _to_columns(state: _Parse, columns) -> None:
    """Move the records read so far into `columns` (a waiting call's place, None, kept there as
    a row to fill), the waiting calls' places renumbered as rows of the columns."""
    syscalls = state.syscalls
    if not syscalls:
        return
    k = len(columns)
    columns.extend(syscalls)
    syscalls.clear()
    if state.pending:
        state.pending = {pid: (text, t, line, slot if slot.__class__ is _Placed else _Placed(slot + k))
                         for pid, (text, t, line, slot) in state.pending.items()}


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


def _parse_piece(state: _Parse, text: str, mod, first: int, raw_last, last: bool, keep_args: dict[str, int] | None = None, memo=None):
    """One run of whole lines (or the log's cut last line) into `state`, as _parse_native reads
    a whole log: native rows, the general path for the others; a piece that passes midnight,
    and every piece after it, row by row with the days added. → (the next piece's first line
    number, the last time read)."""
    if _odd_breaks(text):
        raise OddLineBreaks("the log holds line breaks other than \\n and \\r\\n")
    held = list(state.pending)
    rows, general_at, general_lines, jumps, n, events, piece_last = mod.parse_lines(
        text, _KINDS, _RECORD, True, _EVENT, first, held, raw_last, keep_args, memo)
    if last:
        state.n = first + n - 1
        state.ends_with_newline = text.endswith("\n")
    if not jumps and not state.day:
        k = len(state.events)  # the general path appends this piece's events after these
        _extend_native(state, rows, general_at, general_lines)
        if events:  # the native ones and the general path's, in line order
            state.events[k:] = sorted(state.events[k:] + events, key=_LINE_OF_EVENT)
        return first + n, piece_last
    # the piece passes midnight (or one before it did): row by row, a row's place is its line
    rows, _, _, _, n, _, piece_last = mod.parse_lines(text, _KINDS, _RECORD, False, None, first, held, raw_last, keep_args, memo)
    # the pieces before were read natively: their last time
    _extend_with_days(state, rows, first, state.day, state.last_t if state.day else raw_last)
    return first + n, piece_last


def _parse_text(text: str) -> StraceLog:
    """The whole-text fast path: one regular expression over the text, one match per line."""
    n = text.count("\n")
    ends_with_newline = text.endswith("\n")
    if text and not ends_with_newline:
        n += 1
    state = _Parse(n, ends_with_newline)
    append = state.syscalls.append
    general = state.general
    # per syscall name: 1 = path after a dirfd, 0 = path first, 2 = exec (the general path)
    kinds = {name: where[1] for name, where in PATH_ARG.items()}
    kinds.update((name, 2) for name in _EXECS)
    fd_at_0, path_at_0, path_at_1 = _FD_AT_0, _PATH_AT_0, _PATH_AT_1
    errno_match = _ERRNO.match
    clock: dict[str, float] = {}
    day = 0.0
    last_t = None
    lineno = 0
    cut_line = -1 if ends_with_newline else n
    for m in _LINE.finditer(text):
        lineno += 1
        (pid_s, hhmm, ss, tt, name, args, ret_s, rpath, extra, dur_s, other) = m.groups()
        if pid_s is None or lineno == cut_line:
            if lineno > n:
                break  # the empty match after the final newline
            state.day, state.last_t = day, last_t
            general(other if other is not None else m.group(), lineno)
            day, last_t = state.day, state.last_t
            continue
        if hhmm is not None:
            base = clock.get(hhmm)
            if base is None:
                h, _, mi = hhmm.partition(":")
                base = clock[hhmm] = int(h) * 3600 + int(mi) * 60
            t = base + float(ss)
        else:
            t = float(tt)
        if last_t is not None and t + day < last_t - 43200:  # the clock passed midnight
            day += 86400.0
        t += day
        last_t = t
        # the decoded paths (decoded_paths() without splitting the arguments)
        kind = kinds.get(name)
        path = fdp = None
        cut = False
        if kind is None:
            if "<" in args:
                f = fd_at_0(args)
                if f is None:  # a decorated fd after a string or a bracket: the general path finds it
                    state.day, state.last_t = day, last_t
                    general(m.group(), lineno)
                    continue
                fdp = f.group(1)
        else:
            f = path_at_1(args) if kind == 1 else (path_at_0(args) if kind == 0 else None)
            if f is None:
                state.day, state.last_t = day, last_t
                general(m.group(), lineno)
                continue
            if kind == 1:
                base1, raw, cut_s = f.groups()
            else:
                base1 = None
                raw, cut_s = f.groups()
            if not raw:
                fdp = base1
            else:
                path = raw if "\\" not in raw else decode_string('"' + raw + '"')[0]
                if base1 and path[0] != "/":
                    path = posixpath.join(base1, path)
                cut = cut_s is not None
        try:
            ret = int(ret_s)
        except ValueError:
            ret = None if ret_s == "?" else int(ret_s, 16)
        errno = None
        if extra:
            e = errno_match(extra)
            if e is not None:
                errno = e.group(1)
        append(_tuple_new(Syscall, (int(pid_s), t, name, args or (), ret, errno, rpath, float(dur_s), lineno, False, path, fdp, cut, None)))
    state.day, state.last_t = day, last_t
    return state.result()


class _NotARecord(Exception):
    """Not an strace record: noise (program output...), or the cut end of a truncated log."""


class _Malformed(ValueError):
    """An strace record whose numbers are not numbers."""


def _drop_pending(pending, pid, syscalls) -> bool:
    """Keep pid's unfinished call as such (it will not resume); True when its place stays empty."""
    started = pending.pop(pid, None)
    if started is not None:
        return _keep_unfinished(started, pid, syscalls)
    return False


def _keep_unfinished(started, pid, syscalls) -> bool:
    """Put a never-resumed call in its place; True when it is no call (its place stays empty)."""
    text, t, lineno, slot = started
    m = _CALL.match(text)
    if m is None:
        return True
    args, _ = split_args(text, m.end(), complete=False)
    name = m.group(1)
    path, fdp, cut = decoded_paths(name, args)
    syscalls[slot] = Syscall(pid, t, name, tuple(args), None, None, None, None, lineno, True, path, fdp, cut)
    return False


def split_args(text: str, start: int, complete: bool = True) -> tuple[list[str], int]:
    """Split the argument list that begins at `start` (just after the opening parenthesis) at
    its top-level commas. Returns (args, index just after the closing parenthesis), or
    (args, -1) when the list is not closed (an unfinished call)."""
    depth = 1
    args: list[str] = []
    arg_start = start
    for m in _TOKEN.finditer(text, start):
        tok = m.group()
        if len(tok) == 1:
            if tok == ",":
                if depth == 1:
                    args.append(text[arg_start : m.start()].strip())
                    arg_start = m.end()
                continue
            depth += _OPEN[tok]
            if depth == 0:
                last = text[arg_start : m.start()].strip()
                if last or args:
                    args.append(last)
                return args, m.end()
    if complete:
        return args, -1
    last = text[arg_start:].strip()
    if last:
        args.append(last)
    return args, -1


def _fast_call(name, text, ret_s, rpath, extra, dur_s, pid, t, lineno) -> Syscall | None:
    """A Syscall from the fast match's pieces, or None when its paths need the general path."""
    paths = _fast_paths(name, text) if name not in _EXECS else None
    if paths is None:
        return None
    if ret_s == "?":
        ret = None
    elif ret_s[:2] == "0x":
        ret = int(ret_s, 16)
    else:
        ret = int(ret_s)
    errno = None
    if extra:
        e = _ERRNO.match(extra)
        if e is not None:
            errno = e.group(1)
    return _new_call(Syscall, pid, t, name, text or (), ret, errno, rpath, float(dur_s), lineno, False, paths[0], paths[1], paths[2], None)


_new_call = Syscall.__new__


def _parse_call(text: str, pid: int, t: float | None, lineno: int) -> Syscall:
    f = _FAST_BODY(text)
    if f is not None:
        call = _fast_call(*f.groups(), pid, t, lineno)
        if call is not None:
            return call
    m = _CALL.match(text)
    if m is None:
        raise _NotARecord
    args, end = split_args(text, m.end())
    r = _RESULT.match(text, end) if end >= 0 else None
    if r is None:
        raise _NotARecord
    ret_s = r.group("ret")
    if ret_s == "?":
        ret = None
    elif ret_s.startswith("0x"):
        ret = int(ret_s, 16)
    else:
        ret = int(ret_s)
    dur_s = r.group("dur")
    dur = None
    if dur_s is not None:
        if dur_s == "unavailable":
            dur = None
        else:
            try:
                dur = float(dur_s)
            except ValueError:
                raise _Malformed(f"bad syscall duration <{dur_s}>") from None
    path = r.group("path")
    extra = r.group("extra")
    errno = None
    if extra:
        e = _ERRNO.match(extra)
        if e is not None:
            errno = e.group(1)
    name = m.group(1)
    cpath, fdp, cut = decoded_paths(name, args)
    argv = None
    if name in _EXECS:
        i = 1 if name == "execve" else 2
        argv = string_array(args[i]) if len(args) > i else ()
    return Syscall(pid, t, name, tuple(args), ret, errno, path, dur, lineno, False, cpath, fdp, cut, argv)


_EXECS = frozenset({"execve", "execveat"})
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"(?:\.\.\.)?')


def string_array(raw: str) -> tuple[str, ...]:
    """`["python3", "-c", "pass"]` → ("python3", "-c", "pass"); a string strace cut (-s) keeps
    a trailing "..."."""
    out = []
    for m in _QUOTED.finditer(raw):
        dec = decode_string(m.group())
        if dec is not None:
            out.append(dec[0] + ("..." if dec[1] else ""))
    return tuple(out)


def decoded_paths(name: str, args) -> tuple[str | None, str | None, bool]:
    """(path, fd_path, path_cut) of one call: the decoded path argument of a path-taking call
    (joined to its dirfd's -y path when relative), else the -y path of its first fd argument."""
    where = PATH_ARG.get(name)
    if where is None:
        for a in args:
            if a.endswith(">") and not a.startswith('"'):
                return None, fd_path(a), False
        return None, None, False
    dirfd_i, path_i = where
    if len(args) <= path_i:
        return None, None, False
    dec = decode_string(args[path_i])
    if dec is None or not dec[0]:
        # fstatat(3</x.pyc>, "", AT_EMPTY_PATH): no lookup, a call on the fd's file
        if dec is not None and dirfd_i is not None and len(args) > dirfd_i:
            return None, fd_path(args[dirfd_i]), False
        return None, None, False
    path, cut = dec
    if not path.startswith("/") and dirfd_i is not None and len(args) > dirfd_i:
        base = fd_path(args[dirfd_i])
        if base:
            path = posixpath.join(base, path)
    return path, None, cut


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "\\": "\\", '"': '"', "a": "\a", "b": "\b"}


def decode_string(raw: str) -> tuple[str, bool] | None:
    """A quoted strace string argument → (text, truncated). None when `raw` is not a string.
    Escapes (`\\n`, `\\x41`, octal `\\303\\251`) are decoded as bytes, then as UTF-8."""
    truncated = raw.endswith("...")
    if truncated:
        raw = raw[:-3]
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return None
    inner = raw[1:-1]
    if "\\" not in inner:
        return inner, truncated
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(inner):
        out += inner[pos : m.start()].encode("utf-8", "surrogateescape")
        e = m.group(1)
        if e[0] == "x" and len(e) == 3:
            out.append(int(e[1:], 16))
        elif e[0] in "01234567":
            out.append(int(e, 8) & 0xFF)
        else:
            out += _SIMPLE.get(e, e).encode("utf-8", "surrogateescape")
        pos = m.end()
    out += inner[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "replace"), truncated


def fd_path(raw: str) -> str | None:
    """`3</usr/lib/x.so>` or `AT_FDCWD</work>` (strace -y) → the path; None without -y."""
    i = raw.find("<")
    if i <= 0 or not raw.endswith(">"):
        return None
    return raw[i + 1 : -1]
