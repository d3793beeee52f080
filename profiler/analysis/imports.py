"""Import timings: rows → trees → the report aggregated over runs, and the views on it
(pure functions; no I/O)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from profiler.analysis.statistics import median
from profiler.model.import_tree import (
    CachedRecord,
    ColumnBlock,
    GroupRecord,
    HarnessHeadline,
    ImportNode,
    ImportsReport,
    ModuleColumns,
    ModuleRecord,
    ParsedLog,
    ProcessLayout,
    ProcessLog,
    ProcessSummary,
    ProcessTree,
    RunTree,
    Samples,
    SummedModule,
    WhyChain,
    WhyHop,
)

ROUNDING_US = 1  # values are truncated to whole µs: Σ parts may differ by ~1 µs per child


# ---------------------------------------------------------------------------- rows → trees
def build_process_tree(proc: ProcessLog) -> tuple[ProcessTree, list[str]]:
    """Post-order rows → a forest. Returns the tree and anomalies (rows whose nesting does not
    fit: concurrent processes interleaving, or lost lines)."""
    pending: list[ImportNode] = []
    cached = []
    anomalies: list[str] = []
    for row in proc.rows:
        if row.cached:
            cached.append(row)
            continue
        d = row.depth or 0
        if pending and pending[-1].depth > d:
            i = len(pending) - 1
            while i > 0 and pending[i - 1].depth > d:
                i -= 1
            kids = pending[i:]
            del pending[i:]
            total = row.self_us or 0
            want = d + 1
            for k in kids:
                total += k.cumulative_us
                if k.depth != want:
                    want = -1
            if want == -1:
                anomalies.append(f"line {row.line}: {row.name} has children more than one level deeper")
            if (row.cumulative_us or 0) + ROUNDING_US * (len(kids) + 1) < total:
                anomalies.append(f"line {row.line}: {row.name}'s cumulative is less than its self + children")
            pending.append(ImportNode(row.name, row.self_us or 0, row.cumulative_us or 0, d, kids))
        else:
            pending.append(ImportNode(row.name, row.self_us or 0, row.cumulative_us or 0, d, []))
    if any(n.depth > 0 for n in pending):
        anomalies.append(f"{sum(1 for n in pending if n.depth > 0)} import(s) never finished (cut log or interleaved processes)")
    return ProcessTree(tuple(pending), tuple(cached)), anomalies


def build_run_tree(log: ParsedLog) -> tuple[RunTree, list[str]]:
    procs = []
    anomalies = []
    for p in log.processes:
        tree, found = build_process_tree(p)
        procs.append(tree)
        anomalies.append(found)
    return RunTree(tuple(procs)), _run_notes(anomalies)


# ---------------------------------------------------------------------------- aggregation
def _median(xs: Sequence[int]) -> int:
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid] + 1) // 2


def mad_us(xs: Sequence[int]) -> int:
    """Median absolute deviation, µs (0 with fewer than 2 values)."""
    if len(xs) < 2:
        return 0
    m = _median(xs)
    return _median([abs(x - m) for x in xs])




def _median_spread(xs: Sequence[int]) -> tuple[int, int]:
    """(_median(xs), mad_us(xs)) with one sort less."""
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    m = s[mid] if n % 2 else (s[mid - 1] + s[mid] + 1) // 2
    if n < 2:
        return m, 0
    d = sorted([x - m if x >= m else m - x for x in s])
    return m, (d[mid] if n % 2 else (d[mid - 1] + d[mid] + 1) // 2)


def aggregate_runs(runs: Sequence[RunTree]) -> tuple[tuple[ModuleRecord, ...], tuple[CachedRecord, ...], int, tuple[int, ...]]:
    """Runs → (modules in pre-order, cached, median total µs, per-run totals).

    A module is identified by (process, name, occurrence) — a module imported again after being
    dropped from sys.modules is a second occurrence. Its parent and depth are the most common
    across runs; values are medians over the runs that saw it; `runs_seen` < runs flags it."""
    folder = RunFolder()
    for run in runs:
        folder.add(run)
    return folder.result()


_FOUR_BYTES = (1 << 31) - 1  # the largest 4-byte sample (µs: 35 minutes)


class RunFolder:
    """aggregate_runs one run at a time: `add(run)` folds a run's values into per-module samples
    and keeps nothing else of it (a log of a thousand runs never holds a thousand trees);
    `add_columns` folds a one-process run given as columns with regular nesting, its layout
    (each row's module key and parent) worked out once for every run that has it; `result()` is
    aggregate_runs of the runs added. The samples are machine integers (model Samples)."""

    NONE = Samples._NONE

    def __init__(self) -> None:
        self.code = "i"  # samples as 4-byte integers; all widened to 8 bytes at the first past _FOUR_BYTES
        # key → [first (run, position), self per run, cumulative per run, {parent key: count}]
        self.acc: dict[tuple, list] = {}
        self.cached_hits: dict[tuple[int, str], list] = {}
        self.cached_depth: dict[tuple[int, str], int | None] = {}
        self.totals: list[int] = []
        # (depths, names) → [[(row, entry, parent key)], runs, the last run, rows, their self and cumulative appends]
        self.layouts: dict[tuple, list] = {}

    def _pad(self, a: list, r: int) -> None:
        """Fill a module's self and cumulative samples up to run `r` with NONE (the runs it was
        not seen in)."""
        if len(a[1]) < r:
            gap = array(self.code, [self.NONE]) * (r - len(a[1]))
            a[1].extend(gap)
            a[2].extend(gap)

    def _entry(self, key: tuple, r: int, pos: int) -> list:
        a = self.acc.get(key)
        if a is None:
            a = self.acc[key] = [(r, pos), array(self.code, [self.NONE]) * r, array(self.code, [self.NONE]) * r, {}]
        else:  # not seen in the runs between
            self._pad(a, r)
        return a

    def _widen(self) -> None:
        """Every sample as an 8-byte integer from now on (a value past 4 bytes came)."""
        self.code = "q"
        for a in self.acc.values():
            a[1], a[2] = array("q", a[1]), array("q", a[2])
        for layout in self.layouts.values():
            layout[4] = [a[1].append for _, a, _ in layout[0]]
            layout[5] = [a[2].append for _, a, _ in layout[0]]

    def add(self, run: RunTree) -> None:
        cached_hits, cached_depth = self.cached_hits, self.cached_depth
        r = len(self.totals)
        self.totals.append(sum(p.total_us for p in run.processes))
        entry = self._entry
        pos = 0
        for p, proc in enumerate(run.processes):
            occ: dict[str, int] = {}
            stack: list = [(root, None) for root in reversed(proc.roots)]
            pop, extend = stack.pop, stack.extend
            while stack:
                node, parent_key = pop()
                name = node.name
                o = occ.get(name, 0)
                occ[name] = o + 1
                key = (p, name, o)
                a = entry(key, r, pos)
                try:
                    a[1].append(node.self_us)
                    a[2].append(node.cumulative_us)
                except OverflowError:  # past 4-byte samples: a[1]/a[2] are the 8-byte arrays after
                    self._widen()
                    if len(a[1]) == r:
                        a[1].append(node.self_us)
                    a[2].append(node.cumulative_us)
                parents = a[3]
                parents[parent_key] = parents.get(parent_key, 0) + 1
                pos += 1
                if node.children:
                    extend([(c, key) for c in reversed(node.children)])
            for row in proc.cached:
                k = (p, row.name)
                hits = cached_hits.get(k)
                if hits is None:
                    hits = cached_hits[k] = [0] * r
                    cached_depth[k] = row.depth
                if len(hits) <= r:
                    hits.extend([0] * (r + 1 - len(hits)))
                hits[r] += 1

    def add_columns(self, names: Sequence[str], selfs: Sequence[int], cums: Sequence[int], shape: tuple) -> None:
        """One run of one process whose rows nest regularly (no cached rows): post-order
        columns and their _stream_shape."""
        if self.code != "q" and max(max(selfs), max(cums)) > _FOUR_BYTES:
            self._widen()
        depths, order, _, roots, _, parent_of = shape
        r = len(self.totals)
        self.totals.append(sum(map(cums.__getitem__, roots)))
        lk = (depths, names)
        layout = self.layouts.get(lk)
        if layout is None:
            keys: list = [None] * len(names)
            occ: dict[str, int] = {}
            for j in order:
                name = names[j]
                o = occ.get(name, 0)
                occ[name] = o + 1
                keys[j] = (0, name, o)
            rows = []
            for pos, j in enumerate(order):
                pj = parent_of.get(j)
                pkey = None if pj is None else keys[pj]
                a = self._entry(keys[j], r, pos)
                a[3].setdefault(pkey, 0)  # counted in result(), in the order first seen
                rows.append((j, a, pkey))
            layout = self.layouts[lk] = [rows, 0, -1, [j for j, _, _ in rows], [a[1].append for _, a, _ in rows], [a[2].append for _, a, _ in rows]]
        layout[1] += 1
        if layout[2] != r - 1:  # a run of another layout came between: pad what it did not see
            pad = self._pad
            for _, a, _ in layout[0]:
                if len(a[1]) < r:
                    pad(a, r)
        layout[2] = r
        for add, v in zip(layout[4], map(selfs.__getitem__, layout[3])):
            add(v)
        for add, v in zip(layout[5], map(cums.__getitem__, layout[3])):
            add(v)

    def result(self) -> tuple[tuple[ModuleRecord, ...], tuple[CachedRecord, ...], int, tuple[int, ...]]:
        acc, totals = self.acc, self.totals
        n = len(totals)
        none = self.NONE
        for rows, runs, *_ in self.layouts.values():
            for _, a, pkey in rows:
                a[3][pkey] += runs
        for a in acc.values():
            self._pad(a, n)
        children: dict[tuple | None, list[tuple]] = {}
        for key, a in acc.items():
            parents = a[3]
            parent = next(iter(parents)) if len(parents) == 1 else max(parents, key=parents.__getitem__)
            if parent is not None and parent not in acc:
                parent = None
            children.setdefault(parent, []).append(key)
        for ks in children.values():
            if len(ks) > 1:
                ks.sort(key=lambda k: acc[k][0])
        out: list[ModuleRecord] = []
        seen: set = set()

        def emit(start: tuple, depth0: int, parent_name: str | None) -> None:
            stack = [(start, depth0, parent_name)]
            while stack:
                key, depth, pname = stack.pop()
                if key in seen:
                    continue
                seen.add(key)
                a = acc[key]
                s = [v for v in a[1] if v != none]
                c = [v for v in a[2] if v != none]
                out.append(
                    ModuleRecord(
                        name=key[1],
                        self_us=_median(s),
                        cumulative_us=_median(c),
                        parent=pname,
                        depth=depth,
                        process=key[0],
                        runs_seen=len(s),
                        self_us_runs=Samples(a[1]),
                        cumulative_us_runs=Samples(a[2]),
                        self_us_spread=mad_us(s),
                        cumulative_us_spread=mad_us(c),
                    )
                )
                for ch in reversed(children.get(key, ())):
                    stack.append((ch, depth + 1, key[1]))

        roots = sorted(children.get(None, ()), key=lambda k: (k[0], acc[k][0]))
        for k in roots:
            emit(k, 0, None)
        for k in sorted(acc, key=lambda k: (k[0], acc[k][0])):  # cycles (parents disagreeing across runs)
            if k not in seen:
                emit(k, 0, None)
        out.sort(key=lambda m: m.process)  # stable: pre-order kept inside each process
        cached = []
        for (p, name), hits in self.cached_hits.items():
            if len(hits) < n:
                hits.extend([0] * (n - len(hits)))
            cached.append(CachedRecord(name, p, _median([h for h in hits if h]) if any(hits) else 0, self.cached_depth.get((p, name))))
        return tuple(out), tuple(cached), (_median(totals) if totals else 0), tuple(totals)


def _run_notes(anomalies_per_process: Sequence[list[str]]) -> list[str]:
    """build_run_tree's notes from each process's anomalies (one wording for both paths)."""
    notes = []
    last_i = len(anomalies_per_process) - 1
    for i, anomalies in enumerate(anomalies_per_process):
        if anomalies:
            what = "the log is cut" if i == last_i and len(anomalies) == 1 and "never finished" in anomalies[0] else "processes overlap"
            notes.append(f"process {i}: {what}: {anomalies[0]}" + (f" (+{len(anomalies) - 1} more)" if len(anomalies) > 1 else ""))
    return notes


def _shape_of(depths: Sequence[int]) -> tuple[list[int], dict[int, list[int]], list[int], bool]:
    """Post-order depths → (pre-order row indices, children per parent row, root rows, whether
    the nesting is regular: children exactly one level deeper, every import finished) — the
    same stack walk as build_process_tree, on indices."""
    pending: list[tuple[int, int]] = []
    kids: dict[int, list[int]] = {}
    regular = True
    for j, d in enumerate(depths):
        if pending and pending[-1][0] > d:
            i = len(pending) - 1
            while i > 0 and pending[i - 1][0] > d:
                i -= 1
            ks = pending[i:]
            del pending[i:]
            if any(kd != d + 1 for kd, _ in ks):
                regular = False
            kids[j] = [k for _, k in ks]
        pending.append((d, j))
    if any(d > 0 for d, _ in pending):
        regular = False
    roots = [j for _, j in pending]
    order: list[int] = []
    stack = roots[::-1]
    while stack:
        j = stack.pop()
        order.append(j)
        ks = kids.get(j)
        if ks:
            stack.extend(ks[::-1])
    return order, kids, roots, regular


def _aggregate_by_columns(logs: Sequence[ParsedLog]):
    """aggregate_logs process by process: a process that printed the same names at the same
    depths in every run, with regular nesting (the usual case: the same program run N times),
    is aggregated column by column; any other process through per-run trees of that process
    alone (a cut or interleaved one). Returns exactly what aggregate_logs_by_trees returns, or
    None when it cannot (runs with different numbers of processes, 3.14 cached rows)."""
    ref = logs[0].processes
    if not ref or any(len(log.processes) != len(ref) for log in logs):
        return None
    if any(p.columns is None for log in logs for p in log.processes):
        return None
    n = len(logs)
    plans = []
    shapes: dict[tuple, tuple] = {}  # depths → _stream_shape(depths): a log of many processes of one program has few shapes
    for p, proc in enumerate(ref):
        cols = proc.columns
        if all(log.processes[p] is proc or log.processes[p].same_shape(proc) for log in logs):
            depths = tuple(cols[3])
            shape = shapes.get(depths)
            if shape is None:
                shape = shapes[depths] = _stream_shape(depths)
            if shape[4]:  # regular nesting
                plans.append((cols, shape))
                continue
        plans.append(None)  # per-run trees of this process
    anomalies = [[None] * len(ref) for _ in range(n)]  # [run][process] → anomaly texts
    totals = [0] * n
    median_spread = _median_spread
    out: list[ModuleRecord] = []
    for p, plan in enumerate(plans):
        if plan is None:
            trees = []
            for r, log in enumerate(logs):
                tree, found = build_process_tree(log.processes[p])
                trees.append(RunTree((tree,)))
                anomalies[r][p] = found
                totals[r] += tree.total_us
            mods = aggregate_runs(trees)[0]
            out.extend(m if p == 0 else replace(m, process=p) for m in mods)
            continue
        cols, shape = plan
        _, order, _, roots, _, parent_of = shape
        for r, log in enumerate(logs):
            names, selfs, cums, _, lines = log.processes[p].columns
            anomalies[r][p] = _column_anomalies(shape, names, selfs, cums, lines)
            totals[r] += sum(map(cums.__getitem__, roots))
        names, _, _, depths, _ = cols
        self_cols = list(zip(*[log.processes[p].columns[1] for log in logs]))
        cum_cols = list(zip(*[log.processes[p].columns[2] for log in logs]))
        for j in order:
            s, c = self_cols[j], cum_cols[j]
            pj = parent_of.get(j)
            sm, ss = median_spread(s)
            cm, cs = median_spread(c)
            out.append(ModuleRecord(names[j], sm, cm, None if pj is None else names[pj], depths[j], p, n, s, c, ss, cs))
    warnings: list[str] = []
    for r, log in enumerate(logs):
        prefix = f"run {r + 1}: " if n > 1 else ""
        warnings.extend(prefix + w for w in (*log.warnings, *_run_notes(anomalies[r])))
    return tuple(out), (), _median(totals), tuple(totals), len(ref), warnings


def aggregate_process_stream(processes: Iterable, log_warnings: Sequence[str] = ()) -> tuple[Sequence[ModuleRecord], tuple[CachedRecord, ...], int, tuple[int, ...], int, list[str]]:
    """aggregate_logs of one log (one run) whose processes come one at a time, each folded as
    it comes and dropped: the log's text and rows are never held whole. A process is a
    ProcessLog (parse.importtime.iter_log_processes) or, from a clean log, its columns
    (parse.importtime.iter_clean_processes: header line, names, self_us, cumulative_us,
    indents). `log_warnings`: the parser's, read once the processes are all read. Exactly
    aggregate_logs([that log]) (tested on the real logs): a process with regular nesting is
    kept as columns (ModuleColumns: its self and cumulative µs, its names and nesting shared
    with every process laid out the same way, each layout worked out once), any other as the
    records of its tree. The modules of one process come as a tuple of records; of several,
    as a ModuleColumns."""
    blocks: list = []
    cached: list[CachedRecord] = []
    columns_of = _StreamedProcesses()
    layouts: dict[tuple, ProcessLayout] = {}  # (shape, names) → the layout of the processes that have both
    anomalies: dict[int, list[str]] = {}  # process → its anomaly texts (the processes with any)
    total = 0
    count = 0
    for p, item in enumerate(processes):
        count += 1
        cols, shape = columns_of(item)
        if shape is None or not shape[4]:  # cached rows, or a cut or interleaved process: through its tree
            tree, found = build_process_tree(columns_of.process(item, cols, shape))
            total += tree.total_us
            mods, cached_p, _, _ = aggregate_runs([RunTree((tree,))])
            blocks.append(tuple(m if p == 0 else replace(m, process=p) for m in mods))
            cached.extend(c if p == 0 else replace(c, process=p) for c in cached_p)
        else:
            names, selfs, cums, lines = cols
            depths, order, kids, roots, _, parent_of = shape
            found = _column_anomalies(shape, names, selfs, cums, lines)
            total += sum(map(cums.__getitem__, roots))
            key = (id(shape), names if isinstance(names, tuple) else tuple(names))
            layout = layouts.get(key)
            if layout is None:
                get = parent_of.get
                layout = layouts[key] = ProcessLayout(
                    tuple([names[j] for j in order]),
                    tuple([None if get(j) is None else names[get(j)] for j in order]),
                    tuple([depths[j] for j in order]),
                )
            blocks.append(ColumnBlock(layout, p, _packed(map(selfs.__getitem__, order)), _packed(map(cums.__getitem__, order))))
        if found:
            anomalies[p] = found
    warnings = [*log_warnings, *_run_notes([anomalies.get(p, ()) for p in range(count)])]
    modules = ModuleColumns(blocks)
    return (modules if count > 1 else tuple(modules)), tuple(cached), total, (total,), count, warnings


def _packed(values: Iterable[int]) -> array:
    """µs as 4-byte machine integers (up to 71 minutes), 8-byte ones past that."""
    values = list(values)
    try:
        return array("I", values)
    except OverflowError:
        return array("q", values)


def aggregate_run_stream(processes: Iterable, log_warnings: Sequence[str] = ()) -> tuple[tuple[ModuleRecord, ...], tuple[CachedRecord, ...], int, tuple[int, ...], int, list[str], int]:
    """A log whose every header starts a run of the same program (a loop's runs saved to one
    file), its processes coming one at a time (as aggregate_process_stream takes them): each is
    folded into per-module samples and dropped (RunFolder), so memory holds one run's rows and
    the samples, never the runs. aggregate_logs of one single-process log per run, and the
    run count (tested against it on the real logs)."""
    folder = RunFolder()
    found_in: list[tuple[int, list[str]]] = []  # (run, its anomalies) for the runs with any
    columns_of = _StreamedProcesses()
    for r, item in enumerate(processes, 1):
        cols, shape = columns_of(item)
        if shape is not None and shape[4]:
            names, selfs, cums, lines = cols
            found = _column_anomalies(shape, names, selfs, cums, lines)
            folder.add_columns(names, selfs, cums, shape)
        else:  # cached rows, or a cut or interleaved process: through its tree
            tree, found = build_process_tree(columns_of.process(item, cols, shape))
            folder.add(RunTree((tree,)))
        if found:
            found_in.append((r, found))
    runs = len(folder.totals)
    notes = [(f"run {r}: " if runs > 1 else "") + w for r, found in found_in for w in _run_notes([found])]
    modules, cached, total, totals = folder.result()
    return modules, cached, total, totals, (1 if runs else 0), [*log_warnings, *notes], runs


class _StreamedProcesses:
    """A streamed process — a ProcessLog, or a clean log's (header_line, names, self_us,
    cumulative_us, indents) — as its post-order columns (names, self_us, cumulative_us, lines)
    and their _stream_shape, each distinct nesting worked out once (a log of many processes of
    one program repeats it); (None, None) for a process with no columns (cached rows)."""

    def __init__(self) -> None:
        self.by_indents: dict[tuple, tuple] = {}
        self.by_depths: dict[tuple, tuple] = {}

    def __call__(self, item) -> tuple[tuple | None, tuple | None]:
        if not isinstance(item, ProcessLog):
            header_line, names, selfs, cums, indents = item
            shape = self.by_indents.get(indents)
            if shape is None:
                shape = self.by_indents[indents] = _stream_shape(tuple([len(i) // 2 for i in indents]))
            return (names, selfs, cums, range(header_line + 1, header_line + 1 + len(names))), shape
        cols = item.columns
        if cols is None:
            return None, None
        names, selfs, cums, depths, lines = cols
        shape = self.by_depths.get(depths)
        if shape is None:
            shape = self.by_depths[depths] = _stream_shape(depths)
        return (names, selfs, cums, lines), shape

    @staticmethod
    def process(item, cols: tuple | None, shape: tuple | None) -> ProcessLog:
        """The item as a ProcessLog (for the tree path)."""
        if isinstance(item, ProcessLog):
            return item
        names, selfs, cums, lines = cols
        return ProcessLog(header_line=item[0], columns=(names, selfs, cums, shape[0], lines))


def _column_anomalies(shape: tuple, names, selfs, cums, lines) -> list[str]:
    """build_process_tree's anomalies of a process with regular nesting, from its columns."""
    found = []
    for j, ks in shape[2].items():  # post-order, as build_process_tree reports them
        if cums[j] + ROUNDING_US * (len(ks) + 1) < selfs[j] + sum(map(cums.__getitem__, ks)):
            found.append(f"line {lines[j]}: {names[j]}'s cumulative is less than its self + children")
    return found


