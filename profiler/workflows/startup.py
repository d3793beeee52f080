"""`importprof startup`: time interpreter start-up in variants (the only place chaining
capture → analysis for this command). Timing itself goes through `workflows.measure`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from profiler.errors import UsageError
from profiler.model.interpreter import Interpreter
from profiler.model.measurement import CommandSpec, StartupReport, TimingResult
from profiler.model.target import Target
from profiler.model.variant import DEFAULT_STARTUP_VARIANTS, Variant, parse_variants

METRICS = ("instructions",)
BASELINE = Target("code", "pass")


@dataclass
class StartupOptions:
    target: Target
    pythons: Sequence[str | None] = (None,)
    variants: Sequence[str] = ()
    flags: Sequence[str] = ()
    engine: str = "builtin"
    runs: int | None = None
    warmup: int = 3
    min_time_s: float = 3.0
    imports: Sequence[str] = ()
    metrics: Sequence[str] = ()
    instruction_runs: int = 3  # counts per command with --metric instructions (median shown, with their range)
    reference: str | None = None
    ignore_failure: bool = False
    # --vs: more targets timed in the same interleaved runs, each with its own interpreter (a
    # SCRIPT's #! one) or None (the --python ones); ratios are against the main target
    versus: Sequence[tuple[Target, str | None]] = ()


def _python_labels(interps: Sequence[Interpreter]) -> list[str]:
    versions = [i.version for i in interps]
    if len(set(versions)) == len(versions):
        return versions
    return [i.path for i in interps]


def display_key(variant: str, python_label: str | None, role: str, module: str | None) -> str:
    """A unique, readable id for one measured command. Opaque: nothing parses it back
    (the identity is the spec's fields: variant, python, role, module)."""
    key = variant
    if python_label:
        key += f" @ {python_label}"
    if role == "baseline":
        key += " · pass"
    elif role == "import":
        key += f" · import {module}"
    return key


def build_specs(
    interps: Sequence[Interpreter],
    variants: Sequence[Variant],
    target: Target,
    imports: Sequence[str] = (),
    no_site_env: Callable[[str, Target], tuple] | None = None,
) -> list[CommandSpec]:
    """Every command to time, in interleaving order. With --import, each variant also runs
    the baseline `-c pass` (role "baseline") and `-c "import X"` (role "import")."""
    if not target.is_python:
        if any(v.name != "default" or v.flags for v in variants):
            raise UsageError("variants apply to Python targets; a `-- COMMAND` target runs as is")
        if imports:
            raise UsageError("--import needs a Python target, not `-- COMMAND`")
        return [CommandSpec(argv=tuple(target.command_argv()), variant="command", target=target.label(),
                            key="command", target_kind="command")]
    labels = _python_labels(interps) if len(interps) > 1 else [None] * len(interps)
    runs: list[tuple[str, str | None, Target]] = [("target", None, target)]
    if imports:
        if target != BASELINE:
            runs.append(("baseline", None, BASELINE))
        for mod in imports:
            runs.append(("import", mod, Target("code", f"import {mod}")))
    specs: list[CommandSpec] = []
    seen: set[str] = set()
    for interp, label in zip(interps, labels):
        for v in variants:
            for role, mod, t in runs:
                key = display_key(v.name, label, role, mod)
                if key in seen:
                    continue
                seen.add(key)
                env = no_site_env(interp.path, t) if (v.keep_site_paths and no_site_env) else ()
                specs.append(
                    CommandSpec(
                        argv=(interp.path, *v.flags, *t.python_argv()),
                        variant=v.name,
                        python=interp.path,
                        python_version=interp.version,
                        flags=v.flags + (("-X", "pycache_prefix=<fresh>") if v.fresh_pycache else ()),
                        target=t.label(),
                        fresh_pycache=v.fresh_pycache,
                        env=env or None,
                        key=key,
                        role=role,
                        module=mod,
                        target_kind=t.kind,
                    )
                )
    return specs


def import_costs(results: Sequence[TimingResult]):
    """`-c "import X"` minus the `-c pass` baseline, per (python, variant), both measured."""
    from profiler.analysis.statistics import import_cost

    measured = [r for r in results if not r.failed]
    base = {(r.python, r.variant): r for r in measured if r.role == "baseline" or (r.role == "target" and r.target == BASELINE.label())}
    return [import_cost(r.module, r, base[(r.python, r.variant)]) for r in measured
            if r.role == "import" and (r.python, r.variant) in base]


def validate(opts: StartupOptions) -> list[Variant]:
    unknown = [m for m in opts.metrics if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metric {unknown[0]!r} (known: {', '.join(METRICS)})")
    if not opts.target.is_python and not opts.variants and not opts.flags:
        return parse_variants(["default"])
    return parse_variants(opts.variants, opts.flags, default=DEFAULT_STARTUP_VARIANTS)


def startup(
    opts: StartupOptions,
    progress: Callable[[int, int, str], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> StartupReport:
    from profiler.capture.interpreter import resolve_pythons
    from profiler.capture.timing import RunPlan
    from profiler.errors import Interrupted
    from profiler.workflows.measure import check_reference, measure
    from profiler.workflows.no_site import no_site_env

    variants = validate(opts)
    if opts.versus:
        return _startup_versus(opts, variants, progress, warn)
    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    # pyenv:3.12, pyenv:*, all ... each interpreter once (capture/interpreter.py)
    interps = resolve_pythons(list(opts.pythons) or [None], warn=warn) if opts.target.is_python else []
    # the reference is checked on the plain specs, before no-site's discovery runs the target
    check_reference(build_specs(interps, variants, opts.target, opts.imports), opts.reference)
    specs, unavailable = drop_unavailable(
        build_specs(interps, variants, opts.target, opts.imports, no_site_env=no_site_env), interps, warn)
    if "instructions" in opts.metrics:
        from profiler.capture.instructions import pick_method

        pick_method()  # fail before measuring for minutes

    def report_of(m, notes=(), harness=None) -> StartupReport:
        return StartupReport(
            results=m.results, machine=m.machine, reference=m.reference, relative=m.relative,
            import_costs=tuple(import_costs(m.results)), warnings=m.warnings, notes=tuple(notes),
            engine=opts.engine, interrupted=m.interrupted, metric=tuple(opts.metrics), harness=harness,
        )

    try:
        m = measure(specs, plan, engine=opts.engine, reference=opts.reference, progress=progress, warn=warn)
    except Interrupted as exc:
        raise Interrupted(exc.message, partial=report_of(exc.partial) if exc.partial else None) from None
    if len(interps) > 1 and len({s.variant for s in specs}) > 1 and not opts.reference:
        m = replace(m, relative=per_python_relative(m.results, m.relative))
    results = m.results
    if "instructions" in opts.metrics:
        from profiler.capture.instructions import measure_instructions

        failed = {r.key for r in results if r.failed}
        ok = [s for s in specs if s.key not in failed]
        from profiler.analysis.statistics import median

        counts = measure_instructions(ok, max(1, opts.instruction_runs))
        m = replace(m, results=tuple(
            replace(r, instructions=int(median(counts[r.key])), instructions_runs=tuple(counts[r.key])) if counts.get(r.key) else r
            for r in results))
    # a note when site costs more than 2x a bare start, naming the costliest .pth (only when
    # default and no-site ran on the same interpreter)
    from profiler.workflows.site import startup_site_notes

    harness = None
    if not opts.target.is_python:
        from profiler.workflows.harness import harness_view

        harness, harness_warnings = harness_view(opts.target)
        for w in harness_warnings:
            if warn:
                warn(w)
        m = replace(m, warnings=(*m.warnings, *harness_warnings))
    return report_of(m, [*unavailable, *no_site_notes(specs), *startup_site_notes(m.results)], harness)


def _startup_versus(opts: StartupOptions, variants, progress, warn) -> StartupReport:
    """Two or more targets (before/after a change, two venvs' console scripts) in one
    interleaved run, as `hyperfine CMD1 CMD2`: the main target's rows first (the reference),
    each --vs target's after, every row's key naming its target."""
    from profiler.capture.interpreter import resolve_pythons
    from profiler.capture.timing import RunPlan
    from profiler.errors import Interrupted
    from profiler.workflows.measure import measure
    from profiler.workflows.no_site import no_site_env

    if opts.imports or opts.metrics:
        raise UsageError("--vs compares targets: --import and --metric apply to one target")
    if not opts.variants and not opts.flags:
        variants = parse_variants(["default"])  # A/B is about the targets: one variant unless asked
    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    specs: list[CommandSpec] = []
    unavailable: list[str] = []
    for n, (target, python) in enumerate([(opts.target, None), *opts.versus]):
        pythons = [python] if python else (list(opts.pythons) or [None])
        interps = resolve_pythons(pythons, warn=warn) if target.is_python else []
        vs = variants if target.is_python else parse_variants(["default"])
        some, lines = drop_unavailable(build_specs(interps, vs, target, (), no_site_env=no_site_env), interps, warn)
        unavailable += lines
        label = _short(target.label())
        specs += [replace(s, key=f"{s.key} · {label}" if s.key != "command" else label) for s in some]
    keys = [s.key for s in specs]
    if len(set(keys)) < len(keys):
        specs = [replace(s, key=f"{s.key} #{i + 1}") for i, s in enumerate(specs)]

    def report_of(m) -> StartupReport:
        return StartupReport(results=m.results, machine=m.machine, reference=m.reference, relative=m.relative,
                             warnings=m.warnings, notes=tuple(unavailable), engine=opts.engine, interrupted=m.interrupted)

    try:
        m = measure(specs, plan, engine=opts.engine, reference=opts.reference, progress=progress, warn=warn)
    except Interrupted as exc:
        raise Interrupted(exc.message, partial=report_of(exc.partial) if exc.partial else None) from None
    return report_of(m)


def per_python_relative(results: Sequence[TimingResult], relative) -> tuple:
    """Several interpreters in several variants (--python all): each interpreter's variants
    against its own first variant (its default), which is what a variant means; the
    interpreters against each other is the first variant's row, kept against the first one."""
    from profiler.analysis.statistics import relative_speeds

    measured = [r for r in results if not r.failed and r.role == "target"]
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


def drop_unavailable(specs: Sequence[CommandSpec], interps: Sequence[Interpreter],
                     warn: Callable[[str], None] | None = None) -> tuple[list[CommandSpec], list[str]]:
    """Leave out a variant an interpreter cannot run (-I before 3.4, -X frozen_modules before
    3.11: older versions ignore an unknown -X and would time `default` under its name), with
    one line each; custom --flags variants are the user's to judge."""
    from profiler.model.interpreter import VARIANT_NEEDS, why_not_needs

    by_path = {i.path: i for i in interps}
    kept, lines = [], []
    for s in specs:
        interp = by_path.get(s.python or "")
        reason = why_not_needs(interp, VARIANT_NEEDS.get(s.variant, ())) if interp is not None else None
        if reason is None:
            kept.append(s)
            continue
        line = f"variant {s.variant} left out for {interp.path} ({interp.version}): {reason}"
        if line not in lines:
            lines.append(line)
            if warn:
                warn(line)
    if not kept and specs:
        from profiler.errors import BadInput

        raise BadInput(lines[0] if len(lines) == 1 else f"no variant can run on the interpreters given: {lines[0]}")
    return kept, lines


def no_site_notes(specs: Sequence[CommandSpec]) -> list[str]:
    """Say what `no-site` kept, per command that got paths back (none: a plain -S)."""
    out = []
    for s in specs:
        path = dict(s.env or ()).get("PYTHONPATH")
        if s.variant == "no-site" and path:
            out.append(f"{s.key}: -S, with the site paths the target imports from kept through PYTHONPATH={path}")
    if any(s.variant == "no-site" for s in specs) and not out:
        out.append("no-site: -S (the target imports nothing from the paths site adds)")
    return out
