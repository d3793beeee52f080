"""Start-up checks as data: what a project declares (`[tool.importprof.checks.NAME]` in its
pyproject.toml, read by profiler/parse/checks.py) and what `importprof check` found
(`importprof.check/1`). A baseline file is the same document holding one check's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from profiler.model.document import Document, Record, derived, saved
from profiler.model.words import Metric

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
    metric: str | None = None  # Metric.INSTRUCTIONS: count them even without budget_instructions ("ms": the default)
    stay_lazy: tuple[str, ...] = ()  # never imported at start-up where lazy imports exist (3.15+)
    # files/folders (relative to the config's folder) whose declared lazy imports join stay_lazy
    lazy_sources: tuple[str, ...] = ()
    new_import_min_ms: float | None = None  # a module not in the baseline, at least this cumulative: fails
    source: str = "pyproject.toml"

    @property
    def wants_instructions(self) -> bool:
        return self.metric == Metric.INSTRUCTIONS or self.budget_instructions is not None


@dataclass(frozen=True)
class Finding(Record):
    """One rule of one check, judged. `chain`: the import chain that brought a module in
    (entry point first) for forbid / stay_lazy / new_import."""

    rule: str
    status: str  # "pass" | "fail" | "skipped"
    message: str
    measured: float | None = None
    limit: float | None = None
    module: str | None = None
    chain: tuple[str, ...] | None = None


@dataclass(frozen=True)
class StartupModule(Record):
    """A module imported at start-up (median over the runs, as `imports` reports it)."""

    name: str
    self_us: int
    cumulative_us: int


@dataclass(frozen=True)
class CheckResult(Record):
    """One check, measured and judged. Figures are None where not measured (a target that
    failed; instructions not asked for)."""

    NOT_SAVED = ("exit_code",)
    DERIVED = ("wall_variation_pct", "instructions_variation_pct")

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


@dataclass(frozen=True)
class CheckReport(Document):
    """`importprof.check/1`: the results are written as `checks`, after the counts of each
    status (passed, failed, errors)."""

    SCHEMA = CHECK_SCHEMA
    DERIVED = (derived("passed_count", key="passed", after="config"), derived("failed_count", key="failed", after="passed"),
               derived("error_count", key="errors", after="failed"))

    machine: dict[str, Any] = saved(missing={})
    config: str | None = None  # the file the checks were declared in
    updated_baselines: tuple[str, ...] = ()  # --update-baseline: the files written
    results: tuple[CheckResult, ...] = saved(default=(), key="checks")

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.status != "pass")

    @property
    def passed_count(self) -> int:
        return sum(r.status == "pass" for r in self.results)

    @property
    def failed_count(self) -> int:
        return sum(r.status == "fail" for r in self.results)

    @property
    def error_count(self) -> int:
        return sum(r.status == "error" for r in self.results)


def variation_pct(values: Iterable[float | None]) -> float | None:
    """Run-to-run variation: (max − min) / median, in percent (None below two values)."""
    vals = sorted(v for v in values if v is not None)
    if len(vals) < 2:
        return None
    n = len(vals)
    mid = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
    if not mid:
        return None
    return (vals[-1] - vals[0]) / mid * 100.0