def _stream_shape(depths: tuple) -> tuple:
    """(depths, pre-order, children per row, roots, regular, parent row per row)."""
    order, kids, roots, regular = _shape_of(depths)
    return depths, order, kids, roots, regular, {k: j for j, ks in kids.items() for k in ks}


def aggregate_logs(logs: Sequence[ParsedLog]) -> tuple[tuple[ModuleRecord, ...], tuple[CachedRecord, ...], int, tuple[int, ...], int, list[str]]:
    """Parsed logs (one per run) → aggregate_runs(...) + process count + warnings.
    One log goes process by process (aggregate_process_stream); runs of one shape (the usual
    case) are aggregated column by column (_aggregate_by_columns), others through per-run
    trees; all give the same result (tested)."""
    if len(logs) == 1 and logs[0].processes:
        return aggregate_process_stream(logs[0].processes, logs[0].warnings)
    if logs:
        fast = _aggregate_by_columns(logs)
        if fast is not None:
            return fast
    return aggregate_logs_by_trees(logs)


def aggregate_logs_by_trees(logs: Sequence[ParsedLog]) -> tuple[tuple[ModuleRecord, ...], tuple[CachedRecord, ...], int, tuple[int, ...], int, list[str]]:
    """aggregate_logs through per-run trees: any logs (runs of different shapes, cached rows,
    irregular nesting)."""
    trees = []
    warnings: list[str] = []
    for i, log in enumerate(logs):
        tree, notes = build_run_tree(log)
        trees.append(tree)
        prefix = f"run {i + 1}: " if len(logs) > 1 else ""
        warnings.extend(prefix + w for w in (*log.warnings, *notes))
    counts = Counter(len(t.processes) for t in trees)
    if len(counts) > 1:
        warnings.append(f"runs started different numbers of Python processes: {dict(sorted(counts.items()))}")
    modules, cached, total, totals = aggregate_runs(trees)
    return modules, cached, total, totals, max(counts) if counts else 0, warnings


