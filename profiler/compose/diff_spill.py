"""A diff's changes in bounded memory: an external sort (ChangeRuns, what analysis.diff holds
the changes of `importprof diff` in; analysis stays pure, its files are made here).

A diff of two harness reports changes every module (506,900 changes at 1,000 processes of
pip's log). Held as one model.ChangeColumns and sorted by impact for the document, they cost
~60 MB at 1,000 processes and grow with the processes. ChangeRuns gathers them a run at a time
(RUN changes in a ChangeColumns), sorts each full run and writes it to a file in a temporary
folder, and reads them back merged (_merged_blocks) as the JSON writer or the table asks: memory
bounded by a run plus a chunk of each run, whatever the number of processes.

The order is the one ChangeColumns gives, change for change: by |Δ cumulative|, then |Δ self|,
largest first, then by name, then by the row's place in the old report (`position`), then in
the order the changes came. Each change is a row (-|Δ cumulative|, -|Δ self|, name, position,
k, process, old self, new self, old cumulative, new cumulative, significant, wrapper), k its
place among all the changes: the rows are distinct by k, so a row's order is its first five
fields, in a run and in the merge alike. Changes whose numbers are not all machine integers
below 2**54 (a saved 5.0, numbers no clock gives) are never spilled: they are gathered back
into one ChangeColumns, which orders them as it always did.

The runs' files are unlinked as soon as they are opened (their space is freed when their
descriptors close, whatever ends the process); their folder is made with tempfile, so inside the
invocation's own temporary folder (workflows/session.py: removed on every exit path, Ctrl-C and
SIGTERM included), and is removed by close(), when the ChangeRuns is garbage, or at exit
(weakref.finalize).
"""

from __future__ import annotations

from array import array
from itertools import chain, islice
from operator import itemgetter
from typing import Any, Callable, Iterator, Sequence

from profiler.model.diff_report import ChangeColumns, ModuleChange

RUN = 32768  # changes a run: ~2 MB of columns and ~2 MB of sort keys while it is sorted
CHUNK = 128  # rows a piece of a run on disk: the merge holds about one piece a run
FAN = 32  # runs of a size merged into one (1,048,576 changes, 2,000 of pip's processes, before a first merge)
BOUND = 1 << 54  # larger numbers (or floats) keep the changes in memory (ChangeColumns' own order)



def _one_of(k: int) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """itemgetter(k) for one position, as a 1-tuple (itemgetter(k) alone gives the item)."""
    return lambda c: (c[k],)

def _bounded(columns: ChangeColumns) -> bool:
    if not columns._whole() or not isinstance(columns.process, array):
        return False
    return all(not c or (-BOUND < min(c) and max(c) < BOUND)
               for c in (columns.old_self, columns.new_self, columns.old_cum, columns.new_cum))


def _pieces(columns: ChangeColumns, first_k: int, chunk: int) -> Iterator[tuple]:
    """The run's changes sorted (ChangeColumns' own order), as columns `chunk` changes a piece:
    (names, process, old self, new self, old cumulative, new cumulative, significant, wrapper,
    position, k), each a tuple."""
    order = columns._sorted()
    cols: tuple[Sequence[Any], ...] = (columns.names, columns.process, columns.old_self, columns.new_self, columns.old_cum, columns.new_cum,
            columns.significant, columns.wrapper, columns.position, range(first_k, first_k + len(order)))
    for i in range(0, len(order), chunk):
        part = order[i:i + chunk]
        taken: Callable[[Sequence[Any]], tuple[Any, ...]] = itemgetter(*part) if len(part) > 1 else _one_of(part[0])
        yield tuple(map(taken, cols))


def _pieces_of(rows: Iterator[tuple], chunk: int) -> Iterator[tuple]:
    """Ordered rows as _pieces' pieces (a merged run written again)."""
    while True:
        batch = list(islice(rows, chunk))
        if not batch:
            return
        _, _, names, position, k, process, os_, ns, oc, nc, sig, wrapper = zip(*batch)
        yield names, process, os_, ns, oc, nc, sig, wrapper, position, k


def _piece_rows(piece: tuple) -> Iterator[tuple]:
    """A piece's changes as rows (see the module's text), in its order."""
    names, process, os_, ns, oc, nc, sig, wrapper, position, k = piece
    ndc = [-abs(b - a) for a, b in zip(oc, nc)]
    nds = [-abs(b - a) for a, b in zip(os_, ns)]
    return zip(ndc, nds, names, position, k, process, os_, ns, oc, nc, sig, wrapper)


