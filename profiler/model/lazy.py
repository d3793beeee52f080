"""`importprof lazy`: eager vs lazy imports, measured (`importprof.lazy/1`).

The `lazy` hook's record of one run (`LazyRun`), and the report:
  results           hyperfine-shaped timing records, `variant` "eager" / "lazy"
  must_stay_eager   [{name, reason}]: the smallest set kept eager for identical output, each
                    with the observable difference that forced it
  avoided           [{name, cumulative_us}]: imported by the eager run, never executed by the
                    lazy one, with the eager `-X importtime` cumulative (median, µs)
  identical_output  the lazy run (with must_stay_eager kept eager) printed the same stdout and
                    stderr and exited with the same code as the eager run
  modules_eager / modules_lazy   modules executed (sys.modules at exit, importprof's excluded)
  statements        [{site, modules, cumulative_us}]: per import statement of the target's own
                    code (file:line), the avoided modules below it and their eager cost
Additions: stayed_eager (what the lazy run executed at once, and why), relative (time ratios
against eager), bisect_runs, mode, warnings, notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.measurement import Relative, TimingResult

SCHEMA = "importprof.lazy/1"


@dataclass(frozen=True)
class EagerImport:
    """An import the lazy run executed at once: `reason` says why (see hook_lazy.py)."""

    name: str
    reason: str
    site: str | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "reason": self.reason, "site": self.site}

    @classmethod
    def from_dict(cls, d: dict) -> "EagerImport":
        return cls(str(d["name"]), str(d["reason"]), d.get("site"))


@dataclass(frozen=True)
class LazyLoad:
    """A lazy module's body ran: `trigger` from / star / submodule / use, at `site`."""

    name: str
    trigger: str
    attr: str
    site: str | None


@dataclass(frozen=True)
class LazyRun:
    """The `lazy` hook's record of one run."""

    lazy: bool
    python: str
    startup: tuple[str, ...]  # in sys.modules before the hook (interpreter start-up)
    executed: tuple[tuple[str, str, str | None], ...]  # (name, kind, file) of every executed module at exit
    pending: tuple[str, ...]  # found, made lazy, never executed
    eager: tuple[EagerImport, ...]  # decided eager when found
    loads: tuple[LazyLoad, ...]  # lazy modules executed, in order
    found: tuple[tuple[str, str], ...] = ()  # (name, kind) of every module a finder found, in order
    counts: dict = field(default_factory=dict)  # emulation events: bindings, resolutions, rewritten_loads, cache_misses
    calibration: dict = field(default_factory=dict)  # µs per event (binding_us, resolution_us, load_us)

    @property
    def executed_names(self) -> frozenset[str]:
        return frozenset(e[0] for e in self.executed)


@dataclass(frozen=True)
class ProgramOutput:
    """What a run shows the world: compared between eager and lazy."""

    stdout: str
    stderr: str
    exit_code: int


@dataclass(frozen=True)
class MustStayEager:
    name: str
    reason: str  # the observable difference when it is lazy (first differing line, exception)

    def to_dict(self) -> dict:
        return {"name": self.name, "reason": self.reason}

    @classmethod
    def from_dict(cls, d: dict) -> "MustStayEager":
        return cls(str(d["name"]), str(d["reason"]))


@dataclass(frozen=True)
class AvoidedModule:
    name: str
    cumulative_us: int

    def to_dict(self) -> dict:
        return {"name": self.name, "cumulative_us": self.cumulative_us}

    @classmethod
    def from_dict(cls, d: dict) -> "AvoidedModule":
        return cls(str(d["name"]), int(d["cumulative_us"]))


@dataclass(frozen=True)
class StatementSaving:
    """One import statement of the target's own code and the start-up cost laziness moved out."""

    site: str  # file:line
    modules: tuple[str, ...]  # avoided modules below it (import order)
    cumulative_us: int  # Σ eager cumulative of the topmost avoided modules below it

    def to_dict(self) -> dict:
        return {"site": self.site, "modules": list(self.modules), "cumulative_us": self.cumulative_us}

    @classmethod
    def from_dict(cls, d: dict) -> "StatementSaving":
        return cls(str(d["site"]), tuple(d.get("modules") or ()), int(d["cumulative_us"]))


@dataclass(frozen=True)
class LazyReport:
    SCHEMA = SCHEMA

    results: tuple[TimingResult, ...]
    must_stay_eager: tuple[MustStayEager, ...]
    avoided: tuple[AvoidedModule, ...]
    identical_output: bool
    modules_eager: int
    modules_lazy: int
    statements: tuple[StatementSaving, ...]
    machine: dict = field(default_factory=dict)
    python: str | None = None
    python_version: str | None = None
    target: str = ""
    mode: str = "finder"  # "finder" (the lazy hook, 3.8-3.14) or "-X lazy_imports=all" (3.15+)
    reference: str = ""
    relative: tuple[Relative, ...] = ()
    stayed_eager: tuple[EagerImport, ...] = ()
    avoided_us: int = 0  # Σ cumulative of the topmost avoided modules (no double counting)
    bisect_runs: int = 0
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    interrupted: bool = False

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "python": self.python,
            "python_version": self.python_version,
            "target": self.target,
            "mode": self.mode,
            "reference": self.reference,
            "results": [r.to_dict() for r in self.results],
            "relative": [r.to_dict() for r in self.relative],
            "identical_output": self.identical_output,
            "must_stay_eager": [m.to_dict() for m in self.must_stay_eager],
            "modules_eager": self.modules_eager,
            "modules_lazy": self.modules_lazy,
            "avoided": [a.to_dict() for a in self.avoided],
            "avoided_us": self.avoided_us,
            "statements": [s.to_dict() for s in self.statements],
            "stayed_eager": [e.to_dict() for e in self.stayed_eager],
            "bisect_runs": self.bisect_runs,
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "interrupted": self.interrupted,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "LazyReport":
        if d.get("schema") != SCHEMA:
            raise ValueError(f"not an {SCHEMA} document (schema={d.get('schema')!r})")
        return cls(
            results=tuple(TimingResult.from_dict(r) for r in d["results"]),
            must_stay_eager=tuple(MustStayEager.from_dict(m) for m in d["must_stay_eager"]),
            avoided=tuple(AvoidedModule.from_dict(a) for a in d["avoided"]),
            identical_output=bool(d["identical_output"]),
            modules_eager=int(d["modules_eager"]),
            modules_lazy=int(d["modules_lazy"]),
            statements=tuple(StatementSaving.from_dict(s) for s in d["statements"]),
            machine=d.get("machine") or {},
            python=d.get("python"),
            python_version=d.get("python_version"),
            target=d.get("target") or "",
            mode=d.get("mode") or "finder",
            reference=d.get("reference") or "",
            relative=tuple(
                Relative(r["key"], r["ratio"], r.get("ratio_stddev"), r["reference"]) for r in d.get("relative") or ()
            ),
            stayed_eager=tuple(EagerImport.from_dict(e) for e in d.get("stayed_eager") or ()),
            avoided_us=int(d.get("avoided_us") or 0),
            bisect_runs=int(d.get("bisect_runs") or 0),
            warnings=tuple(d.get("warnings") or ()),
            notes=tuple(d.get("notes") or ()),
            interrupted=bool(d.get("interrupted", False)),
        )
