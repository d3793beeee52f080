"""Several Python processes (pure): one summary per process (its import time over the runs, the
harness's facts on it), the modules summed across processes, and a harness capture's headline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from profiler.analysis.imports_aggregate import median_us
from profiler.analysis.imports_views import process_segments
from profiler.analysis.statistics import median
from profiler.model.import_records import ModuleRecord, ProcessSummary, SummedModule
from profiler.model.imports_report import HarnessHeadline

def sum_modules(modules: Sequence[ModuleRecord]) -> tuple[SummedModule, ...]:
    """Per module name across processes: in how many processes it was imported, Σ self and
    Σ cumulative of the per-process medians. A row nested in a row of the same name (the load
    below a dotted import's wrapper row) adds its self but not its cumulative (the outer row's
    cumulative holds it). Sorted by Σ cumulative, largest first. The processes of one layout
    (a ModuleColumns') are added column by column first, their rows then once."""
    acc: dict[str, list[Any]] = {}  # name → [processes, Σ self, Σ cumulative]
    by_layout: dict[int, list[Any]] = {}  # id(layout) → [layout, processes, Σ self per row, Σ cumulative per row]
    for _process, depths, cums, record, block in process_segments(modules):
        if block is not None:
            s = by_layout.get(id(block.layout))
            if s is None:
                by_layout[id(block.layout)] = [block.layout, 1, list(block.self_us), list(cums)]
            else:
                s[1] += 1
                s[2] = list(map(int.__add__, s[2], block.self_us))
                s[3] = list(map(int.__add__, s[3], cums))
            continue
        rows = [record(i) for i in range(len(depths))]
        _add_rows(acc, [m.name for m in rows], depths, [m.self_us for m in rows], cums, 1)
    for layout, count, selfs, cums in by_layout.values():
        _add_rows(acc, layout.names, layout.depths, selfs, cums, count)
    out = [SummedModule(name, a[0], a[1], a[2]) for name, a in acc.items()]
    out.sort(key=lambda m: (-m.cumulative_us, -m.self_us, m.name))
    return tuple(out)


def _add_rows(acc: dict[str, list[Any]], names: Sequence[str], depths: Sequence[int], selfs: Sequence[int],
              cums: Sequence[int], processes: int) -> None:
    """sum_modules' step: `processes` processes whose rows (one process's nesting) add up to
    `selfs`/`cums`."""
    # the ancestors of the current row (parent_indices' stack walk) and how often each name is among them
    stack: list[tuple[int, str]] = []
    above: dict[str, int] = {}
    seen: set[str] = set()
    for name, depth, s, c in zip(names, depths, selfs, cums):
        while stack and stack[-1][0] >= depth:
            above[stack.pop()[1]] -= 1
        a = acc.get(name)
        if a is None:
            a = acc[name] = [0, 0, 0]
        if name not in seen:
            seen.add(name)
            a[0] += processes
        a[1] += s
        if not above.get(name):
            a[2] += c
        stack.append((depth, name))
        above[name] = above.get(name, 0) + 1


@dataclass(frozen=True)
class ProcessRun:
    """What a harness capture knows of one Python process in one run (None: unknown)."""

    argv: tuple[str, ...] | None = None
    python: str | None = None
    parent: int | None = None  # index among the run's Python processes (the report's numbering)
    wall_s: float | None = None


def summarize_processes(
    modules: Sequence[ModuleRecord], runs: int, processes: int, facts: Sequence[Sequence[ProcessRun]] = ()
) -> tuple[ProcessSummary, ...]:
    """One ProcessSummary per process: imports_us = median over runs of Σ its roots'
    cumulative; argv/python/parent from the first run's facts (`facts[run][process]`), wall_s
    the median over the runs that know it. Runs with a different process count contribute
    only the processes they have."""
    sums = [[0] * runs for _ in range(processes)]
    for process, depths, cums, record, block in process_segments(modules):
        if process >= processes or not runs:
            continue
        row = sums[process]
        if block is not None:  # one run
            row[0] += sum(map(cums.__getitem__, block.layout.roots))
            continue
        for i, d in enumerate(depths):
            if d == 0:
                for r, v in enumerate(record(i).cumulative_us_runs[:runs]):
                    if v is not None:
                        row[r] += v
    out = []
    for p in range(processes):
        known = [f[p] for f in facts if p < len(f)]
        first = known[0] if known else ProcessRun()
        walls = [k.wall_s for k in known if k.wall_s is not None]
        wall = median(walls) if walls else None
        out.append(ProcessSummary(p, first.argv, first.python, first.parent, wall, median_us(sums[p]) if runs else 0))
    return tuple(out)


def harness_headline(per_process: Sequence[ProcessSummary], command_wall_s: float | None) -> HarnessHeadline:
    """N Python processes, Σ their import time, Σ their wall time, the command's wall time, and
    the share of it that import time represents (processes in parallel can exceed 1)."""
    imports_us = sum(p.imports_us for p in per_process)
    walls = [p.wall_s for p in per_process if p.wall_s is not None]
    return HarnessHeadline(
        python_processes=len(per_process),
        imports_us=imports_us,
        python_wall_s=round(sum(walls), 6) if walls else None,
        command_wall_s=None if command_wall_s is None else round(command_wall_s, 6),
        imports_share=round(imports_us / 1e6 / command_wall_s, 4) if command_wall_s else None,
    )
