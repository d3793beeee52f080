"""`importprof lazy`: eager vs lazy imports, measured (`importprof.lazy/1`).

The `lazy` hook's record of one run (`LazyRun`), and the report:
  results           hyperfine-shaped timing records, `variant` "eager" / "lazy"
  must_stay_eager   [{name, reason}]: the smallest set kept eager for identical output, each
                    with the observable difference that forced it
  avoided           [{name, cumulative_us, self_us}]: imported by the eager run, never executed
                    by the lazy one, with the eager `-X importtime` self time (what the program
                    stops doing) and cumulative (context) (medians, µs)
  identical_output  the lazy run (with must_stay_eager kept eager) printed the same stdout and
                    stderr and exited with the same code as the eager run
  modules_eager / modules_lazy   modules executed (sys.modules at exit, importprof's excluded)
  statements        [{site, modules, cumulative_us}]: per import statement of the target's own
                    code (file:line), the avoided modules below it and their eager cost
Additions: stayed_eager (what the lazy run executed at once, and why), relative (time ratios
against eager), bisect_runs, mode, warnings, notes; prediction (3.15's lazy time from the
emulation, its own cost taken out), total_self_us; avoided_us is Σ self_us of the avoided
modules (never a cumulative whose parts the lazy run still imports).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from profiler.model.document import Document, Record
from profiler.model.measurement import Relative, TimingResult

SCHEMA = "importprof.lazy/1"


@dataclass(frozen=True)
class EagerImport(Record):
    """An import the lazy run executed at once: `reason` says why (see hook_lazy.py)."""

    name: str
    reason: str
    site: str | None = None


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
    counts: dict[str, int] = field(default_factory=dict)  # emulation events: bindings, resolutions, rewritten_loads, cache_misses
    calibration: dict[str, float] = field(default_factory=dict)  # µs per event (binding_us, resolution_us, load_us)
    own_lazy: tuple[str, ...] = ()  # the program's own lazy-import machinery seen at exit (hook_lazy._own_lazy)

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
class MustStayEager(Record):
    name: str
    reason: str  # the observable difference when it is lazy (first differing line, exception)


@dataclass(frozen=True)
class AvoidedModule(Record):
    """A module the lazy run never imported. `self_us` is what the program stops doing (its own
    eager import time); `cumulative_us` (its eager subtree) is context only: parts of that
    subtree may still be imported by the lazy run."""

    name: str
    cumulative_us: int
    self_us: int = 0


@dataclass(frozen=True)
class StatementSaving(Record):
    """One import statement of the target's own code and the start-up cost laziness moved out.

    `saving_us` is measured for that one change: a run in which only this statement is lazy
    (everything else as is), priced at the eager self time of each module that run no longer
    imports (`saving_modules`); None when that run was not made. `self_us` is the same sum over
    the avoided modules charged to it in the all-lazy run; `cumulative_us` the eager cumulative
    of the topmost ones (context, never a saving)."""

    site: str  # file:line
    modules: tuple[str, ...]  # avoided modules below it (import order)
    cumulative_us: int  # Σ eager cumulative of the topmost avoided modules below it
    self_us: int = 0
    saving_us: int | None = None
    saving_modules: tuple[str, ...] = ()
    importer: str | None = None  # the importing module (3.15's filter and __lazy_modules__ speak of it)
    imports: tuple[str, ...] = ()  # the modules the statement imports
    statement: str | None = None  # its source line
    suggestion: str | None = None  # the `lazy import ...` line to write (or the __lazy_modules__ entry)
    identical_output: bool | None = None  # that one change kept the output identical

    @property
    def saves_nothing(self) -> bool:
        """Measured alone, it left no module out (or saved no time): no recommendation,
        whatever its estimate (not a key of the document: said from the fields)."""
        return self.saving_us is not None and (not self.saving_modules or self.saving_us <= 0)


@dataclass(frozen=True)
class Prediction(Record):
    """What 3.15's `-X lazy_imports=all` would take, from a lazy run timed under the emulation
    (3.8-3.14): the measured lazy mean minus the emulation's own cost, which is
      launcher_s      starting through importprof's launcher (the launcher with no hook on
                      `-c pass`, timed beside the bare interpreter on `-c pass`: the difference
                      of their CPU times, user + system)
      + Σ events × per-event cost: lazy bindings, resolutions, module loads from the
                      rewritten-code cache, each timed in this interpreter by the hook itself
                      (`calibration`, µs) and counted in the recorded lazy run (`counts`).
    On 3.15+ nothing is emulated: lazy_mean is the measured one and overhead_s 0."""

    lazy_mean: float  # s
    ratio: float  # lazy_mean / eager mean
    overhead_s: float
    launcher_s: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    calibration: dict[str, float] = field(default_factory=dict)
    how: str = ""


@dataclass(frozen=True)
class PlainCheck(Record):
    """The must-stay-eager set checked as a user applies it: the bare interpreter (no launcher, no
    hook of importprof's) with `-X lazy_imports=all` and exactly that set kept eager by
    `sys.set_lazy_imports_filter` (the module `lazy --filter-out` writes, as sitecustomize.py on
    PYTHONPATH), `runs` runs, each compared with a bare eager run of the program. `added`: the
    modules those bare runs needed eager beyond what the recorded runs found (then part of
    must_stay_eager). On 3.8-3.14 the check is made on a provisioned 3.15 when the program runs
    there as it does on the measured interpreter (`skipped` says why not, otherwise)."""

    python: str
    python_version: str
    runs: int
    identical: bool
    eager: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    difference: str | None = None
    skipped: str | None = None
    how: str = ""
    reference: str | None = None  # on 3.8-3.14: the 3.15 bare run the set was checked against, when its output differs
    bisect_runs: int = 0  # bare runs the bisection made (what --filter-out reports as its bisect_runs)


@dataclass(frozen=True)
class LazyReport(Document):
    SCHEMA = SCHEMA

    results: tuple[TimingResult, ...]
    must_stay_eager: tuple[MustStayEager, ...]
    avoided: tuple[AvoidedModule, ...]
    identical_output: bool
    modules_eager: int
    modules_lazy: int
    statements: tuple[StatementSaving, ...]
    machine: dict[str, Any] = field(default_factory=dict)
    python: str | None = None
    python_version: str | None = None
    target: str = ""
    mode: str = "finder"  # "finder": the lazy hook's PEP 810 emulation (3.8-3.14; the name predates it), or "-X lazy_imports=all" (3.15+)
    reference: str = ""
    relative: tuple[Relative, ...] = ()
    stayed_eager: tuple[EagerImport, ...] = ()
    avoided_us: int = 0  # Σ cumulative of the topmost avoided modules (no double counting)
    bisect_runs: int = 0
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    interrupted: bool = False
    prediction: Prediction | None = None  # 3.15's lazy time, the emulation's own cost taken out
    total_self_us: int = 0  # Σ self of every module of the eager profile: no saving exceeds it
    # what the verdict rests on: "the real 3.15 (...)" or "importprof's emulation of PEP 810 on 3.x"
    rests_on: str = ""
    plain_check: PlainCheck | None = None  # the set checked under the bare interpreter
    # the program's own lazy-import machinery found at exit (Mercurial's demandimport replacing
    # builtins.__import__, importlib.util.LazyLoader modules, PEP 562 module __getattr__):
    # what `lazy` measures is what PEP 810 adds on top of it
    own_lazy: tuple[str, ...] = ()
