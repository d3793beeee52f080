"""What `site` costs and why: the `importprof.site/1` document.

Times are float seconds (`seconds`), import times integer µs (`cumulative_us`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, Record


@dataclass(frozen=True)
class PthLine(Record):
    """A `.pth` line that executes code (`import ...`)."""

    lineno: int | None
    text: str
    seconds: float
    modules: tuple[str, ...] = ()  # every module imported while the line ran, in import order


@dataclass(frozen=True)
class PthFile(Record):
    path: str
    seconds: float  # processing the whole file (reading, sys.path additions, executed lines)
    lines: tuple[PthLine, ...] = ()
    modules: tuple[str, ...] = ()  # every module its lines imported, in import order
    modules_us: int = 0  # Σ cumulative µs of the top-level imports its lines made


@dataclass(frozen=True)
class Customize(Record):
    """sitecustomize / usercustomize when one was imported."""

    path: str | None
    seconds: float
    modules: tuple[str, ...] = ()


@dataclass(frozen=True)
class UserSite(Record):
    path: str | None
    enabled: bool
    exists: bool
    seconds: float


@dataclass(frozen=True)
class SiteModule(Record):
    """A module imported while `site.main()` ran (top-level imports only)."""

    name: str
    cumulative_us: int
    context: tuple = ()


@dataclass(frozen=True)
class SiteRun:
    """One run of `site.main()` as the `site` hook recorded it (raw µs)."""

    main_us: int
    sys_path_before: tuple[str, ...]
    sys_path_after: tuple[str, ...]
    pth: tuple[dict, ...]  # {"path", "us", "lines": [{"lineno", "text", "us"}]}
    sitecustomize: dict | None
    usercustomize: dict | None
    user_site: dict | None
    python: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class SiteReport(Document):
    SCHEMA = "importprof.site/1"

    machine: dict
    python: str
    python_version: str
    runs: int
    seconds: float  # site.main() in total (median over runs)
    pth: tuple[PthFile, ...]
    sitecustomize: Customize | None
    usercustomize: Customize | None
    user_site: UserSite | None
    sys_path_added: int
    sys_path_entries: tuple[str, ...] = ()
    modules: tuple[SiteModule, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def costliest_pth(self) -> PthFile | None:
        return max(self.pth, key=lambda p: p.seconds) if self.pth else None
