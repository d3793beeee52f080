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

import posixpath
import re
from typing import Iterable

from profiler.errors import BadInput
from profiler.model.syscall_trace import PATH_ARG, ProcessEvent, StraceLog, Syscall

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


def parse_strace(source: str | Iterable[str]) -> StraceLog:
    """Parse a whole log (a string or an iterable of lines)."""
    if isinstance(source, str):
        lines = source.splitlines()
        ends_with_newline = source.endswith("\n")
    else:
        lines = list(source)
        ends_with_newline = bool(lines) and lines[-1].endswith("\n")
        lines = [ln.rstrip("\n") for ln in lines]
    syscalls: list[Syscall] = []
    events: list[ProcessEvent] = []
    pending: dict[int, tuple[str, float | None, int]] = {}  # pid -> (text so far, time, line)
    noise = 0
    truncated = False
    day = 0.0
    last_t = None
    n = len(lines)
    for idx, raw in enumerate(lines):
        lineno = idx + 1
        line = raw.rstrip("\r")
        if not line:
            continue
        head = _HEAD.match(line)
        pid_s = head.group(1) or head.group(2)
        pid = int(pid_s) if pid_s else 0
        t = None
        if head.group(3) is not None:
            t = int(head.group(3)) * 3600 + int(head.group(4)) * 60 + float(head.group(5))
        elif head.group(6) is not None:
            t = float(head.group(6))
        if t is not None:
            if last_t is not None and t + day < last_t - 43200:  # the clock passed midnight
                day += 86400.0
            t += day
            last_t = t
        body = line[head.end():]
        cut = lineno == n and not ends_with_newline  # the log ends inside this line
        try:
            if body.startswith("+++ "):
                _drop_pending(pending, pid, syscalls)
                m = _EXITED.match(body) or _KILLED.match(body)
                if m is None:
                    raise _NotARecord
                events.append(ProcessEvent(pid, t, "exit" if m.re is _EXITED else "killed", m.group(1), lineno))
            elif body.startswith("--- "):
                m = _SIGNAL.match(body)
                if m is None or (cut and not body.endswith("---")):
                    raise _NotARecord
                events.append(ProcessEvent(pid, t, "signal", m.group(1), lineno))
            elif body.startswith("<... "):
                m = _RESUMED.match(body)
                started = pending.pop(pid, None)
                if m is None or started is None or not started[0].startswith(m.group(1) + "("):
                    if started is not None:
                        _keep_unfinished(started, pid, syscalls)
                    if m is None:
                        raise _NotARecord
                    # the start is not in this log (attached late): keep what we can
                    started = (m.group(1) + "(", t, lineno)
                text, t0, line0 = started
                syscalls.append(_parse_call(text + body[m.end():], pid, t0, line0))
            elif body.endswith(_UNFINISHED) and _CALL.match(body):
                _drop_pending(pending, pid, syscalls)
                pending[pid] = (body[: -len(_UNFINISHED)], t, lineno)
            else:
                syscalls.append(_parse_call(body, pid, t, lineno))
        except _NotARecord:
            if cut:
                truncated = True
            else:
                noise += 1
        except _Malformed as exc:
            if not cut:
                raise BadInput(f"strace log line {lineno}: {exc}: {line[:200]}") from None
            truncated = True
    for pid, started in pending.items():
        _keep_unfinished(started, pid, syscalls)
    unfinished = sum(1 for s in syscalls if s.unfinished)
    syscalls.sort(key=lambda s: s.line)
    return StraceLog(
        syscalls=tuple(syscalls),
        events=tuple(events),
        lines=n,
        noise=noise,
        truncated_last_line=truncated,
        unfinished=unfinished,
    )


class _NotARecord(Exception):
    """Not an strace record: noise (program output...), or the cut end of a truncated log."""


class _Malformed(ValueError):
    """An strace record whose numbers are not numbers."""


def _drop_pending(pending, pid, syscalls) -> None:
    started = pending.pop(pid, None)
    if started is not None:
        _keep_unfinished(started, pid, syscalls)


def _keep_unfinished(started, pid, syscalls) -> None:
    text, t, lineno = started
    m = _CALL.match(text)
    if m is None:
        return
    args, _ = split_args(text, m.end(), complete=False)
    name = m.group(1)
    path, fdp, cut = decoded_paths(name, args)
    syscalls.append(Syscall(pid, t, name, tuple(args), None, None, None, None, lineno, True, path, fdp, cut))


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


def _parse_call(text: str, pid: int, t: float | None, lineno: int) -> Syscall:
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
