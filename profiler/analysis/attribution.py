"""Give each syscall to the module whose import made it (pure), process by process.

Three ways, chosen per process (`ProcessStat.attribution`):

"importtime": the program ran bare plus `-X importtime` (what `importprof trace` runs): each
    `import time:` write ends an import, its cumulative time gives the start.
    analysis/import_boundaries.py turns those writes into begin/end markers before anything
    below runs (so the native pass reads them as markers too), and the writes, importprof's
    own calls, are counted nowhere (`harness["importprof_syscalls"]` says how many).

"markers": the boundaries as the walk below reads them; in a saved log of an older importprof,
    the bootstrap hook (hook_markers, removed since) stat'ed `<prefix>b/NAME` when
    the import of NAME begins, `<prefix>e/NAME` when it ends and `<prefix>f/NAME` when it ends
    by raising. Per pid the markers form a stack: a syscall belongs to the innermost import in
    progress (its `syscalls`), and to every import on the stack (their `cumulative_syscalls`);
    syscalls made outside any import go to OUTSIDE. The marker calls are counted nowhere (the
    hook's frames still made CPython map and unmap frame-stack chunks: such counts are not
    the program's alone).

"lookups": a Python process without markers (a `-- COMMAND`'s children, any flags: -S, -I,
    -E) is read from the trace itself. A module's import ends with the read-only open of its
    .pyc/.py/.so below a sys.path entry (a directory the process listed that holds no
    `__init__`: that is a package); the syscalls since the previous module's file belong to it
    (its lookups: the stats of each sys.path entry, the directory listings...), and so do the
    calls on its own file (fstat, read, mmap of the opened fd). What a module's body does
    besides importing is given to the next import; syscalls after the last one, and those of
    the interpreter's start-up (before its first listing of a sys.path entry), go to OUTSIDE.
    Nesting is unknown: `cumulative_syscalls` equals `syscalls`, and each import's span (for
    the timeline) runs from its first lookup to the open of its file, at depth 0. A failed import (no file
    found) leaves no open, so its lookups go to the next module. A module's .pyc/.so opened
    again (a re-import after `del sys.modules[...]`) counts as another import of it; its .py
    opened again is linecache reading the source for a traceback, not an import.

Other processes (a shell, `make`...) are not attributed (None); their syscalls count in the
totals and in OUTSIDE. `modules` is the sum of every process's rows (`processes`: how many
processes imported the module).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from typing import Sequence

from profiler.analysis.syscalls import (
    LAYOUT_CALLS,
    READS,
    ProcessLayout,
    bytes_read,
    count_syscalls,
    filesystem_from_tallies,
    TALLY_KINDS,
    filesystem_view,
    is_failed_lookup,
    opened_path,
    process_stats,
    syscall_stats,
    tally_calls,
)
from profiler.model.process import looks_like_python
from profiler.model.syscall_trace import MARKER_PREFIX, ImportSpan, ModuleStat, StraceLog, Syscall, TraceResult

OUTSIDE = "(outside imports)"
# the calls whose arguments the summary reads (opens' flags, clone's CLONE_THREAD, `import
# time:` writes, a read named by its fd argument when it has no -y path: 2): a big log's other
# records can leave theirs out (parse/strace.py parse_strace_pieces(keep_args=...))
ARGS_READ: dict[str, int] = {
    **dict.fromkeys(("open", "openat", "openat2", "clone", "clone3", "fork", "vfork", "write"), 1),
    **dict.fromkeys(sorted(READS), 2),
}
MARKERS = "markers"
LOOKUPS = "lookups"
IMPORTTIME = "importtime"


def marker_of(call: Syscall, prefix: str = MARKER_PREFIX) -> tuple[str, str] | None:
    """("b"|"e"|"f", module name) when `call` is an import marker, else None."""
    path = call.path
    if path is None or not path.startswith(prefix):
        return None
    kind, _, name = path[len(prefix) :].partition("/")
    if kind not in ("b", "e", "f") or not name:
        return None
    return kind, name + ("..." if call.path_cut else "")


_MARKER_CALLS = frozenset({"stat", "newfstatat", "fstatat64", "statx", "stat64", "lstat", "lstat64"})
_MODULE_OPENS = frozenset({"openat", "open", "openat2"})  # the calls _module_file can return a file for
_LISTING_CALLS = ("openat", "open")  # the calls _Roots reads and is_listing takes


class _Acc:
    __slots__ = ("syscalls", "failed", "opened", "bytes_read", "seconds", "imports", "cumulative", "failures")

    def __init__(self) -> None:
        self.syscalls = self.failed = self.opened = self.bytes_read = self.imports = self.cumulative = self.failures = 0
        self.seconds = 0.0

    def add(self, c: Syscall) -> None:
        self.syscalls += 1
        if c.duration_s:
            self.seconds += c.duration_s
        if is_failed_lookup(c):
            self.failed += 1
        elif opened_path(c) is not None:
            self.opened += 1
        else:
            self.bytes_read += bytes_read(c)


def _acc(table: dict, name: str) -> _Acc:
    a = table.get(name)
    if a is None:
        a = table[name] = _Acc()
    return a


def _is_marker(c: Syscall, prefix: str):
    return marker_of(c, prefix) if (c.name in _MARKER_CALLS and c.path is not None) else None


# --- lookups: the import-ending opens ------------------------------------------------------------

_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT")


def _follow_marker(marker: tuple[str, str], c: Syscall, pid: int, table: dict, stack: list, spans: list) -> None:
    """An import marker of `pid`: a begin ("b") pushes the module on its stack; an end ("e", or
    "f" for an import that raised) pops to the matching begin (tolerating a begin lost to a
    truncated log), each popped import a span of the timeline."""
    kind, name = marker
    if kind == "b":
        stack.append((name, c.time_s))
        _acc(table, name).imports += 1
        return
    if kind == "f":
        _acc(table, name).failures += 1
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == name:
            while len(stack) > i:
                n, t0 = stack.pop()
                end = None if c.time_s is None else c.time_s + (c.duration_s or 0.0)
                spans.append(ImportSpan(n, pid, t0, end, len(stack)))
            break


def _module_file(c: Syscall) -> str | None:
    """The file a successful read-only open of a .pyc/.py/.so returned, else None."""
    if c.name not in ("openat", "open", "openat2") or c.ret is None or c.ret < 0 or c.errno:
        return None
    path = c.ret_path or c.path
    if not path or not (path.endswith(".pyc") or path.endswith(".py") or path.endswith(".so")):
        return None
    flags = _flags_text(c)
    if any(f in flags for f in _WRITE_FLAGS):
        return None
    return path


def _flags_text(c: Syscall) -> str:
    """An open's flags (and mode): its arguments after the path string (no split needed)."""
    text = c.args_text
    q = text.rfind('"')
    if q < 0:
        args = c.args
        return args[2] if c.name != "open" and len(args) > 2 else (args[1] if len(args) > 1 else "")
    return text[q + 1 :]