# ---------------------------------------------------------------------------- views
def parent_indices(modules: Sequence[ModuleRecord]) -> list[int | None]:
    """Index of each module's parent in the pre-order list (exact even when a name occurs
    twice in a process, e.g. a module imported again after leaving sys.modules)."""
    if isinstance(modules, ModuleColumns):
        segments = [depths for _, depths, _, _, _ in _process_segments(modules)]
    else:  # any records with a process and a depth (the report page reads saved documents' rows so)
        segments, process = [], object()
        for m in modules:
            if m.process != process:
                segments.append([])
                process = m.process
            segments[-1].append(m.depth)
    out: list[int | None] = []
    for depths in segments:
        start = len(out)
        out.extend(None if p is None else start + p for p in _parent_rows(depths))
    return out


def _parent_rows(depths: Sequence[int]) -> list[int | None]:
    """One process's pre-order depths → each row's parent row (None at the top): the nearest
    row before it that is less deep."""
    out: list[int | None] = []
    stack: list[int] = []
    for i, depth in enumerate(depths):
        while stack and depths[stack[-1]] >= depth:
            stack.pop()
        out.append(stack[-1] if stack and depth > 0 else None)
        stack.append(i)
    return out


def dotted_wrappers(modules: Sequence[ModuleRecord]) -> list[bool]:
    """True for the row of a dotted import (`import a.b`) that only wraps its package's import:
    `a/__init__` imported `a.b` itself, so the row that loaded `a.b` is nested below `a`, and
    the outer `a.b` row (self: a few µs) merely waited for `a`. Detected as a row of a dotted
    name with a descendant of the same name inside its package's row: an undotted name never
    wraps (a mypyc-compiled `black` 23.1 shows a 74 µs `black` row nested in the 400 ms one
    that loaded it: the outer row is the load)."""
    parents = parent_indices(modules)
    out = [False] * len(modules)
    for i, m in enumerate(modules):
        package = m.name.rpartition(".")[0]
        if not package:
            continue
        j, inside_package = parents[i], False
        while j is not None:
            if modules[j].name == m.name and inside_package:
                out[j] = True
            inside_package = inside_package or modules[j].name == package
            j = parents[j]
    return out


