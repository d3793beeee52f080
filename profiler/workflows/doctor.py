"""`importprof doctor`: run the measurements importprof already has over one target and turn
them into findings, costliest first (model/doctor.py). Nothing is measured twice here: each
check calls the workflow that owns the measurement, and under `report` reads the reports its
other parts made (DoctorOptions.measured) instead of measuring them again.

  imports --phases  → no-pyc (compile phase of modules compiled from source), in-memory (find + read)
  site              → pth-import (per .pth file that runs code), site (vs a bare start)
  trace             → failed-lookups (per sys.path entry; skipped without strace)
  lazy              → lazy (timed with --lazy, else the estimate from `avoided`)
  measure           → the target as is, a bare `python -S -c pass`, and `-X frozen_modules=on`
                      when frozen modules are off (frozen-off)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from profiler.errors import ImportprofError, UsageError
from profiler.model.doctor import Check, DoctorReport
from profiler.model.target import DEFAULT_TARGET, Target

Note = Callable[[str], None]


@dataclass
class DoctorOptions:
    target: Target = DEFAULT_TARGET
    python: str | None = None
    runs: int = 3  # profiled runs (imports --phases, site)
    timing_runs: int = 10  # timed runs per command (startup figures, lazy with --lazy)
    lazy: bool = False  # time eager vs lazy (else the untimed estimate)
    trace: bool = True  # failed lookups need strace
    # reports already made for this target (report's parts: "imports" with phases, "site",
    # "trace"): read instead of measured again
    measured: dict = field(default_factory=dict)
    ignore_failure: bool = False  # the program exits non-zero on purpose (every part measures it anyway)


def _reused(opts: DoctorOptions, part: str) -> str:
    return f"from the report's {part} part" if part in opts.measured else ""


def validate(opts: DoctorOptions) -> None:
    if not opts.target.is_python:
        raise UsageError("doctor runs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
    if opts.runs < 1 or opts.timing_runs < 1:
        raise UsageError("--runs must be at least 1")


def _sys_path(facts: dict, target: Target) -> list[str]:
    """The target's sys.path: the probe's (a -c program), with sys.path[0] as the target has it."""
    path = list(facts.get("sys_path") or [])
    first = os.getcwd()
    if target.kind == "script":
        first = os.path.dirname(os.path.abspath(target.value))
    if path:
        path[0] = first if path[0] in ("", ".") else path[0]
        if target.kind == "script":
            path[0] = first
    return path


def doctor(
    opts: DoctorOptions,
    progress: Callable[[int, int, str], None] | None = None,
    warn: Note | None = None,
    info: Note | None = None,
) -> DoctorReport:
    from profiler.analysis import doctor as rules
    from profiler.capture.doctor import probe_doctor_facts
    from profiler.capture.interpreter import interpreter_for

    validate(opts)
    interp = interpreter_for(opts.python, "doctor")
    facts = probe_doctor_facts(interp.path)
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
        ImportsOptions(target=opts.target, python=interp.path, runs=opts.runs, warmup=1, phases=True,
                       ignore_failure=opts.ignore_failure), warn=warn)
    for kind, f in (("no-pyc", rules.no_pyc_finding(profile.modules, facts)), ("in-memory", rules.in_memory_finding(profile.modules))):
        checks.append(Check(kind, True, _reused(opts, "imports")))
        if f:
            findings.append(f)

    # site: pth-import, site (priced against a bare start below)
    step("measuring site")
    from profiler.workflows.site import SiteOptions, site

    site_report = None
    try:
        site_report = opts.measured.get("site") or site(SiteOptions(python=interp.path, runs=opts.runs))
        findings += rules.pth_findings(site_report)
        checks.append(Check("pth-import", True, _reused(opts, "site")))
    except ImportprofError as exc:
        skipped(("pth-import", "site"), exc)

    # timing: the target as is, a bare start, frozen modules on
    step("timing the target, a bare start" + (" and -X frozen_modules=on" if rules.frozen_off(facts) else ""))
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.measure import measure

    t = opts.target
    common = dict(python=interp.path, python_version=interp.version)
    specs = [
        CommandSpec(argv=(interp.path, *t.python_argv()), variant="as-is", key="as-is", target=t.label(), target_kind=t.kind, **common),
        CommandSpec(argv=(interp.path, "-S", "-c", "pass"), variant="bare", flags=("-S",), key="bare", target="-c pass",
                    target_kind="code", role="baseline", **common),
    ]
    if rules.frozen_off(facts):
        specs.append(CommandSpec(argv=(interp.path, "-X", "frozen_modules=on", *t.python_argv()), variant="frozen-on",
                                 flags=("-X", "frozen_modules=on"), key="frozen-on", target=t.label(), target_kind=t.kind, **common))
    m = measure(specs, RunPlan(runs=opts.timing_runs, warmup=1, ignore_failure=opts.ignore_failure), reference="as-is", progress=progress, warn=warn)
    warnings += list(m.warnings)
    mean = {r.key: r.mean for r in m.results if not r.failed}
    if site_report is not None:
        f = rules.site_finding(site_report, mean.get("bare"))
        checks.append(Check("site", True))
        if f:
            findings.append(f)
    frozen_cost = None
    if "frozen-on" in mean and "as-is" in mean:
        frozen_cost = mean["as-is"] - mean["frozen-on"]
    f = rules.frozen_off_finding(facts, frozen_cost)
    checks.append(Check("frozen-off", True, "" if rules.frozen_off(facts) else "frozen modules are on (or Python < 3.11)"))
    if f:
        findings.append(f)

    # trace: failed lookups per sys.path entry
    if opts.trace:
        step("tracing file lookups (strace)")
        from profiler.workflows.trace import TraceOptions, trace

        try:
            tr = opts.measured.get("trace") or trace(TraceOptions(target=t, python=interp.path, ignore_failure=opts.ignore_failure))
            calls = tr.results[0].log.syscalls if tr.results and tr.results[0].log else ()
            findings += rules.failed_lookup_findings(calls, _sys_path(facts, t))
            checks.append(Check("failed-lookups", True, _reused(opts, "trace")))
        except ImportprofError as exc:
            skipped(("failed-lookups",), exc)
    else:
        checks.append(Check("failed-lookups", False, "--no-trace"))

    # lazy: measured with --lazy, else the estimate
    step("lazy imports " + ("(timed)" if opts.lazy else "(estimate: not timed)"))
    from profiler.workflows.lazy import LazyOptions, lazy

    try:
        lz = lazy(LazyOptions(target=t, python=interp.path, runs=opts.timing_runs, warmup=1, measure=opts.lazy,
                              profile_runs=opts.runs, ignore_failure=opts.ignore_failure), progress=progress, warn=warn, info=info)
        f = rules.lazy_finding(lz, measured=opts.lazy)
        checks.append(Check("lazy", True, "" if opts.lazy else "estimate (use --lazy to time it)"))
        if f:
            findings.append(f)
    except ImportprofError as exc:
        skipped(("lazy",), exc)

    return DoctorReport(
        findings=tuple(rules.sort_findings(findings)),
        machine=m.machine,
        python=interp.path,
        python_version=interp.version,
        target=t.label(),
        startup_s=mean.get("as-is"),
        checks=tuple(checks),
        warnings=tuple(warnings),
    )
