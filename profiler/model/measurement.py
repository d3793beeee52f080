"""Timing records. Field names are hyperfine's (`command, mean, stddev, median, user, system,
min, max, times, exit_codes, memory_usage_byte`) so an exported file is a hyperfine file;
importprof's additions (variant, python, python_version, flags, ...) are extra keys.

Units: seconds (float) for times, bytes (int) for memory, as hyperfine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from profiler.model.document import Document, Record
from profiler.model.harness import HarnessView
from profiler.model.variant import Variant
from profiler.model.words import Engine, Role, TargetKind


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
    """One thing to time: a variant of a target on an interpreter. `variant` is the name
    written in documents; `way` the `Variant` that built the command (the run plan's, carried
    to the result: what it needs, its hints, its side of the site note), None for a
    composition's own rows (lazy's eager/lazy, compare's build variants)."""

    argv: tuple[str, ...]
    variant: str
    python: str | None = None
    python_version: str | None = None
    flags: tuple[str, ...] = ()
    target: str = ""  # the target's label (e.g. "-c pass", "-c 'import json'")
    env: tuple[tuple[str, str], ...] | None = None  # extra environment for this command
    key: str = ""  # opaque unique id inside one benchmark; never parsed (identity is the fields)
    role: Role = Role.TARGET  # target | baseline (-c pass beside --import) | import (-c "import X")
    module: str | None = None  # role import: the X of `import X`
    target_kind: TargetKind | None = None  # the Target's kind (None: not said)
    way: Variant | None = None  # the variant itself (see above)

    @property
    def fresh_pycache(self) -> bool:
        """cold-pyc: a fresh -X pycache_prefix folder per run."""
        return self.way is not None and self.way.fresh_pycache

    @property
    def keep_site_paths(self) -> bool:
        """no-site: env gives back the paths site would add (the plan's notes say which)."""
        return self.way is not None and self.way.keep_site_paths

    @property
    def command(self) -> str:
        """The command line as a shell runs it, its extra environment first (`PYTHONPATH=...
        python -S ...` for no-site): copied into a terminal, it runs what was timed."""
        import shlex

        env = [f"{k}={shlex.quote(v)}" for k, v in self.env or ()]
        return " ".join([*env, shlex.join(self.argv)])


@dataclass(frozen=True)
class TimingResult(Record):
    """Statistics of one command. `None` marks what the engine could not measure.

    A command that failed (`failed`: it exited non-zero, was killed, or crashed with a
    traceback) keeps its `exit_codes` and a one-line `error`, and has no timing figures:
    mean/median/min/max/stddev are None and `times` is empty."""

    DERIVED = ("instructions_variation_pct",)
    NOT_SAVED = ("way",)

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
    engine: Engine = Engine.BUILTIN  # a document read back keeps the plain word, equal to its member
    role: Role = Role.TARGET
    module: str | None = None
    failed: bool = False
    error: str | None = None
    instructions_runs: tuple[int, ...] | None = None  # --metric instructions: every count
    # the Variant that was run (its spec's `way`; None when read back from a file or for a
    # composition's own rows): not saved, the document keeps its name (`variant`)
    way: Variant | None = field(default=None, compare=False)

    @classmethod
    def failure(cls, spec: CommandSpec, exit_codes: tuple[int, ...], error: str, engine: Engine = Engine.BUILTIN) -> "TimingResult":
        """The record of a command that failed: identity and exit codes, no timing figures."""
        return cls(
            command=spec.command, mean=None, stddev=None, median=None, user=None, system=None,
            min=None, max=None, times=(), exit_codes=tuple(exit_codes), memory_usage_byte=None,
            variant=spec.variant, python=spec.python, python_version=spec.python_version,
            flags=spec.flags, target=spec.target, key=spec.key or spec.variant, engine=engine,
            role=spec.role, module=spec.module, failed=True, error=error, way=spec.way,
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

    # hyperfine's own export files are read too (startup --from-hyperfine, compare): they lack
    # importprof's keys and may hold null exit codes, so those get their values here first
    _HYPERFINE_DEFAULTS = {"variant": "", "flags": (), "target": "", "engine": Engine.HYPERFINE, "role": Role.TARGET, "failed": False}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TimingResult":
        def num(v):
            return None if v is None else float(v)

        filled = {k: d.get(k) or v for k, v in cls._HYPERFINE_DEFAULTS.items()}
        return super().from_dict({
            **d,
            **{k: num(d.get(k)) for k in ("mean", "stddev", "median", "user", "system", "min", "max")},
            "times": [float(t) for t in d.get("times") or ()],
            "exit_codes": [int(c) if c is not None else -1 for c in d.get("exit_codes") or ()],
            "memory_usage_byte": d.get("memory_usage_byte"),
            **filled,
            "key": d.get("key") or d.get("variant") or d["command"],
        })


@dataclass(frozen=True)
class Relative(Record):
    """A result against the reference, as a TIME ratio: ratio = mean / reference mean.

    1.0 is the reference; 2.0 takes twice as long ("2.00x slower"); 0.5 takes half as long
    ("2.00x faster"). Every table, export and page uses this one direction."""

    key: str
    ratio: float
    ratio_stddev: float | None
    reference: str


@dataclass(frozen=True)
class ImportCost(Record):
    """`-c "import X"` minus `-c pass` for one variant on one interpreter (seconds)."""

    module: str
    variant: str
    python: str | None
    mean: float
    stddev: float | None


@dataclass(frozen=True)
class StartupReport(Document):
    SCHEMA = "importprof.startup/1"

    results: tuple[TimingResult, ...]
    machine: dict = field(default_factory=dict)  # a saved document may lack it (the schema asks only for results)
    reference: str = ""
    relative: tuple[Relative, ...] = ()
    import_costs: tuple[ImportCost, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    engine: Engine = Engine.BUILTIN
    interrupted: bool = False
    metric: tuple[str, ...] = field(default_factory=tuple)
    harness: HarnessView | None = None  # for a `-- COMMAND` starting Python processes
