"""The views on aggregated import records (pure; no I/O, no statistics): the tree folded under
--min-ms, the top N, a name filter, groups, the nesting (parents, dotted-import wrappers, the
identity diff pairs rows by), the timeline and the stacks. What a renderer may call lives here
and only here (tests/test_layers_imports.py): `show` re-draws a saved report with them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, replace
from typing import Callable, Iterable, NamedTuple, Sequence

from profiler.model.import_columns import ColumnBlock, ProcessLayout, module_blocks, records_of
from profiler.model.import_records import GroupRecord, ModuleRecord

# ---------------------------------------------------------------------------- the nesting, the tree, the top N
def parent_indices(modules: Sequence[ModuleRecord]) -> list[int | None]:
    """Index of each module's parent in the pre-order list (exact even when a name occurs
    twice in a process, e.g. a module imported again after leaving sys.modules)."""
    segments: list[Sequence[int]] = []
    for b in module_blocks(modules):
        if isinstance(b, ColumnBlock):
            segments.append(b.layout.depths)
            continue
        # any records with a process and a depth (the report page reads saved documents' rows so)
        process: object = object()
        depths: list[int] = []
        for m in b:
            if m.process != process:
                depths = []
                segments.append(depths)
                process = m.process
            depths.append(m.depth)
    out: list[int | None] = []
    for segment in segments:
        start = len(out)
        out.extend(None if p is None else start + p for p in parent_rows(segment))
    return out


def parent_rows(depths: Sequence[int]) -> list[int | None]:
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


def filter_modules(modules: Sequence[ModuleRecord], prefix: str | None, keep_ancestors: bool = True) -> Sequence[ModuleRecord]:
    """Modules whose name starts with PREFIX (and, for the tree, their ancestors)."""
    if not prefix:
        return records_of(modules)
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
    """The `n` modules largest by `by`, ties by name, then in order. A process kept as columns
    (model.import_columns.ColumnBlock) is ranked from its columns and only the `n` kept are made."""
    if by in ("self_us", "cumulative_us"):
        import heapq
        from itertools import count
        from operator import neg

        def keys():
            start = 0
            for _, depths, cums, record, block in process_segments(modules):
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
    for process, depths, cums, record, block in process_segments(modules):
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


def process_segments(modules: Sequence[ModuleRecord]):
    """(process, depths, cumulative µs, row → its ModuleRecord, its ColumnBlock or None) per
    process, in order: a block kept as columns as it is, the records of any other cut where the
    process changes (model.import_columns.module_blocks)."""
    for b in module_blocks(modules):
        if isinstance(b, ColumnBlock):
            yield b.process, b.layout.depths, b.cumulative_us, b.record, b
            continue
        n = len(b)
        start = 0
        while start < n:
            process = b[start].process
            end = start + 1
            while end < n and b[end].process == process:
                end += 1
            part = b[start:end] if start or end < n else b
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


# ---------------------------------------------------------------------------- groups
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


def extra_of(group: str, fallback: str = "unknown") -> Callable[[ModuleRecord], str]:
    """A module's group under `--group kind` or `distribution` (the key add_groups marked it
    with: model ModuleExtras), `fallback` where it has none."""
    read = {"kind": lambda m: m.kind, "distribution": lambda m: m.distribution}[group]

    def key(m: ModuleRecord) -> str:
        return str(read(m) or fallback)

    return key


FAILED_GROUP = "(failed imports)"


def unless_failed(key_of: Callable[[ModuleRecord], str]) -> Callable[[ModuleRecord], str]:
    """A group key that puts failed imports in their own group (never a package or kind)."""

    def key(m: ModuleRecord) -> str:
        return FAILED_GROUP if m.failed else key_of(m)

    return key


# ---------------------------------------------------------------------------- the interpreter's own start-up
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
    def enter(i: int, at: int) -> list:
        m = modules[i]
        spans.append(Span(m.process, m.name, at, 0, m.depth, m.self_us))
        return [i, len(spans) - 1, at, at, iter(kids.get(i, ()))]  # module, its span, start, time so far, children

    stack = [enter(root, start)]
    while True:
        frame = stack[-1]
        c = next(frame[4], None)  # a child's index, None past the last
        if c is not None:
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
    segments = list(process_segments(modules))
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
        parents = [n if p is None else p for p in parent_rows(depths)]  # n: the process itself
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
    for process, depths, _, record, block in process_segments(modules):
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
    for name, p in zip(names, parent_rows(depths)):
        paths.append((() if p is None else paths[p]) + (name,))
    return paths
