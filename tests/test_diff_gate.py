"""diff: identity of a module whose rows differ in kind between two reports, and a gate that
agrees with the verdict the table and the JSON show."""

from __future__ import annotations

import pytest

from conftest import assert_one_line_error
from profiler.analysis.diff import diff_reports, gate_failures, gate_passed_note
from profiler.analysis.imports_views import dotted_wrappers
from test_diff import HEADER, rep, row, tree_log


def test_an_undotted_name_is_never_a_wrapper():
    # black 23.1.0 compiled by mypyc on 3.11 (`python -X importtime -m black --version`): a
    # 74 µs `black` row nested in the one that loaded black (14.9 ms self, 396 ms cumulative)
    old = rep(tree_log([(0, "black", 14860), (1, "6b397dd64e00b5aff23d__mypyc", 895), (1, "click", 2000),
                        (2, "black", 74)]))
    assert dotted_wrappers(old.modules) == [False] * len(old.modules)
    new = rep(tree_log([(0, "black", 152125), (1, "85cae5375ceb5d1ca6c6__mypyc", 5318), (1, "click", 2000)]))
    d = diff_reports(old, new)
    black = [c for c in d.changed if c.name == "black"]
    assert [(c.old_cumulative_us, c.new_cumulative_us, c.wrapper) for c in black] == [
        (14860 + 895 + 2000 + 74, 152125 + 5318 + 2000, False)]
    # the nested 74 µs row is a second row of black that the new report has not
    assert [(m.name, m.cumulative_us, m.extra.get("wrapper")) for m in d.removed if m.name == "black"] == [("black", 74, None)]


def test_a_dotted_wrapper_still_needs_its_package_between():
    # `import json.decoder` (3.11): the outer json.decoder waits for json, which loads json.decoder
    mods = rep(tree_log([(0, "json.decoder", 14), (1, "json", 183), (2, "json.decoder", 265)])).modules
    assert dotted_wrappers(mods) == [True, False, False]
    # the same name nested without its package in between is a second load, not a wrapper
    mods = rep(tree_log([(0, "a.b", 50), (1, "c", 10), (2, "a.b", 5)])).modules
    assert dotted_wrappers(mods) == [False, False, False]


def _runs(values_a, values_b):
    return [HEADER + row(a, a, 0, "a") + row(b, b, 0, "b") for a, b in zip(values_a, values_b)]


def test_the_gate_fails_only_on_a_significant_growth():
    noisy_old = rep(*_runs((1000, 1400, 1800), (50, 50, 50)))
    noisy_new = rep(*_runs((1300, 1700, 2100), (50, 50, 50)))
    d = diff_reports(noisy_old, noisy_new)
    assert d.totals.significant is False and d.totals.delta_us == 300
    assert gate_failures(d, 0.1, None) == []
    assert gate_failures(d, 0.1, None, any_change=True) == ["total import time grew by 0.3 ms (over --fail-over 0.1 ms)"]
    assert "within the runs' spread" in gate_passed_note(d, 0.1, None)
    grown = rep(*_runs((5000, 5001, 5002), (50, 50, 50)))
    d = diff_reports(noisy_old, grown)
    assert d.totals.significant is True
    assert gate_failures(d, 1, None) and gate_passed_note(d, 1, None) is None
    # one run each: not judged, the growth alone fails, and the message says so
    d = diff_reports(rep(*_runs((1000,), (50,))), rep(*_runs((1300,), (50,))))
    assert d.totals.significant is None and "significant" not in d.totals.to_dict()
    assert gate_failures(d, 0.1, None) == [
        "total import time grew by 0.3 ms (over --fail-over 0.1 ms); significance not judged (needs 3 runs or more in both reports)"]


@pytest.mark.slow
def test_cli_gate_agrees_with_the_table(cli, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    # reports of three runs each, as imports --runs 3 saves them (from the same aggregation)
    from profiler.render import get_renderer

    for path, runs in ((old, _runs((1000, 1400, 1800), (50, 50, 50))), (new, _runs((1300, 1700, 2100), (50, 50, 50)))):
        path.write_text(get_renderer("json")(rep(*runs)))
    res = cli("diff", old, new, "--fail-over", "0.1")
    assert res.returncode == 0, res
    assert "+0.3 ms (+20.7%): not significant (within the runs' spread)" in res.stdout, res
    assert "the gate passes" in res.stderr
    assert_one_line_error(cli("diff", old, new, "--fail-over", "0.1", "--any-change"), 1, "grew by 0.3 ms")
    assert cli("diff", old, new, "--format", "json").json()["totals"]["significant"] is False
