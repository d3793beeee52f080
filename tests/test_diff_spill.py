"""A diff's changes spilled in sorted runs and merged (compose/diff_spill.py: ChangeRuns) read,
show and write as the changes held in memory (model ChangeColumns) do, byte for byte: on real
saved reports (tests/fixtures/exports/golden.json's diffs, and two runs of pip's 10-process log
with every module changed) and on generated changes full of ties, with the runs forced small so
that many are merged, and merged again (`fan`)."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import replace

import pytest

from export_cases import DIFFS, EXPORTS, digest, log_text, report_of
from profiler.session import Session

GOLDEN = json.loads((EXPORTS / "golden.json").read_text())


def _small_runs(monkeypatch, run=7, chunk=3, fan=3):
    from profiler.compose import diff_spill

    monkeypatch.setattr(diff_spill, "RUN", run)
    monkeypatch.setattr(diff_spill, "CHUNK", chunk)
    monkeypatch.setattr(diff_spill, "FAN", fan)


def _changes(rng, n, names, values):
    """n changes as (name, process, old self, new self, old cumulative, new cumulative,
    significant, wrapper, position): few names and few numbers, so most tie in impact and name
    and are ordered by their position; positions shuffled, as no caller gives them in order."""
    positions = list(range(n))
    rng.shuffle(positions)
    return [(rng.choice(names), rng.randrange(5), *(rng.choice(values) for _ in range(4)), rng.choice([None, True, False]),
             rng.random() < 0.1, positions[k]) for k in range(n)]


def _both(changes, run, chunk, fan, position=True):
    from profiler.compose.diff_spill import ChangeRuns
    from profiler.model.diff_report import ChangeColumns

    cols, runs = ChangeColumns(), ChangeRuns(run, chunk, fan)
    for c in changes:
        args = c if position else c[:8]
        cols.append(*args)
        runs.append(*args)
    return cols, runs.settled()


def _document(changed):
    from profiler.model.diff_report import DiffReport, DiffTotals
    from profiler.render.report_json import render_json_chunks

    rep = DiffReport(machine={}, old={"path": "a.json"}, new={"path": "b.json"}, totals=DiffTotals(1, 2, 1, 100.0),
                     added=(), removed=(), changed=changed, notes=())
    return "".join(render_json_chunks(rep))


SPILLS = [(50, 7, 4), (97, 1000, 32), (1, 1, 2), (300, 64, 2)]


@pytest.mark.parametrize("run,chunk,fan", [s if s in SPILLS[:2] else pytest.param(*s, marks=pytest.mark.slow) for s in SPILLS])  # every shape in make test
@pytest.mark.parametrize("position", [True, False])
def test_spilled_changes_read_and_write_as_the_columns_do(run, chunk, fan, position):
    from profiler.compose.diff_spill import ChangeRuns

    rng = random.Random(run * 7 + fan)
    names = ["a", "b.c", "b.c.d", 'q"uote', "é\u2028x", "tab\tname", "Z"]
    changes = _changes(rng, 3001, names, [0, 1, 2, 5, 50, 2**40, 2**53 - 1])
    cols, runs = _both(changes, run, chunk, fan, position)
    assert isinstance(runs, ChangeRuns) and len(runs.runs) > 1
    if run * fan < 3001:
        assert max(level for level, _, _ in runs.runs) > 0  # runs merged into bigger runs as they came
    assert len(runs) == len(cols) == 3001
    expected = tuple(cols)
    assert tuple(runs) == expected and runs == cols
    assert runs[:25] == cols[:25] == expected[:25]
    assert runs[10:40:3] == expected[10:40:3] and runs[-1] == expected[-1] and runs[1234] == expected[1234]
    assert _document(runs) == _document(cols)
    assert "".join(_document(runs)).count('"name"') == 3001
    import os

    folder = runs._tmp
    assert os.path.isdir(folder) and not os.listdir(folder)  # the runs' files unlinked once opened
    runs.close()
    runs.close()
    assert not os.path.exists(folder)
    with pytest.raises(ValueError):
        tuple(runs)


@pytest.mark.parametrize("odd", [5.0, 2**54, -(2**60), 2**64])
def test_numbers_no_run_can_hold_keep_every_change_in_memory_in_the_columns_order(odd):
    """A saved 5.0, or numbers past 2**54: the runs already spilled are gathered back into
    one ChangeColumns, which orders them as it always did."""
    from profiler.model.diff_report import ChangeColumns

    for at in (5, 205, 390):  # in the first run, in one after runs were spilled (and merged), in the last one
        changes = _changes(random.Random(at), 400, ["a", "b", "c"], [0, 1, 3, 2**53])
        c = list(changes[at])
        c[4] = odd
        changes[at] = tuple(c)
        cols, runs = _both(changes, 20, 3, 3)
        assert type(runs) is ChangeColumns
        assert tuple(runs) == tuple(cols) and len(runs) == 400


@pytest.mark.parametrize("odd", [None, 5.0, 2**63, -(2**63) - 1])
def test_a_process_columns_added_at_once_are_its_changes_one_by_one(odd):
    """ChangeColumns.extend (a process laid out alike in both reports) against append; a
    number that is not a machine integer turns the columns into lists either way."""
    from profiler.compose.diff_spill import ChangeRuns
    from profiler.model.diff_report import ChangeColumns

    rng = random.Random(5)
    names = tuple(rng.choice(["a", "b", "c.d"]) for _ in range(60))
    cols = [[rng.choice([0, 3, 7, 2**40]) for _ in range(60)] for _ in range(4)]
    if odd is not None:
        cols[2][17] = odd
    wrapper = bytes(rng.random() < 0.2 for _ in range(60))
    rows = [i for i in range(60) if rng.random() < 0.7]
    one, many, runs = ChangeColumns(), ChangeColumns(), ChangeRuns(9, 2, 2)
    for target in (many, runs):
        target.extend(names, 4, *cols, rows, wrapper, 100)
        target.extend(names, 5, *cols, rows[:5], wrapper, 200)
    for process, start, part in ((4, 100, rows), (5, 200, rows[:5])):
        for i in part:
            one.append(names[i], process, cols[0][i], cols[1][i], cols[2][i], cols[3][i], None, bool(wrapper[i]), start + i)
    assert tuple(many) == tuple(one) and many.position == one.position and len(many) == len(rows) + 5
    assert tuple(runs.settled()) == tuple(one)


@pytest.mark.parametrize("fail_at", [0, 1, 5, 40])
def test_no_room_to_spill_keeps_the_changes_in_memory(fail_at, monkeypatch):
    """The temporary folder full (or not writable) at the first write or after runs were
    spilled (or merged): the changes from there on held in memory, the diff the same."""
    import errno
    import os

    from profiler.model.diff_report import ChangeColumns

    real, calls = os.write, []

    def write(fd, data):
        calls.append(1)
        if len(calls) > fail_at:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    changes = _changes(random.Random(fail_at), 700, ["a", "b"], [0, 1, 9, 2**30])
    want = tuple(_both(changes, 10**9, 3, 3)[0])
    monkeypatch.setattr(os, "write", write)
    cols, runs = _both(changes, 30, 5, 3)
    assert type(runs) is ChangeColumns and tuple(runs) == tuple(cols) == want


def test_few_changes_are_never_spilled():
    from profiler.model.diff_report import ChangeColumns

    cols, runs = _both(_changes(random.Random(1), 100, ["a"], [1, 2]), 100, 3, 3)
    assert type(runs) is ChangeColumns and runs == cols


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Each diffed case's report as `imports -o` writes it, and a second run of pip's 10
    processes (the log's runs moved by 3: every module's numbers changed, as bench_scale makes
    them)."""
    from profiler.render import get_renderer

    folder = tmp_path_factory.mktemp("saved")
    out = {}
    for case in {c for pair in DIFFS for c in pair}:
        out[case] = folder / f"{case}.json"
        out[case].write_text(get_renderer("json")(report_of(case, folder)))
    head = "import time: self [us]"
    runs = [head + part for part in log_text("pip_10").split(head)[1:]]
    (folder / "pip_10_b.log").write_text("".join(runs[3:] + runs[:3]))
    from profiler.model.log_source import LogSource
    from profiler.model.target import Target
    from profiler.workflows.imports import ImportsOptions, imports

    b = imports(ImportsOptions(target=Target("code"), log=LogSource(str(folder / "pip_10_b.log")), headers="processes"), session=Session())
    out["pip_10_b"] = folder / "pip_10_b.json"
    out["pip_10_b"].write_text(get_renderer("json")(replace(b, machine={})))
    return out


