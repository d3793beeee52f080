"""`importprof startup`: time interpreter start-up in variants (the only place chaining
capture → analysis for this command)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from profiler.errors import Interrupted, UsageError
from profiler.model.interpreter import Interpreter
from profiler.model.measurement import CommandSpec, StartupReport, TimingResult
from profiler.model.target import Target
from profiler.model.variant import DEFAULT_STARTUP_VARIANTS, Variant, parse_variants


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
    reference: str | None = None
    ignore_failure: bool = False
    read_machine: bool = True
    extra_notes: list[str] = field(default_factory=list)


def _python_labels(interps: Sequence[Interpreter]) -> list[str]:
    versions = [i.version for i in interps]
    if len(set(versions)) == len(versions):
        return versions
    return [i.path for i in interps]


def build_specs(
    interps: Sequence[Interpreter],
    variants: Sequence[Variant],
    target: Target,
    imports: Sequence[str] = (),
) -> tuple[list[CommandSpec], dict[tuple[str, str, str], str]]:
    """Every command to time, in interleaving order, and for --import the keys of
    (python, variant, module) → key, with module "" for the `-c pass` baseline."""
    if not target.is_python:
        if any(v.name != "default" or v.flags for v in variants):
            raise UsageError("variants apply to Python targets; a `-- COMMAND` target runs as is")
        if imports:
            raise UsageError("--import needs a Python target, not `-- COMMAND`")
        return [CommandSpec(argv=tuple(target.command_argv()), variant="command", target=target.label(), key="command")], {}
    labels = _python_labels(interps)
    many_py = len(interps) > 1
    baseline = Target("code", "pass")
    targets: list[tuple[str, Target]] = [("", target)]
    if imports:
        if target != baseline:
            targets.append(("pass", baseline))
        for mod in imports:
            targets.append((mod, Target("code", f"import {mod}")))
    specs: list[CommandSpec] = []
    keys: dict[tuple[str, str, str], str] = {}
    seen: set[str] = set()
    for interp, label in zip(interps, labels):
        for v in variants:
            for mod, t in targets:
                key = v.name
                if many_py:
                    key += f" @ {label}"
                if mod == "pass":
                    key += " · pass"
                elif mod:
                    key += f" · import {mod}"
                if key in seen:
                    continue
                seen.add(key)
                specs.append(
                    CommandSpec(
                        argv=(interp.path, *v.flags, *t.python_argv()),
                        variant=v.name,
                        python=interp.path,
                        python_version=interp.version,
                        flags=v.flags + (("-X", "pycache_prefix=<fresh>") if v.fresh_pycache else ()),
                        target=t.label(),
                        fresh_pycache=v.fresh_pycache,
                        key=key,
                    )
                )
                if t == baseline:
                    keys[(interp.path, v.name, "")] = key
                elif mod:
                    keys[(interp.path, v.name, mod)] = key
    return specs, keys


def _import_costs(results: Sequence[TimingResult], keys, imports):
    from profiler.analysis.statistics import import_cost

    by_key = {r.key: r for r in results}
    out = []
    for (py, variant, mod), key in keys.items():
        if not mod:
            continue
        base_key = keys.get((py, variant, ""))
        if base_key in by_key and key in by_key:
            out.append(import_cost(mod, by_key[key], by_key[base_key]))
    order = {m: i for i, m in enumerate(imports)}
    return sorted(out, key=lambda c: order.get(c.module, 0))


def _reference_key(results: Sequence[TimingResult], reference: str | None) -> str:
    if not results:
        return ""
    if not reference:
        return results[0].key
    for r in results:
        if r.key == reference:
            return r.key
    for r in results:
        if r.variant == reference:
            return r.key
    raise UsageError(f"--reference {reference!r} is not one of the measured variants")


def finish_report(
    results: Sequence[TimingResult],
    machine: dict,
    opts: StartupOptions,
    keys,
    warnings: Sequence[str],
    interrupted: bool = False,
) -> StartupReport:
    from profiler.analysis.statistics import relative_speeds, result_warnings

    ref = _reference_key(results, opts.reference)
    warns = list(warnings)
    for r in results:
        warns.extend(result_warnings(r))
    return StartupReport(
        results=tuple(results),
        machine=machine,
        reference=ref,
        relative=tuple(relative_speeds(results, ref)) if results else (),
        import_costs=tuple(_import_costs(results, keys, opts.imports)),
        warnings=tuple(warns),
        notes=tuple(opts.extra_notes),
        engine=opts.engine,
        interrupted=interrupted,
        metric=tuple(opts.metrics),
    )


def startup(
    opts: StartupOptions,
    progress: Callable[[int, int, str], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> StartupReport:
    from profiler.analysis.machine import busy_warnings
    from profiler.analysis.statistics import summarize
    from profiler.capture.interpreter import resolve_python
    from profiler.capture.machine import read_machine
    from profiler.capture.timing import RunPlan

    if opts.engine not in ("builtin", "hyperfine"):
        raise UsageError(f"unknown engine {opts.engine!r} (builtin, hyperfine)")
    unknown = [m for m in opts.metrics if m != "instructions"]
    if unknown:
        raise UsageError(f"unknown metric {unknown[0]!r} (known: instructions)")
    if opts.runs is not None and opts.runs < 1:
        raise UsageError("--runs must be at least 1")
    if opts.warmup < 0:
        raise UsageError("--warmup cannot be negative")
    variants = parse_variants(opts.variants, opts.flags, default=DEFAULT_STARTUP_VARIANTS)
    if not opts.target.is_python and not opts.variants and not opts.flags:
        variants = parse_variants(["default"])
    pythons = list(opts.pythons) or [None]
    interps = [resolve_python(p) for p in pythons] if opts.target.is_python else []
    specs, keys = build_specs(interps, variants, opts.target, opts.imports)
    if "instructions" in opts.metrics:
        from profiler.capture.instructions import pick_method

        pick_method()  # fail before measuring for minutes
    if opts.engine == "hyperfine":
        from profiler.capture.hyperfine import find_hyperfine

        find_hyperfine()

    machine = read_machine() if opts.read_machine else {}
    warnings = busy_warnings(machine) if machine else []
    if opts.engine == "builtin":
        from profiler.capture.spawner import spawner_path

        if spawner_path() is None:
            warnings.append("no C compiler to build the measuring spawner: peak RSS is not measured (null)")
    for w in warnings:
        if warn:
            warn(w)

    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    if opts.engine == "builtin":
        from profiler.capture.timing import run_interleaved

        try:
            samples = run_interleaved(specs, plan, progress)
        except Interrupted as exc:
            partial = exc.partial or {}
            done = [summarize(s, partial[s.key]) for s in specs if partial.get(s.key)]
            report = finish_report(done, machine, opts, keys, warnings, interrupted=True)
            raise Interrupted(
                f"interrupted: showing the {sum(r.runs for r in done)} runs measured so far",
                partial=report,
            ) from None
        results = [summarize(s, samples[s.key]) for s in specs]
    else:
        from profiler.capture.hyperfine import run_hyperfine

        results = run_hyperfine(specs, plan)

    if "instructions" in opts.metrics:
        from profiler.capture.instructions import measure_instructions

        counts = measure_instructions(specs)
        results = [replace(r, instructions=counts.get(r.key)) for r in results]
    # issue 6 (profiler/workflows/site.py): a note when site costs more than 2x a bare start,
    # naming the costliest .pth (only when default and no-site ran on the same interpreter)
    from profiler.workflows.site import startup_site_notes

    opts = replace(opts, extra_notes=[*opts.extra_notes, *startup_site_notes(results)])
    report = finish_report(results, machine, opts, keys, warnings)
    for w in report.warnings[len(warnings) :]:  # the results' own warnings (the machine's went first)
        if warn:
            warn(w)
    return report
