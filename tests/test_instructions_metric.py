"""Instructions retired as a start-up metric for `startup` and `imports`: counted several
times, their own run-to-run range shown beside them (perf counters where the kernel exposes
them, else valgrind)."""

from __future__ import annotations

import shutil

import pytest

from conftest import assert_one_line_error
from profiler.session import Session

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _counter():
    from profiler.capture.instructions import perf_counts_instructions

    if shutil.which("valgrind") is None and not perf_counts_instructions(session=Session()):
        pytest.skip("no instruction counter: perf counters are not exposed and valgrind is not installed")


def test_startup_counts_several_times_and_shows_the_range(cli, real_python, tmp_path):
    from profiler.inputs.documents import read_document

    res = cli("startup", "--python", real_python, "--variant", "no-site", "--runs", "1", "--warmup", "0",
              "--metric", "instructions", "--instruction-runs", "3", "-o", "s.json", cwd=tmp_path)
    assert res.returncode == 0, res
    doc = read_document(str(tmp_path / "s.json"), ["startup"])  # the new keys are in the schema
    (r,) = doc["results"]
    assert len(r["instructions_runs"]) == 3
    assert r["instructions"] == sorted(r["instructions_runs"])[1]  # the median
    # its variation is what the counts say ((max - min) / median); how small it is on this
    # machine is benchmarks/bench_metric.py's to show, not a test's threshold
    runs = r["instructions_runs"]
    assert r["instructions_variation_pct"] == pytest.approx(100 * (max(runs) - min(runs)) / sorted(runs)[1])
    assert f"{r['instructions']:,} (range " in res.stdout


def test_imports_counts_the_target_and_the_bare_interpreter(cli, real_python, tmp_path):
    from profiler.inputs.documents import read_document
    from profiler.workflows.imports import load_report

    res = cli("imports", "--python", real_python, "--runs", "1", "--metric", "instructions", "--instruction-runs", "2",
              "-o", "i.json", "-c", "import json, decimal", cwd=tmp_path)
    assert res.returncode == 0, res
    ins = read_document(str(tmp_path / "i.json"), ["imports"])["instructions"]
    assert len(ins["target_runs"]) == 2 and len(ins["bare_runs"]) == 2
    assert ins["method"] in ("perf", "valgrind")
    # importing json and decimal costs instructions a bare start does not spend
    assert ins["difference"] == ins["target"] - ins["bare"] > 0
    a, b = ins["target_runs"]  # two counts: their median is their mean
    assert ins["variation_pct"] == pytest.approx(100 * abs(a - b) / ((a + b) / 2))
    assert "instructions (" in res.stdout and "the program adds" in res.stdout
    # a saved report keeps them, and `show` prints them again
    assert load_report(str(tmp_path / "i.json")).instructions == ins
    shown = cli("show", "i.json", cwd=tmp_path)
    assert shown.returncode == 0 and f"target {ins['target']:,}" in shown.stdout, shown


def test_a_metric_imports_cannot_give_is_a_usage_error(cli, tmp_path, fixtures):
    assert_one_line_error(cli("imports", "--metric", "cycles", "-c", "pass"), 2, "unknown metric 'cycles'")
    log = fixtures / "importtime" / "boto3.log"
    assert_one_line_error(cli("imports", "--from-log", str(log), "--metric", "instructions"), 2, "--from-log")


def test_the_readme_metric_line_runs(cli, tmp_path):
    """The README's `--metric instructions` example (the README test leaves --metric lines to
    this file: they run valgrind)."""
    import shlex

    from test_readme import console_lines

    text = next(t for _, t in console_lines() if "--metric instructions" in t and t.startswith("importprof imports"))
    res = cli(*shlex.split(text, comments=True)[1:], cwd=tmp_path)
    assert res.returncode == 0, res
    assert "the program adds" in res.stdout