def _module_path(path: str) -> str:
    """/lib/json/__pycache__/decoder.cpython-311.pyc → /lib/json/decoder; …/json/__init__.py →
    /lib/json; …/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so → …/lib-dynload/_json."""
    folder, base = posixpath.split(path)
    if base.endswith(".pyc") and posixpath.basename(folder) == "__pycache__":
        folder = posixpath.dirname(folder)
    stem = base[:-3] if base.endswith(".py") else base.partition(".")[0]
    return folder if stem == "__init__" else posixpath.join(folder, stem)


class _Roots:
    """sys.path entries as the trace shows them: directories the processes listed
    (openat O_DIRECTORY) that hold no `__init__` (those are packages)."""

    def __init__(self, calls) -> None:
        listed = set()
        packages = set()
        for c in calls:
            if c.name in ("openat", "open") and c.ret is not None and c.ret >= 0 and not c.errno:
                p = c.ret_path or c.path
                if not p:
                    continue
                if "O_DIRECTORY" in _flags_text(c):
                    listed.add(p.rstrip("/") or "/")
                elif posixpath.basename(p).startswith("__init__."):
                    folder = posixpath.dirname(p)
                    if posixpath.basename(folder) == "__pycache__":
                        folder = posixpath.dirname(folder)
                    packages.add(folder)
        self.roots = sorted(listed - packages, key=len, reverse=True)
        self._root_set = frozenset(self.roots)

    def is_listing(self, c: Syscall) -> bool:
        """A successful O_DIRECTORY open of a sys.path entry (FileFinder filling its cache)."""
        if c.name not in ("openat", "open") or c.ret is None or c.ret < 0 or c.errno:
            return False
        p = c.ret_path or c.path
        return p is not None and p.rstrip("/") in self._root_set and "O_DIRECTORY" in _flags_text(c)

    def module_name(self, path: str) -> str | None:
        mod = _module_path(path)
        for r in self.roots:
            if mod.startswith(r + "/") or (r == "/" and mod.startswith("/")):
                parts = mod[len(r) :].strip("/").split("/")
                if all(p.isidentifier() for p in parts):
                    return ".".join(parts)
                return None
        return None


