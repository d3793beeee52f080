"""What later runs add to aggregated import records (pure): facts per module name merged into
each record's extras (kind, distribution, phases, sites, statements), and which imports failed,
from an instrumented run's outcomes."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from profiler.model.import_records import ModuleRecord

def annotate_modules(modules: Sequence[ModuleRecord], facts: Mapping[str, Mapping[str, Any]]) -> tuple[ModuleRecord, ...]:
    """Merge per-name facts (e.g. {"kind": ..., "distribution": ...}) into each record's extra."""
    out = []
    for m in modules:
        f = facts.get(m.name)
        out.append(m.with_extra(**f) if f else m)
    return tuple(out)


def mark_failed(modules: Sequence[ModuleRecord], outcomes: Sequence[tuple[str, bool]], process: int = 0) -> tuple[ModuleRecord, ...]:
    """Mark the modules (`failed`, model ModuleExtras) of `process` from an instrumented run's import
    outcomes: (name, failed) per `_find_and_load` call, in start order (pre-order, as the
    records). `-X importtime` prints a failed import exactly like a loaded one (the row is
    written whatever `_find_and_load` returned), so the log alone cannot tell them apart.

    Rows and outcomes of one name are paired in order; rows beyond the outcomes are failed only
    when every outcome of that name failed. A name with no outcome (imported before the hook
    could run: the interpreter's own start-up modules) is not failed. Other processes are left
    unmarked (no key)."""
    by_name: dict[str, list[bool]] = {}
    for name, failed in outcomes:
        by_name.setdefault(name, []).append(bool(failed))
    seen: Counter[str] = Counter()
    out = []
    for m in modules:
        if m.process != process:
            out.append(m)
            continue
        got = by_name.get(m.name, ())
        k = seen[m.name]
        seen[m.name] += 1
        failed = got[k] if k < len(got) else (bool(got) and all(got))
        out.append(m.with_extra(failed=failed))
    return tuple(out)
