"""Two imports reports → what changed (pure). `diff_reports(a, a)` is empty."""

from __future__ import annotations

from typing import Sequence

from profiler.model.diff_report import ChangeColumns, DiffReport, DiffTotals
from profiler.model.import_columns import ColumnBlock
from profiler.model.import_records import ModuleRecord
from profiler.model.imports_report import ImportsReport

MIN_RUNS_FOR_SIGNIFICANCE = 3
SPREAD_FACTOR = 3  # a change is significant beyond this many (old + new) spreads (MAD, µs)
MIN_DELTA_US = 2
SMALL_DIFF = 4096  # more changes than this are kept as columns (model ChangeColumns), fewer as a tuple  # values are whole µs, truncated: two readings differ by < 2 µs for nothing


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


def diff_reports(old: ImportsReport, new: ImportsReport, old_path: str | None = None, new_path: str | None = None,
                 pairing: "ProcessPairing | None" = None, changes_made=ChangeColumns) -> DiffReport:
    """Modules are paired by identity (analysis.imports_views.identity_keys: process, name, and
    whether the row loaded the module or only wrapped a dotted import), never by name alone.
    Process by process (_paired_by_process): two processes laid out alike (a harness's reports:
    their ModuleColumns) are compared column by column, and only the rows that differ are made.
    `pairing`: the streaming_pairing the new report's processes were added to as it was read
    (its modules then left out of `new`). `changes_made`: what holds the changes as they come
    (model ChangeColumns, or compose.diff_spill.ChangeRuns, which spills them in sorted runs):
    appended or extended, then `settled()` (the changes the report gets) or `close()`d."""
    judge = old.runs >= MIN_RUNS_FOR_SIGNIFICANCE and new.runs >= MIN_RUNS_FOR_SIGNIFICANCE
    changes = changes_made()  # in the old report's order; read by impact

    def change(mo: ModuleRecord, mn: ModuleRecord, wrapper: bool, position: int) -> None:
        sig = None
        if judge:
            sig = is_significant(
                mo.cumulative_us, mn.cumulative_us, mo.cumulative_us_runs, mn.cumulative_us_runs, mo.cumulative_us_spread, mn.cumulative_us_spread
            ) or is_significant(mo.self_us, mn.self_us, mo.self_us_runs, mn.self_us_runs, mo.self_us_spread, mn.self_us_spread)
        changes.append(mo.name, mo.process, mo.self_us, mn.self_us, mo.cumulative_us, mn.cumulative_us, sig, wrapper, position)

    if pairing is not None:
        paired, changes = pairing.result(), pairing.columns
    else:
        paired = _paired_by_process(old.modules, new.modules, change, None if judge else changes)
    if paired is None:
        changes.close()
        changes = changes_made()
        paired = _paired_by_rows(old.modules, new.modules, change)
    added_rows, removed_rows, wrappers = paired
    added = tuple(m for *_, m in sorted(added_rows, key=lambda x: x[:3]))
    removed = tuple(m for *_, m in sorted(removed_rows, key=lambda x: x[:3]))
    changes = changes.settled()
    changed = changes if len(changes) > SMALL_DIFF else tuple(changes)
    delta = new.total_us - old.total_us
    significant = None
    if judge and old.total_us_runs and new.total_us_runs:
        from profiler.analysis.imports_aggregate import mad_us

        significant = is_significant(
            old.total_us, new.total_us, old.total_us_runs, new.total_us_runs, mad_us(old.total_us_runs), mad_us(new.total_us_runs)
        )
    by_modules: dict = {}
    if added or removed:  # deterministic evidence: the program imports other modules, whatever the times' spread
        by_modules = dict(modules_added=len(added), modules_removed=len(removed), times_significant=significant)
        significant = True
    totals = DiffTotals(old.total_us, new.total_us, delta, (100.0 * delta / old.total_us) if old.total_us else None, significant,
                        **by_modules)
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
        changed=changed,
        totals=totals,
        notes=tuple(notes),
    )


def _marked(m: ModuleRecord, wrapper: bool) -> ModuleRecord:
    return m.with_extra(wrapper=True) if wrapper else m


