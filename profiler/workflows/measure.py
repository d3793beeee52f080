"""The one timing pipeline: machine facts → runs → statistics → busy warnings (judged on the CPU
share the runs got, analysis/machine.py) → failed rows → warnings → ratios. `startup`,
`compare`, `report` and `lazy` all measure through `measure()`, so the failed-variant rule, the
partial report on Ctrl-C, the warnings and the ratio convention (a time ratio against the
reference, see `model.measurement.Relative`) exist once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from profiler.errors import Interrupted, TargetFailed, UsageError
from profiler.model.measurement import CommandSpec, Relative, TimingResult
from profiler.model.words import Engine, Said, WarningKind
from profiler.session import Session


@dataclass(frozen=True)
class Measurement:
    results: tuple[TimingResult, ...]  # in spec order; failed ones have failed=True, no figures
    relative: tuple[Relative, ...]  # against `reference` (measured results only)
    reference: str  # the key of the reference result ("" when nothing was measured)
    warnings: tuple[str, ...]
    machine: dict = field(default_factory=dict)
    interrupted: bool = False

    @property
    def measured(self) -> list[TimingResult]:
        return [r for r in self.results if not r.failed]


def check_reference(specs: Sequence[CommandSpec], reference: str | None) -> None:
    """--reference names one of the commands (a key or a variant): a usage error before any run."""
    if reference and not any(reference in (s.key, s.variant) for s in specs):
        raise UsageError(f"--reference {reference!r} is not one of the measured variants "
                         f"({', '.join(dict.fromkeys(s.variant for s in specs))})")


def pick_reference(results: Sequence[TimingResult], reference: str | None) -> tuple[str, list[str]]:
    """The reference's key: `reference` names a key or a variant (default: the first result).
    A reference that failed gives way to the first measured result, with a warning."""
    if not results:
        return "", []
    chosen = results[0]
    if reference:
        chosen = next((r for r in results if r.key == reference), None) or next(
            (r for r in results if r.variant == reference), results[0]  # checked by measure()
        )
    if not chosen.failed:
        return chosen.key, []
    fallback = next((r for r in results if not r.failed), None)
    if fallback is None:
        return "", []
    return fallback.key, [Said(f"the reference {chosen.key} failed: ratios are against {fallback.key} instead",
                               WarningKind.REFERENCE_FAILED, f"the reference {chosen.key} failed", chosen.key)]


def _results(specs, outcomes, engine: Engine, tails: dict | None = None) -> list[TimingResult]:
    """Outcomes → results; `tails` collects each failed command's Failure by key."""
    from profiler.analysis.statistics import summarize

    out = []
    for s in specs:
        o = outcomes.get(s.key)
        if o is None:
            continue
        if o.failure is not None:
            out.append(TimingResult.failure(s, tuple(o.exit_codes), o.failure.error, engine))
            if tails is not None:
                tails[s.key] = o.failure
        elif o.samples:
            out.append(summarize(s, o.samples, engine))
    return out


def _finish(specs, results, reference, warnings, machine, interrupted=False) -> Measurement:
    from profiler.analysis.failures import explain_failure
    from profiler.analysis.statistics import relative_speeds, result_warnings

    warns = list(warnings)
    by_key = {s.key: s for s in specs}
    for r in results:
        if r.failed:
            s = by_key.get(r.key)
            hint = explain_failure(r.way, r.flags, s.target_kind if s else None, r.error or "")
            warns.append(Said(f"{r.key}: failed ({r.error})" + (f": {hint}" if hint else ""),
                              WarningKind.FAILED, f"{r.key} failed", r.key))
        else:
            warns.extend(result_warnings(r))
    ref, ref_warns = pick_reference(results, reference)
    warns.extend(ref_warns)
    measured = [r for r in results if not r.failed]
    relative = tuple(relative_speeds(measured, ref)) if ref else ()
    return Measurement(tuple(results), relative, ref, tuple(warns), machine, interrupted)