def identity_keys(modules: Sequence[ModuleRecord]) -> list[tuple[int, str, str, int]]:
    """(process, name, role, ordinal) per module: the identity used to pair modules of two
    reports (diff). role is "wrapper" for a dotted import's outer row (dotted_wrappers) and
    "load" for a row that executed the module; ordinal counts rows of the same process, name
    and role in pre-order (a module imported again after leaving sys.modules). So the row
    that loaded `boto3.session` in `import boto3` pairs with the row that loaded it in
    `import boto3.session`, never with that import's wrapper row."""
    wrappers = dotted_wrappers(modules)
    seen: Counter = Counter()
    out = []
    for m, w in zip(modules, wrappers):
        k = (m.process, m.name, "wrapper" if w else "load")
        out.append((*k, seen[k]))
        seen[k] += 1
    return out


def filter_modules(modules: Sequence[ModuleRecord], prefix: str | None, keep_ancestors: bool = True) -> tuple[ModuleRecord, ...]:
    """Modules whose name starts with PREFIX (and, for the tree, their ancestors)."""
    if not prefix:
        return modules if isinstance(modules, (tuple, ModuleColumns)) else tuple(modules)
    parents = parent_indices(modules)
    keep: set[int] = set()
    for i, m in enumerate(modules):
        if m.name.startswith(prefix):
            j: int | None = i
            while j is not None and j not in keep:
                keep.add(j)
                j = parents[j] if keep_ancestors else None
    return tuple(m for i, m in enumerate(modules) if i in keep)


