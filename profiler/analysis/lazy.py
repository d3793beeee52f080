"""Lazy-import candidates: modules imported during the run that were never called into after
they finished importing (the `calls` hook's list of used modules). Pure.

A heuristic: reading a constant, a class attribute or an exception type is not a call, so a
module used only that way is listed although importing it lazily would not help much.
"""

from __future__ import annotations

from typing import Sequence

from profiler.analysis.phases import children_index, drop_launcher
from profiler.model.phases import LazyCandidate, ModulePhases


def lazy_candidates(mods: Sequence[ModulePhases], used: frozenset[str] | set[str]) -> list[LazyCandidate]:
    """Every successfully imported module not in `used`, costliest first."""
    mods = drop_launcher(mods)
    kids = children_index(mods)
    memo: dict[int, bool] = {}

    def below_used(m: ModulePhases) -> bool:
        if m.index not in memo:
            memo[m.index] = any(c.name in used or below_used(c) for c in kids.get(m.index, ()))
        return memo[m.index]

    out = []
    seen: set[str] = set()
    for m in mods:
        if m.failed or m.name in used or m.name in seen:
            continue
        seen.add(m.name)
        out.append(
            LazyCandidate(
                name=m.name,
                cumulative_us=m.cumulative_us,
                self_us=m.self_us,
                site=m.site,
                subtree_used=below_used(m),
                context=m.context,
            )
        )
    out.sort(key=lambda c: (-c.cumulative_us, c.name))
    return out
