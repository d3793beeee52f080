"""The Python readers of strace lines (profiler/parse/strace.py): the general path (`_Parse`:
any line, one at a time, with the unfinished calls it holds, the events, the noise and the day
a log passing midnight adds) and the fast paths (one match for a completed call in the usual
`-f -tt -T -y` or -ttt form: `_FAST` line by line, `_LINE` over a whole text) that give the
general path's records for the lines they take."""

from __future__ import annotations

import posixpath
import re

from profiler.errors import BadInput
from profiler.model.syscall_trace import PATH_ARG, ProcessEvent, StraceLog, Syscall
from profiler.parse.strace_args import _EXECS, decode_string, decoded_paths, split_args, string_array

_HEAD = re.compile(
    r"(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?"  # pid (-f to a file: "1234 "; to stderr: "[pid 1234] ")
    r"(?:(\d+):(\d\d):(\d\d(?:\.\d+)?)\s+|(\d+\.\d+)\s+)?"  # -tt / -t  or  -ttt
)
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")
_RESUMED = re.compile(r"<\.\.\. ([A-Za-z_][A-Za-z0-9_]*) resumed>\s?")
_UNFINISHED = " <unfinished ...>"
# a quoted string (with `...` when strace cut it), a -y fd decoration, a bracket, a comma
_RESULT = re.compile(
    r"\s*=\s+(?P<ret>-?\d+|0x[0-9a-fA-F]+|\?)(?:<(?P<path>(?:[^<>\\]|\\.)*)>)?"
    r"(?P<extra>.*?)(?:\s+<(?P<dur>[^<>]*)>)?\s*$"
)
_ERRNO = re.compile(r"\s+(E[A-Z0-9_]+)\b")
_EXITED = re.compile(r"\+\+\+ exited with (-?\d+) \+\+\+")
_KILLED = re.compile(r"\+\+\+ killed by (\w+)")
_SIGNAL = re.compile(r"--- (?:stopped by )?(\w+)")


# The fast path: a completed call in the usual `-f -tt -T -y` (or -ttt) form, in one match.
# Everything else (unfinished/resumed halves, signals, exits, noise, other formats, the last
# line of a log cut short) goes through the general path below, which gives the same result
# for these lines too (tests/test_strace_native.py checks both paths line by line).
# (neither crosses a line break: _LINE matches them over the whole text, where a decoration
# holding one, `= 3<` then `/x.pyc> <0.000082>` on the next line, took the next line for its own)
_STR = r'"([^"\\\n]*(?:\\.[^"\\\n]*)*)"'  # a quoted string's inside (unrolled: no per-character alternation)
_DECO = r"<([^<>\\\n]*(?:\\.[^<>\\\n]*)*)>"  # a -y decoration's inside
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
