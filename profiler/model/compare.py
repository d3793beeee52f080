"""`importprof compare` report: the five variants timed side by side (PyOxidizer's table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from profiler.model.document import Document, Record, saved
from profiler.model.measurement import Relative, TimingResult


@dataclass(frozen=True)
class SyscallCount(Record):
    """One traced run of a variant (strace -f): total system calls and file-system families."""

    variant: str
    total: int
    errors: int
    # (stat|open|getdents|readlink|access, count) pairs, {name, count} records in the JSON
    families: tuple[tuple[str, int], ...] = saved(default=(), pairs=("name", "count"))
    files_opened: int | None = None


@dataclass(frozen=True)
class VariantRow(Record):
    """PyOxidizer's columns for one variant. CPU = user + system (of the process and its waited
    children); delta and % are against `traditional`; speedups are no-site / this variant."""

    variant: str
    cpu_s: float | None
    cpu_stddev_s: float | None
    delta_cpu_s: float | None
    pct_of_traditional: float | None
    speedup_vs_no_site: float | None  # wall
    speedup_vs_no_site_cpu: float | None
    wall_s: float | None  # None: the variant failed
    wall_stddev_s: float | None
    peak_rss_bytes: int | None
    syscalls: int | None = None
    # where the variant's modules came from in its check run: its own pack (OxidizedFinder, the
    # frozen table) or the ordinary path finder behind it (None: not counted)
    packed_modules: int | None = None
    fallback_modules: int | None = None


@dataclass(frozen=True)
class HarnessVariant(Record):
    """How the harness ended with one variant's program, over its measured runs: its exit
    codes, the summary lines it printed last (durations blanked), the program's launches per
    run, and whether all of that is what it was with traditional (else `difference` says what
    differed, and the variant's row is a failed one)."""

    variant: str
    exit_codes: tuple[int, ...]
    summary: tuple[str, ...]
    launches: tuple[int, ...]
    same_as_traditional: bool
    difference: str | None = None


@dataclass(frozen=True)
class NotPacked(Record):
    """A module the harness's program processes imported that no pack holds, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class HarnessOrigins(Record):
    """Where one variant's modules came from over a whole run of the harness: the distinct
    modules its program processes took from the variant's pack (OxidizedFinder, the frozen
    table) and from files through the fallback path finder behind it, each of those with why it
    was not packed. A packing variant's from an untimed run of the harness of its own (each
    program process started through importprof's module recorder, written at exit);
    traditional's from the recording run (no pack: every module file is a fallback)."""

    variant: str
    processes: int  # the variant's program processes that recorded
    packed_modules: int
    fallback_modules: int
    fallback: tuple[NotPacked, ...] = ()
    exit_code: int | None = None  # the harness's, in that run (None: the recording run's, checked already)


@dataclass(frozen=True)
class HarnessFacts(Record):
    """`compare --harness`: the command as given, the program name it reached each variant by,
    the recording run (the harness once with traditional, untimed: its processes counted under
    strace, the modules its program processes imported), what that added to the packs, and how
    the harness ended with each variant."""

    command: str
    shell: bool
    program: str
    record_command: str
    processes: int | None  # every process the recording run started (strace -f); None: no strace
    program_processes: int  # the program's processes that recorded their modules
    modules_recorded: int  # distinct modules they imported
    modules_added: int  # of those, the ones a single run of the target did not import, added to the recording
    not_packed: tuple[NotPacked, ...] = ()
    variants: tuple[HarnessVariant, ...] = ()
    # where the harness's program processes took their modules from, per variant recorded (the
    # table's `modules: pack / fallback` in --harness); a variant not listed was not recorded
    origins: tuple[HarnessOrigins, ...] = ()


@dataclass(frozen=True)
class CompareReport(Document):
    SCHEMA = "importprof.compare/1"
    DERIVED = ("reference",)

    workload: str | None
    target: str
    python: str
    python_version: str
    build_dir: str
    results: tuple[TimingResult, ...]
    rows: tuple[VariantRow, ...]
    # written only when the variants were traced (strace ran: --syscalls auto or on)
    syscalls: tuple[SyscallCount, ...] = saved(default=(), omit="empty")
    relative: tuple[Relative, ...] = ()  # (wall mean / traditional's), as `startup` reports it
    launches: int | None = None
    # compare --harness: the harness, its recording run and how it ended per variant
    harness: HarnessFacts | None = saved(default=None, omit="none")
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    machine: dict[str, Any] = field(default_factory=dict)

    @property
    def reference(self) -> str:
        """Ratios are against the traditional variant."""
        return "traditional"

