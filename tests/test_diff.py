"""`importprof diff`: pure diff on real reports, the CI gate, json, failures."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_one_line_error
from profiler.analysis.diff import diff_reports, gate_failures
from profiler.parse.importtime import parse_importtime
from profiler.workflows.imports import report_from_logs

HEADER = "import time: self [us] | cumulative | imported package\n"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def rep(*texts):
    return report_from_logs([parse_importtime(t) for t in texts], machine={}, python=None, python_version=None, target=None, source="log")


def real(fixtures, name):
    return (fixtures / "importtime" / name).read_text()


def test_diff_of_a_report_with_itself_is_empty_and_passes_any_gate(fixtures):
    a = rep(real(fixtures, "boto3.log"))
    d = diff_reports(a, a)
    assert d.is_empty and not d.added and not d.removed and not d.changed
    assert d.totals["delta_us"] == 0
    assert gate_failures(d, 0, 0) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 3)), min_size=1, max_size=30), st.integers(1, 5))
def test_diff_with_itself_is_empty_property(rows, runs):
    lines = [HEADER] + [row(s, s, 0, f"m{i}") for i, (s, _) in enumerate(rows)]
    a = rep(*["".join(lines)] * runs)
    assert diff_reports(a, a).is_empty


def test_real_diff(fixtures):
    old = rep(real(fixtures, "cryptography_fernet.log"))
    new = rep(real(fixtures, "boto3.log"))
    d = diff_reports(old, new, "old.json", "new.json")
    assert {m.name for m in d.added} >= {"boto3", "botocore"}
    assert "cryptography.fernet" in {m.name for m in d.removed}
    impacts = [abs(c.delta_cumulative_us) for c in d.changed]
    assert impacts == sorted(impacts, reverse=True)
    assert all(c.significant is None for c in d.changed)  # 1 run each: no spread to judge by
    assert d.totals["delta_us"] == new.total_us - old.total_us
    doc = d.to_dict()
    assert doc["schema"] == "importprof.diff/1" and "machine" in doc
    assert doc["old"]["path"] == "old.json"


def test_significance_beyond_spread():
    base = [HEADER + row(100 + j, 100 + j, 0, "a") + row(50 + j, 50 + j, 0, "b") for j in (0, 2, 4)]
    grown = [HEADER + row(500 + j, 500 + j, 0, "a") + row(51 + j, 51 + j, 0, "b") for j in (0, 2, 4)]
    d = diff_reports(rep(*base), rep(*grown))
    by = {c.name: c for c in d.changed}
    assert by["a"].significant is True and by["b"].significant is False
    assert gate_failures(d, 0.3, None) and not gate_failures(d, 1, None)
    assert gate_failures(d, None, 100) and not gate_failures(d, None, 300)


def test_cli_diff_gate_and_json(cli, fixtures, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert cli("imports", "--from-log", fixtures / "importtime" / "cryptography_fernet.log", "-o", old).returncode == 0
    assert cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "-o", new).returncode == 0
    res = cli("diff", old, new)
    assert res.returncode == 0 and "added:" in res.stdout and "total import time" in res.stdout, res
    res = cli("diff", old, new, "--format", "json")
    doc = res.json()
    assert doc["schema"] == "importprof.diff/1" and doc["totals"]["delta_us"] > 0
    assert_one_line_error(cli("diff", old, new, "--fail-over", 10), 1, "--fail-over 10 ms")
    assert_one_line_error(cli("diff", old, new, "--fail-over-pct", 5), 1, "--fail-over-pct")
    assert cli("diff", old, new, "--fail-over", 100_000, "--fail-over-pct", 10_000).returncode == 0
    assert cli("diff", new, old, "--fail-over", 0).returncode == 0  # it shrank
    res = cli("diff", new, new, "--fail-over", 0, "--fail-over-pct", 0)
    assert res.returncode == 0 and "no differences" in res.stdout


def test_cli_diff_failures(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "importprof.startup/1"}))
    assert_one_line_error(cli("diff", bad, bad), 2, "importprof.imports/1")
    assert_one_line_error(cli("diff", tmp_path / "nope.json", bad), 2, "no such file")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema": "importprof.imports/1", "modules": [{"name": "x"}]}))
    assert_one_line_error(cli("diff", broken, broken), 2, "broken.json")
    assert_one_line_error(cli("diff", bad, bad, "--fail-over", -1), 2, "negative")
