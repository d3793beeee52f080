"""`importprof diff`: pure diff on real reports, the CI gate, json, failures."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_one_line_error, examples
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
    assert d.totals.delta_us == 0
    assert gate_failures(d, 0, 0) == []


@settings(max_examples=examples(40), deadline=None)
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
    assert d.totals.delta_us == new.total_us - old.total_us
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
    assert_one_line_error(cli("diff", bad, bad, "--fail-over", -1), 2, "--fail-over")


# ---------------------------------------------------------------------------- identity
def tree_log(preorder):
    """[(depth, name, self_us)] in pre-order → an -X importtime log (post-order rows)."""
    out: list[str] = []
    n = len(preorder)

    def emit(i):  # returns (next index, cumulative)
        depth, name, self_us = preorder[i]
        j, cum = i + 1, self_us
        while j < n and preorder[j][0] > depth:
            j, c = emit(j)
            cum += c
        out.append(row(self_us, cum, depth, name))
        return j, cum

    i = 0
    while i < n:
        i, _ = emit(i)
    return HEADER + "".join(out)


def test_diff_pairs_the_module_load_not_the_wrapper_row_of_a_dotted_import():
    # `import json` vs `import json.decoder` as 3.11 prints them (json/__init__ imports json.decoder)
    old = rep(tree_log([(0, "json", 183), (1, "json.decoder", 265), (1, "json.encoder", 269)]))
    new = rep(tree_log([(0, "json.decoder", 14), (1, "json", 183), (2, "json.decoder", 265), (2, "json.encoder", 269)]))
    d = diff_reports(old, new)
    assert [m.name for m in d.removed] == []
    assert [(m.name, m.extra.get("wrapper")) for m in d.added] == [("json.decoder", True)]
    assert d.changed == ()  # the loads are identical; before, the nested row was paired with the wrapper
    doc = d.to_dict()
    assert doc["added"][0]["wrapper"] is True
    assert any("dotted import" in n for n in doc["notes"])


def test_diff_on_real_captures_of_a_dotted_import(cli, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert cli("imports", "--runs", "1", "--warmup", "0", "-o", old, "-c", "import json").returncode == 0
    assert cli("imports", "--runs", "1", "--warmup", "0", "-o", new, "-c", "import json.decoder").returncode == 0
    doc = cli("diff", old, new, "--format", "json").json()
    assert "json.decoder" not in [m["name"] for m in doc["removed"]]
    assert [m["name"] for m in doc["added"] if m["name"].startswith("json")] == ["json.decoder"]
    assert all(m["wrapper"] for m in doc["added"] if m["name"] == "json.decoder")
    # the load itself is paired with the load (listed as changed or not), never with the wrapper
    assert all(c["wrapper"] is False for c in doc["changed"] if c["name"] == "json.decoder")
    res = cli("diff", old, new)
    assert "json.decoder (dotted import)" in res.stdout, res


def test_significance_needs_the_medians_outside_the_other_runs():
    # old runs 100, 100, 500 (MAD 0: two equal) vs new 300 ×3: a 200 µs change of the median
    # that lies inside the old runs' range is not significant (it was, judged by MAD alone)
    old = rep(*[HEADER + row(v, v, 0, "a") for v in (100, 100, 500)])
    new = rep(*[HEADER + row(300, 300, 0, "a") for _ in range(3)])
    (c,) = diff_reports(old, new).changed
    assert c.significant is False
    # a 1 µs change with no spread at all is the timer's resolution, not a change
    old = rep(*[HEADER + row(10, 10, 0, "a")] * 3)
    new = rep(*[HEADER + row(11, 11, 0, "a")] * 3)
    (c,) = diff_reports(old, new).changed
    assert c.significant is False
    new = rep(*[HEADER + row(40 + j, 40 + j, 0, "a") for j in range(3)])
    (c,) = diff_reports(old, new).changed
    assert c.significant is True
    assert diff_reports(old, new).totals.significant is True


_NAMES = st.sampled_from(["a", "a.b", "a.b.c", "b", "c"])


@st.composite
def preorders(draw):
    n = draw(st.integers(1, 25))
    out, depth = [], 0
    for i in range(n):
        depth = 0 if i == 0 else draw(st.integers(0, depth + 1))
        out.append((depth, draw(_NAMES), draw(st.integers(0, 5000))))
    return out


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(preorders(), min_size=1, max_size=3), st.integers(1, 4))
def test_diff_of_any_tree_with_itself_is_empty(processes, runs):
    """Property (with repeated names, wrappers and re-imports): diff(a, a) is empty."""
    text = "".join(tree_log(p) for p in processes)
    a = rep(*[text] * runs)
    d = diff_reports(a, a)
    assert d.is_empty and not d.added and not d.removed and not d.changed
