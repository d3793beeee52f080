"""Summaries of a parsed strace log (pure): per syscall, the file-system view, per process."""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from typing import Callable, Iterable, Sequence

from profiler.model.syscall_trace import PATH_ARG, ProcessStat, StraceLog, Syscall, SyscallStat

# file-system families
FAMILIES: dict[str, frozenset[str]] = {
    "stat": frozenset(
        {"stat", "lstat", "fstat", "newfstatat", "fstatat64", "statx", "stat64", "lstat64", "fstat64", "oldstat", "oldlstat", "oldfstat"}
    ),
    "open": frozenset({"open", "openat", "openat2", "creat"}),
    "getdents": frozenset({"getdents", "getdents64"}),
    "readlink": frozenset({"readlink", "readlinkat"}),
    "access": frozenset({"access", "faccessat", "faccessat2"}),
}
FAMILY_OF = {name: fam for fam, names in FAMILIES.items() for name in names}
OPENS = FAMILIES["open"]
READS = frozenset({"read", "pread64", "readv", "preadv", "preadv2"})
LOOKUP_MISSES = frozenset({"ENOENT", "ENOTDIR"})
_FORKS = frozenset({"clone", "clone3", "fork", "vfork"})
_EXECS = frozenset({"execve", "execveat"})
LAYOUT_CALLS = _FORKS | _EXECS  # the calls ProcessLayout reads (besides each pid's first time)


def call_path(call: Syscall) -> str | None:
    """The absolute (when -y or the path tells) path a path-taking call looked up, else None
    (decoded by the parser). An empty path (fstatat(fd, "", AT_EMPTY_PATH)) is not a lookup."""
    return call.path


def is_failed_lookup(call: Syscall) -> bool:
    return call.errno in LOOKUP_MISSES and call.name in PATH_ARG


def opened_path(call: Syscall) -> str | None:
    """The file a successful open returned (its -y path, else the path argument)."""
    if call.name not in OPENS or call.ret is None or call.ret < 0 or call.errno:
        return None
    return call.ret_path or call_path(call)


def bytes_read(call: Syscall) -> int:
    if call.name in READS and call.ret is not None and call.ret > 0 and not call.errno:
        return call.ret
    return 0


def _tally(calls: Iterable[Syscall], key: Callable[[Syscall], object]) -> tuple[Counter, Counter, defaultdict]:
    """Per key(call): how many calls, how many failed, and the seconds spent inside them."""
    count: Counter = Counter()
    errors: Counter = Counter()
    seconds: defaultdict = defaultdict(float)
    for c in calls:
        k = key(c)
        count[k] += 1
        if c.errno:
            errors[k] += 1
        if c.duration_s:
            seconds[k] += c.duration_s
    return count, errors, seconds