# --- the whole attribution -----------------------------------------------------------------------


def _python_processes(log: StraceLog, prefix: str, lay: ProcessLayout, roots: _Roots, pids: Sequence[int]):
    """Pass 1 of the attribution: which processes carry markers, which are Python → (the
    Python pids, per pid "markers" | "lookups")."""
    marked: set[int] = set()
    opened_modules: set[int] = set()
    process_of = lay.process_of
    for c in log.syscalls:
        name = c.name
        if name in _MARKER_CALLS:
            if c.path is not None and c.path.startswith(prefix):
                marked.add(process_of(c.pid))
        elif name in _MODULE_OPENS:  # the only calls _module_file returns a file for
            f = _module_file(c)
            if f is not None and roots.module_name(f) is not None:
                opened_modules.add(process_of(c.pid))
    python = set()
    for pid in pids:
        proc = process_of(pid)
        # by name only for a program the process exec'd itself (a shell forked by a pyenv shim
        # named python3 is no interpreter); a forked child shows itself by its imports
        if proc in marked or proc in opened_modules or looks_like_python(lay.command.get(proc) or ""):
            python.add(pid)
    return python, {pid: (MARKERS if process_of(pid) in marked else LOOKUPS) for pid in python}


def attribute_syscalls(log: StraceLog, prefix: str = MARKER_PREFIX, layout: ProcessLayout | None = None):
    """→ (per pid: {module: _Acc}; per pid: "markers" | "lookups"; import spans; the
    non-marker calls; the pids that are Python processes)."""
    lay = layout or ProcessLayout(log)
    roots = _Roots(log.syscalls)
    python, modes = _python_processes(log, prefix, lay, roots, log.pids)

    per_pid: dict[int, dict[str, _Acc]] = defaultdict(dict)
    stacks: dict[int, list[tuple[str, float | None]]] = defaultdict(list)
    spans: list[ImportSpan] = []
    plain: list[Syscall] = []
    # lookups state per pid: the pending calls, the module whose file is open, its files, seen
    pending: dict[int, list[Syscall]] = defaultdict(list)
    current: dict[int, tuple[str, set]] = {}
    started: set[int] = set()
    imported: dict[int, set] = defaultdict(set)
    for c in log.syscalls:
        pid = c.pid
        mode = modes.get(pid)
        if mode == MARKERS:
            m = _is_marker(c, prefix)
            table = per_pid[pid]
            stack = stacks[pid]
            if m is not None:
                _follow_marker(m, c, pid, table, stack, spans)
                continue
            plain.append(c)
            owner = stack[-1][0] if stack else OUTSIDE
            _acc(table, owner).add(c)
            if len(stack) > 1:
                for n in {n for n, _ in stack[:-1]} - {owner}:
                    table[n].cumulative += 1  # the subtree of every import the call is nested in
            continue
        if c.name in _MARKER_CALLS and c.path is not None and c.path.startswith(prefix):
            continue  # a marker of a process we do not attribute: still not counted
        plain.append(c)
        proc = lay.process_of(pid)
        if mode == LOOKUPS and proc not in started and c.line > lay.exec_line.get(proc, 0) and roots.is_listing(c):
            started.add(proc)  # the first sys.path listing: imports begin (before: interpreter start-up)
        if mode != LOOKUPS or proc not in started:
            _acc(per_pid[pid], OUTSIDE).add(c)
            continue
        table = per_pid[pid]
        f = _module_file(c)
        name = roots.module_name(f) if f is not None else None
        if name is not None and f is not None and _is_main_script(lay, pid, f):  # (a name: a file)
            name = "__main__"
        cur = current.get(pid)
        if name is not None and f is not None and f.endswith(".py") and name in imported[proc] and (cur is None or name != cur[0]):
            name = None  # the source of a module already loaded: linecache reading it for a traceback
        if name is not None and cur is not None and name == cur[0]:
            cur[1].add(f)
            _acc(table, name).add(c)
        elif name is not None:
            imported[proc].add(name)
            a = _acc(table, name)
            a.imports += 1
            lookups = pending.pop(pid, ())
            for p in lookups:
                a.add(p)
            a.add(c)
            current[pid] = (name, {f})
            # a span for the timeline: from its first lookup to the open of its file
            t0 = lookups[0].time_s if lookups else c.time_s
            t1 = None if c.time_s is None else c.time_s + (c.duration_s or 0.0)
            spans.append(ImportSpan(name, pid, t0, t1, 0))
        elif cur is not None and (c.fd_path in cur[1] or c.path in cur[1]):
            _acc(table, cur[0]).add(c)
        else:
            pending[pid].append(c)
    for pid, calls in pending.items():
        for p in calls:
            _acc(per_pid[pid], OUTSIDE).add(p)
    for name_acc in per_pid.values():
        for a in name_acc.values():
            a.cumulative += a.syscalls
    # imports still open when the log ended (a crash, a truncated log)
    for pid, stack in stacks.items():
        while stack:
            n, t0 = stack.pop()
            spans.append(ImportSpan(n, pid, t0, None, len(stack)))
    spans.sort(key=lambda s: (s.pid, s.begin_s if s.begin_s is not None else 0.0, s.depth))
    return per_pid, modes, spans, plain, python


