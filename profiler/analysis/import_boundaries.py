"""Import boundaries from what `-X importtime` already writes (pure).

`importprof trace` runs a Python target as it would run bare, plus `-X importtime`: no code of
importprof's inside the program, no extra frames, no extra syscalls but the interpreter's own
`import time:` lines. Each is one write(2, "import time: SELF | CUMULATIVE | NAME\\n") at the END
of that module's import (CPython prints it with one fprintf on unbuffered stderr, indented two
spaces per nesting level, children before their parent). Its START is that write's strace
timestamp minus the line's cumulative µs: the interpreter's clock and strace's tick at the same
rate, and strace stamps every syscall with the same lag.

`with_import_boundaries(log)` turns those writes into the begin/end marker calls the
attribution already understands (analysis/attribution.py, its native twin too): each write
becomes the end marker of its module, and a begin marker goes in before the first call at or
after the computed start, clamped so that imports nest as the lines say (a module begins after
the import written before its subtree ended and no later than its first child began). The
writes (and the header line) are importprof's own: like the markers, they count nowhere; the
number left out is returned for the report.

A process without such writes (2.7, 3.6, a `-- COMMAND`'s children, a log without times) is
left as it was: the attribution reads its lookups instead.
"""

from __future__ import annotations

import bisect
import operator
import re
from dataclasses import dataclass, replace

from profiler.model.syscall_trace import MARKER_PREFIX, StraceLog, Syscall, SyscallColumns

# write(2, "import time: ...": fd 2, with or without its -y decoration
_WRITE = re.compile(r'2(?:<(?:[^<>\\]|\\.)*>)?, "import time:')
_HEADER = " self [us] | cumulative | imported package"
# after `import time:`: self, cumulative, the indentation and the name (cut by strace -s: `"...`)
_ENTRY = re.compile(r' *(\d+) \| *(\d+) \| ( *)((?:[^"\\]|\\.)*?)(\\n)?"(\.\.\.)?(?:,|$)')
_NAME = operator.itemgetter(2)
_TIME = operator.itemgetter(1)
HEADER = "header"


@dataclass(frozen=True)
class ImportLine:
    """One `import time:` line: at call `index` of the log, by `pid`, at `time_s`."""

    index: int
    pid: int
    time_s: float | None
    cumulative_us: int
    depth: int
    name: str
    cut: bool  # strace cut the line (-s): the name is its beginning only


def importtime_entry(call: Syscall):
    """HEADER, (cumulative µs, depth, name, cut), or None when `call` is no `import time:` write
    of fd 2 (a line cut before its name is HEADER too: importprof's, but no boundary)."""
    if call.name != "write":
        return None
    text = call.args_text
    m = _WRITE.match(text)
    if m is None:
        return None
    rest = text[m.end():]
    e = _ENTRY.match(rest)
    if e is None or not e.group(4):
        return HEADER
    name = e.group(4)
    if "\\" in name:
        name = _unescape(name)
    return int(e.group(2)), len(e.group(3)) // 2, name, bool(e.group(6)) and not e.group(5)


def _unescape(s: str) -> str:
    """strace's escapes (\\ooo, \\xNN, \\n...) as bytes, then UTF-8."""
    try:
        return s.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
    except (UnicodeError, ValueError):
        return s


def importtime_lines(log: StraceLog) -> tuple[list[ImportLine], list[int]]:
    """The log's `import time:` lines (in log order) and the positions of every importtime
    write (the header and cut lines included): importprof's own calls."""
    calls = log.syscalls
    names = calls.names() if isinstance(calls, SyscallColumns) else list(map(_NAME, calls))
    lines: list[ImportLine] = []
    own: list[int] = []
    i = -1
    while True:
        try:
            i = names.index("write", i + 1)
        except ValueError:
            break
        c = calls[i]
        e = importtime_entry(c)
        if e is None:
            continue
        own.append(i)
        if e is not HEADER:
            lines.append(ImportLine(i, c.pid, c.time_s, *e))
    return lines, own


def _marker(prefix: str, kind: str, line: ImportLine, t: float | None, duration: float | None, lineno: int) -> Syscall:
    path = f"{prefix}{kind}/{line.name}"
    return Syscall(line.pid, t, "stat", f'"{path}", 0x0', -1, "ENOENT", None, duration, lineno, False, path, None, line.cut)


