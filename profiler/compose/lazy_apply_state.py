"""`lazy --apply`'s options and the state its stages share (compose/lazy_apply.py runs them:
lazy_apply_select.py chooses the statements and writes the edit in memory, lazy_apply_verify.py
verifies and proves it): what each stage reads and leaves for the next, typed."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Sequence

from profiler.model.warnings import first_clause
from profiler.model.words import LazyStyle, Said, WarningKind
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.compose.lazy_apply_files import TreeFiles
    from profiler.model.interpreter import Interpreter
    from profiler.model.lazy import LazyReport, ProgramOutput
    from profiler.model.lazy_apply import Check, ProofRow, StatementVerdict


PLACEHOLDER = "{python}"


@dataclass(frozen=True)
class ApplyOptions:
    lazy: object  # compose.lazy.LazyOptions (the measurement)
    directory: str | None = None
    style: LazyStyle = LazyStyle.LAZY_MODULES  # --style (its word made the member at the edge: options_edge.style_word)
    diff: bool = False
    filter_out: str | None = None
    verify_with: Sequence[str] = ()  # command lines (shlex-split; {python} = each interpreter)
    min_ms: float = 1.0
    oldest_python: Interpreter | None = None  # --oldest-python, resolved at the command's edge; None: the oldest pyenv interpreter requires-python allows
    proof_runs: int = 10
    profile_runs: int = 3
    max_bisect_runs: int = 40
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        """An ApplyOptions that exists is valid (the command's and the library's alike): each
        check is one usage error, in this order. `--style keyword` against the project's
        requires-python reads files: compose/lazy_apply.py: check_style, once, at the entry."""
        from profiler.errors import UsageError
        from profiler.workflows.targets import command_lines

        if self.directory is None and self.filter_out is None:
            raise UsageError("nothing to do: give --apply DIR or --filter-out FILE")
        if self.directory is not None and self.filter_out is not None:
            raise UsageError("--apply and --filter-out are two ways to adopt the result: give one")
        if self.diff and self.directory is None:
            raise UsageError("--diff shows what --apply DIR would write: give --apply DIR")
        if self.min_ms < 0:
            raise UsageError("--min-ms cannot be negative")
        command_lines("--verify-with", self.verify_with)


def lower_bound(spec: str) -> tuple[int, int] | None:
    """The oldest (major, minor) a requires-python specifier allows (None: no lower bound)."""
    best = None
    for part in spec.split(","):
        m = re.match(r"\s*(>=|>|~=|==)\s*(\d+)\.(\d+)", part)
        if not m:
            continue
        v = (int(m.group(2)), int(m.group(3)))
        if m.group(1) == ">":
            v = (v[0], v[1] + 1) if not re.match(r"\s*>\s*\d+\.\d+\.\d", part) else v
        best = v if best is None or v > best else best
    return best


def requires_python(start: str) -> tuple[str | None, str | None]:
    """The project's requires-python (pyproject.toml [project], else setup.cfg python_requires)
    found from `start` upwards, and the file it came from."""
    folder = os.path.abspath(start)
    while True:
        for name, pattern in (("pyproject.toml", r'^\s*requires-python\s*=\s*["\']([^"\']+)["\']'),
                              ("setup.cfg", r"^\s*python_requires\s*=\s*(\S.*)$")):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):  # regular files only: a FIFO would make open() wait for a writer
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            m = re.search(pattern, text, re.M)
            if m:
                return m.group(1).strip(), path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, None
        folder = parent


def _under(path: str, folder: str) -> bool:
    folder = folder.rstrip("/") + "/"
    return path == folder.rstrip("/") or path.startswith(folder)


@dataclass
class Candidate:
    path: str
    line: int
    modules: tuple[str, ...]
    saving_us: int
    site: str
    # the other module-level statements under DIR that import one of `modules`: in the eager
    # run they found the module already loaded, but with this statement lazy the first of them
    # to run would load it, so they go lazy with it (one unit for the edit and the bisection)
    companions: tuple[tuple[str, int], ...] = ()


def _package_of(path: str) -> str | None:
    """The dotted package a file belongs to (for an __init__.py, the package itself), found by
    walking up through folders that hold an __init__.py."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, name = os.path.split(folder)
        parts.insert(0, name)
    return ".".join(parts) or None


def _module_of(path: str) -> str:
    package = _package_of(path)
    stem = os.path.basename(path)[:-3] if path.endswith(".py") else os.path.basename(path)
    if stem == "__init__":
        return package or ""
    return f"{package}.{stem}" if package else stem


def _regular(path: str) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read(path: str) -> bytes:
    """A module's bytes; OSError for what is not a regular file (O_NONBLOCK: a FIFO named
    mod.py must not make open() wait for a writer; its callers leave such a file alone)."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return fh.read()


@dataclass(frozen=True)
class Job:
    python: str  # interpreter path ("" for a command without {python})
    label: str
    argv: tuple[str, ...]


Stage = Literal["measuring", "verifying", "refreshing", "proving"]  # what an interrupt stops


@dataclass
class ApplyState:
    """One `--apply` run: what each stage reads and what it leaves for the next."""

    opts: ApplyOptions
    interp: Interpreter
    directory: str  # DIR resolved
    session: Session
    files: dict[str, str] = field(default_factory=dict)  # module name -> file, as the target loads them
    report: LazyReport | None = None  # the lazy measurement
    must: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cands: list[Candidate] = field(default_factory=list)
    verdicts: dict[int, StatementVerdict] = field(default_factory=dict)  # index in cands -> its verdict
    chosen: list[Candidate] = field(default_factory=list)
    file_status: dict[str, str] = field(default_factory=dict)  # path -> "ok" or why it is left alone
    edits: TreeFiles | None = None
    py315: Interpreter | None = None
    compiler: str | None = None  # compiles the new bytes (keyword style)
    contents: dict[str, bytes] = field(default_factory=dict)  # path -> the edited bytes
    pythons: list[Interpreter] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    before: dict[Job, ProgramOutput] = field(default_factory=dict)  # each job's output before any edit
    modes: dict[Job, str] = field(default_factory=dict)  # how each job's outputs are compared
    diffs: dict[Job, str | None] = field(default_factory=dict)
    bisect_runs: int = 0
    checks: tuple[Check, ...] = ()
    proof: tuple[ProofRow, ...] = ()
    machine: dict[str, object] = field(default_factory=dict)
    stage: Stage = "measuring"
    tree: tuple[dict, dict[str, str]] | None = None  # (path -> import statements, path -> why left alone) of DIR, walked once
    self_us: dict[str, int] = field(default_factory=dict)  # module -> its self time: the lowest of every profile run so far
    passes: int = 1  # profiles of the program the selection took (the edited one after the first)

    def warning(self, said: Said) -> None:
        self.warnings.append(said)
        self.session.warn(said)

    def leave_alone(self, path: str, why: str, shown: str | None = None) -> None:
        if self.file_status.get(path, "ok") == "ok":
            self.file_status[path] = why
            self.warning(Said(f"{shown or path}: {why}: left as it is", WarningKind.LEFT_ALONE, first_clause(why), shown or path))


def _in_dir(state: ApplyState, path: str) -> bool:
    """A site's file lies under DIR (resolved); one named under DIR whose real path leaves it is
    reported and left alone."""
    real = os.path.realpath(path)
    if _under(real, state.directory):
        return True
    named = os.path.abspath(path)
    given = os.path.abspath(state.opts.directory or state.directory)
    if any(_under(named, d) for d in {given, state.directory}):
        state.leave_alone(named, f"leads to {real}, outside {state.directory}")
    return False