def _attribute_owners(log: StraceLog, prefix: str, lay: ProcessLayout, pids: Sequence[int]):
    """attribute_syscalls without a Python step per call for the sums: each non-marker call
    gets its owner's number (`owners`, parallel to `plain`; `keys[number]` = (pid, module)),
    and tally_calls sums them in one pass. The accumulators returned hold what only this walk
    knows (imports, failures, and the cumulative counts of the imports a call is nested in,
    added per run of calls between two markers instead of per call)."""
    roots = _Roots(log.syscalls)
    process_of = lay.process_of
    marker_calls, module_opens = _MARKER_CALLS, _MODULE_OPENS
    python, modes = _python_processes(log, prefix, lay, roots, pids)

    per_pid: dict[int, dict[str, _Acc]] = defaultdict(dict)
    stacks: dict[int, list[tuple[str, float | None]]] = defaultdict(list)
    spans: list[ImportSpan] = []
    plain: list[Syscall] = []
    owners: list[int] = []
    keys: list[tuple[int, str]] = []
    number: dict[tuple[int, str], int] = {}

    def owner(pid: int, name: str) -> int:
        k = (pid, name)
        o = number.get(k)
        if o is None:
            o = number[k] = len(keys)
            keys.append(k)
            _acc(per_pid[pid], name)
        return o

    # markers: per pid, the calls since its stack last changed (their nesting is the same)
    run: dict[int, int] = defaultdict(int)
    top: dict[int, int] = {}  # pid -> owner number of the innermost import (or OUTSIDE)

    def flush(pid: int) -> None:
        k = run.pop(pid, 0)
        stack = stacks[pid]
        if k and len(stack) > 1:
            table = per_pid[pid]
            inner = stack[-1][0]
            for n in {n for n, _ in stack[:-1]} - {inner}:
                table[n].cumulative += k

    pending: dict[int, list[int]] = defaultdict(list)
    current: dict[int, tuple[str, set]] = {}
    started: set[int] = set()
    imported: dict[int, set] = defaultdict(set)
    outside: dict[int, int] = {}  # pid -> owner number of its OUTSIDE row, for the calls of other processes
    listing_calls = _LISTING_CALLS
    for c in log.syscalls:
        pid = c.pid
        mode = modes.get(pid)
        if mode is None:
            if c.name in marker_calls and c.path is not None and c.path.startswith(prefix):
                continue  # a marker of a process we do not attribute: still not counted
            o = outside.get(pid)
            if o is None:
                o = outside[pid] = owner(pid, OUTSIDE)
            owners.append(o)  # not attributed: its own OUTSIDE row (summed into the modules' total)
            plain.append(c)
            continue
        if mode == MARKERS:
            m = _is_marker(c, prefix)
            if m is not None:
                flush(pid)
                top.pop(pid, None)
                table = per_pid[pid]
                stack = stacks[pid]
                _follow_marker(m, c, pid, table, stack, spans)
                continue
            o = top.get(pid)
            if o is None:
                stack = stacks[pid]
                o = top[pid] = owner(pid, stack[-1][0] if stack else OUTSIDE)
            owners.append(o)
            plain.append(c)
            run[pid] += 1
            continue
        if c.name in marker_calls and c.path is not None and c.path.startswith(prefix):
            continue
        i = len(plain)
        plain.append(c)
        proc = process_of(pid)
        if proc not in started:
            if c.name in listing_calls and c.line > lay.exec_line.get(proc, 0) and roots.is_listing(c):
                started.add(proc)  # the first sys.path listing: imports begin (before: interpreter start-up)
            else:
                o = outside.get(pid)
                if o is None:
                    o = outside[pid] = owner(pid, OUTSIDE)
                owners.append(o)
                continue
        owners.append(-1)
        f = _module_file(c) if c.name in module_opens else None
        name = roots.module_name(f) if f is not None else None
        if name is not None and f is not None and _is_main_script(lay, pid, f):  # (a name: a file)
            name = "__main__"
        cur = current.get(pid)
        if name is not None and f is not None and f.endswith(".py") and name in imported[proc] and (cur is None or name != cur[0]):
            name = None
        if name is not None and cur is not None and name == cur[0]:
            cur[1].add(f)
            owners[i] = owner(pid, name)
        elif name is not None:
            imported[proc].add(name)
            o = owner(pid, name)
            per_pid[pid][name].imports += 1
            lookups = pending.pop(pid, ())
            for p in lookups:
                owners[p] = o
            owners[i] = o
            current[pid] = (name, {f})
            t0 = plain[lookups[0]].time_s if lookups else c.time_s
            t1 = None if c.time_s is None else c.time_s + (c.duration_s or 0.0)
            spans.append(ImportSpan(name, pid, t0, t1, 0))
        elif cur is not None and (c.fd_path in cur[1] or c.path in cur[1]):
            owners[i] = owner(pid, cur[0])
        else:
            pending[pid].append(i)
    for pid, idxs in pending.items():
        if idxs:
            o = owner(pid, OUTSIDE)
            for p in idxs:
                owners[p] = o
    for pid in list(run):
        flush(pid)
    for pid, stack in stacks.items():
        while stack:
            n, t0 = stack.pop()
            spans.append(ImportSpan(n, pid, t0, None, len(stack)))
    spans.sort(key=lambda s: (s.pid, s.begin_s if s.begin_s is not None else 0.0, s.depth))
    return per_pid, modes, spans, plain, python, owners, keys