def _merged_blocks(sources: list) -> Iterator[list]:
    """The rows of `sources` (each an iterator of sorted lists of rows, its pieces, every row
    after the rows of its earlier pieces; no two rows equal) in order, a sorted list at a time:
    the rows up to the smallest of the loaded pieces' last rows, which no row still to be loaded
    can precede, sorted together (C's sort merges the sorted pieces it is given), until a
    source's piece is used up and its next one is loaded. A merge in blocks: heapq.merge's
    step a row costs more than the sort's."""
    from bisect import bisect_right

    live = []  # [piece, index of its first row not yet given, its source]
    for source in sources:
        piece = next(source, None)
        if piece:
            live.append([piece, 0, source])
    while live:
        if len(live) == 1:
            piece, i, source = live[0]
            yield piece[i:] if i else piece
            yield from source
            return
        bound = min(p[0][-1] for p in live)
        block: list = []
        for p in live:
            j = bisect_right(p[0], bound, p[1])
            if j > p[1]:
                block += p[0][p[1]:j]
                p[1] = j
        block.sort()
        yield block
        for p in live:
            while p[0] is not None and p[1] >= len(p[0]):
                p[0], p[1] = next(p[2], None), 0
        live = [p for p in live if p[0] is not None]


def change_of(row: tuple) -> ModuleChange:
    sig = row[10]
    return ModuleChange(row[2], row[5], row[6], row[7], row[8], row[9], None if sig == 2 else bool(sig), bool(row[11]))


