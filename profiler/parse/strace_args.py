"""A call's argument text in an strace log (profiler/parse/strace.py): the list split at its
top-level commas, quoted strings decoded (escapes, UTF-8, strace's `...` cut), string arrays
(an exec's argv), and the paths a call names (its path argument joined to its dirfd's -y path,
or its first fd's -y path). Pure; shared by the general and the fast paths."""

from __future__ import annotations

import posixpath
import re

from profiler.model.syscall_trace import PATH_ARG, Syscall

# a quoted string (with `...` when strace cut it), a -y fd decoration, a bracket, a comma
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"(?:\.\.\.)?|(?<=[0-9D])<(?:[^<>\\]|\\.)*>|[()\[\]{},]')
_OPEN = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


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


def _split_text(text: str) -> tuple[str, ...]:
    args, _ = split_args(text + ")", 0)
    return tuple(args)


Syscall.splitter = staticmethod(_split_text)  # type: ignore[assignment]  # the model declares None (it imports no parser)


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
