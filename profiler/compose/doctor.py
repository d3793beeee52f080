"""`importprof doctor`: run the measurements importprof already has over one target and turn
them into findings, costliest first (model/doctor.py). Nothing is measured twice here: each
check calls the workflow that owns the measurement, and under `report` reads the reports its
other parts made (DoctorOptions.measured) instead of measuring them again.

  imports --phases  → no-pyc (modules compiled from source), in-memory (the modules loaded
                      from files); both priced by re-timing their path import without a hook
  site              → pth-import (per .pth file that runs code), site (vs a bare start)
  trace             → failed-lookups (per sys.path entry; skipped without strace)
  lazy              → lazy (eager vs lazy timed: the finding is the measured saving beyond its
                      spread, never an estimate the measurement refutes)
  measure           → the target as is, a bare `python -S -c pass`, and `-X frozen_modules=on`
                      when frozen modules are off (frozen-off)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from profiler.errors import ImportprofError, UsageError
from profiler.model.doctor import Check, DoctorReport
from profiler.model.run_options import RunOptions
from profiler.model.target import DEFAULT_TARGET, Target
from profiler.model.variant import Variant
from profiler.model.warnings import first_clause
from profiler.model.words import Role, Said, Syscalls, TargetKind, WarningKind
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

Note = Callable[[str], None]

# the ways doctor times the target, planned by workflows/plan.py like startup's variants
AS_IS = Variant("as-is", description="the target as users run it")
BARE = Variant("bare", ("-S",), description="a bare start: python -S -c pass")
FROZEN_ON = Variant("frozen-on", ("-X", "frozen_modules=on"), needs=("frozen_modules",),
                    description="-X frozen_modules=on (where frozen modules are off)")


@dataclass(frozen=True)
class DoctorOptions(RunOptions):
    # RunOptions' fields (model/run_options.py); runs: profiled runs (imports --phases, site)
    DEFAULTS = {"target": DEFAULT_TARGET, "runs": 3}
    NOT_TAKEN = ("warmup", "flags", "timeout")
    timing_runs: int = 10  # timed runs per command (startup figures, lazy with --lazy)
    lazy: bool = False  # (kept for callers: the lazy finding is always lazy's timed saving, issue 41)
    trace: bool = True  # failed lookups need strace
    # reports already made for this target (report's parts: "imports" with phases, "site",
    # "trace"; "startup": its default variant's mean is the start-up shown): read instead of
    # measured again
    measured: dict = field(default_factory=dict)
    verify: bool = False  # apply each finding's fix in a scratch overlay and time it beside the program as is

    def __post_init__(self) -> None:
        """A DoctorOptions that exists is valid (the command's and the library's alike)."""
        super().__post_init__()
        if not self.target.is_python:
            raise UsageError("doctor runs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
        if self.runs < 1 or self.timing_runs < 1:
            raise UsageError("--runs must be at least 1")


def _reused(opts: DoctorOptions, part: str) -> str:
    return f"from the report's {part} part" if part in opts.measured else ""


def _startup_as_measured(report, python: str) -> float | None:
    """The mean of the default variant of `python` in a startup report (the report's startup
    part), or None when that report has no such row."""
    for r in getattr(report, "results", ()) or ():
        if r.variant == "default" and r.role == Role.TARGET and not r.failed and r.mean is not None and r.python == python:
            return r.mean
    return None


def _sys_path(facts: dict, target: Target) -> list[str]:
    """The target's sys.path: the probe's (a -c program), with sys.path[0] as the target has it."""
    path = list(facts.get("sys_path") or [])
    first = target.first_path(os.getcwd())
    if path:
        path[0] = first if path[0] in ("", ".") else path[0]
        if target.kind == TargetKind.SCRIPT:
            path[0] = first
    return path


@dataclass
class _Doctor:
    """One doctor run's state, which its stages (STAGES, in order) read and add to: the
    interpreter and its facts, the findings and checks so far (in the order they are shown), the
    warnings, and what one stage measured that a later one prices with (the imports profile,
    site's report, the timing means, the lazy report)."""

    opts: DoctorOptions
    interp: Interpreter
    facts: dict
    session: Session
    warnings: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    profile: object = None  # imports --phases
    site_report: object = None
    machine: dict = field(default_factory=dict)  # the timing measurement's
    mean: dict = field(default_factory=dict)  # Variant → mean wall (s), and stddev and CPU time
    sd: dict = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)
    lz: object = None  # the lazy report
    verify_startup_s: float | None = None

    def step(self, text: str) -> None:
        self.session.info(f"doctor: {text}")

    def skipped(self, kinds, exc: Exception) -> None:
        msg = str(exc)
        checks = f"{', '.join(kinds)} not checked"
        # one check is summed up by why (the words the summary has always shown for it), several by which
        self.warnings.append(Said(f"{checks}: {msg}", WarningKind.NOT_CHECKED,
                                  first_clause(msg) if len(kinds) == 1 else checks, checks if len(kinds) == 1 else ""))
        self.session.warn(self.warnings[-1])
        self.checks.extend(Check(k, False, msg) for k in kinds)

    def checked(self, check: Check, finding=None) -> None:
        self.checks.append(check)
        if finding:
            self.findings.append(finding)