def _native_attribution():
    """The native attribution and tallies (profiler/native/, built by `make setup`), or None."""
    try:
        from profiler.analysis import _syscall_tally
    except ImportError:
        return None
    return getattr(_syscall_tally, "attribute_calls", None)


def _attribute_native(log: StraceLog, prefix: str):
    """ProcessLayout, _attribute_owners and tally_calls in one native pass (no Python step per
    call) → (the layout, per pid: {module: _Acc}, modes, spans, the Python pids, the tallies
    (unnamed reads by position in log.syscalls), log.pids, (earliest, latest) syscall time or
    None); None when the module is not built or a value does not fit its integers (the Python
    passes take any int)."""
    fn = _native_attribution()
    if fn is None:
        return None
    made = []

    def layout(first, picked):
        """The layout from the calls the native pass picked, as the pass needs it."""
        lay = ProcessLayout(log, (dict(first), picked))
        made.append(lay)
        threads = {pid: lay.process_of(pid) for pid in lay.threads}
        procs = set(lay.command) | set(lay.argv)
        named = {proc for proc in procs if looks_like_python(lay.command.get(proc) or "")}
        scripts = {}
        for proc, argv in lay.argv.items():
            for a in argv[1:]:
                if a.endswith(".py"):  # as _is_main_script reads it
                    scripts[proc] = (a, "/" + a.lstrip("./").lstrip("/"))
                    break
        return threads, lay.exec_line, named, scripts

    try:
        pids_seen, mode_list, touched, accs, raw_spans, tallies, call_times = fn(
            log.syscalls, prefix, layout, TALLY_KINDS, _MARKER_CALLS, _MODULE_OPENS, _LISTING_CALLS, LAYOUT_CALLS)
    except (OverflowError, TypeError):
        return None
    lay = made[0]
    per_pid: dict[int, dict[str, _Acc]] = {pid: {} for pid in touched}
    for pid, name, n, failed, opened, nbytes, seconds, imports, cumulative, failures in accs:
        a = _acc(per_pid.setdefault(pid, {}), name)
        a.syscalls, a.failed, a.opened, a.bytes_read, a.seconds = n, failed, opened, nbytes, seconds
        a.imports, a.cumulative, a.failures = imports, cumulative, failures
    seen = dict.fromkeys(pids_seen)
    for e in log.events:
        seen.setdefault(e.pid, None)
    modes = {pid: (MARKERS if markers else LOOKUPS) for pid, markers in mode_list}
    spans = [ImportSpan(*s) for s in raw_spans]
    spans.sort(key=lambda s: (s.pid, s.begin_s if s.begin_s is not None else 0.0, s.depth))
    return lay, per_pid, modes, spans, set(modes), tallies, list(seen), call_times


