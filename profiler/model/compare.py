"""`importprof compare` report: the five variants timed side by side (PyOxidizer's table)."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.measurement import TimingResult


@dataclass(frozen=True)
class SyscallCount:
    """One traced run of a variant (strace -f): total system calls and file-system families."""

    variant: str
    total: int
    errors: int
    families: tuple[tuple[str, int], ...] = ()  # (stat|open|getdents|readlink|access, count)
    files_opened: int | None = None

    def to_dict(self) -> dict:
        return {"variant": self.variant, "total": self.total, "errors": self.errors,
                "families": [{"name": n, "count": c} for n, c in self.families], "files_opened": self.files_opened}


@dataclass(frozen=True)
class VariantRow:
    """PyOxidizer's columns for one variant. CPU = user + system (of the process and its waited
    children); delta and % are against `traditional`; speedups are no-site / this variant."""

    variant: str
    cpu_s: float | None
    cpu_stddev_s: float | None
    delta_cpu_s: float | None
    pct_of_traditional: float | None
    speedup_vs_no_site: float | None  # wall
    speedup_vs_no_site_cpu: float | None
    wall_s: float
    wall_stddev_s: float | None
    peak_rss_bytes: int | None
    syscalls: int | None = None
    # where the variant's modules came from in its check run: its own pack (OxidizedFinder, the
    # frozen table) or the ordinary path finder behind it (None: not counted)
    packed_modules: int | None = None
    fallback_modules: int | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class CompareReport:
    SCHEMA = "importprof.compare/1"

    workload: str | None
    target: str
    python: str
    python_version: str
    build_dir: str
    results: tuple[TimingResult, ...]
    rows: tuple[VariantRow, ...]
    syscalls: tuple[SyscallCount, ...] = ()
    relative: tuple = ()  # Relative (wall mean / traditional's), as `startup` reports it
    launches: int | None = None
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    machine: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "workload": self.workload,
            "target": self.target,
            "python": self.python,
            "python_version": self.python_version,
            "build_dir": self.build_dir,
            "launches": self.launches,
            "results": [r.to_dict() for r in self.results],
            "rows": [r.to_dict() for r in self.rows],
            "reference": "traditional",
            "relative": [r.to_dict() for r in self.relative],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
        }
        if self.syscalls:
            d["syscalls"] = [s.to_dict() for s in self.syscalls]
        return d