def top_modules(modules: Sequence[ModuleRecord], n: int, by: str = "self_us") -> tuple[ModuleRecord, ...]:
    """The `n` modules largest by `by`, ties by name, then in order. A ModuleColumns' rows are
    ranked from their columns and only the `n` kept are made."""
    if isinstance(modules, ModuleColumns) and by in ("self_us", "cumulative_us"):
        import heapq
        from itertools import count
        from operator import neg

        def keys():
            start = 0
            for _, depths, cums, record, block in _process_segments(modules):
                if block is not None:
                    values, names = (block.self_us if by == "self_us" else cums), block.layout.names
                else:
                    rows = [record(i) for i in range(len(depths))]
                    values, names = [getattr(m, by) for m in rows], [m.name for m in rows]
                yield from zip(map(neg, values), names, count(start))
                start += len(depths)

        return tuple(modules[k[2]] for k in heapq.nsmallest(max(n, 0), keys()))
    return tuple(sorted(modules, key=lambda m: (-getattr(m, by), m.name))[: max(n, 0)])


class TreeLine(NamedTuple):
    """A line of the tree view: a module, or a summary of children collapsed under min (a
    named tuple: a log of many processes makes a hundred thousand of them)."""

    depth: int
    module: ModuleRecord | None = None
    hidden_modules: int = 0
    hidden_us: int = 0  # Σ cumulative of the collapsed children
    process: int | None = None  # of a summary line (a module line: module.process)