def _is_main_script(lay: ProcessLayout, pid: int, path: str) -> bool:
    """Whether `path` is the script the process runs (`python [options] app.py`): its open
    is no import."""
    argv = lay.argv.get(lay.process_of(pid)) or ()
    for a in argv[1:]:
        if a.endswith(".py"):
            return path == a or path.endswith("/" + a.lstrip("./").lstrip("/"))
    return False


def _stats(table: dict[str, _Acc], processes: dict[str, int] | None = None) -> tuple[ModuleStat, ...]:
    return tuple(
        sorted(
            (
                ModuleStat(
                    name, a.syscalls, a.failed, a.opened, a.bytes_read, round(a.seconds, 6), a.imports,
                    a.cumulative, (processes or {}).get(name, 1 if a.imports else 0), bool(a.imports) and a.failures >= a.imports,
                )
                for name, a in table.items()
            ),
            key=lambda m: (-m.syscalls, m.name),
        )
    )


def summarize_trace(log: StraceLog, variant: str = "default", prefix: str = MARKER_PREFIX, fast: bool = True,
                    native: bool = True) -> TraceResult:
    """The whole summary of one log: syscalls, modules (when some process could be
    attributed), file system, processes, and the harness view. Marker calls are excluded from
    every count. `fast` (the default): when the native module is built (and `native`), the
    attribution and every tally in one native pass (attribute_calls); else the attribution
    gives each call its owner in Python and one pass (tally_calls) counts everything;
    `fast=False`: the careful way, a Python step per call and per view. The same result each
    way (tests compare them on real logs). `native=False`: no native code at all (the layout,
    the attribution and the tallies in Python), so tests can compare the two."""
    from profiler.analysis.import_boundaries import with_import_boundaries

    log, own_calls, from_importtime = with_import_boundaries(log, prefix)
    done = _attribute_native(log, prefix) if fast and native else None
    call_times = None
    if done is not None:
        lay, per_pid, modes, spans, python, tallies, pids, call_times = done
        plain = log.syscalls  # the tallies' positions are the log's
    elif fast:
        lay = ProcessLayout(log, native=native)
        pids = log.pids
        per_pid, modes, spans, plain, python, owners, keys = _attribute_owners(log, prefix, lay, pids)
        tallies = tally_calls(plain, owners, native=native)
        for o, (n, failed, opened, nbytes, seconds) in enumerate(tallies[10]):
            pid, name = keys[o]
            a = per_pid[pid][name]
            a.syscalls, a.failed, a.opened, a.bytes_read, a.seconds = n, failed, opened, nbytes, seconds
        for table in per_pid.values():
            for a in table.values():
                a.cumulative += a.syscalls
    else:
        lay = ProcessLayout(log, native=native)
        pids = log.pids
        per_pid, modes, spans, plain, python = attribute_syscalls(log, prefix, lay)
        tallies = None
    if from_importtime:  # boundaries from -X importtime, not from importprof's markers hook
        modes = {pid: (IMPORTTIME if m == MARKERS and pid in from_importtime else m) for pid, m in modes.items()}
    total: dict[str, _Acc] = {}
    in_processes: dict[str, set] = defaultdict(set)
    attributed = bool(modes)
    if attributed:
        for pid, table in per_pid.items():
            for name, a in table.items():
                t = _acc(total, name)
                t.syscalls += a.syscalls
                t.failed += a.failed
                t.opened += a.opened
                t.bytes_read += a.bytes_read
                t.seconds += a.seconds
                t.imports += a.imports
                t.cumulative += a.cumulative
                t.failures += a.failures
                if a.imports:
                    in_processes[name].add(lay.process_of(pid))
    modules = _stats(total, {n: len(p) for n, p in in_processes.items()}) if attributed else ()
    per_process = {pid: _stats(table) for pid, table in per_pid.items() if pid in modes}
    procs = process_stats(log, plain, layout=lay, python=python, modes=modes, modules=per_process,
                          by_pid=tallies[1] if tallies else None, pids=pids)
    return TraceResult(
        variant=variant,
        syscalls=syscall_stats(tallies[0]) if tallies else count_syscalls(plain),
        modules=modules,
        filesystem=filesystem_from_tallies(plain, tallies) if tallies else filesystem_view(plain),
        processes=procs,
        spans=tuple(spans),
        log=log,
        attributed=attributed,
        harness=harness_view(log, procs, call_times, own_calls),
    )