def measure(
    specs: Sequence[CommandSpec],
    plan,
    *,
    engine: Engine = Engine.BUILTIN,
    reference: str | None = None,
    machine: dict | None = None,
    session: Session,
    executor=None,
) -> Measurement:
    """Time `specs` with `plan` (a capture.timing.RunPlan). Commands that fail become failed
    results beside the measured ones; when every command failed, TargetFailed (exit 3) with
    the first failure's stderr tail. Warnings are returned and, as they arise, passed to
    `warn`. `machine`: facts already read by the caller (else read here). `executor`: what runs
    one command once (capture.timing.ExecutorFactory; default the session's runner's
    (capture/runner.py: executor_of): the real process, or recorded, or replayed from a
    recording, the machine facts with it; a test gives its own)."""
    from profiler.analysis.machine import busy_warnings
    from profiler.capture.machine import start_sample
    from profiler.capture.runner import executor_of, timed_machine
    from profiler.capture.timing import run_interleaved

    runner: Any = executor or executor_of(session)  # a factory that also answers measures_rss

    check_reference(specs, reference)
    if engine is Engine.HYPERFINE:
        from profiler.capture.hyperfine import find_hyperfine

        find_hyperfine(session=session)
    sampling = machine is None  # the machine's load is read over the warm-up and the runs, not waited for before them
    if sampling:
        start_sample(session)
    warnings = []  # the busy warning is judged after the runs, on what they got (analysis/machine.py)
    if engine is Engine.BUILTIN and plan.use_spawner:
        if not runner.measures_rss(session):
            warnings.append(Said("no C compiler to build the measuring spawner: peak RSS is not measured (null)",
                                 WarningKind.NO_SPAWNER, WarningKind.NO_SPAWNER.value))
    for w in warnings:
        session.warn(w)

    tails: dict = {}
    try:
        if engine is Engine.BUILTIN:
            results = _results(specs, run_interleaved(specs, plan, session=session, executor=runner), engine, tails)
        else:
            results = _hyperfine(specs, plan, tails, session=session, executor=runner)
    except Interrupted as exc:
        partial = _results(specs, exc.partial or {}, engine) if engine is Engine.BUILTIN else []
        if sampling:
            machine = timed_machine(runner, session)
        report = _finish(specs, partial, reference, busy_warnings(machine or {}, partial) + warnings, machine, interrupted=True)
        runs = sum(r.runs for r in report.results)
        said = f"showing the {runs} run{'' if runs == 1 else 's'} measured so far" if runs else "before any run was measured"
        raise Interrupted(f"interrupted: {said}", partial=report) from None

    if sampling:
        machine = timed_machine(runner, session)
    busy = busy_warnings(machine or {}, results)
    for w in busy:
        session.warn(w)
    warnings = busy + warnings
    if results and all(r.failed for r in results):
        first = results[0]
        failure = tails.get(first.key)
        raise TargetFailed(f"{first.key}: the command failed ({first.error}): {first.command}",
                           detail=(failure.stderr_tail or None) if failure else None,
                           ignorable=failure is not None and not failure.crashed) from None
    m = _finish(specs, results, reference, warnings, machine)
    for said in m.warnings[len(warnings):]:
        session.warn(said)
    return m


def _hyperfine(specs: Sequence[CommandSpec], plan, tails: dict, session: Session,
               executor=None) -> list[TimingResult]:
    """hyperfine aborts every command when one fails (and `-i` would time a crash): one check
    run of each command with the builtin runner first; hyperfine then times those that ran."""
    from dataclasses import replace

    from profiler.capture.hyperfine import run_hyperfine
    from profiler.capture.timing import run_interleaved

    with session.quiet(warnings=False, notes=False):  # the check run shows no progress
        check = run_interleaved(specs, replace(plan, runs=1, warmup=0), session=session, executor=executor)
    failed = {r.key: r for r in _results(specs, check, Engine.HYPERFINE, tails) if r.failed}
    ok = [s for s in specs if s.key not in failed]
    timed = {r.key: r for r in (run_hyperfine(ok, plan, session=session) if ok else [])}
    return [failed.get(s.key) or timed[s.key] for s in specs]
