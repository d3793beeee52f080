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
    key: str = ""  # unique id inside one benchmark (variant [+ python] [+ target])

    @property
    def command(self) -> str:
        import shlex

        return shlex.join(self.argv)


@dataclass(frozen=True)
class TimingResult:
    """Statistics of one command. `None` marks what the engine could not measure."""

    command: str
    mean: float
    stddev: float | None
    median: float
    user: float | None
    system: float | None
    min: float
    max: float
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
    instructions: int | None = None
    engine: str = "builtin"

    @property
    def runs(self) -> int:
        return len(self.times)

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
        }

    @classmethod
    def from_dict(cls, d: dict) -> "TimingResult":
        def tup(v):
            return None if v is None else tuple(v)

        return cls(
            command=d["command"],
            mean=float(d["mean"]),
            stddev=None if d.get("stddev") is None else float(d["stddev"]),
            median=float(d["median"]),
            user=d.get("user"),
            system=d.get("system"),
            min=float(d["min"]),
            max=float(d["max"]),
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
        )


@dataclass(frozen=True)
class Relative:
    """Speed of a result relative to the reference: ratio = mean / reference mean."""

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

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
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
        )
