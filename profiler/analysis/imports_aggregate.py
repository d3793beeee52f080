"""Import timings aggregated: a log's rows → per-process trees → one record per module over the
runs (medians, per-run samples, spread), whether the runs come as parsed logs, one at a time
(RunFolder), or a saved log's processes as they are read (aggregate_process_stream,
aggregate_run_stream). Pure: no I/O. The views on the result are in imports_views.py."""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import replace
from typing import Iterable, Sequence

from profiler.model.import_columns import ColumnBlock, ModuleColumns, ProcessLayout
from profiler.model.import_records import CachedRecord, ModuleRecord, Samples
from profiler.model.import_tree import ImportNode, ParsedLog, ProcessLog, ProcessTree, RunTree
from profiler.model.imports_report import Aggregation

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
def median_us(xs: Sequence[int]) -> int:
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid] + 1) // 2


def mad_us(xs: Sequence[int]) -> int:
    """Median absolute deviation, µs (0 with fewer than 2 values)."""
    if len(xs) < 2:
        return 0
    m = median_us(xs)
    return median_us([abs(x - m) for x in xs])


def _median_spread(xs: Sequence[int]) -> tuple[int, int]:
    """(median_us(xs), mad_us(xs)) with one sort less."""
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    m = s[mid] if n % 2 else (s[mid - 1] + s[mid] + 1) // 2
    if n < 2:
        return m, 0
    d = sorted([x - m if x >= m else m - x for x in s])
    return m, (d[mid] if n % 2 else (d[mid - 1] + d[mid] + 1) // 2)


def aggregate_runs(runs: Sequence[RunTree], warnings: Sequence[str] = ()) -> Aggregation:
    """Runs → their Aggregation: modules in pre-order, cached rows, the median and per-run
    totals, the most processes a run had, `warnings` (the notes on the runs), the run count.

    A module is identified by (process, name, occurrence) — a module imported again after being
    dropped from sys.modules is a second occurrence. Its parent and depth are the most common
    across runs; values are medians over the runs that saw it; `runs_seen` < runs flags it."""
    folder = RunFolder()
    for run in runs:
        folder.add(run)
    return folder.result(warnings)


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
        self.processes = 0  # the most processes a run had
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
        self.processes = max(self.processes, len(run.processes))
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
        self.processes = max(self.processes, 1)
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

    def result(self, warnings: Sequence[str] = ()) -> Aggregation:
        """The Aggregation of the runs added, with `warnings` (the notes on them)."""
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
                        self_us=median_us(s),
                        cumulative_us=median_us(c),
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
            cached.append(CachedRecord(name, p, median_us([h for h in hits if h]) if any(hits) else 0, self.cached_depth.get((p, name))))
        return Aggregation(tuple(out), tuple(cached), median_us(totals) if totals else 0, tuple(totals), self.processes, tuple(warnings), n)


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
    alone (a cut or interleaved one). Returns exactly the Aggregation aggregate_logs_by_trees
    returns, or None when it cannot (runs with different numbers of processes, 3.14 cached rows)."""
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
            mods = aggregate_runs(trees).modules
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
    return Aggregation(tuple(out), (), median_us(totals), tuple(totals), len(ref), tuple(warnings), n)


def aggregate_process_stream(processes: Iterable, log_warnings: Sequence[str] = ()) -> Aggregation:
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
            one = aggregate_runs([RunTree((tree,))])
            blocks.append(tuple(m if p == 0 else replace(m, process=p) for m in one.modules))
            cached.extend(c if p == 0 else replace(c, process=p) for c in one.cached)
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
    warnings = (*log_warnings, *_run_notes([anomalies.get(p, ()) for p in range(count)]))
    modules = ModuleColumns(blocks)
    return Aggregation(modules if count > 1 else tuple(modules), tuple(cached), total, (total,), count, warnings, 1)


def _packed(values: Iterable[int]) -> array:
    """µs as 4-byte machine integers (up to 71 minutes), 8-byte ones past that."""
    values = list(values)
    try:
        return array("I", values)
    except OverflowError:
        return array("q", values)


def aggregate_run_stream(processes: Iterable, log_warnings: Sequence[str] = ()) -> Aggregation:
    """A log whose every header starts a run of the same program (a loop's runs saved to one
    file), its processes coming one at a time (as aggregate_process_stream takes them): each is
    folded into per-module samples and dropped (RunFolder), so memory holds one run's rows and
    the samples, never the runs. aggregate_logs of one single-process log per run (tested
    against it on the real logs)."""
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
    return folder.result((*log_warnings, *notes))


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


def aggregate_logs(logs: Sequence[ParsedLog]) -> Aggregation:
    """Parsed logs (one per run) → their Aggregation (the notes: the parser's and the nesting's).
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


def aggregate_logs_by_trees(logs: Sequence[ParsedLog]) -> Aggregation:
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
    return aggregate_runs(trees, warnings)