def doctor(opts: DoctorOptions, *, session: Session) -> DoctorReport:
    from profiler.capture.doctor import probe_doctor_facts
    from profiler.capture.interpreter import interpreter_for

    interp = interpreter_for(opts.python, "doctor", session=session)
    st = _Doctor(opts, interp, probe_doctor_facts(interp.path, session=session), session)
    for stage in STAGES:
        stage(st)
    return _report(st)


def _phases(st: _Doctor) -> None:
    """imports --phases: no-pyc, in-memory. in-memory (and no-pyc's compiling): the path
    importer's work for the modules the program loaded from files, timed again in CPU time
    without the phases hook (whose wrappers and a busy machine's waiting it would price)."""
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import path_import_cost
    from profiler.workflows.imports import ImportsOptions, imports

    opts = st.opts
    st.step("profiling imports (phases)")
    with st.session.quiet(warnings=False):  # its warnings said, its progress not shown
        st.profile = profile = opts.measured.get("imports") or imports(
            ImportsOptions(target=opts.target, python=st.interp, runs=opts.runs, warmup=1, phases=True,
                           ignore_failure=opts.ignore_failure), session=st.session)
    # every module the program imported, as `pack`/`compare` take them: the probe keeps those the
    # path finder loads from files (what a pack holds) and counts the rest as `other`. Not only
    # the modules the phases hook saw read: a program that loads lazily by itself (Mercurial's
    # demandimport) reads most of its files after their import returned (21 of 387 for hg status)
    from_files = list(dict.fromkeys(m.name for m in profile.modules if m.name != "__main__"))
    cost = None
    try:
        cost = path_import_cost(st.interp.path, _sys_path(st.facts, opts.target), from_files, session=st.session) if from_files else None
        st.checked(Check("in-memory", True, _reused(opts, "imports")), rules.in_memory_finding(cost))
    except ImportprofError as exc:
        st.skipped(("in-memory",), exc)
    f = rules.no_pyc_finding(profile.modules, st.facts, (cost or {}).get("compile_us"))
    st.checked(Check("no-pyc", True, _reused(opts, "imports")), f)


def _module_work(st: _Doctor) -> None:
    """module-work: the top-level statements that cost their module's self (sampled runs)."""
    from profiler.analysis import doctor as rules
    from profiler.analysis.statements import annotate_statements
    from profiler.workflows.statements import statement_costs

    st.step("sampling module bodies")
    try:
        costs = statement_costs(st.opts.target, st.interp, runs=st.opts.runs, ignore_failure=st.opts.ignore_failure,
                                session=st.session)
        st.findings += rules.module_work_findings(annotate_statements(st.profile, costs).modules)
        st.checks.append(Check("module-work", True, ""))
    except ImportprofError as exc:
        st.skipped(("module-work",), exc)


