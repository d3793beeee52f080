"""What `site` costs and why: the `importprof.site/1` document.

Times are float seconds (`seconds`), import times integer µs (`cumulative_us`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PthLine:
    """A `.pth` line that executes code (`import ...`)."""

    lineno: int | None
    text: str
    seconds: float
    modules: tuple[str, ...] = ()  # every module imported while the line ran, in import order

    def to_dict(self) -> dict:
        return {"lineno": self.lineno, "text": self.text, "seconds": self.seconds, "modules": list(self.modules)}


@dataclass(frozen=True)
class PthFile:
    path: str
    seconds: float  # processing the whole file (reading, sys.path additions, executed lines)
    lines: tuple[PthLine, ...] = ()
    modules: tuple[str, ...] = ()  # every module its lines imported, in import order
    modules_us: int = 0  # Σ cumulative µs of the top-level imports its lines made

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "seconds": self.seconds,
            "lines": [ln.to_dict() for ln in self.lines],
            "modules": list(self.modules),
            "modules_us": self.modules_us,
        }


@dataclass(frozen=True)
class Customize:
    """sitecustomize / usercustomize when one was imported."""

    path: str | None
    seconds: float
    modules: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"path": self.path, "seconds": self.seconds, "modules": list(self.modules)}


@dataclass(frozen=True)
class UserSite:
    path: str | None
    enabled: bool
    exists: bool
    seconds: float

    def to_dict(self) -> dict:
        return {"path": self.path, "enabled": self.enabled, "exists": self.exists, "seconds": self.seconds}


@dataclass(frozen=True)
class SiteModule:
    """A module imported while `site.main()` ran (top-level imports only)."""

    name: str
    cumulative_us: int
    context: tuple = ()

    def to_dict(self) -> dict:
        return {"name": self.name, "cumulative_us": self.cumulative_us, "context": list(self.context)}


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
class SiteReport:
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

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "python": self.python,
            "python_version": self.python_version,
            "runs": self.runs,
            "seconds": self.seconds,
            "pth": [p.to_dict() for p in self.pth],
            "sitecustomize": self.sitecustomize.to_dict() if self.sitecustomize else None,
            "usercustomize": self.usercustomize.to_dict() if self.usercustomize else None,
            "user_site": self.user_site.to_dict() if self.user_site else None,
            "sys_path_added": self.sys_path_added,
            "sys_path_entries": list(self.sys_path_entries),
            "modules": [m.to_dict() for m in self.modules],
            "warnings": list(self.warnings),
        }
