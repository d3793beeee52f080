"""Start-up checks as data: what a project declares (`[tool.importprof.checks.NAME]` in its
pyproject.toml, read by profiler/parse/checks.py) and what `importprof check` found
(`importprof.check/1`). A baseline file is the same document holding one check's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

CHECK_SCHEMA = "importprof.check/1"

# a finding's rule names (also the config keys that declare them, except new_import)
RULES = ("budget_ms", "budget_instructions", "forbid", "module_budget_ms", "max_growth_pct", "stay_lazy", "new_import")
STATUSES = ("pass", "fail", "error")


@dataclass(frozen=True)
class CheckSpec:
    """One declared check. `target` is what follows importprof's options, as typed
    (`["-m", "mypkg", "--help"]`); `source` the file it was declared in."""

    name: str
    target: tuple[str, ...] = ("-c", "pass")
    python: str | None = None
    budget_ms: float | None = None
    budget_instructions: float | None = None
    forbid: tuple[str, ...] = ()
    module_budget_ms: Mapping[str, float] = field(default_factory=dict)
    baseline: str | None = None  # as written (relative to the config file's folder)
    max_growth_pct: float | None = None
    # additions
    runs: int = 5  # timed runs and -X importtime runs (medians over them)
    instruction_runs: int = 3  # instruction counts (their spread is shown)
    metric: str | None = None  # "instructions": count them even without budget_instructions
    stay_lazy: tuple[str, ...] = ()  # never imported at start-up where lazy imports exist (3.15+)
    # files/folders (relative to the config's folder) whose declared lazy imports join stay_lazy
    lazy_sources: tuple[str, ...] = ()
    new_import_min_ms: float | None = None  # a module not in the baseline, at least this cumulative: fails
    source: str = "pyproject.toml"

    @property
    def wants_instructions(self) -> bool:
        return self.metric == "instructions" or self.budget_instructions is not None


@dataclass(frozen=True)
class Finding:
    """One rule of one check, judged. `chain`: the import chain that brought a module in
    (entry point first) for forbid / stay_lazy / new_import."""

    rule: str
    status: str  # "pass" | "fail" | "skipped"
    message: str
    measured: float | None = None
    limit: float | None = None
    module: str | None = None
    chain: tuple[str, ...] | None = None

    def to_dict(self) -> dict:
        return {
            "rule": self.rule, "status": self.status, "message": self.message, "measured": self.measured,
            "limit": self.limit, "module": self.module, "chain": None if self.chain is None else list(self.chain),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Finding":
        chain = d.get("chain")
        return cls(d["rule"], d["status"], d["message"], d.get("measured"), d.get("limit"), d.get("module"),
                   None if chain is None else tuple(chain))


@dataclass(frozen=True)
class StartupModule:
    """A module imported at start-up (median over the runs, as `imports` reports it)."""

    name: str
    self_us: int
    cumulative_us: int

    def to_dict(self) -> dict:
        return {"name": self.name, "self_us": self.self_us, "cumulative_us": self.cumulative_us}


@dataclass(frozen=True)
class CheckResult:
    """One check, measured and judged. Figures are None where not measured (a target that
    failed; instructions not asked for)."""

    name: str
    status: str  # "pass" | "fail" | "error"
    target: tuple[str, ...]
    python: str | None = None
    python_version: str | None = None
    wall_ms: float | None = None  # median wall time of the target, start to exit
    wall_ms_runs: tuple[float, ...] = ()
    import_ms: float | None = None  # Σ roots' cumulative import time, median
    instructions: int | None = None  # median instructions retired
    instructions_runs: tuple[int, ...] = ()
    instructions_method: str | None = None  # "perf" | "valgrind"
    findings: tuple[Finding, ...] = ()
    modules: tuple[StartupModule, ...] = ()
    baseline: str | None = None  # the baseline file's path as declared
    error: str | None = None
    duration_s: float = 0.0
    exit_code: int = 0  # status "error": the exit code the failure has on its own (not in the document)

    @property
    def wall_variation_pct(self) -> float | None:
        return variation_pct(self.wall_ms_runs)

    @property
    def instructions_variation_pct(self) -> float | None:
        return variation_pct(self.instructions_runs)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "target": list(self.target),
            "python": self.python,
            "python_version": self.python_version,
            "wall_ms": self.wall_ms,
            "wall_ms_runs": list(self.wall_ms_runs),
            "wall_variation_pct": self.wall_variation_pct,
            "import_ms": self.import_ms,
            "instructions": self.instructions,
            "instructions_runs": list(self.instructions_runs),
            "instructions_variation_pct": self.instructions_variation_pct,
            "instructions_method": self.instructions_method,
            "findings": [f.to_dict() for f in self.findings],
            "modules": [m.to_dict() for m in self.modules],
            "baseline": self.baseline,
            "error": self.error,
            "duration_s": self.duration_s,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CheckResult":
        return cls(
            name=d["name"], status=d["status"], target=tuple(d["target"]), python=d.get("python"),
            python_version=d.get("python_version"), wall_ms=d.get("wall_ms"), wall_ms_runs=tuple(d.get("wall_ms_runs", ())),
            import_ms=d.get("import_ms"), instructions=d.get("instructions"),
            instructions_runs=tuple(d.get("instructions_runs", ())), instructions_method=d.get("instructions_method"),
            findings=tuple(Finding.from_dict(f) for f in d.get("findings", ())),
            modules=tuple(StartupModule(m["name"], m["self_us"], m["cumulative_us"]) for m in d.get("modules", ())),
            baseline=d.get("baseline"), error=d.get("error"), duration_s=d.get("duration_s", 0.0),
        )


@dataclass(frozen=True)
class CheckReport:
    SCHEMA = CHECK_SCHEMA

    results: tuple[CheckResult, ...]
    machine: dict
    config: str | None = None  # the file the checks were declared in
    updated_baselines: tuple[str, ...] = ()  # --update-baseline: the files written

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.status != "pass")

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "config": self.config,
            "passed": sum(r.status == "pass" for r in self.results),
            "failed": sum(r.status == "fail" for r in self.results),
            "errors": sum(r.status == "error" for r in self.results),
            "updated_baselines": list(self.updated_baselines),
            "checks": [r.to_dict() for r in self.results],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CheckReport":
        if d.get("schema") != CHECK_SCHEMA:
            raise ValueError(f"not an {CHECK_SCHEMA} document (schema {d.get('schema')!r})")
        return cls(results=tuple(CheckResult.from_dict(c) for c in d["checks"]), machine=d.get("machine") or {},
                   config=d.get("config"), updated_baselines=tuple(d.get("updated_baselines", ())))


def variation_pct(values) -> float | None:
    """Run-to-run variation: (max − min) / median, in percent (None below two values)."""
    vals = sorted(v for v in values if v is not None)
    if len(vals) < 2:
        return None
    n = len(vals)
    mid = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
    if not mid:
        return None
    return (vals[-1] - vals[0]) / mid * 100.0
