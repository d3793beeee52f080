"""Issue 6 inside `importprof imports` / `why`: instrumented runs of the target (bootstrap
hooks `phases`, `import_sites`, `calls`) merged into an ImportsReport's module records.

  annotate_report(report, target, python, flags=(), *, phases=False, lazy=False, sites=False,
                  runs=3, warn=None) -> ImportsReport

Each module record gets, in `extra` (merged into its JSON item):
  phases: find_us, read_us, unmarshal_us, exec_us, compiled (null when the hooks did not see
          the module), phase_cumulative_us (the same run's cumulative: phases + children's
          phase_cumulative_us == phase_cumulative_us, exactly)
  sites:  site ("file:line" of the import statement that triggered it)
  lazy:   lazy_candidate (true: never called into after it finished importing)
Phases come from ONE instrumented run (the median of `runs` by total), so they add up; the
record's self_us / cumulative_us stay the uninstrumented -X importtime medians.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from profiler.model.target import Target
from profiler.model.words import Said, WarningKind
from profiler.session import Session

PHASE_KEYS = ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled")


def annotate_report(
    report,
    target: Target,
    python: str | None,
    flags: Sequence[str] = (),
    *,
    phases: bool = False,
    lazy: bool = False,
    sites: bool = False,
    runs: int = 3,
    ignore_failure: bool = False,
    session: Session,
):
    from profiler.analysis.imports_marks import annotate_modules
    from profiler.analysis.lazy import lazy_candidates
    from profiler.analysis.phases import median_run, phases_by_name
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.phases import run_instrumented
    from profiler.model.phases import PhaseRun
    from profiler.parse.phases import parse_calls, parse_phase_records

    if not (phases or lazy or sites):
        return report
    interp = interpreter_for(python, "hooks", for_what="--phases/--lazy-candidates", session=session)
    facts: dict[str, dict] = {}
    if phases or sites:
        hooks = ("phases", "import_sites", "site") if sites else ("phases",)  # import_sites cost a frame walk each
        raw = [run_instrumented(interp.path, flags, target, hooks, ignore_failure=ignore_failure, split=phases, session=session)
               for _ in range(max(1, runs if phases else 1))]
        run = median_run([PhaseRun(tuple(parse_phase_records(r.phases))) for r in raw])
        for name, m in phases_by_name(run.modules).items():
            f = facts.setdefault(name, {})
            if phases:
                f.update(m.phase_dict())
                f["phase_cumulative_us"] = m.cumulative_us
            if m.site is not None:
                f["site"] = m.site.label
    if lazy:
        r = run_instrumented(interp.path, flags, target, ("phases", "import_sites", "site", "calls"), ignore_failure=ignore_failure,
                             split=False, session=session)
        mods = parse_phase_records(r.phases)
        cands = {c.name for c in lazy_candidates(mods, parse_calls(r.calls))}
        cands -= never_lazy(report, mods, interp.path, flags, session=session)
        for name, m in phases_by_name(mods).items():
            f = facts.setdefault(name, {})
            f["lazy_candidate"] = name in cands
            if m.site is not None:
                f.setdefault("site", m.site.label)
    unknown = [m.name for m in report.modules if m.name not in facts]
    blank: dict = {}
    if phases:
        blank.update({k: None for k in PHASE_KEYS}, phase_cumulative_us=None)
    if lazy:
        blank["lazy_candidate"] = None
    for name in unknown:
        facts[name] = dict(blank)
    for f in facts.values():
        for k, v in blank.items():
            f.setdefault(k, v)
    if unknown and (phases or lazy):
        from profiler.capture.phases import startup_modules

        before_python_code = set(startup_modules(interp.path, flags, session=session))  # imported before any hook can run
        unknown = [n for n in unknown if n not in before_python_code]
        if unknown:
            shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
            gist = f"{len(unknown)} modules were not seen by the instrumented run"
            session.warn(Said(f"{gist} (phases null): {shown}", WarningKind.PHASES_UNSEEN, gist))
    return replace(report, modules=annotate_modules(report.modules, facts))


def never_lazy(report, mods, python: str, flags: Sequence[str], session: Session) -> set[str]:
    """Names that are never lazy-import candidates: the interpreter's own start-up (what a bare
    `python -S` has imported, `site` and everything imported while it ran: .pth files,
    sitecustomize) — the program cannot defer them — and failed imports (nothing was loaded)."""
    from profiler.analysis.imports_views import startup_names
    from profiler.capture.phases import startup_modules

    out = {"site", *startup_modules(python, flags, session=session), *startup_names(report.modules)}
    parent = {m.index: m.parent for m in mods}
    site = {m.index for m in mods if m.name == "site"}
    for m in mods:
        j = m.index
        while j is not None and j >= 0:
            if j in site:
                out.add(m.name)
                break
            j = parent.get(j)
        if m.failed:
            out.add(m.name)
    out.update(m.name for m in report.modules if m.failed)
    return out