def _site(st: _Doctor) -> None:
    """site: pth-import here; site itself is priced against a bare start by _timing."""
    from profiler.analysis import doctor as rules
    from profiler.workflows.site import SiteOptions, site

    st.step("measuring site")
    try:
        st.site_report = st.opts.measured.get("site") or site(SiteOptions(python=st.interp, runs=st.opts.runs), session=st.session)
        st.findings += rules.pth_findings(st.site_report)
        st.checks.append(Check("pth-import", True, _reused(st.opts, "site")))
    except ImportprofError as exc:
        st.skipped(("pth-import", "site"), exc)


def _timing(st: _Doctor) -> None:
    """The target as is, a bare start, frozen modules on, side by side: site and frozen-off."""
    from profiler.analysis import doctor as rules
    from profiler.capture.timing import RunPlan
    from profiler.workflows.measure import measure
    from profiler.workflows.plan import BASELINE, plan_runs

    opts, frozen_off = st.opts, rules.frozen_off(st.facts)
    st.step("timing the target, a bare start" + (" and -X frozen_modules=on" if frozen_off else ""))
    target_plan = plan_runs(opts.target, [st.interp], [AS_IS, FROZEN_ON] if frozen_off else [AS_IS], warn=st.session.warn)
    bare_plan = plan_runs(BASELINE, [st.interp], [BARE], warn=st.session.warn)
    key = {v: s.key for v, _, s in (*target_plan.runs, *bare_plan.runs)}
    m = measure([*target_plan.specs, *bare_plan.specs], RunPlan(runs=opts.timing_runs, warmup=1, ignore_failure=opts.ignore_failure),
                reference=key[AS_IS], session=st.session)
    st.warnings += list(m.warnings)
    st.machine = m.machine
    st.mean, st.sd, st.cpu = _figures(m, key)
    if st.site_report is not None:
        st.checked(Check("site", True), rules.site_finding(st.site_report, st.mean.get(BARE)))
    frozen_cost = None
    if FROZEN_ON in st.mean and AS_IS in st.mean:
        frozen_cost = st.mean[AS_IS] - st.mean[FROZEN_ON]
    st.checked(Check("frozen-off", True, "" if frozen_off else "frozen modules are on (or Python < 3.11)"),
               rules.frozen_off_finding(st.facts, frozen_cost))


def _figures(m, key: dict) -> tuple[dict, dict, dict]:
    """Per Variant (through `key`, Variant → its spec's key): mean, stddev and CPU time of the
    measured results."""
    from profiler.analysis import doctor as rules

    by_key = {r.key: r for r in m.results if not r.failed}
    mean = {v: by_key[k].mean for v, k in key.items() if k in by_key}
    sd = {v: by_key[k].stddev for v, k in key.items() if k in by_key}
    cpu = {v: rules.cpu_time(by_key[k]) for v, k in key.items() if k in by_key}
    return mean, sd, cpu


def _failed_lookups(st: _Doctor) -> None:
    """trace: failed lookups per sys.path entry (skipped with --no-trace)."""
    from profiler.analysis import doctor as rules

    if not st.opts.trace:
        st.checks.append(Check("failed-lookups", False, "--no-trace"))
        return
    st.step("tracing file lookups (strace)")
    from profiler.workflows.trace import TraceOptions, trace

    t = st.opts.target
    try:
        with st.session.quiet():  # counts only: its warnings and progress are not doctor's
            tr = st.opts.measured.get("trace") or trace(TraceOptions(target=t, python=st.interp, ignore_failure=st.opts.ignore_failure,
                                                                     untraced_runs=0), session=st.session)
        calls = tr.results[0].log.syscalls if tr.results and tr.results[0].log else ()
        st.findings += rules.failed_lookup_findings(calls, _sys_path(st.facts, t))
        st.checks.append(Check("failed-lookups", True, _reused(st.opts, "trace")))
    except ImportprofError as exc:
        st.skipped(("failed-lookups",), exc)