def collapse_tree(modules: Sequence[ModuleRecord], min_us: int) -> Sequence[TreeLine]:
    """Pre-order modules → tree lines; a module below `min_us` cumulative (and its subtree) is
    folded into one summary line under its parent ("… N more, X ms"). Process by process: what
    is shown and what is folded where depends only on a process's nesting and which of its rows
    reach `min_us`, worked out once for every process of a layout that has the same (a
    ModuleColumns' processes); the lines themselves are made as they are read (TreeLines)."""
    parts = []  # per process: (process, depths, cums, record of a row, its fold plan)
    for process, depths, cums, record, block in _process_segments(modules):
        if block is not None:
            memo = block.layout.memo
            key = ("fold", min_us, bytes([c >= min_us for c in cums]))
            plan = memo.get(key)
            if plan is None:
                plan = memo[key] = _fold_plan(depths, cums, min_us)
        else:
            plan = _fold_plan(depths, cums, min_us)
        parts.append((process, depths, cums, record, plan))
    return TreeLines(sum(len(plan[0]) + len(plan[1]) for *_, plan in parts), _tree_lines(parts))


def _process_segments(modules: Sequence[ModuleRecord]):
    """(process, depths, cumulative µs, row → its ModuleRecord, its ColumnBlock or None) per
    process, in order: a ModuleColumns' blocks as they are, any other sequence cut where the
    process changes."""
    if isinstance(modules, ModuleColumns):
        for b in modules.blocks:
            if isinstance(b, ColumnBlock):
                yield b.process, b.layout.depths, b.cumulative_us, b.record, b
            else:
                yield from _process_segments(b)
        return
    n = len(modules)
    start = 0
    while start < n:
        process = modules[start].process
        end = start + 1
        while end < n and modules[end].process == process:
            end += 1
        part = modules[start:end] if start or end < n else modules
        yield process, [m.depth for m in part], [m.cumulative_us for m in part], part.__getitem__, None
        start = end


def _fold_plan(depth: Sequence[int], cums: Sequence[int], min_us: int) -> tuple[list[int], dict]:
    """One process's rows → (the rows shown, {owner: [rows folded, the folded subtrees' top
    rows]}), the owner a shown row, or None for the rows folded at the top. One walk: a row
    under min_us is folded with its whole subtree (the rows after it that are deeper), skipped
    at once; so a row's parent is always a shown row."""
    folds: dict = {}
    shown: list[int] = []
    stack: list[int] = []  # the shown ancestors of the current row (parent_indices' stack walk)
    n = len(depth)
    i = 0
    while i < n:
        d = depth[i]
        while stack and depth[stack[-1]] >= d:
            stack.pop()
        if cums[i] >= min_us:
            shown.append(i)
            stack.append(i)
            i += 1
            continue
        owner = stack[-1] if stack and d > 0 else None
        f = folds.get(owner)
        if f is None:
            f = folds[owner] = [0, []]
        f[1].append(i)
        j = i + 1
        while j < n and depth[j] > d:
            j += 1
        f[0] += j - i
        i = j
    return shown, folds