def harness_view(log: StraceLog, procs, call_times: tuple[float, float] | None = None, own_calls: int = 0) -> dict:
    """The command as a harness owner reads it: processes (threads excluded), Python ones, how
    each was attributed, the log's wall span and how much of it had a Python process running
    (the union of their exec-to-exit intervals, so nested interpreters are not counted twice).
    `call_times`: the (earliest, latest) time of the syscalls, when the caller knows them;
    `own_calls`: the calls importprof's boundaries made (the `import time:` writes), left out of
    every count and shown as `importprof_syscalls`."""
    if call_times is None:
        times = [c.time_s for c in log.syscalls if c.time_s is not None]
    else:
        times = list(call_times)
    times += [e.time_s for e in log.events if e.time_s is not None]
    wall = (max(times) - min(times)) if times else None
    real = [p for p in procs if not p.thread]
    pys = [p for p in real if p.python]
    intervals = []
    for p in pys:
        if p.wall_s is not None:
            end = _end_of(log, p.pid)
            if end is not None:
                intervals.append((end - p.wall_s, end))
    covered = 0.0
    last = None
    for a, b in sorted(intervals):
        if last is None or a > last:
            covered += b - a
            last = b
        elif b > last:
            covered += b - last
            last = b
    how = {MARKERS: sum(1 for p in pys if p.attribution == MARKERS), LOOKUPS: sum(1 for p in pys if p.attribution == LOOKUPS)}
    n_importtime = sum(1 for p in pys if p.attribution == IMPORTTIME)
    if n_importtime:
        how[IMPORTTIME] = n_importtime
    out = {
        "processes": len(real),
        "python_processes": len(pys),
        "attribution": how,
        "wall_s": None if wall is None else round(wall, 6),
        "python_busy_s": round(covered, 6) if intervals else None,
        "python_share": round(covered / wall, 4) if intervals and wall else None,
        "python_wall_s": round(sum(p.wall_s for p in pys if p.wall_s is not None), 6),
    }
    if own_calls:
        out["importprof_syscalls"] = own_calls
    return out


def _end_of(log: StraceLog, pid: int) -> float | None:
    for e in reversed(log.events):
        if e.pid == pid and e.kind in ("exit", "killed"):
            return e.time_s
    return None