def with_import_boundaries(log: StraceLog, prefix: str = MARKER_PREFIX) -> tuple[StraceLog, int, frozenset]:
    """(the log with begin/end markers in place of the `import time:` writes, how many writes
    were importprof's own and left out, the pids attributed from them). The log itself when it
    holds none."""
    lines, own = importtime_lines(log)
    if not own:
        return log, 0, frozenset()
    calls = log.syscalls
    columns = isinstance(calls, SyscallColumns)
    times = calls.times() if columns else list(map(_TIME, calls))
    timed = None not in times  # a log without times (or with some missing) gives no boundaries
    inserts: list[tuple[int, int, Syscall]] = []  # (position, depth, begin marker): before calls[position]
    ends: dict[int, Syscall] = {}
    by_pid: dict[int, list[ImportLine]] = {}
    for ln in lines:
        by_pid.setdefault(ln.pid, []).append(ln)
    pids = set()
    for pid, mine in by_pid.items():
        if not timed:
            continue  # no times: no boundaries (the writes are still left out)
        pids.add(pid)
        # post-order: a line's children are the lines just before it that are deeper
        done: list[tuple[ImportLine, int, int]] = []  # (line, its begin position, first position of its subtree's writes)
        for ln in mine:
            first_child = None
            subtree_first = ln.index
            while done and done[-1][0].depth > ln.depth:
                child, child_begin, child_first = done.pop()
                first_child = child_begin if first_child is None else min(first_child, child_begin)
                subtree_first = min(subtree_first, child_first)
            # the write of this pid before the subtree: the import begins after it
            lo = _previous_write(mine, ln, subtree_first)
            hi = ln.index if first_child is None else min(first_child, ln.index)
            start = ln.time_s - ln.cumulative_us / 1e6
            pos = bisect.bisect_left(times, start, lo + 1, hi) if lo + 1 < hi else hi
            pos = _own_lookups_before(calls, lo, pos, ln)
            failed = first_child is None and _not_found(calls, pos, ln)
            if first_child is None and not failed and _none_of(calls, pos, ln):
                # strace stamped the write late (a busy machine: `nt` began after its own stats of
                # the sys.path folders 1 run in 40): nothing of this pid between the computed start
                # and the write, and just before it the finder's stats finding nothing: its own
                lookups = _finder_stats_before(calls, lo, pos, ln)
                if lookups is not None and _not_found(calls, lookups, ln):
                    pos, failed = lookups, True
            t_begin = start
            if lo >= 0 and times[lo] is not None and t_begin < times[lo]:
                t_begin = times[lo]
            if pos < len(calls) and times[pos] is not None and t_begin > times[pos]:
                t_begin = times[pos]
            lineno = calls[pos].line if pos < len(calls) else calls[ln.index].line
            inserts.append((pos, ln.depth, _marker(prefix, "b", ln, t_begin, 0.0, lineno)))
            c = calls[ln.index]
            ends[ln.index] = _marker(prefix, "f" if failed else "e", ln, c.time_s, c.duration_s, c.line)
            done.append((ln, pos, subtree_first))
    inserts.sort(key=lambda x: (x[0], x[1]))
    out: list = []  # Syscalls, or for columns (start, stop) runs of their rows and Syscalls
    drop = set(own)
    at = 0
    k = 0
    cuts = sorted(set(own) | {p for p, _, _ in inserts})
    for cut in cuts:
        if at < cut:
            if columns:
                out.append((at, cut))
            else:
                out.extend(calls[at:cut])
            at = cut
        while k < len(inserts) and inserts[k][0] == cut:
            out.append(inserts[k][2])
            k += 1
        if cut in drop:
            end = ends.get(cut)
            if end is not None:
                out.append(end)
            at = cut + 1
    if columns:
        out.append((at, len(calls)))
    else:
        out.extend(calls[at:])
    while k < len(inserts):  # past the last call
        out.append(inserts[k][2])
        k += 1
    return replace(log, syscalls=calls.spliced(out) if columns else tuple(out)), len(own), frozenset(pids)


_LOOKBACK = 256  # calls before a computed start searched for the module's own lookups


