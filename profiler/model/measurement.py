"""Timing records. Field names are hyperfine's (`command, mean, stddev, median, user, system,
min, max, times, exit_codes, memory_usage_byte`) so an exported file is a hyperfine file;
importprof's additions (variant, python, python_version, flags, ...) are extra keys.

Units: seconds (float) for times, bytes (int) for memory, as hyperfine.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RunSample:
    """One run as the kernel accounted it (wait4 rusage) plus a monotonic wall clock."""

    wall_s: float
    user_s: float | None
    system_s: float | None
    max_rss_bytes: int | None
    exit_code: int


@dataclass(frozen=True)
class CommandSpec:
    """One thing to time: a variant of a target on an interpreter."""

    argv: tuple[str, ...]
    variant: str
    python: str | None = None
    python_version: str | None = None
    flags: tuple[str, ...] = ()
    target: str = ""  # the target's label (e.g. "-c pass", "-c 'import json'")
    fresh_pycache: bool = False  # cold-pyc: a fresh -X pycache_prefix dir per run
    env: tuple[tuple[str, str], ...] | None = None  # extra environment for this command
    key: str = ""  # opaque unique id inside one benchmark; never parsed (identity is the fields)
    role: str = "target"  # "target" | "baseline" (-c pass beside --import) | "import" (-c "import X")
    module: str | None = None  # role "import": the X of `import X`
    target_kind: str = ""  # the Target's kind ("code", "module", "script", "command")
    keeps_site_paths: bool = False  # no-site: env gives back the paths site would add (notes say which)

    @property
    def command(self) -> str:
        """The command line as a shell runs it, its extra environment first (`PYTHONPATH=...
        python -S ...` for no-site): copied into a terminal, it runs what was timed."""
        import shlex

        env = [f"{k}={shlex.quote(v)}" for k, v in self.env or ()]
        return " ".join([*env, shlex.join(self.argv)])


@dataclass(frozen=True)
class TimingResult:
    """Statistics of one command. `None` marks what the engine could not measure.

    A command that failed (`failed`: it exited non-zero, was killed, or crashed with a
    traceback) keeps its `exit_codes` and a one-line `error`, and has no timing figures:
    mean/median/min/max/stddev are None and `times` is empty."""

    command: str
    mean: float | None
    stddev: float | None
    median: float | None
    user: float | None
    system: float | None
    min: float | None
    max: float | None
    times: tuple[float, ...]
    exit_codes: tuple[int, ...]
    memory_usage_byte: tuple[int, ...] | None
    variant: str = ""
    python: str | None = None
    python_version: str | None = None
    flags: tuple[str, ...] = ()
    target: str = ""
    key: str = ""
    user_times: tuple[float, ...] | None = None
    system_times: tuple[float, ...] | None = None
    instructions: int | None = None  # median of instructions_runs
    engine: str = "builtin"
    role: str = "target"
    module: str | None = None
    failed: bool = False
    error: str | None = None
    instructions_runs: tuple[int, ...] | None = None  # --metric instructions: every count

    @classmethod
    def failure(cls, spec: CommandSpec, exit_codes: tuple[int, ...], error: str, engine: str = "builtin") -> "TimingResult":
        """The record of a command that failed: identity and exit codes, no timing figures."""
        return cls(
            command=spec.command, mean=None, stddev=None, median=None, user=None, system=None,
            min=None, max=None, times=(), exit_codes=tuple(exit_codes), memory_usage_byte=None,
            variant=spec.variant, python=spec.python, python_version=spec.python_version,
            flags=spec.flags, target=spec.target, key=spec.key or spec.variant, engine=engine,
            role=spec.role, module=spec.module, failed=True, error=error,
        )

    @property
    def runs(self) -> int:
        return len(self.times)

    @property
    def instructions_variation_pct(self) -> float | None:
        """(max - min) / median of the instruction counts, percent (None below two counts)."""
        from profiler.model.check import variation_pct

        return variation_pct(self.instructions_runs or ())

    @property
    def peak_rss_bytes(self) -> int | None:
        return max(self.memory_usage_byte) if self.memory_usage_byte else None

    @property
    def cpu(self) -> float | None:
        if self.user is None or self.system is None:
            return None
        return self.user + self.system

    def to_dict(self) -> dict:
        return {
            "command": self.command,
            "mean": self.mean,
            "stddev": self.stddev,
            "median": self.median,
            "user": self.user,
            "system": self.system,
            "min": self.min,
            "max": self.max,
            "times": list(self.times),
            "exit_codes": list(self.exit_codes),
            "memory_usage_byte": None
            if self.memory_usage_byte is None
            else list(self.memory_usage_byte),
            "variant": self.variant,
            "python": self.python,
            "python_version": self.python_version,
            "flags": list(self.flags),
            "target": self.target,
            "key": self.key,
            "user_times": None if self.user_times is None else list(self.user_times),
            "system_times": None if self.system_times is None else list(self.system_times),
            "instructions": self.instructions,
            "engine": self.engine,
            "role": self.role,
            "module": self.module,
            "failed": self.failed,
            "error": self.error,
            "instructions_runs": None if self.instructions_runs is None else list(self.instructions_runs),
            "instructions_variation_pct": self.instructions_variation_pct,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "TimingResult":
        def tup(v):
            return None if v is None else tuple(v)

        def num(v):
            return None if v is None else float(v)

        return cls(
            command=d["command"],
            mean=num(d.get("mean")),
            stddev=num(d.get("stddev")),
            median=num(d.get("median")),
            user=num(d.get("user")),
            system=num(d.get("system")),
            min=num(d.get("min")),
            max=num(d.get("max")),
            times=tuple(float(t) for t in d.get("times") or ()),
            exit_codes=tuple(int(c) if c is not None else -1 for c in d.get("exit_codes") or ()),
            memory_usage_byte=tup(d.get("memory_usage_byte")),
            variant=d.get("variant") or "",
            python=d.get("python"),
            python_version=d.get("python_version"),
            flags=tuple(d.get("flags") or ()),
            target=d.get("target") or "",
            key=d.get("key") or d.get("variant") or d["command"],
            user_times=tup(d.get("user_times")),
            system_times=tup(d.get("system_times")),
            instructions=d.get("instructions"),
            engine=d.get("engine") or "hyperfine",
            role=d.get("role") or "target",
            module=d.get("module"),
            failed=bool(d.get("failed", False)),
            error=d.get("error"),
            instructions_runs=None if d.get("instructions_runs") is None else tuple(int(c) for c in d["instructions_runs"]),
        )


@dataclass(frozen=True)
class Relative:
    """A result against the reference, as a TIME ratio: ratio = mean / reference mean.

    1.0 is the reference; 2.0 takes twice as long ("2.00x slower"); 0.5 takes half as long
    ("2.00x faster"). Every table, export and page uses this one direction."""

    key: str
    ratio: float
    ratio_stddev: float | None
    reference: str

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "ratio": self.ratio,
            "ratio_stddev": self.ratio_stddev,
            "reference": self.reference,
        }


@dataclass(frozen=True)
class ImportCost:
    """`-c "import X"` minus `-c pass` for one variant on one interpreter (seconds)."""

    module: str
    variant: str
    python: str | None
    mean: float
    stddev: float | None

    def to_dict(self) -> dict:
        return {
            "module": self.module,
            "variant": self.variant,
            "python": self.python,
            "mean": self.mean,
            "stddev": self.stddev,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ImportCost":
        return cls(d["module"], d["variant"], d.get("python"), d["mean"], d.get("stddev"))


@dataclass(frozen=True)
class StartupReport:
    SCHEMA = "importprof.startup/1"

    results: tuple[TimingResult, ...]
    machine: dict
    reference: str = ""
    relative: tuple[Relative, ...] = ()
    import_costs: tuple[ImportCost, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    engine: str = "builtin"
    interrupted: bool = False
    metric: tuple[str, ...] = field(default_factory=tuple)
    harness: object = None  # model.harness.HarnessView for a `-- COMMAND` starting Python processes

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "harness": None if self.harness is None else self.harness.to_dict(),
            "machine": self.machine,
            "engine": self.engine,
            "reference": self.reference,
            "results": [r.to_dict() for r in self.results],
            "relative": [r.to_dict() for r in self.relative],
            "import_costs": [c.to_dict() for c in self.import_costs],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "interrupted": self.interrupted,
            "metric": list(self.metric),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "StartupReport":
        if d.get("schema") != cls.SCHEMA:
            raise ValueError(f"not an {cls.SCHEMA} document (schema={d.get('schema')!r})")
        return cls(
            results=tuple(TimingResult.from_dict(r) for r in d["results"]),
            machine=d.get("machine") or {},
            reference=d.get("reference", ""),
            relative=tuple(
                Relative(r["key"], r["ratio"], r.get("ratio_stddev"), r["reference"])
                for r in d.get("relative", ())
            ),
            import_costs=tuple(ImportCost.from_dict(c) for c in d.get("import_costs", ())),
            warnings=tuple(d.get("warnings", ())),
            notes=tuple(d.get("notes", ())),
            engine=d.get("engine", "builtin"),
            interrupted=bool(d.get("interrupted", False)),
            metric=tuple(d.get("metric", ())),
            harness=_harness(d.get("harness")),
        )


def _harness(d):
    if not d:
        return None
    from profiler.model.harness import HarnessView

    return HarnessView.from_dict(d)
