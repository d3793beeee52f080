"""Import phases: accounting checks, the program's own records, one record per module. Pure."""

from __future__ import annotations

from typing import Iterable, Sequence

from profiler.model.phases import ModulePhases, PhaseRun


def children_index(mods: Sequence[ModulePhases]) -> dict[int, list[ModulePhases]]:
    kids: dict[int, list[ModulePhases]] = {}
    for m in mods:
        kids.setdefault(m.parent, []).append(m)
    return kids


def subtree(mods: Sequence[ModulePhases], root: ModulePhases) -> list[ModulePhases]:
    kids = children_index(mods)
    out, todo = [], [root]
    while todo:
        m = todo.pop()
        out.append(m)
        todo.extend(kids.get(m.index, ()))
    return out


def drop_launcher(mods: Sequence[ModulePhases]) -> list[ModulePhases]:
    """Without what importprof's launcher imported for itself (runpy for a `-c` target)."""
    gone: set[int] = set()
    for m in mods:
        if m.launcher or m.parent in gone:
            gone.add(m.index)
    return [m for m in mods if m.index not in gone]


def phases_by_name(mods: Iterable[ModulePhases]) -> dict[str, ModulePhases]:
    """One record per module name: the import that succeeded (else the first attempt)."""
    out: dict[str, ModulePhases] = {}
    for m in mods:
        prev = out.get(m.name)
        if prev is None or (prev.failed and not m.failed):
            out[m.name] = m
    return out


def median_run(runs: Sequence[PhaseRun]) -> PhaseRun:
    """The run whose total import time is the median: phases are kept from ONE run so that the
    accounting stays exact (medians per phase across runs would not add up)."""
    if not runs:
        raise ValueError("no runs")
    ordered = sorted(runs, key=lambda r: r.total_us)
    return ordered[(len(ordered) - 1) // 2]

