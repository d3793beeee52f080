"""Two imports reports → what changed (pure). `diff_reports(a, a)` is empty."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from profiler.model.import_tree import DiffReport, ImportsReport, ModuleChange

MIN_RUNS_FOR_SIGNIFICANCE = 3
SPREAD_FACTOR = 3  # a change is significant beyond this many (old + new) spreads (MAD, µs)
MIN_DELTA_US = 2  # values are whole µs, truncated: two readings differ by < 2 µs for nothing


def _summary(report: ImportsReport, path: str | None) -> dict:
    return {
        "path": path,
        "python": report.python,
        "python_version": report.python_version,
        "runs": report.runs,
        "target": report.target,
        "total_us": report.total_us,
    }


def is_significant(old_us: int, new_us: int, old_runs: Sequence[int | None], new_runs: Sequence[int | None], old_spread_us: int, new_spread_us: int) -> bool:
    """A change of the median is significant when all of these hold:
    - it is larger than the timer's resolution (MIN_DELTA_US);
    - it is larger than SPREAD_FACTOR × (old + new spread), the spread being each side's
      median absolute deviation over its runs;
    - each median lies outside the other side's range of runs (min..max): one outlier run
      with a zero MAD (3 runs, two equal) cannot make a change look real.
    Callers judge only when both sides have MIN_RUNS_FOR_SIGNIFICANCE runs or more."""
    delta = new_us - old_us
    if abs(delta) < MIN_DELTA_US or abs(delta) <= SPREAD_FACTOR * (old_spread_us + new_spread_us):
        return False
    a = [v for v in old_runs if v is not None] or [old_us]
    b = [v for v in new_runs if v is not None] or [new_us]
    return not (min(a) <= new_us <= max(a)) and not (min(b) <= old_us <= max(b))


def diff_reports(old: ImportsReport, new: ImportsReport, old_path: str | None = None, new_path: str | None = None) -> DiffReport:
    """Modules are paired by identity (analysis.imports.identity_keys: process, name, and
    whether the row loaded the module or only wrapped a dotted import), never by name alone."""
    from profiler.analysis.imports import identity_keys

    def index(r: ImportsReport):
        return dict(zip(identity_keys(r.modules), r.modules))

    a, b = index(old), index(new)

    def only_in(x: dict, y: dict) -> tuple:
        ms = (replace(m, extra={**m.extra, "wrapper": True}) if k[2] == "wrapper" else m for k, m in x.items() if k not in y)
        return tuple(sorted(ms, key=lambda m: (-m.cumulative_us, m.name)))

    added, removed = only_in(b, a), only_in(a, b)
    wrappers = any(k[2] == "wrapper" for k in (*a, *b))
    judge = old.runs >= MIN_RUNS_FOR_SIGNIFICANCE and new.runs >= MIN_RUNS_FOR_SIGNIFICANCE
    changed = []
    for k, mo in a.items():
        mn = b.get(k)
        if mn is None or (mo.self_us == mn.self_us and mo.cumulative_us == mn.cumulative_us):
            continue
        sig = None
        if judge:
            sig = is_significant(
                mo.cumulative_us, mn.cumulative_us, mo.cumulative_us_runs, mn.cumulative_us_runs, mo.cumulative_us_spread, mn.cumulative_us_spread
            ) or is_significant(mo.self_us, mn.self_us, mo.self_us_runs, mn.self_us_runs, mo.self_us_spread, mn.self_us_spread)
        changed.append(
            ModuleChange(mo.name, mo.process, mo.self_us, mn.self_us, mo.cumulative_us, mn.cumulative_us, sig, wrapper=k[2] == "wrapper")
        )
    changed.sort(key=lambda c: (-abs(c.delta_cumulative_us), -abs(c.delta_self_us), c.name))
    delta = new.total_us - old.total_us
    totals = {
        "old_us": old.total_us,
        "new_us": new.total_us,
        "delta_us": delta,
        "delta_pct": (100.0 * delta / old.total_us) if old.total_us else None,
    }
    if judge and old.total_us_runs and new.total_us_runs:
        from profiler.analysis.imports import mad_us

        totals["significant"] = is_significant(
            old.total_us, new.total_us, old.total_us_runs, new.total_us_runs, mad_us(old.total_us_runs), mad_us(new.total_us_runs)
        )
    notes = []
    if not judge:
        notes.append("significance needs 3 runs or more in both reports (re-run with --runs 3+)")
    if wrappers:
        notes.append(
            "(dotted import): the outer row of `import a.b` whose package imported a.b itself; "
            "it is paired only with the same kind of row, the row that loaded the module with its own kind"
        )
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


def gate_failures(report: DiffReport, fail_over_ms: float | None, fail_over_pct: float | None,
                  any_change: bool = False) -> list[str]:
    """The CI gate: the total grew by more than MS milliseconds or PCT percent, and the growth
    is significant (the verdict the table and the JSON show). `any_change`: any growth over
    the threshold fails, significant or not. Reports too short to judge (under 3 runs)
    fail on the growth alone, and the message says so."""
    grew = []
    delta = report.totals["delta_us"]
    if fail_over_ms is not None and delta > fail_over_ms * 1000:
        grew.append(f"total import time grew by {delta / 1000:.1f} ms (over --fail-over {fail_over_ms:g} ms)")
    pct = report.totals.get("delta_pct")
    if fail_over_pct is not None and pct is not None and pct > fail_over_pct:
        grew.append(f"total import time grew by {pct:.1f}% (over --fail-over-pct {fail_over_pct:g}%)")
    if not grew or any_change:
        return grew
    significant = report.totals.get("significant")
    if significant is None:
        return [f"{g}; significance not judged (needs 3 runs or more in both reports)" for g in grew]
    return grew if significant else []


def gate_passed_note(report: DiffReport, fail_over_ms: float | None, fail_over_pct: float | None) -> str | None:
    """When the growth is over a threshold but not significant, the gate passes: say why."""
    if gate_failures(report, fail_over_ms, fail_over_pct) or not gate_failures(report, fail_over_ms, fail_over_pct, any_change=True):
        return None
    return ("the total grew over the --fail-over threshold, but within the runs' spread (not significant): the gate "
            "passes (--any-change fails on any growth over the threshold)")