def _diffed(saved, a, b, tmp_path):
    """The diff as `importprof diff` makes it (the new report paired as it is read) and as
    analysis.diff makes it of two reports in memory, paths and machine as the goldens have them."""
    from profiler.analysis.diff import diff_reports
    from profiler.compose.diff import DiffOptions, diff
    from profiler.workflows.imports import load_report

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    shutil.copy(saved[a], old)
    shutil.copy(saved[b], new)
    streamed = diff(DiffOptions(str(old), str(new)))
    streamed = replace(streamed, machine={}, old={**streamed.old, "path": "old.json"}, new={**streamed.new, "path": "new.json"})
    from profiler.compose.diff_spill import ChangeRuns

    held = replace(diff_reports(load_report(str(old)), load_report(str(new)), "old.json", "new.json", changes_made=ChangeRuns),
                   machine={})
    return streamed, held


@pytest.mark.parametrize("pair", [p if p == DIFFS[0] else pytest.param(p, marks=pytest.mark.slow) for p in DIFFS], ids=["..".join(p) for p in DIFFS])  # every diff in make test
def test_real_diffs_spilled_write_their_golden_bytes(pair, saved, tmp_path, monkeypatch):
    from profiler.render import get_renderer
    from profiler.render.console_imports import render_diff_table

    from profiler.compose import diff_spill

    _small_runs(monkeypatch)
    made = []
    monkeypatch.setattr(diff_spill.ChangeRuns, "_spill", lambda self, f=diff_spill.ChangeRuns._spill: (made.append(1), f(self))[1])
    g = GOLDEN["diffs"]["..".join(pair)]
    for rep in _diffed(saved, *pair, tmp_path):
        assert bool(made) == bool(rep.changed)  # any change at all: runs of 7 spilled
        assert digest("".join(get_renderer("json", chunks=True)(rep))) == g["json"]
        assert digest(get_renderer("json")(rep)) == g["json"]
        assert digest(render_diff_table(rep, False)) == g["table"]