def count_syscalls(calls: Iterable[Syscall]) -> tuple[SyscallStat, ...]:
    """Per syscall name: count, errors and time inside it; most frequent first."""
    count, errors, seconds = _tally(calls, lambda c: c.name)
    return tuple(
        SyscallStat(name, n, errors[name], round(seconds[name], 6))
        for name, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def read_size_bucket(n: int) -> tuple[int, int]:
    """0 → (0, 0); otherwise the power-of-two range [2^k, 2^(k+1) - 1] holding n."""
    if n <= 0:
        return 0, 0
    lo = 1 << (n.bit_length() - 1)
    return lo, lo * 2 - 1


def _size_label(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def filesystem_view(calls: Sequence[Syscall], top: int = 20) -> dict:
    """The file-system side of a trace: the stat/open/getdents/readlink/access families, failed
    lookups and the directories they happened in, distinct files opened, bytes read and a
    histogram of read sizes (power-of-two buckets of the bytes each read returned)."""
    fam_count, fam_errors, fam_seconds = _tally((c for c in calls if c.name in FAMILY_OF), lambda c: FAMILY_OF[c.name])
    failed = 0
    failed_dirs: Counter = Counter()
    opens: Counter = Counter()
    read_by_file: Counter = Counter()
    read_total = 0
    reads = 0
    hist_count: Counter = Counter()
    hist_bytes: Counter = Counter()
    for c in calls:
        if is_failed_lookup(c):
            path = call_path(c)
            if path is not None:
                failed += 1
                failed_dirs[posixpath.dirname(posixpath.normpath(path)) or "/"] += 1
            continue
        if c.name in OPENS:
            p = opened_path(c)
            if p is not None:
                opens[p] += 1
            continue
        if c.name in READS and c.ret is not None and not c.errno:
            n = c.ret
            reads += 1
            read_total += n
            bucket = read_size_bucket(n)
            hist_count[bucket] += 1
            hist_bytes[bucket] += n
            if c.fd_path:
                read_by_file[c.fd_path] += n
            elif c.args:
                read_by_file[c.args[0]] += n
    families = [(fam_count[fam], fam_errors[fam], fam_seconds[fam]) for fam in FAMILIES]
    sizes = [(lo, hi, hist_count[(lo, hi)], hist_bytes[(lo, hi)]) for (lo, hi) in sorted(hist_count)]
    return _filesystem_document(families, failed, failed_dirs, opens, read_by_file, reads, read_total, sizes, top)


def _filesystem_document(families, failed: int, failed_dirs: Counter, opens: Counter, read_by_file: Counter,
                         reads: int, read_total: int, sizes, top: int) -> dict:
    """The file-system document of filesystem_view and filesystem_from_tallies: `families`
    (count, errors, seconds) in FAMILIES order, `sizes` (min, max, count, bytes) ascending."""
    histogram = []
    for lo, hi, count, nbytes in sizes:
        label = "0 B (end of file)" if hi == 0 else f"{_size_label(lo)}–{_size_label(hi + 1)}"
        histogram.append({"name": label, "min_bytes": lo, "max_bytes": hi, "count": count, "bytes": nbytes})
    files = sorted(set(opens) | {p for p in read_by_file if p.startswith("/")}, key=lambda p: (-read_by_file[p], -opens[p], p))
    return {
        "families": [
            {"name": fam, "count": n, "errors": errors, "seconds": round(seconds, 6)}
            for fam, (n, errors, seconds) in zip(FAMILIES, families)
        ],
        "lookups_failed": failed,
        "failed_lookup_dirs": [{"name": d, "count": n} for d, n in failed_dirs.most_common(top)],
        "files_opened": len(opens),
        "opens": sum(opens.values()),
        "files": [{"name": p, "opens": opens[p], "bytes_read": read_by_file[p]} for p in files[:top]],
        "reads": reads,
        "bytes_read": read_total,
        "read_sizes": histogram,
    }


def _layout_calls(log: StraceLog, native: bool = True):
    """({pid: time of its first call}, the fork and exec calls) natively, or None without the
    native module or with `native=False` (ProcessLayout then reads every call in Python)."""
    if not native:
        return None
    try:
        from profiler.analysis import _syscall_tally
        select = _syscall_tally.select_calls
    except (ImportError, AttributeError):
        return None
    try:
        first, picked = select(log.syscalls, LAYOUT_CALLS)
    except (OverflowError, TypeError):  # a pid past 64 bits: the Python pass holds any int
        return None
    return dict(first), picked


class ProcessLayout:
    """Who is who in a log: parents (clone results), threads (CLONE_THREAD) and the process
    each thread belongs to, each pid's last successful exec (program, argv, time, line) and
    its end (exit or kill time). `picked`: ({pid: time of its first call}, the log's
    LAYOUT_CALLS in order), when the caller has read them already. `native=False`: pick
    them in Python even when the native module is built."""

    def __init__(self, log: StraceLog, picked: tuple | None = None, native: bool = True) -> None:
        self.parent: dict[int, int] = {}
        self.threads: set[int] = set()
        self.command: dict[int, str] = {}
        self.argv: dict[int, tuple[str, ...]] = {}
        self.exec_time: dict[int, float | None] = {}
        self.exec_line: dict[int, int] = {}
        self.first_time: dict[int, float | None] = {}
        self.forked_command: dict[int, str] = {}
        self.forked_argv: dict[int, tuple[str, ...]] = {}
        calls = picked if picked is not None else _layout_calls(log, native)
        if calls is None:
            calls = log.syscalls
            for c in calls:
                if c.pid not in self.first_time:
                    self.first_time[c.pid] = c.time_s
        else:
            self.first_time, calls = calls
        for c in calls:
            if c.name in _FORKS and c.ret is not None and c.ret > 0:
                self.parent[c.ret] = c.pid
                if "CLONE_THREAD" in c.args_text:
                    self.threads.add(c.ret)
                else:  # a forked child runs what its parent ran at the fork (until it execs)
                    src = self.process_of(c.pid)
                    prog = self.command.get(src, self.forked_command.get(src))
                    if prog is not None:
                        self.forked_command[c.ret] = prog
                        self.forked_argv[c.ret] = self.argv.get(src, self.forked_argv.get(src, ()))
            elif c.name in _EXECS and c.ret == 0:
                if c.path:
                    self.command[c.pid] = c.path
                self.argv[c.pid] = c.argv or ()
                self.exec_time[c.pid] = c.time_s
                self.exec_line[c.pid] = c.line
        self.exit_code: dict[int, int] = {}
        self.killed: dict[int, str] = {}
        self.end_time: dict[int, float | None] = {}
        for e in log.events:
            if e.kind == "exit":
                self.exit_code[e.pid] = int(e.value)
                self.end_time[e.pid] = e.time_s
            elif e.kind == "killed":
                self.killed[e.pid] = e.value
                self.end_time[e.pid] = e.time_s

    def process_of(self, pid: int) -> int:
        """The thread-group leader of a thread (the pid itself for a process)."""
        seen = set()
        while pid in self.threads and pid in self.parent and pid not in seen:
            seen.add(pid)
            pid = self.parent[pid]
        return pid

    def program(self, pid: int) -> str | None:
        """What the pid runs: its last exec, else what its parent ran when it forked it."""
        proc = self.process_of(pid)
        return self.command.get(proc) or self.forked_command.get(proc)

    def argv_of(self, pid: int) -> tuple[str, ...]:
        proc = self.process_of(pid)
        return self.argv.get(proc) or self.forked_argv.get(proc, ())

    def wall_s(self, pid: int) -> float | None:
        start = self.exec_time.get(pid, self.first_time.get(pid))
        end = self.end_time.get(pid)
        if start is None or end is None:
            return None
        return max(0.0, end - start)


def process_stats(
    log: StraceLog,
    calls: Sequence[Syscall] | None = None,
    *,
    layout: ProcessLayout | None = None,
    python: frozenset | set = frozenset(),
    modes: dict | None = None,
    modules: dict | None = None,
    by_pid: dict | None = None,
    pids: Sequence[int] | None = None,
) -> tuple[ProcessStat, ...]:
    """One record per pid (threads included, marked ` thread`): parent, program and argv,
    counts, exit, wall time; for Python processes how their syscalls were attributed
    (`modes[pid]`) and their own module rows (`modules[pid]`). `by_pid`: tally_calls' per-pid
    counters of `calls`, when the caller has them; `pids`: log.pids, when known."""
    calls = log.syscalls if calls is None else calls
    lay = layout or ProcessLayout(log)
    if by_pid is None:
        count, errors, seconds = _tally(calls, lambda c: c.pid)
    else:
        count = Counter({pid: v[0] for pid, v in by_pid.items()})
        errors = Counter({pid: v[1] for pid, v in by_pid.items()})
        seconds = defaultdict(float, {pid: v[2] for pid, v in by_pid.items()})
    modes = modes or {}
    modules = modules or {}
    out = []
    for pid in log.pids if pids is None else pids:
        prog = lay.command.get(pid) or lay.program(pid)
        name = f"{posixpath.basename(prog) if prog else 'pid'}[{pid}]"
        thread = pid in lay.threads
        if thread:
            name += " thread"
        argv = lay.argv_of(pid)
        out.append(
            ProcessStat(
                name=name,
                pid=pid,
                parent=lay.parent.get(pid),
                command=lay.command.get(pid),
                syscalls=count[pid],
                errors=errors[pid],
                seconds=round(seconds[pid], 6),
                exit_code=lay.exit_code.get(pid),
                signal=lay.killed.get(pid),
                argv=argv,
                python=pid in python,
                thread=thread,
                attribution=modes.get(pid),
                wall_s=lay.wall_s(pid),
                modules=modules.get(pid, ()),
            )
        )
    return tuple(out)


# --- the summary's tallies in one pass --------------------------------------------------------

# {name: (family index or -1, path-taking, an open, a read)}: what tally_calls needs per name
_FAMILY_NAMES = list(FAMILIES)
TALLY_KINDS: dict[str, tuple[int, bool, bool, bool]] = {
    name: (_FAMILY_NAMES.index(FAMILY_OF[name]) if name in FAMILY_OF else -1, name in PATH_ARG, name in OPENS, name in READS)
    for name in set(FAMILY_OF) | set(PATH_ARG) | OPENS | READS
}


def _native_tally():
    """The native tallies (profiler/native/, built by `make setup` beside the parser), or None."""
    try:
        from profiler.analysis import _syscall_tally
    except ImportError:
        return None
    return _syscall_tally.tally_calls


def tally_calls(calls: Sequence[Syscall], owners: Sequence[int] | None = None, native: bool = True) -> tuple:
    """Everything count_syscalls, filesystem_view, process_stats and the attribution's
    accumulators count, in one pass over the calls (natively when built; `native=False` or a
    value the native pass cannot hold runs the same pass in Python). Returns (by_name, by_pid,
    families, failed_paths, opens, read_by_file, unnamed_reads, reads, read_total, read_sizes,
    by_owner) as profiler/native/src/lib.rs `tally_calls` documents; `owners` gives each call
    its owner's number (-1: none) and by_owner sums (syscalls, failed, opened, bytes_read,
    seconds) per number."""
    fn = _native_tally() if native else None
    if fn is not None:
        try:
            return fn(calls if isinstance(calls, list) else list(calls), owners if owners is None or isinstance(owners, list) else list(owners), TALLY_KINDS)
        except (OverflowError, TypeError):  # a return value past 64 bits: the Python pass holds any int
            pass
    return _tally_calls_py(calls, owners)


def _tally_calls_py(calls: Sequence[Syscall], owners: Sequence[int] | None) -> tuple:
    kinds = TALLY_KINDS
    none = (-1, False, False, False)
    by_name: dict = {}
    by_pid: dict = {}
    fams = [[0, 0, 0.0] for _ in FAMILIES]
    failed_paths: dict = {}
    opens: dict = {}
    read_by_file: dict = {}
    unnamed: list = []
    reads = read_total = 0
    sizes: dict = {}
    own: list = []
    for i, c in enumerate(calls):
        pid, _, name, _, ret, errno, ret_path, dur = tuple.__getitem__(c, slice(0, 8))
        fam, path_arg, is_open, is_read = kinds.get(name, none)
        n = by_name.get(name)
        if n is None:
            n = by_name[name] = [0, 0, 0.0]
        p = by_pid.get(pid)
        if p is None:
            p = by_pid[pid] = [0, 0, 0.0]
        n[0] += 1
        p[0] += 1
        if errno:
            n[1] += 1
            p[1] += 1
        if dur:
            n[2] += dur
            p[2] += dur
        if fam >= 0:
            f = fams[fam]
            f[0] += 1
            if errno:
                f[1] += 1
            if dur:
                f[2] += dur
        lookup_failed = path_arg and errno in LOOKUP_MISSES
        opened = False
        got = 0
        if lookup_failed:
            path = c.path
            if path is not None:
                failed_paths[path] = failed_paths.get(path, 0) + 1
        elif is_open:
            if ret is not None and ret >= 0 and not errno:
                path = ret_path or c.path
                if path is not None:
                    opened = True
                    opens[path] = opens.get(path, 0) + 1
        elif is_read and not errno and ret is not None:
            reads += 1
            read_total += ret
            lo = read_size_bucket(ret)[0]
            h = sizes.get(lo)
            if h is None:
                h = sizes[lo] = [0, 0]
            h[0] += 1
            h[1] += ret
            fd = c.fd_path
            if fd:
                read_by_file[fd] = read_by_file.get(fd, 0) + ret
            else:
                unnamed.append((i, ret))
            if ret > 0:
                got = ret
        if owners is not None:
            o = owners[i]
            if o >= 0:
                while len(own) <= o:
                    own.append([0, 0, 0, 0, 0.0])
                a = own[o]
                a[0] += 1
                if dur:
                    a[4] += dur
                if lookup_failed:
                    a[1] += 1
                elif opened:
                    a[2] += 1
                else:
                    a[3] += got
    return (
        {k: tuple(v) for k, v in by_name.items()},
        {k: tuple(v) for k, v in by_pid.items()},
        [tuple(f) for f in fams],
        failed_paths,
        opens,
        read_by_file,
        unnamed,
        reads,
        read_total,
        {k: tuple(v) for k, v in sizes.items()},
        [tuple(a) for a in own],
    )


def syscall_stats(by_name: dict) -> tuple[SyscallStat, ...]:
    """count_syscalls from tally_calls' per-name counters."""
    return tuple(
        SyscallStat(name, n, errors, round(seconds, 6))
        for name, (n, errors, seconds) in sorted(by_name.items(), key=lambda kv: (-kv[1][0], kv[0]))
    )


# a character that makes split_args read a first argument otherwise than up to its first comma
_PLAIN_ARG = re.compile(r'["<()\[\]{}]')


def filesystem_from_tallies(calls: Sequence[Syscall], tallies: tuple, top: int = 20) -> dict:
    """filesystem_view from tally_calls' counters (the same document)."""
    _, _, fams, failed_paths, opens, read_by_file, unnamed, reads, read_total, sizes, _ = tallies
    failed_dirs: Counter = Counter()
    for path, n in failed_paths.items():  # first-seen order, as the careful view counts them
        failed_dirs[posixpath.dirname(posixpath.normpath(path)) or "/"] += n
    read_by_file = Counter(read_by_file)
    for i, n in unnamed:  # reads without a -y path: named by their fd argument
        c = calls[i]
        head = c.args_text.partition(",")[0]
        if _PLAIN_ARG.search(head) is None:  # what split_args makes of a plain first argument
            first = head.strip()
            if first:
                read_by_file[first] += n
            continue
        args = c.args
        if args:
            read_by_file[args[0]] += n
    sizes = [(lo, lo * 2 - 1 if lo else 0, *sizes[lo]) for lo in sorted(sizes)]
    return _filesystem_document(fams, sum(failed_paths.values()), failed_dirs, Counter(opens), read_by_file,
                                reads, read_total, sizes, top)