def _lazy(st: _Doctor) -> None:
    """lazy: measured with --lazy, else the estimate (--verify times it too, beside the estimate)."""
    from profiler.analysis import doctor as rules
    from profiler.compose.lazy import LazyOptions, lazy

    opts = st.opts
    # always timed: the finding is lazy's measured saving, never an estimate that the measurement
    # refutes (Mercurial, whose demandimport already defers: 16.6 ms estimated, 1.15x slower timed)
    st.step("lazy imports (timed)")
    try:
        st.lz = lazy(LazyOptions(target=opts.target, python=st.interp, runs=opts.timing_runs, warmup=1, measure=True,
                                 profile_runs=opts.runs, ignore_failure=opts.ignore_failure, statement_runs=3),
                     session=st.session)
        finding = rules.lazy_finding(st.lz)
        note = "" if finding is not None else (rules.lazy_no_gain(st.lz) or "")
        if st.lz.own_lazy:
            note = (note + "; " if note else "") + "the program imports lazily by itself: " + "; ".join(st.lz.own_lazy)
        if st.lz.rests_on:
            note = (note + "; " if note else "") + "rests on " + st.lz.rests_on
        st.checked(Check("lazy", True, note), finding)
    except ImportprofError as exc:
        st.skipped(("lazy",), exc)


def _cap_and_verify(st: _Doctor) -> None:
    """One start-up, one figure: beside the report's startup part, the target's start-up as is
    is that part's measurement of the default variant (doctor's own timing run only prices the
    differences it measured side by side: a bare start, frozen modules on). Findings capped by
    it; then --verify."""
    from profiler.analysis import doctor as rules

    shown = _startup_as_measured(st.opts.measured.get("startup"), st.interp.path)
    if shown is not None:
        st.mean[AS_IS] = shown
    st.findings = rules.cap_findings(st.findings, st.mean.get(AS_IS))
    if st.opts.verify:
        st.step("verifying each fix in a scratch overlay, timed beside the program as is")
        frozen_spread = rules.spread_us(st.sd.get(AS_IS), st.sd.get(FROZEN_ON))
        frozen_how = rules.with_cpu("as is vs -X frozen_modules=on, timed", st.cpu.get(AS_IS), st.cpu.get(FROZEN_ON))
        st.findings, st.verify_startup_s = _verify(st.opts, st.interp, st.findings, st.lz, frozen_spread, frozen_how, session=st.session)


STAGES = (_phases, _module_work, _site, _timing, _failed_lookups, _lazy, _cap_and_verify)


def _report(st: _Doctor) -> DoctorReport:
    from profiler.analysis import doctor as rules

    return DoctorReport(
        findings=tuple(rules.sort_findings(st.findings)),
        machine=st.machine,
        python=st.interp.path,
        python_version=st.interp.version,
        target=st.opts.target.label(),
        startup_s=st.mean.get(AS_IS),
        verify_startup_s=st.verify_startup_s if st.opts.verify else None,
        checks=tuple(st.checks),
        warnings=tuple(st.warnings),
        verified=st.opts.verify,
    )


def _pth_file(where: str) -> str:
    """A pth-import finding's `where` (path or path:line) → the .pth file."""
    head, sep, tail = where.rpartition(":")
    return head if sep and tail.isdigit() else where


@dataclass
class _Fixes:
    """--verify's state: the runs to time (interpreter, Variant), the pairs each finding is
    priced by (finding index → the run without its fix, with it, how), the findings as
    verified so far, the scratch folder the fixes are made in."""

    opts: DoctorOptions
    interp: Interpreter
    scratch: str
    out: list
    session: Session
    timed: list = field(default_factory=list)
    pairs: dict = field(default_factory=dict)
    as_is_output: object = None

    def add(self, flags: tuple, name: str, python: str | None = None) -> Variant:
        """A run of the target to time (on `python`, a scratch venv's, else the interpreter's),
        named for what it runs: the name is its key, which warnings show, so it is kept unique."""
        from dataclasses import replace

        unique, n = name, 2
        while any(v.name == unique for _, v in self.timed):
            unique, n = f"{name} ({n})", n + 1
        variant = Variant(unique, tuple(flags), description=name)
        self.timed.append((replace(self.interp, path=python) if python else self.interp, variant))
        return variant


