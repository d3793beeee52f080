"""Import phases as the `phases` bootstrap hook measured them, one record per module import.

Units: integer µs (`*_us`). For every record, within one run:
    find_us + read_us + unmarshal_us + exec_us + Σ children's cumulative_us == cumulative_us
(`self_us` is the sum of the four phases).
"""

from __future__ import annotations

from dataclasses import dataclass

PHASES = ("find", "read", "unmarshal", "exec")


@dataclass(frozen=True)
class ImportSite:
    """The import statement that triggered a module: file, line, and the importing module."""

    file: str
    line: int | None
    importer: str | None = None

    @property
    def label(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


@dataclass(frozen=True)
class ModulePhases:
    index: int
    name: str
    parent: int  # index of the enclosing import record, -1 at top level
    depth: int
    start_us: int
    cumulative_us: int
    find_us: int
    read_us: int
    unmarshal_us: int
    exec_us: int
    compiled: bool = False  # the code came from compiling source (no valid .pyc)
    failed: bool = False  # the import raised (e.g. an optional dependency that is missing)
    site: ImportSite | None = None
    context: tuple = ()  # ("pth", path, line) / ("site",) / ("sitecustomize",) / () for the program
    launcher: bool = False  # imported by importprof's launcher itself (runpy), not the program
    origin: str | None = None  # spec.origin: file path, "frozen", "built-in"

    @property
    def self_us(self) -> int:
        return self.find_us + self.read_us + self.unmarshal_us + self.exec_us

    def phase_dict(self) -> dict:
        return {
            "find_us": self.find_us,
            "read_us": self.read_us,
            "unmarshal_us": self.unmarshal_us,
            "exec_us": self.exec_us,
            "compiled": self.compiled,
        }


@dataclass(frozen=True)
class PhaseRun:
    """One instrumented run: every import record in start order."""

    modules: tuple[ModulePhases, ...]

    @property
    def total_us(self) -> int:
        return sum(m.cumulative_us for m in self.modules if m.parent == -1)


@dataclass(frozen=True)
class LazyCandidate:
    """A module imported but never called into after its import: a candidate for a lazy import."""

    name: str
    cumulative_us: int
    self_us: int
    site: ImportSite | None
    subtree_used: bool  # some module imported under it was called into (cost not all saved)
    context: tuple = ()
