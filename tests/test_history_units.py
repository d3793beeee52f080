"""The pure parts of `importprof history`: the change-point detector, the modules behind a
step, the store's compact module rows and the export lines' checks (no process)."""

from __future__ import annotations

import json
import os
import random
import zlib

import pytest

from profiler.analysis.history import build_history, detect_steps, explain_step
from profiler.errors import BadInput
from profiler.history_store import EXPORT_SCHEMA, pack_modules, read_export, run_to_dict, unpack_modules
from profiler.model.history import ModuleTimes, StoredRun


def test_a_step_beyond_the_runs_spread_is_found_where_it_starts():
    rng = random.Random(3)
    values = [100 + rng.gauss(0, 2) for _ in range(6)] + [130 + rng.gauss(0, 2) for _ in range(6)]
    assert detect_steps(values, [2.0] * 12) == [6]
    # at either end a level may be one commit long: the last commit regressed
    assert detect_steps([100.0] * 11 + [150.0], [1.0] * 12) == [11]


def test_flat_noise_and_a_single_disturbed_run_are_no_step():
    rng = random.Random(7)
    for _ in range(100):
        values = [100 + rng.gauss(0, 5) for _ in range(40)]
        assert detect_steps(values, [5.0] * 40) == []
    assert detect_steps([100, 101, 99, 100, 160, 100, 101, 99, 100, 100], [1.0] * 10) == []
    assert detect_steps([100.0] * 12, [0.0] * 12) == []


def test_the_runs_own_spread_decides_whether_a_step_counts():
    values = [100.0] * 6 + [110.0] * 6
    assert detect_steps(values, [1.0] * 12) == [6]  # 10 over a spread of 1: a step
    assert detect_steps(values, [8.0] * 12) == []  # the same 10 within a spread of 8: noise
    # exact counts (no spread at all) still need the relative floor: a 0.2 % ripple is not a step
    assert detect_steps([1_000_000.0] * 6 + [1_002_000.0] * 6, [0.0] * 12) == []


def test_two_steps_and_short_series():
    values = [50.0] * 5 + [80.0] * 5 + [60.0] * 5
    assert detect_steps(values, [1.0] * 15) == [5, 10]
    assert detect_steps([], []) == [] and detect_steps([1.0], [None]) == []


def test_the_modules_behind_a_step_appeared_first_then_those_that_grew_beyond_their_spread():
    base = [ModuleTimes("json", 500, 900), ModuleTimes("re", 2000, 2000)]
    before = [base, [ModuleTimes("json", 520, 920), ModuleTimes("re", 1900, 1900)]]
    after = [[*base, ModuleTimes("fractions", 3000, 9000), ModuleTimes("decimal", 6000, 6000)],
             [ModuleTimes("json", 510, 910), ModuleTimes("re", 5100, 5100), ModuleTimes("fractions", 3100, 9100),
              ModuleTimes("decimal", 6100, 6100)]]
    shifts = explain_step(before, after)
    assert [(m.name, m.change) for m in shifts][:2] == [("decimal", "appeared"), ("fractions", "appeared")]
    assert "json" not in {m.name for m in shifts}  # moved within its own spread
    assert sum(m.share_pct for m in shifts) == pytest.approx(100, abs=0.5)
    gone = explain_step(after, before)
    assert {m.name for m in gone if m.change == "disappeared"} == {"decimal", "fractions"}


def _run(commit: str, value: int, n: int, **kw) -> StoredRun:
    return StoredRun(uid=f"u{n}", check="cli", commit=commit, subject=f"s{n}", commit_time=n, dirty=False,
                     recorded_at=f"2026-12-02T00:00:{n:02d}", machine="m1", machine_info={"cpu_model": "cpu"},
                     python="3.12.1", status="pass", instructions=value, instructions_runs=(value - 10, value + 10), **kw)


def test_series_never_mix_machines_or_interpreters():
    runs = [_run(f"c{i}", 1000 if i < 6 else 1500, i) for i in range(12)]
    other = [StoredRun(**{**run_to_dict(r), "uid": r.uid + "x", "python": "3.13.0", "modules": ()}) for r in runs[:3]]
    series, changes = build_history(runs + other)
    assert [(s.python, len(s.points)) for s in series] == [("3.12.1", 12), ("3.13.0", 3)]
    assert [(c.commit, c.before, c.after, c.previous) for c in changes] == [("c6", 1000, 1500, "c5")]


