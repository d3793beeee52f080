"""`importprof doctor`: run the measurements importprof already has over one target and turn
them into findings, costliest first (model/doctor.py). Nothing is measured twice here: each
check calls the workflow that owns the measurement, and under `report` reads the reports its
other parts made (DoctorOptions.measured) instead of measuring them again.

  imports --phases  → no-pyc (modules compiled from source), in-memory (the modules loaded
                      from files); both priced by re-timing their path import without a hook
  site              → pth-import (per .pth file that runs code), site (vs a bare start)
  trace             → failed-lookups (per sys.path entry; skipped without strace)
  lazy              → lazy (timed with --lazy, else the estimate from `avoided`)
  measure           → the target as is, a bare `python -S -c pass`, and `-X frozen_modules=on`
                      when frozen modules are off (frozen-off)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from profiler.errors import ImportprofError, UsageError
from profiler.model.doctor import Check, DoctorReport
from profiler.model.target import DEFAULT_TARGET, Target
from profiler.model.variant import Variant
from profiler.model.words import Role, TargetKind
from profiler.runcontext import RunContext, given

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

Note = Callable[[str], None]

# the ways doctor times the target, planned by workflows/plan.py like startup's variants
AS_IS = Variant("as-is", description="the target as users run it")
BARE = Variant("bare", ("-S",), description="a bare start: python -S -c pass")
FROZEN_ON = Variant("frozen-on", ("-X", "frozen_modules=on"), needs=("frozen_modules",),
                    description="-X frozen_modules=on (where frozen modules are off)")


@dataclass
class DoctorOptions:
    target: Target = DEFAULT_TARGET
    python: Interpreter | str | None = None  # the command's resolved interpreter (a library caller may give a path; None: python3 on PATH)
    runs: int = 3  # profiled runs (imports --phases, site)
    timing_runs: int = 10  # timed runs per command (startup figures, lazy with --lazy)
    lazy: bool = False  # time eager vs lazy (else the untimed estimate)
    trace: bool = True  # failed lookups need strace
    # reports already made for this target (report's parts: "imports" with phases, "site",
    # "trace"; "startup": its default variant's mean is the start-up shown): read instead of
    # measured again
    measured: dict = field(default_factory=dict)
    ignore_failure: bool = False  # the program exits non-zero on purpose (every part measures it anyway)
    verify: bool = False  # apply each finding's fix in a scratch overlay and time it beside the program as is


def _reused(opts: DoctorOptions, part: str) -> str:
    return f"from the report's {part} part" if part in opts.measured else ""


def _startup_as_measured(report, python: str) -> float | None:
    """The mean of the default variant of `python` in a startup report (the report's startup
    part), or None when that report has no such row."""
    for r in getattr(report, "results", ()) or ():
        if r.variant == "default" and r.role == Role.TARGET and not r.failed and r.mean is not None and r.python == python:
            return r.mean
    return None


def validate(opts: DoctorOptions) -> None:
    if not opts.target.is_python:
        raise UsageError("doctor runs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
    if opts.runs < 1 or opts.timing_runs < 1:
        raise UsageError("--runs must be at least 1")


def _sys_path(facts: dict, target: Target) -> list[str]:
    """The target's sys.path: the probe's (a -c program), with sys.path[0] as the target has it."""
    path = list(facts.get("sys_path") or [])
    first = target.first_path(os.getcwd())
    if path:
        path[0] = first if path[0] in ("", ".") else path[0]
        if target.kind == TargetKind.SCRIPT:
            path[0] = first
    return path


def doctor(
    opts: DoctorOptions,
    progress: Callable[[int, int, str], None] | None = None,
    warn: Note | None = None,
    info: Note | None = None,
    context: RunContext | None = None,
) -> DoctorReport:
    context = given(context)  # one context for the machine sample, the interpreters and the runs
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import probe_doctor_facts
    from profiler.capture.interpreter import interpreter_for

    validate(opts)
    interp = interpreter_for(opts.python, "doctor", context=context)
    facts = probe_doctor_facts(interp.path, context=context)
    warnings: list[str] = []
    findings = []
    checks: list[Check] = []

    def step(text: str) -> None:
        if info:
            info(f"doctor: {text}")

    def skipped(kinds, exc: Exception) -> None:
        msg = str(exc)
        warnings.append(f"{', '.join(kinds)} not checked: {msg}")
        if warn:
            warn(warnings[-1])
        checks.extend(Check(k, False, msg) for k in kinds)

    # imports --phases: no-pyc, in-memory
    step("profiling imports (phases)")
    from profiler.workflows.imports import ImportsOptions, imports

    profile = opts.measured.get("imports") or imports(
        ImportsOptions(target=opts.target, python=interp, runs=opts.runs, warmup=1, phases=True,
                       ignore_failure=opts.ignore_failure), warn=warn, context=context)
    # in-memory (and no-pyc's compiling): the path importer's work for the modules the program
    # loaded from files, timed again in CPU time without the phases hook (whose wrappers and a
    # busy machine's waiting it would price)
    from profiler.capture.doctor import path_import_cost

    from_files = [m.name for m in profile.modules if m.extra.get("read_us")]
    cost = None
    try:
        cost = path_import_cost(interp.path, _sys_path(facts, opts.target), from_files, context=context) if from_files else None
        f = rules.in_memory_finding(cost)
        checks.append(Check("in-memory", True, _reused(opts, "imports")))
        if f:
            findings.append(f)
    except ImportprofError as exc:
        skipped(("in-memory",), exc)
    f = rules.no_pyc_finding(profile.modules, facts, (cost or {}).get("compile_us"))
    checks.append(Check("no-pyc", True, _reused(opts, "imports")))
    if f:
        findings.append(f)

    # module-work: the top-level statements that cost their module's self (sampled runs)
    step("sampling module bodies")
    from profiler.analysis.statements import annotate_statements
    from profiler.workflows.statements import statement_costs

    try:
        costs = statement_costs(opts.target, interp, runs=opts.runs, ignore_failure=opts.ignore_failure, context=context)
        findings += rules.module_work_findings(annotate_statements(profile, costs).modules)
        checks.append(Check("module-work", True, ""))
    except ImportprofError as exc:
        skipped(("module-work",), exc)

    # site: pth-import, site (priced against a bare start below)
    step("measuring site")
    from profiler.workflows.site import SiteOptions, site

    site_report = None
    try:
        site_report = opts.measured.get("site") or site(SiteOptions(python=interp, runs=opts.runs), context=context)
        findings += rules.pth_findings(site_report)
        checks.append(Check("pth-import", True, _reused(opts, "site")))
    except ImportprofError as exc:
        skipped(("pth-import", "site"), exc)

    # timing: the target as is, a bare start, frozen modules on
    step("timing the target, a bare start" + (" and -X frozen_modules=on" if rules.frozen_off(facts) else ""))
    from profiler.capture.timing import RunPlan
    from profiler.workflows.measure import measure
    from profiler.workflows.plan import BASELINE, plan_runs

    t = opts.target
    target_plan = plan_runs(t, [interp], [AS_IS, FROZEN_ON] if rules.frozen_off(facts) else [AS_IS], warn=warn)
    bare_plan = plan_runs(BASELINE, [interp], [BARE], warn=warn)
    key = {v: s.key for v, _, s in (*target_plan.runs, *bare_plan.runs)}
    m = measure([*target_plan.specs, *bare_plan.specs], RunPlan(runs=opts.timing_runs, warmup=1, ignore_failure=opts.ignore_failure),
                reference=key[AS_IS], progress=progress, warn=warn, context=context)
    warnings += list(m.warnings)
    by_key = {r.key: r for r in m.results if not r.failed}
    mean = {v: by_key[k].mean for v, k in key.items() if k in by_key}
    sd = {v: by_key[k].stddev for v, k in key.items() if k in by_key}
    cpu = {v: rules.cpu_time(by_key[k]) for v, k in key.items() if k in by_key}
    if site_report is not None:
        f = rules.site_finding(site_report, mean.get(BARE))
        checks.append(Check("site", True))
        if f:
            findings.append(f)
    frozen_cost = None
    if FROZEN_ON in mean and AS_IS in mean:
        frozen_cost = mean[AS_IS] - mean[FROZEN_ON]
    f = rules.frozen_off_finding(facts, frozen_cost)
    checks.append(Check("frozen-off", True, "" if rules.frozen_off(facts) else "frozen modules are on (or Python < 3.11)"))
    if f:
        findings.append(f)

    # trace: failed lookups per sys.path entry
    if opts.trace:
        step("tracing file lookups (strace)")
        from profiler.workflows.trace import TraceOptions, trace

        try:
            tr = opts.measured.get("trace") or trace(TraceOptions(target=t, python=interp, ignore_failure=opts.ignore_failure,
                                                                    untraced_runs=0), context=context)  # counts only
            calls = tr.results[0].log.syscalls if tr.results and tr.results[0].log else ()
            findings += rules.failed_lookup_findings(calls, _sys_path(facts, t))
            checks.append(Check("failed-lookups", True, _reused(opts, "trace")))
        except ImportprofError as exc:
            skipped(("failed-lookups",), exc)
    else:
        checks.append(Check("failed-lookups", False, "--no-trace"))

    # lazy: measured with --lazy, else the estimate (--verify times it too, beside the estimate)
    timed_lazy = opts.lazy or opts.verify
    step("lazy imports " + ("(timed)" if timed_lazy else "(estimate: not timed)"))
    from profiler.compose.lazy import LazyOptions, lazy

    lz = None
    try:
        lz = lazy(LazyOptions(target=t, python=interp, runs=opts.timing_runs, warmup=1, measure=timed_lazy,
                              profile_runs=opts.runs, ignore_failure=opts.ignore_failure), progress=progress, warn=warn, info=info, context=context)
        f = rules.lazy_finding(lz, measured=opts.lazy)
        checks.append(Check("lazy", True, "" if timed_lazy else "estimate (use --lazy or --verify to time it)"))
        if f:
            findings.append(f)
    except ImportprofError as exc:
        skipped(("lazy",), exc)

    # one start-up, one figure: beside the report's startup part, the target's start-up as is
    # is that part's measurement of the default variant (doctor's own timing run only prices
    # the differences it measured side by side: a bare start, frozen modules on)
    shown = _startup_as_measured(opts.measured.get("startup"), interp.path)
    if shown is not None:
        mean[AS_IS] = shown
    findings = rules.cap_findings(findings, mean.get(AS_IS))
    if opts.verify:
        step("verifying each fix in a scratch overlay, timed beside the program as is")
        frozen_spread = rules.spread_us(sd.get(AS_IS), sd.get(FROZEN_ON))
        frozen_how = rules.with_cpu("as is vs -X frozen_modules=on, timed", cpu.get(AS_IS), cpu.get(FROZEN_ON))
        findings, verify_startup_s = _verify(opts, interp, findings, lz, progress, warn, info, frozen_spread, frozen_how,
                                             context=context)

    return DoctorReport(
        findings=tuple(rules.sort_findings(findings)),
        machine=m.machine,
        python=interp.path,
        python_version=interp.version,
        target=t.label(),
        startup_s=mean.get(AS_IS),
        verify_startup_s=verify_startup_s if opts.verify else None,
        checks=tuple(checks),
        warnings=tuple(warnings),
        verified=opts.verify,
    )


def _pth_file(where: str) -> str:
    """A pth-import finding's `where` (path or path:line) → the .pth file."""
    head, sep, tail = where.rpartition(":")
    return head if sep and tail.isdigit() else where