@pytest.mark.slow  # pip's 10-process log against a rotated copy: in make test
def test_two_runs_of_a_harness_diff_the_same_spilled_or_held(saved, tmp_path, monkeypatch):
    """pip's 10 processes against a second run of them (every module changed, 5,000 changes,
    many alike in impact): the runs forced small give the document and the table the changes
    held in memory give."""
    from profiler.compose.diff_spill import ChangeRuns
    from profiler.model.diff_report import ChangeColumns
    from profiler.render import get_renderer
    from profiler.render.console_imports import render_diff_table

    monkeypatch.setattr("profiler.compose.diff_spill.RUN", 10**9)
    held = _diffed(saved, "pip_10", "pip_10_b", tmp_path)
    assert all(isinstance(r.changed, ChangeColumns) and len(r.changed) > 4096 for r in held)
    want_json = get_renderer("json")(held[1])
    want_table = render_diff_table(held[1], False)
    # the processes' rows as records (each change appended on its own, not a process's columns at once)
    from profiler.analysis.diff import diff_reports
    from profiler.workflows.imports import load_report

    a, b = (load_report(str(tmp_path / f"{side}.json")) for side in ("old", "new"))
    by_rows = diff_reports(replace(a, modules=tuple(a.modules)), replace(b, modules=tuple(b.modules)), "old.json", "new.json",
                           changes_made=ChangeRuns)
    assert get_renderer("json")(replace(by_rows, machine={})) == want_json
    _small_runs(monkeypatch, run=257, chunk=10, fan=4)
    for rep in _diffed(saved, "pip_10", "pip_10_b", tmp_path):
        assert isinstance(rep.changed, ChangeRuns) and len(rep.changed.runs) > 1
        assert "".join(get_renderer("json", chunks=True)(rep)) == want_json
        assert render_diff_table(rep, False) == want_table
        assert render_diff_table(rep, False, top=3000) == render_diff_table(held[0], False, top=3000)


def test_the_runs_folder_is_empty_while_in_use_and_removed_after(saved, tmp_path, monkeypatch):
    """The runs' files are unlinked once opened; the folder goes with close(), or when the diff
    is dropped; a diff that fails half-way (a new report cut short) leaves no folder."""
    import gc
    import os
    import tempfile

    from profiler.compose.diff import DiffOptions, diff
    from profiler.errors import BadInput

    _small_runs(monkeypatch, run=100, chunk=10, fan=4)
    spill = tmp_path / "tmp"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    rep = diff(DiffOptions(str(saved["pip_10"]), str(saved["pip_10_b"])))
    folders = list(spill.iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("importprof-diff-") and not list(folders[0].iterdir())
    del rep
    gc.collect()
    assert not list(spill.iterdir())
    cut = tmp_path / "cut.json"
    text = saved["pip_10_b"].read_text()
    cut.write_text(text[:len(text) * 3 // 4])
    with pytest.raises(BadInput):
        diff(DiffOptions(str(saved["pip_10"]), str(cut)))
    gc.collect()
    assert not list(spill.iterdir())
    assert os.listdir(spill) == []
