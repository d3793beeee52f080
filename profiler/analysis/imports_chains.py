"""Import chains (pure): the hops from a root import down to a module, for `why` and the
checks that name who imported what."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from profiler.analysis.imports_views import parent_indices, parent_rows
from profiler.model.import_columns import ColumnBlock, module_blocks
from profiler.model.import_records import ModuleRecord
from profiler.model.imports_report import ImportsReport
from profiler.model.why_report import WhyChain, WhyHop


def import_chains(report: ImportsReport, module: str) -> tuple[WhyChain, ...]:
    """The chain(s) from a root import to MODULE, one per time it was imported (normally once
    per process), or, when MODULE itself was never a row, to the first of its submodules in
    each process. Each hop carries the module record's `extra`."""
    modules = report.modules
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
    return tuple(_chain(modules[t].process, modules.__getitem__, parents, t) for t in targets)


def _chains_by_process(modules: Sequence[ModuleRecord], module: str) -> tuple[WhyChain, ...] | None:
    """import_chains block by block (model.import_columns.module_blocks), process by process
    (ChainsByProcess). None when a process comes in more than one place."""
    by_process = ChainsByProcess(module)
    for b in module_blocks(modules):
        for part in ((b,) if isinstance(b, ColumnBlock) else _cut_by_process(b)):
            by_process.add(part.process if isinstance(part, ColumnBlock) else part[0].process, 0, part)
        if by_process.repeated:
            return None
    return by_process.chains()


def _cut_by_process(records: Sequence[ModuleRecord]) -> list[Sequence[ModuleRecord]]:
    out: list[Sequence[ModuleRecord]] = []
    start = 0
    for i in range(1, len(records) + 1):
        if i == len(records) or records[i].process != records[start].process:
            out.append(records[start:i])
            start = i
    return out


class ChainsByProcess:
    """import_chains of a report handed over a process at a time (`add(process, first index,
    block)`: a ColumnBlock or a tuple of one process's records, as model.import_columns_reader's
    ModuleColumnsReader hands them to on_block), the blocks not kept: the rows of MODULE (or
    of its first submodule) and their parents found once per layout, the hops made only for the
    chains. So `why --report` of a thousand processes holds the chains and one process, not the
    report's rows. `chains()` equals import_chains of the whole report
    (tests/test_why_streamed.py) unless `repeated`: a process came in more than one place (then
    read the report whole)."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.found: dict = {}  # layout → (rows named MODULE, the first submodule row, parent rows)
        self.seen: set[int] = set()
        self.repeated = False
        self.exact: list[WhyChain] = []  # the chains to MODULE's rows
        self.first: list[WhyChain] | None = []  # each process's chain to its first submodule row, until MODULE is met

    def _rows_of(self, names, depths):
        module, prefix = self.module, self.module + "."
        exact = [j for j, name in enumerate(names) if name == module]
        first = None
        for j, name in enumerate(names):
            if name.startswith(prefix) and (first is None or depths[j] < depths[first]):
                first = j
        return exact, first, parent_rows(depths)

    def add(self, process: int, start: int, block) -> None:
        if self.repeated or not len(block.self_us if isinstance(block, ColumnBlock) else block):
            return
        if process in self.seen:
            self.repeated = True
            self.exact, self.first, self.found = [], None, {}
            return
        self.seen.add(process)
        if isinstance(block, ColumnBlock):
            known = self.found.get(block.layout)
            if known is None:
                known = self.found[block.layout] = self._rows_of(block.layout.names, block.layout.depths)
            record = block.record
        else:
            known = self._rows_of([m.name for m in block], [m.depth for m in block])
            record = block.__getitem__
        exact, first, parents = known
        if exact:
            self.first = None  # MODULE is a row somewhere: no chain to a submodule is shown
            self.exact.extend(_chain(process, record, parents, t) for t in exact)
        elif self.first is not None and first is not None:
            self.first.append(_chain(process, record, parents, first))

    def chains(self) -> tuple[WhyChain, ...]:
        return tuple(self.exact) if self.first is None else tuple(self.first)


def _chain(process: int, record, parents, t: int) -> WhyChain:
    """The chain from row `t` up its parents (`record(j)`: row j's ModuleRecord), root first."""
    hops = []
    j: int | None = t
    while j is not None:
        m = record(j)
        hops.append(WhyHop(m.name, m.self_us, m.cumulative_us, m.depth, dict(m.extra)))
        j = parents[j]
    return WhyChain(process, tuple(reversed(hops)))


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
