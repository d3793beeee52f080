"""Import chains (pure): the hops from a root import down to a module, for `why` and the
checks that name who imported what."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from profiler.analysis.imports_views import parent_indices, parent_rows, process_segments
from profiler.model.import_tree import ImportsReport, ModuleColumns, WhyChain, WhyHop

def import_chains(report: ImportsReport, module: str) -> tuple[WhyChain, ...]:
    """The chain(s) from a root import to MODULE, one per time it was imported (normally once
    per process), or, when MODULE itself was never a row, to the first of its submodules in
    each process. Each hop carries the module record's `extra`."""
    modules = report.modules
    if isinstance(modules, ModuleColumns):
        chains = _chains_by_process(modules, module)
        if chains is not None:
            return chains
    parents = parent_indices(modules)
    targets = [i for i, m in enumerate(modules) if m.name == module]
    if not targets:
        first: dict[int, int] = {}
        for i, m in enumerate(modules):
            if m.name.startswith(module + ".") and (m.process not in first or m.depth < modules[first[m.process]].depth):
                first[m.process] = i
        targets = sorted(first.values())
    chains = []
    for t in targets:
        hops = []
        j: int | None = t
        while j is not None:
            m = modules[j]
            hops.append(WhyHop(m.name, m.self_us, m.cumulative_us, m.depth, dict(m.extra)))
            j = parents[j]
        chains.append(WhyChain(modules[t].process, tuple(reversed(hops))))
    return tuple(chains)


def _chains_by_process(modules: ModuleColumns, module: str) -> tuple[WhyChain, ...] | None:
    """import_chains of a ModuleColumns process by process: a layout's rows of MODULE (or of its
    first submodule) and their parents found once for every process laid out alike, the hops
    made only for the chains. None when a process comes in more than one place."""
    segments = list(process_segments(modules))
    if len({seg[0] for seg in segments}) != len(segments):
        return None
    found: dict = {}  # layout → (rows named MODULE, the first submodule row, parent rows)

    def rows_of(names, depths):
        exact = [j for j, name in enumerate(names) if name == module]
        first = None
        for j, name in enumerate(names):
            if name.startswith(module + ".") and (first is None or depths[j] < depths[first]):
                first = j
        return exact, first, parent_rows(depths)

    per = []
    for process, depths, _, record, block in segments:
        if block is not None:
            known = found.get(block.layout)
            if known is None:
                known = found[block.layout] = rows_of(block.layout.names, depths)
        else:
            known = rows_of([record(j).name for j in range(len(depths))], depths)
        per.append((process, record, known))
    anywhere = any(known[0] for _, _, known in per)
    chains = []
    for process, record, (exact, first, parents) in per:
        for t in (exact if anywhere else ([first] if first is not None else [])):
            hops = []
            j: int | None = t
            while j is not None:
                m = record(j)
                hops.append(WhyHop(m.name, m.self_us, m.cumulative_us, m.depth, dict(m.extra)))
                j = parents[j]
            chains.append(WhyChain(process, tuple(reversed(hops))))
    return tuple(chains)


def every_import_chain(report: ImportsReport, module: str, importers: Sequence[str]) -> tuple[WhyChain, ...]:
    """why --all: the chain(s) through which MODULE was loaded (import_chains), and one more
    per other module with an import statement of MODULE (`importers`, from an instrumented run:
    -X importtime prints no row for a module already in sys.modules). Such a chain is the
    importer's own chain plus MODULE as a last hop of cost 0 ("already_imported"). An importer
    the report has no row for (imported before -X importtime could see it) is a one-hop chain.
    Shortest first; the loading chain first among equals."""
    loaded = import_chains(report, module)
    parents_of_load = {c.hops[-2].name if len(c.hops) > 1 else "__main__" for c in loaded}
    out = list(loaded)
    for imp in dict.fromkeys(importers):
        if imp in parents_of_load or imp == module:
            continue
        last = WhyHop(module, 0, 0, 0, {"already_imported": True})
        if imp == "__main__":  # the program itself
            out.append(WhyChain(0, (WhyHop("__main__", 0, 0, 0, {"program": True}), replace(last, depth=1)), loaded=False))
            continue
        base = next((c for c in import_chains(report, imp) if c.hops[-1].name == imp), None)
        if base is None:
            hops = (WhyHop(imp, 0, 0, 0, {"not_in_log": True}), replace(last, depth=1))
            out.append(WhyChain(0, hops, loaded=False))
        else:
            out.append(WhyChain(base.process, (*base.hops, replace(last, depth=base.hops[-1].depth + 1)), loaded=False))
    order = {id(c): i for i, c in enumerate(out)}
    return tuple(sorted(out, key=lambda c: (len(c.hops), not c.loaded, order[id(c)])))