class ChangeRuns(Sequence):
    """model.ChangeColumns' appends and reads, its changes spilled in sorted runs once there
    are more than `run` of them. `settled()` when every change came: the ChangeColumns itself
    while nothing was spilled (the diff then is what it always was), else this, read back by
    merging the runs (`rows()`: the ordered rows, what render.report_json writes from). `fan`
    runs of a size are merged into one run (a merge holds a piece of each run it reads: at most
    `fan` runs of each size are ever read at once)."""

    def __init__(self, run: int | None = None, chunk: int | None = None, fan: int | None = None) -> None:
        self.run, self.chunk, self.fan = max(1, run or RUN), max(1, chunk or CHUNK), max(2, fan or FAN)
        self.cur = ChangeColumns()
        self.base = 0  # k of cur's first change
        self.runs: list[tuple[int, int, list]] = []  # (level, file descriptor, pieces: (offset, bytes) each)
        self.held = False  # a run that cannot be spilled came: every change gathered in memory at the end
        self._tmp: str | None = None  # the folder, made at the first spill
        self._fds: list[int] = []  # the runs' files still open
        self._release: Callable[[], object] | None = None  # closes them and removes the folder: by close(), when garbage, or at exit
        self._made = 0

    # ---------------------------------------------------------------- gathering
    def append(self, name, process, old_self, new_self, old_cum, new_cum, significant, wrapper, position=None) -> None:
        cur = self.cur
        if len(cur.names) >= self.run and not self.held:  # a run full: spilled before the next change
            self._full()
            cur = self.cur
        cur.append(name, process, old_self, new_self, old_cum, new_cum, significant, wrapper,
                   self.base + len(cur.names) if position is None else position)

    def extend(self, names, process, old_self, new_self, old_cum, new_cum, rows, wrapper, start) -> None:
        """ChangeColumns.extend, the rows spilled a run at a time."""
        while rows:
            room = len(rows) if self.held else self.run - len(self.cur.names)
            if room <= 0:
                self._full()
                continue
            self.cur.extend(names, process, old_self, new_self, old_cum, new_cum, rows[:room], wrapper, start)
            rows = rows[room:]

    def _full(self) -> None:
        """The run full: spilled (and runs merged, `fan` of a size)."""
        self._spill()
        level = 0
        while not self.held and sum(1 for r in self.runs if r[0] == level) >= self.fan:
            self._merge_level(level)
            level += 1

    def _spill(self) -> None:
        cur = self.cur
        if not _bounded(cur):
            self.held = True
            return
        try:
            self.runs.append(self._written(0, _pieces(cur, self.base, self.chunk)))
        except OSError:  # no room in the temporary folder: the changes from here on held in memory
            self.held = True
            cur._order = None  # (its order, made for the run, is made again with the changes to come)
            return
        self.base += len(cur)
        self.cur = ChangeColumns()

    def _written(self, level: int, pieces) -> tuple[int, int, list]:
        """A run of `pieces` in a file of its own in the folder (unlinked once opened: the space
        is the system's again when the descriptor is closed, whatever ends the process)."""
        import os
        import pickle

        if self._tmp is None:
            import tempfile
            import weakref

            self._tmp = tempfile.mkdtemp(prefix="importprof-diff-")
            self._release = weakref.finalize(self, _release, self._fds, self._tmp)
        path = os.path.join(self._tmp, f"run-{self._made}")
        self._made += 1
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        self._fds.append(fd)
        run: tuple[int, int, list[Any]] = (level, fd, [])
        try:
            try:
                os.unlink(path)
            except OSError:  # (a system that cannot remove an open file: removed with the folder)
                pass
            offset = 0
            for piece in pieces:
                data = memoryview(pickle.dumps(piece, protocol=pickle.HIGHEST_PROTOCOL))
                run[2].append((offset, len(data)))
                while data:
                    done = os.write(fd, data)
                    data = data[done:]
                    offset += done
        except BaseException:
            self._fds.remove(fd)
            os.close(fd)
            raise
        return run

    def _merge_level(self, level: int) -> None:
        import os

        group = [r for r in self.runs if r[0] == level]
        try:
            merged = self._written(level + 1, _pieces_of(self._merged(group), self.chunk))
        except OSError:  # no room for the merged run: the runs stay as they are, the changes from here on held in memory
            self.held = True
            return
        for r in group:
            self.runs.remove(r)
            self._fds.remove(r[1])
            os.close(r[1])
        self.runs.append(merged)

    def settled(self):
        """The changes once every one came: a ChangeColumns when none was spilled, else self
        (its last run spilled too, or, `held`, every run gathered back into a ChangeColumns)."""
        if not self.runs:
            return self.cur
        if self.held or not _bounded(self.cur):
            return self._gathered()
        if len(self.cur):
            self._spill()
        return self._gathered() if self.held else self

    def _gathered(self) -> ChangeColumns:
        """Every change in one ChangeColumns, in the order they came (k)."""
        rows = sorted(self._merged(), key=lambda r: r[4])
        out = ChangeColumns()
        for r in rows:
            out.append(r[2], r[5], r[6], r[7], r[8], r[9], None if r[10] == 2 else bool(r[10]), bool(r[11]), r[3])
        cur = self.cur
        for k in range(len(cur)):
            sig = cur.significant[k]
            out.append(cur.names[k], cur.process[k], cur.old_self[k], cur.new_self[k], cur.old_cum[k], cur.new_cum[k],
                       None if sig == 2 else bool(sig), bool(cur.wrapper[k]), cur.position[k])
        self.close()
        return out

    def close(self) -> None:
        """The runs' files closed and their folder removed (reading them after raises)."""
        self.runs = [(level, -1, pieces) for level, _, pieces in self.runs]
        if self._release is not None:
            self._release()

    # ---------------------------------------------------------------- reading
    def _run_pieces(self, run) -> Iterator[list]:
        import pickle
        from os import pread

        fd = run[1]
        if fd < 0:
            raise ValueError("the diff's spilled changes were closed")
        for offset, size in run[2]:
            yield list(_piece_rows(pickle.loads(pread(fd, size, offset))))

    def _merged(self, runs=None) -> Iterator[tuple]:
        return chain.from_iterable(_merged_blocks([self._run_pieces(r) for r in (self.runs if runs is None else runs)]))

    def rows(self) -> Iterator[tuple]:
        """Every change as a row, in the document's order."""
        return self._merged()

    def __len__(self) -> int:
        return self.base + len(self.cur.names)

    def __iter__(self) -> Iterator[ModuleChange]:
        return map(change_of, self._merged())

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step <= 0:
                return tuple(self)[i]
            return tuple(map(change_of, islice(self._merged(), start, stop, step)))
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("change index out of range")
        return change_of(next(islice(self._merged(), i, None)))

    def __eq__(self, other) -> bool:
        if isinstance(other, (ChangeRuns, ChangeColumns, tuple)):
            return len(other) == len(self) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple of the same changes, so not hashable (the idiom typeshed's own classes use)

    def __repr__(self) -> str:
        return f"ChangeRuns({len(self)} changes in {len(self.runs)} runs)"


def _release(fds: list, folder: str) -> None:
    import os
    import shutil

    while fds:
        try:
            os.close(fds.pop())
        except OSError:
            pass
    shutil.rmtree(folder, ignore_errors=True)