def _verify(opts: DoctorOptions, interp, findings: list, lz, progress, warn: Note | None, info: Note | None,
            frozen_spread: int | None = None, frozen_how: str = "as is vs -X frozen_modules=on, timed",
            context: RunContext | None = None) -> tuple[list, float | None]:
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
    from profiler.capture.doctor import compile_into_prefix, pth_overlays, run_output
    from dataclasses import replace

    from profiler.capture.timing import RunPlan
    from profiler.workflows.measure import measure
    from profiler.workflows.plan import plan_runs

    t = opts.target
    argv = t.python_argv()
    timed: list[tuple[object, Variant]] = [(interp, AS_IS)]  # (interpreter, how it runs the target), planned below
    pairs: dict[int, tuple[Variant, Variant, str]] = {}  # finding index → (the run without the fix, with it, how)
    out = list(findings)
    as_is_output = None
    as_is_s = None  # the program as is in this timed run: what the measured savings are differences from

    def add(flags: tuple, name: str, python: str | None = None) -> Variant:
        """A run of the target to time (on `python`, a scratch venv's, else the interpreter's),
        named for what it runs: the name is its key, which warnings show, so it is kept unique."""
        unique, n = name, 2
        while any(v.name == unique for _, v in timed):
            unique, n = f"{name} ({n})", n + 1
        variant = Variant(unique, tuple(flags), description=name)
        timed.append((replace(interp, path=python) if python else interp, variant))
        return variant

    scratch = tempfile.mkdtemp(prefix="importprof-doctor-verify-")
    try:
        for i, f in enumerate(findings):
            if f.kind == "no-pyc":
                prefix = os.path.join(scratch, "pycache")
                rc, tail = compile_into_prefix(interp.path, argv, prefix, context=context)
                if rc != 0 and not opts.ignore_failure:
                    out[i] = rules.verified(f, None, f"not verified: compiling the .pyc (one run of the target) exited {rc}: {tail}")
                    continue
                fixed = add(("-X", f"pycache_prefix={prefix}"), "no-pyc fixed (-X pycache_prefix)")
                pairs[i] = (AS_IS, fixed, "as is vs -X pycache_prefix=<scratch folder holding the target's .pyc>")
            elif f.kind == "pth-import":
                pth = _pth_file(f.where)
                try:
                    full, without = pth_overlays(interp, pth, os.path.join(scratch, f"pth-{i}"))
                except (ValueError, OSError) as exc:
                    out[i] = rules.verified(f, None, f"not verified: {exc}")
                    continue
                with_pth = add((), f"overlay with {os.path.basename(pth)}", python=full)
                without_pth = add((), f"overlay without {os.path.basename(pth)}", python=without)
                pairs[i] = (with_pth, without_pth, f"two scratch venvs over site-packages (links), with and without {os.path.basename(pth)}")
            elif f.kind == "site":
                if as_is_output is None:
                    as_is_output = run_output((interp.path, *argv), context=context)
                flag = next((fl for fl in ("-S", "-I") if run_output((interp.path, fl, *argv), context=context) == as_is_output), None)
                if flag is None:
                    out[i] = rules.verified(f, None, "not verified: with -S and with -I the program's output differs")
                    continue
                fixed = add((flag,), f"site fixed ({flag})")
                pairs[i] = (AS_IS, fixed, f"as is vs {flag} (same output)")
            elif f.kind == "lazy":
                saved = rules.lazy_saving_us(lz) if lz is not None else None
                emulated = lz is not None and lz.mode == "finder" and lz.prediction is not None
                how = (f"eager vs lazy, timed by importprof lazy ({'the emulation, its own cost taken out' if emulated else lz.mode})"
                       if lz is not None and saved is not None else "not verified: the lazy run was not timed")
                if saved is not None:
                    how = rules.with_cpu(how, *rules.lazy_cpu(lz))
                out[i] = rules.verified(f, saved, how, rules.lazy_spread_us(lz) if lz is not None else None)
            elif f.kind == "frozen-off":
                out[i] = rules.verified(f, f.cost_us, frozen_how, frozen_spread)
            elif f.kind == "in-memory":
                out[i] = _verify_in_memory(opts, interp, f, progress, warn, info, context=context)
            else:
                out[i] = rules.verified(f, None, "not verified: no scratch fix for this kind (it depends on where modules are installed)")
        if len(timed) > 1:
            runs = [run for python, v in timed for run in plan_runs(t, [python], [v], warn=warn).runs]
            key = {v: s.key for v, _, s in runs}
            m = measure([s for _, _, s in runs], RunPlan(runs=opts.timing_runs, warmup=1, ignore_failure=opts.ignore_failure),
                        reference=key[AS_IS], progress=progress, warn=warn, context=context)
            by_key = {r.key: r for r in m.results if not r.failed}
            mean = {v: by_key[k].mean for v, k in key.items() if k in by_key}
            sd = {v: by_key[k].stddev for v, k in key.items() if k in by_key}
            cpu = {v: rules.cpu_time(by_key[k]) for v, k in key.items() if k in by_key}
            as_is_s = mean.get(AS_IS)
            for i, (without_fix, with_fix, how) in pairs.items():
                saved = rules.saving_us(mean.get(without_fix), mean.get(with_fix))
                how = rules.with_cpu(how, cpu.get(without_fix), cpu.get(with_fix))
                out[i] = rules.verified(out[i], saved, how if saved is not None else f"not verified: a run failed ({how})",
                                        rules.spread_us(sd.get(without_fix), sd.get(with_fix)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out, as_is_s


def _verify_in_memory(opts: DoctorOptions, interp, f, progress, warn: Note | None, info: Note | None, context: RunContext | None = None):
    """The in-memory build (PyOxidizer's importer) timed beside the same launcher with the
    standard path importer (`oxidized`): neither runs site, so the difference is the finding's."""
    from profiler.analysis import doctor as rules
    from profiler.model.interpreter import VARIANT_NEEDS, why_not_needs
    from profiler.compose.compare import CompareOptions, compare

    reason = why_not_needs(interp, VARIANT_NEEDS["in-memory"])
    if reason is not None:
        return rules.verified(f, None, f"not verified: no in-memory build here: {reason}")
    try:
        rep = compare(CompareOptions(target=opts.target, python=interp, runs=opts.timing_runs, min_time_s=0.0,
                                     syscalls="off", variants=("traditional", "oxidized", "in-memory"),
                                     ignore_failure=opts.ignore_failure),
                      progress=progress, warn=warn, info=info, context=context)
    except ImportprofError as exc:
        return rules.verified(f, None, f"not verified: the in-memory build failed: {exc}")
    return rules.in_memory_verified(f, {r.variant: (r.mean, r.stddev) for r in rep.results if not r.failed},
                                    {r.variant: (r.cpu_s, r.cpu_stddev_s) for r in rep.rows if r.cpu_s is not None})