def _verify(opts: DoctorOptions, interp, findings: list, lz, frozen_spread: int | None = None, frozen_how: str = "as is vs -X frozen_modules=on, timed",
            *, session: Session) -> tuple[list, float | None]:
    """--verify: each finding's fix applied in a scratch folder (never to the user's files) and
    the start-up timed with and without it, all side by side in one measurement:

      no-pyc      as is vs -X pycache_prefix=<scratch> holding the target's .pyc (compiled there first)
      pth-import  two scratch venvs over site-packages (links), with and without that one .pth
      site        as is vs -S, else -I: the first whose output is identical to the program's as is
      lazy        eager vs lazy, as `importprof lazy` timed it (3.15: -X lazy_imports=all)
      in-memory   the launcher's path importer vs the in-memory build (`importprof compare`), where
                  supported; its CPU time said beside the wall figure
      frozen-off  already timed: as is vs -X frozen_modules=on
    """
    import shutil
    import tempfile

    from profiler.analysis import doctor as rules

    fx = _Fixes(opts, interp, tempfile.mkdtemp(prefix="importprof-doctor-verify-"), list(findings), session,
                [(interp, AS_IS)])
    try:
        for i, f in enumerate(findings):
            if f.kind in _SCRATCH_FIXES:
                _SCRATCH_FIXES[f.kind](fx, i, f)
            elif f.kind == "lazy":
                fx.out[i] = _lazy_verified(f, lz)
            elif f.kind == "frozen-off":
                fx.out[i] = rules.verified(f, f.cost_us, frozen_how, frozen_spread)
            elif f.kind == "in-memory":
                fx.out[i] = _verify_in_memory(opts, interp, f, session=session)
            else:
                fx.out[i] = rules.verified(f, None, "not verified: no scratch fix for this kind (it depends on where modules are installed)")
        as_is_s = _time_fixes(fx) if len(fx.timed) > 1 else None
    finally:
        shutil.rmtree(fx.scratch, ignore_errors=True)
    return fx.out, as_is_s


def _fix_no_pyc(fx: _Fixes, i: int, f) -> None:
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import compile_into_prefix

    prefix = os.path.join(fx.scratch, "pycache")
    rc, tail = compile_into_prefix(fx.interp.path, fx.opts.target.python_argv(), prefix, session=fx.session)
    if rc != 0 and not fx.opts.ignore_failure:
        fx.out[i] = rules.verified(f, None, f"not verified: compiling the .pyc (one run of the target) exited {rc}: {tail}")
        return
    fixed = fx.add(("-X", f"pycache_prefix={prefix}"), "no-pyc fixed (-X pycache_prefix)")
    fx.pairs[i] = (AS_IS, fixed, "as is vs -X pycache_prefix=<scratch folder holding the target's .pyc>")


def _fix_pth_import(fx: _Fixes, i: int, f) -> None:
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import pth_overlays

    pth = _pth_file(f.where)
    try:
        full, without = pth_overlays(fx.interp, pth, os.path.join(fx.scratch, f"pth-{i}"))
    except (ValueError, OSError) as exc:
        fx.out[i] = rules.verified(f, None, f"not verified: {exc}")
        return
    with_pth = fx.add((), f"overlay with {os.path.basename(pth)}", python=full)
    without_pth = fx.add((), f"overlay without {os.path.basename(pth)}", python=without)
    fx.pairs[i] = (with_pth, without_pth, f"two scratch venvs over site-packages (links), with and without {os.path.basename(pth)}")