class TreeLines(SequenceABC):
    """collapse_tree's lines, made as they are read: the length is known from the folding, so a
    table that shows the first 400 of a log's 275,000 lines makes 400 of them."""

    def __init__(self, n: int, lines: Iterable[TreeLine]) -> None:
        self._made: list[TreeLine] = []
        self._n = n
        self._next = iter(lines)

    def __len__(self) -> int:
        return self._n

    def _make(self, k: int) -> None:
        made, nxt = self._made, self._next
        while len(made) < k:
            line = next(nxt, None)
            if line is None:
                break
            made.append(line)

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(self._n)
            self._make(stop if step > 0 else self._n)
            return self._made[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("tree line index out of range")
        self._make(i + 1)
        return self._made[i]

    def __iter__(self):
        i = 0
        while i < self._n:
            self._make(i + 1)
            yield self._made[i]
            i += 1


def _tree_lines(parts: list):
    """The lines in order: per process, each shown row, the summary of its folded children
    after its subtree, and the process's folded top-level rows after its last row; then the
    processes whose every row was folded, by process."""
    folded_whole = []
    for part in parts:
        if part[4][0]:
            yield from _process_lines(*part)
        else:
            folded_whole.append(part)
    for part in sorted(folded_whole, key=lambda part: part[0]):
        yield from _process_lines(*part)


def _process_lines(process: int, depths, cums, record, plan):
    shown, folds = plan

    def summary(owner, depth: int) -> TreeLine | None:
        f = folds.get(owner)
        return TreeLine(depth, None, f[0], sum(map(cums.__getitem__, f[1])), process) if f else None

    stack: list[tuple[int, int]] = []
    for i in shown:
        d = depths[i]
        while stack and stack[-1][0] >= d:
            dk, k = stack.pop()
            line = summary(k, dk + 1)
            if line:
                yield line
        yield TreeLine(d, record(i))
        stack.append((d, i))
    while stack:
        dk, k = stack.pop()
        line = summary(k, dk + 1)
        if line:
            yield line
    line = summary(None, 0)
    if line:
        yield line


def group_modules(modules: Sequence[ModuleRecord], key_of: Callable[[ModuleRecord], str]) -> tuple[GroupRecord, ...]:
    """Σ self per group; cumulative counts members whose parent is outside the group (so a
    package's import is counted once). Sorted by cumulative, largest first."""
    groups: dict[str, list[int]] = {}
    gkey = [key_of(m) for m in modules]
    parents = parent_indices(modules)
    for i, m in enumerate(modules):
        g = gkey[i]
        acc = groups.setdefault(g, [0, 0, 0])
        acc[0] += m.self_us
        acc[2] += 1
        p = parents[i]
        if p is None or gkey[p] != g:
            acc[1] += m.cumulative_us
    out = [GroupRecord(g, v[0], v[1], v[2]) for g, v in groups.items()]
    return tuple(sorted(out, key=lambda g: (-g.cumulative_us, g.name)))


def package_of(m: ModuleRecord) -> str:
    return m.name.partition(".")[0]


def extra_of(field_name: str, fallback: str = "unknown") -> Callable[[ModuleRecord], str]:
    def key(m: ModuleRecord) -> str:
        return str(m.extra.get(field_name) or fallback)

    return key


def annotate_modules(modules: Sequence[ModuleRecord], facts: Mapping[str, Mapping]) -> tuple[ModuleRecord, ...]:
    """Merge per-name facts (e.g. {"kind": ..., "distribution": ...}) into each record's extra."""
    out = []
    for m in modules:
        f = facts.get(m.name)
        out.append(replace(m, extra={**m.extra, **f}) if f else m)
    return tuple(out)


# ---------------------------------------------------------------------------- timeline
@dataclass(frozen=True)
class Span:
    process: int
    name: str
    start_us: int
    dur_us: int
    depth: int
    self_us: int


def lay_out_timeline(modules: Sequence[ModuleRecord]) -> list[Span]:
    """Medians → a nested timeline per process (for speedscope/chrome), in pre-order: roots
    one after the other from 0, children one after the other from their parent's start, the
    parent's own time after them. A parent lasts max(its cumulative, its children's spans):
    medians of parts need not add up to the median of the whole."""
    parents = parent_indices(modules)
    kids: dict[int | None, list[int]] = {}
    roots: dict[int, list[int]] = {}
    for i, m in enumerate(modules):
        if parents[i] is None:
            roots.setdefault(m.process, []).append(i)
        else:
            kids.setdefault(parents[i], []).append(i)
    spans: list[Span] = []
    for proc in sorted(roots):
        t = 0
        for r in roots[proc]:
            t += _place(modules, r, t, kids, spans)
    return spans


def _place(modules, root: int, start: int, kids, spans: list[Span]) -> int:
    """Lay out `root`'s subtree from `start`; returns its duration. Iterative: a chain of
    imports can be thousands deep (a recursion would exhaust the stack)."""
    done = object()

    def enter(i: int, at: int) -> list:
        m = modules[i]
        spans.append(Span(m.process, m.name, at, 0, m.depth, m.self_us))
        return [i, len(spans) - 1, at, at, iter(kids.get(i, ()))]  # module, its span, start, time so far, children

    stack = [enter(root, start)]
    while True:
        frame = stack[-1]
        c = next(frame[4], done)
        if c is not done:
            stack.append(enter(c, frame[3]))
            continue
        i, idx, at, t, _ = stack.pop()
        dur = max(modules[i].cumulative_us, t - at)
        spans[idx] = replace(spans[idx], dur_us=dur)
        if not stack:
            return dur
        stack[-1][3] += dur


class TimelineBlock(NamedTuple):
    """One process of lay_out_timeline as columns (timeline_blocks): its rows' names, depths
    and self µs in pre-order, `layout` the ProcessLayout it shares with the processes laid out
    alike (None for a process kept as records), and its spans' starts and durations, worked
    out when `spans()` is called."""

    process: int
    layout: ProcessLayout | None
    names: Sequence[str]
    depths: Sequence[int]
    selfs: Sequence[int]
    cums: Sequence[int]
    placed: tuple | None = None  # (starts, durations) already known (a process laid out by lay_out_timeline)

    def spans(self) -> tuple[list[int], list[int]]:
        """(start µs, duration µs) of each row, as lay_out_timeline places them."""
        if self.placed is not None:
            return self.placed
        return _place_columns(self.depths, self.cums, self.layout)


def timeline_blocks(modules: Sequence[ModuleRecord]) -> Iterable[TimelineBlock]:
    """lay_out_timeline process by process, in its order (processes by number, rows in
    pre-order), as columns: a renderer writes a process's spans from its columns, and the rows
    of the processes laid out alike (a ModuleColumns') through what it made once for their
    layout. Exactly lay_out_timeline's spans (tested). Processes that come in more than one
    place, or out of order (a saved report edited by hand), are laid out by lay_out_timeline."""
    segments = list(_process_segments(modules))
    if any(b[0] <= a[0] for a, b in zip(segments, segments[1:])):
        yield from _timeline_by_spans(modules)
        return
    for process, depths, cums, record, block in segments:
        if block is not None:
            lay = block.layout
            yield TimelineBlock(process, lay, lay.names, depths, block.self_us, cums)
        else:
            rows = [record(i) for i in range(len(depths))]
            yield TimelineBlock(process, None, [m.name for m in rows], depths, [m.self_us for m in rows], cums)


def _timeline_by_spans(modules: Sequence[ModuleRecord]) -> Iterable[TimelineBlock]:
    by_proc: dict[int, list[Span]] = {}
    for span in lay_out_timeline(modules):
        by_proc.setdefault(span.process, []).append(span)
    for proc in sorted(by_proc):
        spans = by_proc[proc]
        yield TimelineBlock(proc, None, [s.name for s in spans], [s.depth for s in spans], [s.self_us for s in spans],
                            [], ([s.start_us for s in spans], [s.dur_us for s in spans]))


def _place_columns(depths: Sequence[int], cums: Sequence[int], layout: ProcessLayout | None) -> tuple[list[int], list[int]]:
    """One process's rows (pre-order) → (starts, durations) as _place lays them out: a row
    lasts max(its cumulative, Σ its children's durations); roots one after the other from 0,
    children one after the other from their parent's start. Two passes over the rows, no tree."""
    parents = layout.memo.get("parent_rows") if layout is not None else None
    if parents is None:
        n = len(depths)
        parents = [n if p is None else p for p in _parent_rows(depths)]  # n: the process itself
        if layout is not None:
            layout.memo["parent_rows"] = parents
    n = len(parents)
    durs = list(cums)
    below = [0] * (n + 1)  # Σ durations of each row's children
    for i in range(n - 1, -1, -1):
        d = durs[i]
        b = below[i]
        if b > d:
            durs[i] = d = b
        below[parents[i]] += d
    starts = [0] * n
    free = [0] * (n + 1)  # where each row's next child starts
    for i, p in enumerate(parents):
        t = free[p]
        starts[i] = t
        free[i] = t
        free[p] = t + durs[i]
    return starts, durs


def stack_blocks(modules: Sequence[ModuleRecord]) -> Iterable[tuple[int, ProcessLayout | None, list[tuple[str, ...]], Sequence[int]]]:
    """stacks() process by process: (process, its layout or None, each row's stack from its
    root, each row's self µs); a layout's stacks made once for every process laid out alike."""
    for process, depths, _, record, block in _process_segments(modules):
        if block is not None:
            memo = block.layout.memo
            paths = memo.get("stacks")
            if paths is None:
                paths = memo["stacks"] = _stack_paths(block.layout.names, depths)
            yield process, block.layout, paths, block.self_us
        else:
            rows = [record(i) for i in range(len(depths))]
            yield process, None, _stack_paths([m.name for m in rows], depths), [m.self_us for m in rows]


def stacks(modules: Sequence[ModuleRecord]) -> Iterable[tuple[tuple[str, ...], int, int]]:
    """(stack from root, self µs, process) per module, pre-order, made as they are read:
    process by process, the stacks of a ModuleColumns' layout made once for every process laid
    out alike."""
    from itertools import repeat

    for process, _, paths, self_us in stack_blocks(modules):
        yield from zip(paths, self_us, repeat(process))


def _stack_paths(names: Sequence[str], depths: Sequence[int]) -> list[tuple[str, ...]]:
    """One process's rows → each row's stack from its root."""
    paths: list[tuple[str, ...]] = []
    for name, p in zip(names, _parent_rows(depths)):
        paths.append((() if p is None else paths[p]) + (name,))
    return paths


# ---------------------------------------------------------------------------- why
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


# ---------------------------------------------------------------------------- failed imports
def mark_failed(modules: Sequence[ModuleRecord], outcomes: Sequence[tuple[str, bool]], process: int = 0) -> tuple[ModuleRecord, ...]:
    """Set `extra["failed"]` on the modules of `process` from an instrumented run's import
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
    seen: Counter = Counter()
    out = []
    for m in modules:
        if m.process != process:
            out.append(m)
            continue
        got = by_name.get(m.name, ())
        k = seen[m.name]
        seen[m.name] += 1
        failed = got[k] if k < len(got) else (bool(got) and all(got))
        out.append(replace(m, extra={**m.extra, "failed": failed}))
    return tuple(out)


def is_failed(m: ModuleRecord) -> bool:
    return bool(m.extra.get("failed"))


FAILED_GROUP = "(failed imports)"


def unless_failed(key_of: Callable[[ModuleRecord], str]) -> Callable[[ModuleRecord], str]:
    """A group key that puts failed imports in their own group (never a package or kind)."""

    def key(m: ModuleRecord) -> str:
        return FAILED_GROUP if is_failed(m) else key_of(m)

    return key


def startup_names(modules: Sequence[ModuleRecord], process: int = 0) -> frozenset[str]:
    """The interpreter's own start-up imports in one process's -X importtime tree: every root
    up to and including `site` (with their subtrees: encodings, .pth imports, sitecustomize).
    Empty when there is no `site` root (-S): the caller adds what it knows otherwise."""
    names: list[str] = []
    in_site = False
    for m in modules:
        if m.process != process:
            continue
        if m.depth == 0:
            if in_site:
                return frozenset(names)
            in_site = m.name == "site"
        names.append(m.name)
    return frozenset(names) if in_site else frozenset()


def _chains_by_process(modules: ModuleColumns, module: str) -> tuple[WhyChain, ...] | None:
    """import_chains of a ModuleColumns process by process: a layout's rows of MODULE (or of its
    first submodule) and their parents found once for every process laid out alike, the hops
    made only for the chains. None when a process comes in more than one place."""
    segments = list(_process_segments(modules))
    if len({seg[0] for seg in segments}) != len(segments):
        return None
    found: dict = {}  # layout → (rows named MODULE, the first submodule row, parent rows)

    def rows_of(names, depths):
        exact = [j for j, name in enumerate(names) if name == module]
        first = None
        for j, name in enumerate(names):
            if name.startswith(module + ".") and (first is None or depths[j] < depths[first]):
                first = j
        return exact, first, _parent_rows(depths)

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


# ---------------------------------------------------------------------------- several processes
def sum_modules(modules: Sequence[ModuleRecord]) -> tuple[SummedModule, ...]:
    """Per module name across processes: in how many processes it was imported, Σ self and
    Σ cumulative of the per-process medians. A row nested in a row of the same name (the load
    below a dotted import's wrapper row) adds its self but not its cumulative (the outer row's
    cumulative holds it). Sorted by Σ cumulative, largest first. The processes of one layout
    (a ModuleColumns') are added column by column first, their rows then once."""
    acc: dict[str, list] = {}  # name → [processes, Σ self, Σ cumulative]
    by_layout: dict[int, list] = {}  # id(layout) → [layout, processes, Σ self per row, Σ cumulative per row]
    for process, depths, cums, record, block in _process_segments(modules):
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


def _add_rows(acc: dict[str, list], names, depths, selfs, cums, processes: int) -> None:
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
    for process, depths, cums, record, block in _process_segments(modules):
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
        out.append(ProcessSummary(p, first.argv, first.python, first.parent, wall, _median(sums[p]) if runs else 0))
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
