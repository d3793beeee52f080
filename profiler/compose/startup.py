"""`importprof startup`: time interpreter start-up in variants (the only place chaining
capture → analysis for this command). Timing itself goes through `workflows.measure`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

from profiler.errors import UsageError
from profiler.model.measurement import CommandSpec, StartupReport, TimingResult
from profiler.model.run_options import REQUIRED, RunOptions
from profiler.model.target import Target
from profiler.model.variant import DEFAULT_STARTUP_VARIANTS
from profiler.model.words import Engine, Metric, Role
from profiler.workflows.plan import BASELINE
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

@dataclass(frozen=True)
class StartupOptions(RunOptions):
    # RunOptions' fields (model/run_options.py); runs None: adaptive (min_time_s); python: the
    # repeatable --python is `pythons`
    DEFAULTS = {"target": REQUIRED, "warmup": 3}
    NOT_TAKEN = ("python", "timeout")
    pythons: Sequence[Interpreter | None] = (None,)  # resolved at the command's edge (profiler/api.py for a library caller); None: python3 on PATH
    variants: Sequence[str] = ()
    engine: Engine = Engine.BUILTIN
    min_time_s: float = 3.0
    imports: Sequence[str] = ()
    metrics: Sequence[Metric] = ()
    instruction_runs: int = 3  # counts per command with --metric instructions (median shown, with their range)
    reference: str | None = None
    # --vs: more targets timed in the same interleaved runs, each with its own interpreter (a
    # SCRIPT's #! one) or None (the --python ones); ratios are against the main target
    versus: Sequence[tuple[Target, Interpreter | None]] = ()


def startup(opts: StartupOptions, *, session: Session) -> StartupReport:
    from profiler.capture.interpreter import resolve_pythons
    from profiler.capture.timing import RunPlan
    from profiler.errors import Interrupted
    from profiler.analysis.statistics import import_costs
    from profiler.workflows.measure import measure
    from functools import partial

    from profiler.workflows.no_site import no_site_env
    from profiler.workflows.plan import plan_runs

    if opts.versus:
        return _startup_versus(opts, session=session)
    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    # pyenv:3.12, pyenv:*, all ... each interpreter once (capture/interpreter.py)
    interps = resolve_pythons(list(opts.pythons) or [None], warn=session.warn, session=session) if opts.target.is_python else []
    # the variants, --import and --reference checked, then no-site's paths found (runs the target)
    runs = plan_runs(opts.target, interps, opts.variants, opts.flags, default=DEFAULT_STARTUP_VARIANTS,
                     imports=opts.imports, reference=opts.reference, site_paths=partial(no_site_env, session=session, ignore_failure=opts.ignore_failure), warn=session.warn)
    specs = list(runs.specs)
    if Metric.INSTRUCTIONS in opts.metrics:
        from profiler.capture.instructions import pick_method

        pick_method(session=session)  # fail before measuring for minutes

    def report_of(m, notes=(), harness=None) -> StartupReport:
        return StartupReport(
            results=m.results, machine=m.machine, reference=m.reference, relative=m.relative,
            import_costs=tuple(import_costs(m.results, BASELINE.label())), warnings=m.warnings, notes=tuple(notes),
            engine=opts.engine, interrupted=m.interrupted, metric=tuple(opts.metrics), harness=harness,
        )

    try:
        m = measure(specs, plan, engine=opts.engine, reference=opts.reference, session=session)
    except Interrupted as exc:
        raise exc.showing(report_of) from None
    if len(interps) > 1 and len({s.variant for s in specs}) > 1 and not opts.reference:
        m = replace(m, relative=per_python_relative(m.results, m.relative))
    results = m.results
    if Metric.INSTRUCTIONS in opts.metrics:
        from profiler.capture.instructions import measure_instructions

        failed = {r.key for r in results if r.failed}
        ok = [s for s in specs if s.key not in failed]
        from profiler.analysis.statistics import median

        counts = measure_instructions(ok, max(1, opts.instruction_runs), session=session)
        m = replace(m, results=tuple(
            replace(r, instructions=int(median(counts[r.key])), instructions_runs=tuple(counts[r.key])) if counts.get(r.key) else r
            for r in results))
    # a note when site costs more than 2x a bare start, naming the costliest .pth (only when
    # default and no-site ran on the same interpreter)
    from profiler.workflows.site import startup_site_notes

    harness = None
    if not opts.target.is_python:
        from profiler.compose.harness import harness_view

        harness, harness_warnings = harness_view(opts.target, session=session)
        for w in harness_warnings:
            session.warn(w)
        m = replace(m, warnings=(*m.warnings, *harness_warnings))
    return report_of(m, [*runs.left_out, *runs.site_path_notes, *startup_site_notes(m.results, session=session)], harness)


def _startup_versus(opts: StartupOptions, session: Session) -> StartupReport:
    """Two or more targets (before/after a change, two venvs' console scripts) in one
    interleaved run, as `hyperfine CMD1 CMD2`: the main target's rows first (the reference),
    each --vs target's after, every row's key naming its target."""
    from profiler.capture.interpreter import resolve_pythons
    from profiler.capture.timing import RunPlan
    from profiler.errors import Interrupted
    from profiler.workflows.measure import measure
    from functools import partial

    from profiler.workflows.no_site import no_site_env
    from profiler.workflows.plan import plan_runs

    if opts.imports or opts.metrics:
        raise UsageError("--vs compares targets: --import and --metric apply to one target")
    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    specs: list[CommandSpec] = []
    unavailable: list[str] = []
    for target, python in [(opts.target, None), *opts.versus]:
        pythons = [python] if python else (list(opts.pythons) or [None])
        interps = resolve_pythons(pythons, warn=session.warn, session=session) if target.is_python else []
        # A/B is about the targets: one variant unless asked; a `-- COMMAND` target runs as is
        asked = (opts.variants, opts.flags) if target.is_python else ((), ())
        runs = plan_runs(target, interps, *asked, site_paths=partial(no_site_env, session=session, ignore_failure=opts.ignore_failure), warn=session.warn)
        unavailable += runs.left_out
        label = _short(target.label())
        specs += [replace(s, key=f"{s.key} · {label}" if s.key != "command" else label) for s in runs.specs]
    keys = [s.key for s in specs]
    if len(set(keys)) < len(keys):
        specs = [replace(s, key=f"{s.key} #{i + 1}") for i, s in enumerate(specs)]

    def report_of(m) -> StartupReport:
        return StartupReport(results=m.results, machine=m.machine, reference=m.reference, relative=m.relative,
                             warnings=m.warnings, notes=tuple(unavailable), engine=opts.engine, interrupted=m.interrupted)

    try:
        m = measure(specs, plan, engine=opts.engine, reference=opts.reference, session=session)
    except Interrupted as exc:
        raise exc.showing(report_of) from None
    return report_of(m)


def per_python_relative(results: Sequence[TimingResult], relative) -> tuple:
    """Several interpreters in several variants (--python all): each interpreter's variants
    against its own first variant (its default), which is what a variant means; the
    interpreters against each other is the first variant's row, kept against the first one."""
    from profiler.analysis.statistics import relative_speeds

    measured = [r for r in results if not r.failed and r.role == Role.TARGET]
    first = {}
    for r in measured:
        first.setdefault(r.python, r.key)
    across = {x.key: x for x in relative}
    out = []
    for r in measured:
        if r.key == first[r.python]:
            out.append(across[r.key]) if r.key in across else None
            continue
        mine = [x for x in measured if x.python == r.python]
        out.append(next(x for x in relative_speeds(mine, first[r.python]) if x.key == r.key))
    return tuple(out)


def _short(label: str, width: int = 48) -> str:
    return label if len(label) <= width else label[: width // 2 - 1] + "…" + label[-(width // 2):]
