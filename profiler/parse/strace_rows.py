"""The native fast path of profiler/parse/strace.py: the Rust parser (profiler/native/, built
by `make setup` into profiler/parse/_strace_native) read whole (`_parse_native`) or a run of
lines at a time (`_parse_piece`), its rows made Syscalls, the lines it leaves given to the
general path (profiler/parse/strace_lines.py), and a summary's records moved into its columns
as the pieces come."""

from __future__ import annotations

import operator

from profiler.model.syscall_trace import PATH_ARG, ProcessEvent, StraceLog, Syscall
from profiler.parse.strace_lines import _odd_breaks, _Parse, _tuple_new

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


class _Placed(int):
    """The place of a call waiting for its `<... resumed>` once the records around it went into
    the columns: its row there."""


class _ToColumns(list):
    """The records since the last move into the columns (_to_columns); a waiting call's place
    already there (_Placed) is filled in the columns."""

    __slots__ = ("columns",)

    def __init__(self, columns) -> None:
        super().__init__()
        self.columns = columns

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
