"""Start-up history: every recorded `check` run kept in a store (profiler/history_store.py),
read back as series (one per check x machine x interpreter), with the change points found in
each and the modules behind every step (`importprof.history/1`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, Record

HISTORY_SCHEMA = "importprof.history/1"

# the figures a series can follow (a check result's keys), and their units
FIGURES = ("wall_ms", "import_ms", "instructions")
UNITS = {"wall_ms": "ms", "import_ms": "ms", "instructions": "instructions"}


@dataclass(frozen=True)
class ModuleTimes:
    """One module of one recorded run: median self and cumulative import time (µs)."""

    name: str
    self_us: int
    cumulative_us: int


@dataclass(frozen=True)
class StoredRun:
    """One `check` result as the store keeps it (one row). `uid` identifies it across stores
    (export / import merge on it); `machine` is the fingerprint a series is keyed on,
    `machine_info` the facts it was made from."""

    uid: str
    check: str
    commit: str | None
    subject: str | None
    commit_time: int | None  # the committer's timestamp (orders the commits of a series)
    dirty: bool
    recorded_at: str  # ISO 8601, UTC
    machine: str
    machine_info: dict
    python: str | None  # the interpreter's version ("3.12.1"; None: no Python target)
    status: str  # "pass" | "fail" | "error"
    error: str | None = None
    wall_ms: float | None = None
    wall_ms_runs: tuple[float, ...] = ()
    import_ms: float | None = None
    instructions: int | None = None
    instructions_runs: tuple[int, ...] = ()
    instructions_method: str | None = None
    modules: tuple[ModuleTimes, ...] = field(default=(), compare=False, repr=False)

    def figure(self, name: str) -> float | None:
        return getattr(self, name)

    def figure_runs(self, name: str) -> tuple[float, ...]:
        if name == "wall_ms":
            return self.wall_ms_runs
        if name == "instructions":
            return tuple(float(v) for v in self.instructions_runs)
        return ()


@dataclass(frozen=True)
class HistoryPoint(Record):
    """One commit of a series: the figure (median over the runs recorded for it), its runs'
    low and high, and how many check runs were recorded there."""

    commit: str | None
    subject: str | None = None
    dirty: bool = False
    recorded_at: str | None = None  # the latest run's
    recorded: int = 1  # check runs recorded for this commit on this machine and interpreter
    status: str = "pass"  # the latest run's: "pass" | "fail" | "error"
    error: str | None = None
    value: float | None = None
    low: float | None = None  # the runs' minimum and maximum (their spread)
    high: float | None = None
    runs: tuple[float, ...] = ()
    wall_ms: float | None = None
    import_ms: float | None = None
    instructions: int | None = None


@dataclass(frozen=True)
class HistorySeries(Record):
    """One check on one machine with one interpreter, commit by commit (oldest first)."""

    name: str  # "CHECK on MACHINE, python VERSION"
    check: str
    machine: str  # the fingerprint
    machine_label: str
    python: str | None
    figure: str  # "wall_ms" | "import_ms" | "instructions"
    unit: str
    points: tuple[HistoryPoint, ...] = ()


@dataclass(frozen=True)
class ModuleShift(Record):
    """A module that explains part of a step: it appeared, disappeared, grew or shrank (its
    self import time, µs, before and after), and its share of the step's import time."""

    name: str
    change: str  # "appeared" | "disappeared" | "grew" | "shrank"
    before_us: int
    after_us: int
    delta_us: int
    share_pct: float | None = None


@dataclass(frozen=True)
class ChangePoint(Record):
    """A step in a series: `commit` is the first commit at the new level, `previous` the last
    recorded commit before it (commits between them were not recorded: `history bisect`
    narrows it). `before`/`after` are the levels (medians of the segments), `noise` the spread
    the step had to exceed."""

    series: str
    check: str
    commit: str | None
    subject: str | None
    previous: str | None
    before: float
    after: float
    delta: float
    delta_pct: float | None
    noise: float
    unrecorded_between: int | None = None  # commits between previous and commit not recorded (None: unknown)
    modules: tuple[ModuleShift, ...] = ()


@dataclass(frozen=True)
class HistoryReport(Document):
    """`importprof.history/1`: the series read from the store and their change points."""

    SCHEMA = HISTORY_SCHEMA

    machine: dict
    store: str
    check: str | None = None  # --check: the one check shown (None: every check)
    figure: str | None = None  # --figure, when given
    runs: int = 0  # check runs in the store
    series: tuple[HistorySeries, ...] = ()
    change_points: tuple[ChangePoint, ...] = ()