def test_module_rows_pack_small_and_round_trip():
    rows = [(i * 3 + 1, (i * 37) % 5000, (i * 91) % 90000) for i in range(500)]
    blob = pack_modules(rows)
    assert unpack_modules(blob) == sorted(rows)
    assert len(blob) < 6 * 500  # a 500-module run: a few KB (three varints a module, compressed)
    assert unpack_modules(pack_modules([])) == []
    with pytest.raises(zlib.error):
        unpack_modules(b"not zlib")


def test_export_lines_are_checked_line_by_line():
    run = _run("c1", 1000, 1, modules=(ModuleTimes("json", 1, 2),))
    good = [json.dumps({"schema": EXPORT_SCHEMA}), json.dumps(run_to_dict(run))]
    assert list(read_export(good, "x.jsonl")) == [run]
    with pytest.raises(BadInput, match="x.jsonl:1: not an importprof history export"):
        list(read_export([json.dumps({"schema": "importprof.check/1"})], "x.jsonl"))
    with pytest.raises(BadInput, match="newer importprof"):
        list(read_export([json.dumps({"schema": "importprof.history_export/2"})], "x.jsonl"))
    broken = dict(run_to_dict(run), wall_ms="fast")
    with pytest.raises(BadInput, match="x.jsonl:2: 'wall_ms' has the wrong type"):
        list(read_export([good[0], json.dumps(broken)], "x.jsonl"))
    with pytest.raises(BadInput, match="x.jsonl:2: not JSON"):
        list(read_export([good[0], "{"], "x.jsonl"))
    with pytest.raises(BadInput, match="empty"):
        list(read_export([], "x.jsonl"))


def test_the_store_stays_small_and_reads_back_what_it_was_given(tmp_path):
    from profiler.history_store import HistoryStore

    rng = random.Random(5)
    names = [f"pkg{i // 50}.mod{i}" for i in range(500)]
    path = str(tmp_path / "h.sqlite")
    with HistoryStore.open(path) as store:
        runs = []
        for n in range(300):
            # self times of 20 µs to 3 ms; two modules in three import nothing (cumulative = self)
            mods = tuple(ModuleTimes(name, (s := rng.randrange(20, 3000)), s + (rng.randrange(0, 30000) if i % 3 == 0 else 0))
                         for i, name in enumerate(names))
            runs.append(StoredRun(**{**run_to_dict(_run(f"c{n}", 1000, n % 60)), "uid": f"r{n}", "modules": mods}))
        assert store.add_many(runs) == 300 and store.add_many(runs[:10]) == 0  # a run is kept once
        back = store.runs()
    assert [r.uid for r in back] == [r.uid for r in runs] or sorted(r.uid for r in back) == sorted(r.uid for r in runs)
    by_uid = {r.uid: r for r in back}
    assert all(sorted(by_uid[r.uid].modules, key=lambda m: m.name) == sorted(r.modules, key=lambda m: m.name) for r in runs)
    size = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    assert size / 300 < 4096, size  # a 500-module run: under 4 KB in the store


def test_a_newer_or_corrupt_store_is_refused_and_left_alone(tmp_path):
    import sqlite3

    from profiler.history_store import SCHEMA_VERSION, HistoryStore

    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as c:
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(BadInput, match="newer importprof"):
        HistoryStore.open(str(newer))
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\0garbage" * 512)
    with pytest.raises(BadInput, match="corrupt or not an importprof store.*left as it is"):
        HistoryStore.open(str(junk))
    assert junk.read_bytes() == b"\0garbage" * 512
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE t (x)")
    with pytest.raises(BadInput, match="no importprof schema version"):
        HistoryStore.open(str(foreign))
    with pytest.raises(BadInput, match="no history store"):
        HistoryStore.open(str(tmp_path / "none.sqlite"), create=False)
    # an empty store is made at the current version, in WAL mode
    with HistoryStore.open(str(tmp_path / "new.sqlite")) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