def _paired_by_rows(old_modules: Sequence[ModuleRecord], new_modules: Sequence[ModuleRecord], change):
    """(added, removed, any wrapper row): added and removed as ((-cumulative, name, row in its
    report), record); each changed pair goes to `change(old, new, wrapper)` in the old report's
    order: every row of both reports keyed by its identity."""
    from profiler.analysis.imports_views import identity_keys

    a = dict(zip(identity_keys(old_modules), enumerate(old_modules)))
    b = dict(zip(identity_keys(new_modules), enumerate(new_modules)))

    def only_in(x: dict, y: dict) -> list:
        return [((-m.cumulative_us, m.name, i), _marked(m, k[2] == "wrapper")) for k, (i, m) in x.items() if k not in y]

    for k, (i, mo) in a.items():
        got = b.get(k)
        if got is not None and (mo.self_us != got[1].self_us or mo.cumulative_us != got[1].cumulative_us):
            change(mo, got[1], k[2] == "wrapper", i)
    wrappers = any(k[2] == "wrapper" for k in (*a, *b))
    return only_in(b, a), only_in(a, b), wrappers


def _identities(rows, block) -> list[tuple[str, str, int]]:
    """(name, role, ordinal) of each row of one process (identity_keys without the process):
    worked out once per layout for the processes laid out alike."""
    from profiler.analysis.imports_views import identity_keys

    if block is not None:
        known = block.layout.memo.get("identity")
        if known is None:
            known = block.layout.memo["identity"] = [k[1:] for k in identity_keys([block.record(i) for i in range(len(block.self_us))])]
        return known
    return [k[1:] for k in identity_keys(rows)]


def _segments(modules: Sequence[ModuleRecord]) -> dict | None:
    """process → (its first row, its records or None, its ColumnBlock or None), in order; None
    when a process comes in more than one place."""
    from profiler.analysis.imports_views import process_segments as _process_segments

    out, start = {}, 0
    for process, depths, _, record, block in _process_segments(modules):
        if process in out:
            return None
        rows = None if block is not None else [record(i) for i in range(len(depths))]
        out[process] = (start, rows, block)
        start += len(depths)
    return out


def _rows_of(seg) -> list:
    start, rows, block = seg
    return rows if rows is not None else [block.record(i) for i in range(len(block.self_us))]


class ProcessPairing:
    """_paired_by_rows process by process (identities never pair across processes): the old
    report's processes held, each process of the new one paired as it comes (`add`, or
    `add_block` as a reader hands them over) and dropped, so a diff of two big reports holds one
    report and the changes. Two processes laid out alike are compared column by column: their
    changed rows go straight into `columns` (a ChangeColumns; None when each change needs its
    records: significance), any other pair to `change(old, new, wrapper, position)`. `ok` is
    False when a process comes in more than one place in a report (its ordinals run across them:
    pair by rows instead)."""

    def __init__(self, old_modules: Sequence[ModuleRecord], change, columns) -> None:
        self.a = _segments(old_modules)
        self.ok = self.a is not None
        self.change, self.columns = change, columns
        self.added: list = []
        self.removed: list = []
        self.wrappers = False
        self.seen: set[int] = set()

    def add_block(self, process: int, start: int, block) -> None:
        """A process as ModuleColumnsReader hands it over: a ColumnBlock or a tuple of records."""
        if isinstance(block, ColumnBlock):
            self.add(process, start, None, block)
        else:
            self.add(process, start, list(block), None)

    def add(self, process: int, bstart: int, brows, bblock) -> None:
        if not self.ok or process in self.seen:
            self.ok = False
            return
        self.seen.add(process)
        kb = _identities(brows, bblock)
        self.wrappers = self.wrappers or any(k[1] == "wrapper" for k in kb)
        seg = self.a.get(process)
        if seg is None:
            self.added.extend(((-m.cumulative_us, m.name, bstart + j), _marked(m, k[1] == "wrapper"))
                              for j, (k, m) in enumerate(zip(kb, _rows_of((bstart, brows, bblock)))))
            return
        start, rows, block = seg
        ka = _identities(rows, block)
        if block is not None and bblock is not None and ka == kb:  # laid out alike: row i pairs with row i
            sa, ca, sb, cb = block.self_us, block.cumulative_us, bblock.self_us, bblock.cumulative_us
            if sa == sb and ca == cb:
                return
            rows = [i for i, (a, b, c, d) in enumerate(zip(sa, sb, ca, cb)) if a != b or c != d]
            if self.columns is not None:
                memo = block.layout.memo
                wrapper = memo.get("diff_wrapper")
                if wrapper is None:
                    wrapper = memo["diff_wrapper"] = bytes(k[1] == "wrapper" for k in ka)
                self.columns.extend(block.layout.names, process, sa, sb, ca, cb, rows, wrapper, start)
                return
            for i in rows:
                self.change(block.record(i), bblock.record(i), ka[i][1] == "wrapper", start + i)
            return
        ra, rb = _rows_of(seg), _rows_of((bstart, brows, bblock))
        ia, ib = dict(zip(ka, range(len(ka)))), dict(zip(kb, range(len(kb))))
        for k, i in ia.items():
            j = ib.get(k)
            if j is None:
                self.removed.append(((-ra[i].cumulative_us, ra[i].name, start + i), _marked(ra[i], k[1] == "wrapper")))
            elif ra[i].self_us != rb[j].self_us or ra[i].cumulative_us != rb[j].cumulative_us:
                self.change(ra[i], rb[j], k[1] == "wrapper", start + i)
        self.added.extend(((-rb[j].cumulative_us, rb[j].name, bstart + j), _marked(rb[j], k[1] == "wrapper")) for k, j in ib.items() if k not in ia)

    def result(self) -> tuple[list, list, bool]:
        """(added, removed, any wrapper row), once every new process was added."""
        wrappers = self.wrappers
        for process, seg in self.a.items():
            ka = _identities(seg[1], seg[2])
            wrappers = wrappers or any(k[1] == "wrapper" for k in ka)
            if process not in self.seen:
                self.removed.extend(((-m.cumulative_us, m.name, seg[0] + i), _marked(m, k[1] == "wrapper"))
                                    for i, (k, m) in enumerate(zip(ka, _rows_of(seg))))
        return self.added, self.removed, wrappers