def _own_lookups_before(calls, lo: int, pos: int, ln: ImportLine) -> int:
    """An earlier begin when the calls just before the computed one look the module itself up:
    strace stamps a write late when it is not scheduled at once (a busy machine), which moves
    the computed start later than the import's first calls. A lookup or open of a file or
    folder named for the module (`url.py`, `url.cpython-311.pyc` for `a.util.url`) between
    the import written before it and its computed start is its own, and so are the stats of
    the folders it lies in made just before (the finder's mtime check)."""
    last = ln.name.rpartition(".")[2]
    if ln.cut or not last:
        return pos
    first = None
    calls_before = range(pos - 1, max(lo, pos - _LOOKBACK), -1)
    if isinstance(calls, SyscallColumns):  # the same search over the rows, without a record each
        try:
            found = calls.own_lookup(lo, pos, ln.pid, last, _LOOKBACK)
        except OverflowError:  # a pid past 64 bits: the loop below
            pass
        else:
            calls_before = ()
            first = found if found >= 0 else None
    for i in calls_before:
        c = calls[i]
        if c.pid != ln.pid:
            continue
        path = c.ret_path or c.path
        if not path:
            continue
        base = path.rstrip("/").rpartition("/")[2]
        if base == last or base.startswith(last + "."):
            first = i
    if first is None:
        return pos
    path = calls[first].ret_path or calls[first].path
    i = first - 1
    while i > lo:  # the finder's stats of the folders the file lies in, just before
        c = calls[i]
        if c.pid == ln.pid:
            if c.name not in _STATS or not c.path or not path.startswith(c.path.rstrip("/") + "/"):
                break
            first = i
        i -= 1
    return first


_STATS = frozenset({"stat", "lstat", "newfstatat", "fstatat64", "statx", "stat64", "lstat64"})
_SHORT = 64  # an import that found nothing makes a few stats per sys.path entry


def _not_found(calls, pos: int, ln: ImportLine) -> bool:
    """Whether a leaf import (nothing nested) found no module: the path finder ran (its calls
    are all stats: each sys.path entry's mtime, the candidates) and none of them found a file
    or folder of its name. A builtin or frozen module makes no stat; a module found makes a
    successful stat or open of its file, a zip import reads its archive. `import time:` lines
    are written for imports that raised as for the others: this is how `nt` on Linux shows."""
    if ln.index - pos > _SHORT or ln.cut:
        return False
    last = ln.name.rpartition(".")[2]
    stats = 0
    for c in calls[pos:ln.index]:
        if c.pid != ln.pid:
            continue
        if c.name not in _STATS:
            return False
        stats += 1
        path = c.path
        if path and not c.errno and path.rstrip("/").rpartition("/")[2].startswith(last):
            return False
    return stats > 0


def _finder_stats_before(calls, lo: int, pos: int, ln: ImportLine) -> int | None:
    """Where the run of the line's pid's stats of absolute paths just before `pos` (after `lo`)
    begins, when it is two folders at least, each once: the path finder's look at each sys.path
    folder in turn (not an fstat of stdin, not a program's one check of a path before a builtin
    import). A summary's columns keep no stat's result, so a folder is told by its path alone."""
    first, paths = pos, []
    i = pos - 1
    while i > lo:
        c = calls[i]
        if c.pid == ln.pid:
            if c.name not in _STATS or not c.path or not c.path.startswith("/"):
                break
            first = i
            paths.append(c.path)
        i -= 1
    return first if len(paths) >= 2 and len(set(paths)) == len(paths) else None


def _none_of(calls, pos: int, ln: ImportLine) -> bool:
    """No call of the line's pid between `pos` and its write."""
    return all(calls[i].pid != ln.pid for i in range(pos, ln.index))


def _previous_write(mine: list[ImportLine], ln: ImportLine, subtree_first: int) -> int:
    """The position of this pid's last `import time:` write before `subtree_first`, or -1."""
    lo, hi = 0, len(mine)
    while lo < hi:  # mine is in log order
        mid = (lo + hi) // 2
        if mine[mid].index < subtree_first:
            lo = mid + 1
        else:
            hi = mid
    return mine[lo - 1].index if lo else -1


__all__ = ["ImportLine", "importtime_entry", "importtime_lines", "with_import_boundaries"]