def _fix_site(fx: _Fixes, i: int, f) -> None:
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import run_output

    argv = fx.opts.target.python_argv()
    if fx.as_is_output is None:
        fx.as_is_output = run_output((fx.interp.path, *argv), session=fx.session)
    flag = next((fl for fl in ("-S", "-I") if run_output((fx.interp.path, fl, *argv), session=fx.session) == fx.as_is_output), None)
    if flag is None:
        fx.out[i] = rules.verified(f, None, "not verified: with -S and with -I the program's output differs")
        return
    fixed = fx.add((flag,), f"site fixed ({flag})")
    fx.pairs[i] = (AS_IS, fixed, f"as is vs {flag} (same output)")


# the findings whose fix is made in the scratch folder and timed beside the program as is
_SCRATCH_FIXES = {"no-pyc": _fix_no_pyc, "pth-import": _fix_pth_import, "site": _fix_site}


def _lazy_verified(f, lz):
    """lazy: eager vs lazy as `importprof lazy` timed it (nothing more to run)."""
    from profiler.analysis import doctor as rules

    saved = rules.lazy_saving_us(lz) if lz is not None else None
    emulated = lz is not None and lz.mode == "finder" and lz.prediction is not None
    how = (f"eager vs lazy, timed by importprof lazy ({'the emulation, its own cost taken out' if emulated else lz.mode})"
           if lz is not None and saved is not None else "not verified: the lazy run was not timed")
    if saved is not None:
        how = rules.with_cpu(how, *rules.lazy_cpu(lz))
    return rules.verified(f, saved, how, rules.lazy_spread_us(lz) if lz is not None else None)


def _time_fixes(fx: _Fixes) -> float | None:
    """Every run with and without a fix in one interleaved measurement; each pair's saving set
    on its finding. Returns the program as is in this run (what the savings are differences from)."""
    from profiler.analysis import doctor as rules
    from profiler.capture.timing import RunPlan
    from profiler.workflows.measure import measure
    from profiler.workflows.plan import plan_runs

    opts = fx.opts
    runs = [run for python, v in fx.timed for run in plan_runs(opts.target, [python], [v], warn=fx.session.warn).runs]
    key = {v: s.key for v, _, s in runs}
    m = measure([s for _, _, s in runs], RunPlan(runs=opts.timing_runs, warmup=1, ignore_failure=opts.ignore_failure),
                reference=key[AS_IS], session=fx.session)
    mean, sd, cpu = _figures(m, key)
    for i, (without_fix, with_fix, how) in fx.pairs.items():
        saved = rules.saving_us(mean.get(without_fix), mean.get(with_fix))
        how = rules.with_cpu(how, cpu.get(without_fix), cpu.get(with_fix))
        fx.out[i] = rules.verified(fx.out[i], saved, how if saved is not None else f"not verified: a run failed ({how})",
                                   rules.spread_us(sd.get(without_fix), sd.get(with_fix)))
    return mean.get(AS_IS)


def _verify_in_memory(opts: DoctorOptions, interp, f, session: Session):
    """The in-memory build (PyOxidizer's importer) timed beside the same launcher with the
    standard path importer (`oxidized`): neither runs site, so the difference is the finding's."""
    from profiler.analysis import doctor as rules
    from profiler.model.interpreter import variant_needs, why_not_needs
    from profiler.compose.compare import CompareOptions, compare

    reason = why_not_needs(interp, variant_needs()["in-memory"])
    if reason is not None:
        return rules.verified(f, None, f"not verified: no in-memory build here: {reason}")
    try:
        rep = compare(CompareOptions(target=opts.target, python=interp, runs=opts.timing_runs, min_time_s=0.0,
                                     syscalls=Syscalls.OFF, variants=("traditional", "oxidized", "in-memory"),
                                     ignore_failure=opts.ignore_failure),
                      session=session)
    except ImportprofError as exc:
        return rules.verified(f, None, f"not verified: the in-memory build failed: {exc}")
    return rules.in_memory_verified(f, {r.variant: (r.mean, r.stddev) for r in rep.results if not r.failed},
                                    {r.variant: (r.cpu_s, r.cpu_stddev_s) for r in rep.rows if r.cpu_s is not None})