def _paired_by_process(old_modules: Sequence[ModuleRecord], new_modules: Sequence[ModuleRecord], change, columns):
    """ProcessPairing of two reports in memory, or None (pair by rows)."""
    pairing = ProcessPairing(old_modules, change, columns)
    b = _segments(new_modules) if pairing.ok else None
    if b is None:
        return None
    for process, (bstart, brows, bblock) in b.items():
        pairing.add(process, bstart, brows, bblock)
    return pairing.result() if pairing.ok else None


def streaming_pairing(old: ImportsReport, changes_made=ChangeColumns) -> "ProcessPairing | None":
    """A ProcessPairing for a new report read a process at a time (compose.diff), its changes in
    its own ChangeColumns (`pairing.columns`); None when the old report needs its records
    paired (3 runs or more: significance is judged) or pairs by rows."""
    if old.runs >= MIN_RUNS_FOR_SIGNIFICANCE:
        return None
    columns = changes_made()

    def change(mo, mn, wrapper, position):
        columns.append(mo.name, mo.process, mo.self_us, mn.self_us, mo.cumulative_us, mn.cumulative_us, None, wrapper, position)

    pairing = ProcessPairing(old.modules, change, columns)
    return pairing if pairing.ok else None


def gate_failures(report: DiffReport, fail_over_ms: float | None, fail_over_pct: float | None,
                  any_change: bool = False) -> list[str]:
    """The CI gate: the total grew by more than MS milliseconds or PCT percent, and the growth
    is significant (the verdict the table and the JSON show). `any_change`: any growth over
    the threshold fails, significant or not. Reports too short to judge (under 3 runs)
    fail on the growth alone, and the message says so."""
    grew = []
    delta = report.totals.delta_us
    if fail_over_ms is not None and delta > fail_over_ms * 1000:
        grew.append(f"total import time grew by {delta / 1000:.1f} ms (over --fail-over {fail_over_ms:g} ms)")
    pct = report.totals.delta_pct
    if fail_over_pct is not None and pct is not None and pct > fail_over_pct:
        grew.append(f"total import time grew by {pct:.1f}% (over --fail-over-pct {fail_over_pct:g}%)")
    if not grew or any_change:
        return grew
    significant = report.totals.significant
    if significant is None:
        return [f"{g}; significance not judged (needs 3 runs or more in both reports)" for g in grew]
    return grew if significant else []


def gate_passed_note(report: DiffReport, fail_over_ms: float | None, fail_over_pct: float | None) -> str | None:
    """When the growth is over a threshold but not significant, the gate passes: say why."""
    if gate_failures(report, fail_over_ms, fail_over_pct) or not gate_failures(report, fail_over_ms, fail_over_pct, any_change=True):
        return None
    return ("the total grew over the --fail-over threshold, but within the runs' spread (not significant): the gate "
            "passes (--any-change fails on any growth over the threshold)")
