"""What `importprof trace` knows: a parsed strace log and the summaries made from it.

Units in names: `seconds` is time spent inside syscalls (strace -T, float seconds), `*_bytes`
and `bytes_read` are integer bytes, `time_s` is a wall-clock timestamp (strace -tt, seconds since
the log's midnight, float).

JSON (`importprof.trace/1`): for one variant the keys `syscalls`, `modules`, `filesystem`,
`processes`, `harness` (plus `schema`, `machine`, `warnings`); for several, `variants`: a list
of objects with `variant` and those keys.

- `modules`: the sum over every attributed process (`processes`: how many imported it;
  `cumulative_syscalls`: with its nested imports; `failed_import`: the import raised).
- `processes`: one entry per pid (threads marked `thread`), with its whole `argv`, `python`,
  `parent` (pid), `wall_s` (exec to exit), `attribution` ("markers" | "lookups" | null, see
  analysis/attribution.py) and its own `modules` rows.
- `harness`: {processes, python_processes, attribution: {markers, lookups}, wall_s (the log's
  span), python_busy_s (time with at least one Python process running), python_share
  (python_busy_s / wall_s), python_wall_s (Σ of the Python processes' wall times: nested
  interpreters overlap, so it can exceed wall_s)}.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Mapping, NamedTuple

from profiler.model.document import Document, Record, saved

# the path prefix of the import markers: the begin/end events trace makes from -X importtime
# (analysis/import_boundaries.py), and the stats a markers hook made in logs older importprofs saved
MARKER_PREFIX = "/.importprof-mark/"

# where a path-taking syscall's path argument is: (index of its dirfd argument or None, index of
# the path argument). parse/strace.py decodes it into Syscall.path.
PATH_ARG: dict[str, tuple[int | None, int]] = {
    **{n: (None, 0) for n in ("stat", "lstat", "stat64", "lstat64", "oldstat", "oldlstat", "open", "creat", "access", "readlink", "execve", "chdir", "mkdir", "unlink", "rmdir")},
    **{n: (0, 1) for n in ("newfstatat", "fstatat64", "statx", "openat", "openat2", "faccessat", "faccessat2", "readlinkat", "execveat", "mkdirat", "unlinkat")},
}


class _SyscallRecord(NamedTuple):
    """The fields of a Syscall (see there)."""

    pid: int
    time_s: float | None  # -tt start time (seconds since midnight), None without -tt
    name: str
    args: tuple[str, ...] | str  # raw argument texts, as strace printed them (or their unsplit text)
    ret: int | None  # the return value (None for `?`)
    errno: str | None  # e.g. "ENOENT" when the call failed
    ret_path: str | None  # -y: the path of a returned file descriptor (openat → 3</path>)
    duration_s: float | None  # -T
    line: int  # 1-based line number where the call started
    unfinished: bool = False  # `<unfinished ...>` never resumed (process exited or log ended)
    # decoded by the parser (analysis never re-reads raw argument text):
    path: str | None = None  # a path-taking call's path (PATH_ARG), decoded, joined to its -y dirfd
    fd_path: str | None = None  # other calls: the -y path of the first fd argument (read(3</x>...) → /x)
    path_cut: bool = False  # strace cut the path string (-s): `path` is its beginning only
    argv: tuple[str, ...] | None = None  # execve/execveat: the argv array, decoded (cut strings end with "...")


class Syscall(_SyscallRecord):
    """One completed (or never-resumed) syscall line of an strace log.

    `args` is the tuple of raw argument texts. The parser may keep them as the one unsplit text
    of the line (splitting every line's arguments is most of a parse's cost, and the analysis
    reads them for few calls): they are split on first access, by the splitter the parser
    registers (`Syscall.splitter`; the model imports nothing). Equality compares split args."""

    __slots__ = ()
    splitter = None  # set by profiler/parse/strace.py: argument text -> tuple of argument texts

    @property
    def args(self) -> tuple[str, ...]:
        a = tuple.__getitem__(self, 3)
        if a.__class__ is str:
            return Syscall.splitter(a)
        return a

    @property
    def args_text(self) -> str:
        """The arguments as one text (as strace printed them, without the parentheses): for a
        substring test (a flag, CLONE_THREAD) without splitting them."""
        a = tuple.__getitem__(self, 3)
        return a if a.__class__ is str else ", ".join(a)

    def _key(self) -> tuple:
        return (*tuple.__getitem__(self, slice(0, 3)), self.args, *tuple.__getitem__(self, slice(4, None)))

    def __eq__(self, other) -> bool:
        if isinstance(other, Syscall):
            return self._key() == other._key()
        return NotImplemented

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._key())


class SyscallColumns(Sequence):
    """A log's Syscalls kept as columns (the native parser's store: a 57-byte row per call,
    its strings shared) instead of a tuple of records (~270 bytes a call): what `trace
    --from-log` holds for a summary. A Syscall is made when asked for (`calls[i]`, a slice: a
    tuple, iteration); equal to any sequence of the same Syscalls. The summary's native pass
    reads the rows themselves (`_address`); `names()`/`times()`: every call's name/time."""

    __slots__ = ("_native",)

    def __init__(self, native) -> None:
        self._native = native

    def __len__(self) -> int:
        return len(self._native)

    def __getitem__(self, i):
        return self._native[i]

    def __iter__(self):
        return iter(self._native)

    def __eq__(self, other) -> bool:
        if isinstance(other, (tuple, list, SyscallColumns)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SyscallColumns({len(self)} calls)"

    def names(self) -> list[str]:
        return self._native.names()

    def times(self) -> list[float | None]:
        return self._native.times()

    def unfinished(self) -> int:
        return self._native.unfinished()

    def spliced(self, parts) -> "SyscallColumns":
        """A new one: `parts` in order, each (start, stop) of these rows or a Syscall."""
        return SyscallColumns(self._native.spliced(parts))

    def own_lookup(self, lo: int, pos: int, pid: int, last: str, window: int) -> int:
        """analysis/import_boundaries._own_lookups_before's search over the rows (see there)."""
        return self._native.own_lookup(lo, pos, pid, last, window)

    def _address(self):
        return self._native._address()


class ProcessEvent(NamedTuple):
    """`--- SIGNAL {...} ---`, `+++ exited with N +++` or `+++ killed by SIG +++`."""

    pid: int
    time_s: float | None
    kind: str  # "signal" | "exit" | "killed"
    value: str  # signal name, or the exit code as text
    line: int


@dataclass(frozen=True)
class StraceLog:
    """The parser's output. `noise` counts lines that are not strace records (program output
    written to the same file...); `truncated_last_line` is set when the log ends mid-record."""

    syscalls: tuple[Syscall, ...] | SyscallColumns  # (the columns: what trace --from-log keeps for a summary)
    events: tuple[ProcessEvent, ...]
    lines: int
    noise: int = 0
    truncated_last_line: bool = False
    unfinished: int = 0  # calls left `<unfinished ...>` (counted once, as unfinished)

    @property
    def pids(self) -> list[int]:
        seen: dict[int, None] = {}
        for s in self.syscalls:
            seen.setdefault(s.pid, None)
        for e in self.events:
            seen.setdefault(e.pid, None)
        return list(seen)


@dataclass(frozen=True)
class SyscallStat(Record):
    name: str
    count: int
    errors: int
    seconds: float


@dataclass(frozen=True)
class ModuleStat(Record):
    """Syscalls made while a module was being imported (its own, not its nested imports').
    `failed` are failed path lookups (ENOENT/ENOTDIR), `opened` successful opens.
    `cumulative_syscalls`: its own plus those of the imports nested in it (the subtree; known
    from markers; for a module attributed from lookups, nesting is unknown and it equals
    `syscalls`). `processes`: in how many processes it was imported. `failed_import`: the
    import raised (ModuleNotFoundError for `nt`, `winreg`... on Linux): not a loaded module,
    but its lookups are real cost."""

    name: str
    syscalls: int
    failed: int
    opened: int
    bytes_read: int
    seconds: float
    imports: int = 1  # how many times the import began (several processes...)
    cumulative_syscalls: int = 0
    processes: int = 1
    failed_import: bool = False

    NOT_SAVED = ("imports",)  # a count for merging rows; the document has processes


@dataclass(frozen=True)
class ImportSpan:
    """One import, begin to end, from the markers (for the timeline)."""

    name: str
    pid: int
    begin_s: float | None
    end_s: float | None
    depth: int


@dataclass(frozen=True)
class ProcessStat(Record):
    """One traced pid (threads are rows of their own, `thread` set). `argv`: the last
    successful execve's argv, whole as strace printed it (strings longer than strace's -s end
    with "..."); `wall_s`: from that exec (or the first record) to the exit. `attribution`:
    how its syscalls were given to modules — "markers" (importprof's import markers were in
    its syscalls), "lookups" (inferred: a module's import ends with the open of its
    .pyc/.py/.so below a sys.path entry, and the lookups before it belong to it), or None (not a
    Python process). `modules`: its own per-module rows (the `modules` of the result are their
    sum over processes)."""

    name: str  # "python3.11[12540]"
    pid: int
    parent: int | None
    command: str | None  # the last successful execve's program
    syscalls: int
    errors: int
    seconds: float
    exit_code: int | None
    signal: str | None  # killed by
    argv: tuple[str, ...] = ()
    python: bool = False
    thread: bool = False
    attribution: str | None = None
    wall_s: float | None = saved(default=None, round=6)  # a difference of two strace timestamps: to the microsecond
    modules: tuple[ModuleStat, ...] = ()


@dataclass(frozen=True)
class TraceResult(Record):
    """The summary of one traced run (one variant)."""

    NOT_SAVED = ("spans", "log", "attributed")  # for the timeline, chrome and this run's messages

    variant: str
    syscalls: tuple[SyscallStat, ...]
    modules: tuple[ModuleStat, ...]
    filesystem: dict
    processes: tuple[ProcessStat, ...]
    spans: tuple[ImportSpan, ...] = ()
    log: StraceLog | None = field(default=None, compare=False, repr=False)  # kept for chrome
    attributed: bool = False  # some syscalls were given to modules (markers or lookups)
    # the command as a whole: processes (not threads), Python processes, how each was
    # attributed, the log's wall span and the share of it with a Python process running
    harness: dict = field(default_factory=dict)
    # a variant whose target failed (traced all the same; its figures describe the failing run)
    failed: bool = False
    error: str | None = None  # one line: "exit code 1: ModuleNotFoundError: No module named 'mylib'"
    exit_codes: tuple[int, ...] = ()

    @property
    def total_syscalls(self) -> int:
        return sum(s.count for s in self.syscalls)

    @property
    def total_errors(self) -> int:
        return sum(s.errors for s in self.syscalls)

    @property
    def total_seconds(self) -> float:
        return sum(s.seconds for s in self.syscalls)

    def body(self) -> dict:
        """Its keys in the document: failed and error only for a variant whose target failed,
        exit_codes also for one measured anyway (--ignore-failure) when it exited non-zero."""
        d = self.to_dict()
        del d["variant"]  # written by the document only when it lists several variants
        if not self.failed:
            del d["failed"], d["error"]
            if not self.exit_codes:
                del d["exit_codes"]
        return d


@dataclass(frozen=True)
class TraceReport(Document):
    """`importprof.trace/1`. One variant's figures are the document's own keys (the shape trace
    has always written); several are listed under `variants`, each with its name. Hence its
    own to_dict/from_dict, and its keys are not its fields (saved_fields says which)."""

    SCHEMA = "importprof.trace/1"

    results: tuple[TraceResult, ...]
    machine: dict
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        doc: dict = {"schema": self.SCHEMA, "machine": self.machine}
        if len(self.results) == 1:
            doc.update(self.results[0].body())
        else:
            doc["variants"] = [{"variant": r.variant, **r.body()} for r in self.results]
        doc["warnings"] = list(self.warnings)
        return doc

    def to_json(self) -> str:
        """The to_dict() document as JSON text (model.document.document_json): one variant's
        lists of records (syscalls, modules, processes: a harness's log has thousands of
        processes) an item a line."""
        return "".join(self.json_chunks())

    _LISTS = ("syscalls", "modules", "processes")

    def json_chunks(self):
        """to_json's text in pieces made as they are read: one variant's lists of records made
        into dicts an item at a time as they are written (a harness's processes and their
        module rows are never all dicts at once)."""
        import json
        from dataclasses import replace

        from profiler.model.document import document_json_chunks

        if len(self.results) != 1:
            doc = self.to_dict()
            lines = {k: (json.dumps(x, ensure_ascii=False) for x in doc[k]) for k in self._LISTS if isinstance(doc.get(k), list)}
            return document_json_chunks(doc, lines)
        r = self.results[0]
        # the document with those lists empty (their keys in place), then each item's text
        doc = replace(self, results=(replace(r, **{k: () for k in self._LISTS}),)).to_dict()
        lines = {k: (json.dumps(x.to_dict(), ensure_ascii=False) for x in getattr(r, k)) for k in self._LISTS}
        return document_json_chunks(doc, lines)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TraceReport":
        if not isinstance(d, dict) or d.get("schema") != cls.SCHEMA:
            return super().from_dict(d)  # refuses another kind of document
        # a single variant's name is not written (it reads back as "")
        bodies = d["variants"] if "variants" in d else [{"variant": "", **d}]
        return cls(tuple(TraceResult.from_dict(b) for b in bodies), d.get("machine") or {}, tuple(d.get("warnings") or ()))

    @classmethod
    def saved_fields(cls) -> tuple[str, ...]:
        body = tuple(k for k in TraceResult.saved_fields() if k != "variant")
        return ("machine", *body, "variants", "warnings")
