"""Two imports reports → what changed (pure). `diff_reports(a, a)` is empty."""

from __future__ import annotations

from profiler.model.import_tree import DiffReport, ImportsReport, ModuleChange

MIN_RUNS_FOR_SIGNIFICANCE = 3
SPREAD_FACTOR = 3  # a change is significant beyond this many (old + new) spreads (MAD, µs)


def _summary(report: ImportsReport, path: str | None) -> dict:
    return {
        "path": path,
        "python": report.python,
        "python_version": report.python_version,
        "runs": report.runs,
        "target": report.target,
        "total_us": report.total_us,
    }


def is_significant(delta_us: int, old_spread_us: int, new_spread_us: int) -> bool:
    return abs(delta_us) > SPREAD_FACTOR * (old_spread_us + new_spread_us)


def diff_reports(old: ImportsReport, new: ImportsReport, old_path: str | None = None, new_path: str | None = None) -> DiffReport:
    from profiler.analysis.imports import occurrence_keys

    def index(r: ImportsReport):
        return dict(zip(occurrence_keys(r.modules), r.modules))

    a, b = index(old), index(new)
    added = tuple(sorted((m for k, m in b.items() if k not in a), key=lambda m: (-m.cumulative_us, m.name)))
    removed = tuple(sorted((m for k, m in a.items() if k not in b), key=lambda m: (-m.cumulative_us, m.name)))
    judge = old.runs >= MIN_RUNS_FOR_SIGNIFICANCE and new.runs >= MIN_RUNS_FOR_SIGNIFICANCE
    changed = []
    for k, mo in a.items():
        mn = b.get(k)
        if mn is None or (mo.self_us == mn.self_us and mo.cumulative_us == mn.cumulative_us):
            continue
        sig = None
        if judge:
            sig = is_significant(mn.cumulative_us - mo.cumulative_us, mo.cumulative_us_spread, mn.cumulative_us_spread) or is_significant(
                mn.self_us - mo.self_us, mo.self_us_spread, mn.self_us_spread
            )
        changed.append(ModuleChange(mo.name, mo.process, mo.self_us, mn.self_us, mo.cumulative_us, mn.cumulative_us, sig))
    changed.sort(key=lambda c: (-abs(c.delta_cumulative_us), -abs(c.delta_self_us), c.name))
    delta = new.total_us - old.total_us
    totals = {
        "old_us": old.total_us,
        "new_us": new.total_us,
        "delta_us": delta,
        "delta_pct": (100.0 * delta / old.total_us) if old.total_us else None,
    }
    notes = []
    if not judge:
        notes.append("significance needs 3 runs or more in both reports (re-run with --runs 3+)")
    if old.python_version and new.python_version and old.python_version != new.python_version:
        notes.append(f"the reports come from different Pythons ({old.python_version} vs {new.python_version})")
    return DiffReport(
        machine=new.machine or old.machine,
        old=_summary(old, old_path),
        new=_summary(new, new_path),
        added=added,
        removed=removed,
        changed=tuple(changed),
        totals=totals,
        notes=tuple(notes),
    )


def gate_failures(report: DiffReport, fail_over_ms: float | None, fail_over_pct: float | None) -> list[str]:
    """The CI gate: the total grew by more than MS milliseconds or PCT percent."""
    out = []
    delta = report.totals["delta_us"]
    if fail_over_ms is not None and delta > fail_over_ms * 1000:
        out.append(f"total import time grew by {delta / 1000:.1f} ms (over --fail-over {fail_over_ms:g} ms)")
    pct = report.totals.get("delta_pct")
    if fail_over_pct is not None and pct is not None and pct > fail_over_pct:
        out.append(f"total import time grew by {pct:.1f}% (over --fail-over-pct {fail_over_pct:g}%)")
    return out
