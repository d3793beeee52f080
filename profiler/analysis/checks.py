"""A declared check, judged against what was measured (pure): one Finding per rule.

  judge_check(spec, figures, report, baseline, ...) -> tuple[Finding, ...]
  startup_modules(report) -> tuple[StartupModule, ...]
  new_modules(current, baseline, min_us) -> the topmost modules not in the baseline, costly enough
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from profiler.model.check import CheckResult, CheckSpec, Finding, StartupModule
from profiler.model.imports_report import ImportsReport

LAZY_IMPORTS_SINCE = (3, 15)


@dataclass(frozen=True)
class Figures:
    """What one check measured (medians; None where not measured)."""

    wall_ms: float | None = None
    import_ms: float | None = None
    instructions: int | None = None
    python_version: str | None = None


def startup_modules(report: ImportsReport) -> tuple[StartupModule, ...]:
    """Each module imported at start-up once (its costliest occurrence over the processes)."""
    best: dict[str, StartupModule] = {}
    for m in report.modules:
        if m.failed:
            continue
        old = best.get(m.name)
        if old is None or m.cumulative_us > old.cumulative_us:
            best[m.name] = StartupModule(m.name, m.self_us, m.cumulative_us)
    return tuple(best.values())


def chain_to(report: ImportsReport, module: str) -> tuple[str, ...] | None:
    """The import chain (entry point's import first) that brought MODULE (or, when only its
    submodules were imported, the first of them) in; None when nothing of it was imported."""
    from profiler.analysis.imports_chains import import_chains

    chains = import_chains(report, module)
    return tuple(h.name for h in chains[0].hops) if chains else None


def _imported(report: ImportsReport, module: str) -> bool:
    return any((m.name == module or m.name.startswith(module + ".")) and not m.failed for m in report.modules)


def _version(text: str | None) -> tuple[int, ...]:
    out = []
    for part in (text or "").split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def new_modules(report: ImportsReport, baseline: Sequence[StartupModule], min_us: float) -> list[tuple[str, int]]:
    """Modules imported now that the baseline did not import, at least `min_us` cumulative,
    only the topmost of each new subtree (its cost includes the new modules under it)."""
    known = {m.name for m in baseline}
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    for m in report.modules:
        if m.name in known or m.name in seen or m.failed:
            continue
        if m.parent is not None and m.parent not in known:
            continue  # inside a new subtree: its top is reported with the whole cost
        seen.add(m.name)
        if m.cumulative_us >= min_us:
            out.append((m.name, m.cumulative_us))
    return out


def judge_check(
    spec: CheckSpec,
    figures: Figures,
    report: ImportsReport | None,
    baseline: CheckResult | None,
    *,
    min_ms: float | None = None,
    baseline_missing: bool = False,
) -> tuple[Finding, ...]:
    """Every rule the check declares, judged. `min_ms` (the command's --min-ms) stands in for
    new_import_min_ms where the check has a baseline and does not set it. `baseline_missing`:
    the declared baseline file does not exist yet (its rules are shown as skipped, with how)."""
    out: list[Finding] = []
    if spec.budget_ms is not None and figures.wall_ms is not None:
        ok = figures.wall_ms <= spec.budget_ms
        out.append(Finding("budget_ms", "pass" if ok else "fail",
                           f"start-up {figures.wall_ms:.1f} ms {'within' if ok else 'over'} the budget of {spec.budget_ms:g} ms",
                           figures.wall_ms, spec.budget_ms))
    if spec.budget_instructions is not None and figures.instructions is not None:
        ok = figures.instructions <= spec.budget_instructions
        out.append(Finding("budget_instructions", "pass" if ok else "fail",
                           f"{figures.instructions:,} instructions {'within' if ok else 'over'} the budget of {spec.budget_instructions:,.0f}",
                           float(figures.instructions), spec.budget_instructions))
    if report is not None:
        for module in spec.forbid:
            if _imported(report, module):
                chain = chain_to(report, module)
                out.append(Finding("forbid", "fail", f"{module} is imported at start-up: {' -> '.join(chain or (module,))}",
                                   module=module, chain=chain))
            else:
                out.append(Finding("forbid", "pass", f"{module} is not imported", module=module))
        mods = {m.name: m for m in startup_modules(report)}
        for module, limit in spec.module_budget_ms.items():
            m = mods.get(module)
            if m is None:
                out.append(Finding("module_budget_ms", "pass", f"{module} is not imported", 0.0, limit, module))
                continue
            ms = m.cumulative_us / 1000
            ok = ms <= limit
            out.append(Finding("module_budget_ms", "pass" if ok else "fail",
                               f"import {module} {ms:.1f} ms {'within' if ok else 'over'} its budget of {limit:g} ms", ms, limit, module))
        if spec.stay_lazy:
            if _version(figures.python_version) < LAZY_IMPORTS_SINCE:
                out.append(Finding("stay_lazy", "skipped",
                                   f"not checked: Python {figures.python_version} has no lazy imports (3.15+); "
                                   f"set python to a 3.15 interpreter"))
            for module in spec.stay_lazy if _version(figures.python_version) >= LAZY_IMPORTS_SINCE else ():
                if _imported(report, module):
                    chain = chain_to(report, module)
                    out.append(Finding("stay_lazy", "fail",
                                       f"{module} is declared lazy but imported at start-up: {' -> '.join(chain or (module,))}",
                                       module=module, chain=chain))
                else:
                    out.append(Finding("stay_lazy", "pass", f"{module} stays lazy (not imported at start-up)", module=module))
    if baseline is not None:
        out.extend(_against_baseline(spec, figures, report, baseline, min_ms))
    elif baseline_missing:
        out.append(Finding("max_growth_pct" if spec.max_growth_pct is not None else "new_import", "skipped",
                           f"not checked: no baseline yet ({spec.baseline}; `importprof check {spec.name} --update-baseline` writes it)"))
    return tuple(out)


def _against_baseline(spec, figures, report, baseline: CheckResult, min_ms) -> list[Finding]:
    out = []
    if spec.max_growth_pct is not None:
        pair: tuple[float, float, str] | None = None  # now, then, unit
        if figures.instructions is not None and baseline.instructions:
            pair = float(figures.instructions), float(baseline.instructions), "instructions"
        elif figures.wall_ms is not None and baseline.wall_ms:
            pair = figures.wall_ms, baseline.wall_ms, "ms"
        if pair is None:
            out.append(Finding("max_growth_pct", "skipped", "not checked: the baseline has no figure measured now"))
        else:
            now, then, unit = pair
            growth = (now - then) / then * 100
            ok = growth <= spec.max_growth_pct
            shown = (f"{then:,.0f} -> {now:,.0f} instructions" if unit == "instructions"
                     else f"{then:.1f} -> {now:.1f} ms of wall time (noisy: metric = \"instructions\" counts what does not flake)")
            out.append(Finding("max_growth_pct", "pass" if ok else "fail",
                               f"{shown} ({growth:+.1f} %, at most +{spec.max_growth_pct:g} % allowed)", growth, spec.max_growth_pct))
    threshold = spec.new_import_min_ms if spec.new_import_min_ms is not None else min_ms
    if threshold is not None and report is not None:
        found = new_modules(report, baseline.modules, threshold * 1000)
        for name, cum in found:
            chain = chain_to(report, name)
            out.append(Finding("new_import", "fail",
                               f"new import at start-up: {name} {cum / 1000:.1f} ms (>= {threshold:g} ms): {' -> '.join(chain or (name,))}",
                               cum / 1000, threshold, name, chain))
        if not found:
            out.append(Finding("new_import", "pass", f"no new import of {threshold:g} ms or more since the baseline", limit=threshold))
    return out


def status_of(findings: Sequence[Finding]) -> str:
    return "fail" if any(f.status == "fail" for f in findings) else "pass"


def declared_lazy(source: bytes, filename: str, package: str | None = None) -> tuple[str, ...]:
    """The modules a source file declares lazy (PEP 810): its module-level `__lazy_modules__`
    names and the modules of its `lazy import` / `lazy from` statements, in file order."""
    from profiler.analysis.lazy_edit import import_statements, lazy_declaration, parse_source

    tree, _ = parse_source(source, filename)
    declared = lazy_declaration(tree)
    names: list[str] = list(declared.names or ()) if declared is not None else []
    for st in import_statements(source, package, filename):
        if not st.keyword:
            continue
        for m in st.modules:
            if st.names and package and (package == m or package.startswith(m + ".")):
                # `lazy from . import plugins` in the package itself: the package is loaded by
                # definition; what is deferred is the submodule
                names += [f"{m}.{n}" for n in st.names]
            else:
                names.append(m)
    return tuple(dict.fromkeys(names))


def appeared_modules(before: Sequence[StartupModule], after: Sequence[StartupModule]) -> tuple[dict, ...]:
    """Modules imported at start-up after and not before, costliest first."""
    known = {m.name for m in before}
    new = [m for m in after if m.name not in known]
    return tuple({"name": m.name, "self_us": m.self_us, "cumulative_us": m.cumulative_us}
                 for m in sorted(new, key=lambda m: (-m.cumulative_us, m.name)))
