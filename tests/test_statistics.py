"""Statistics against hand-computed cases (pure functions, no processes)."""

import math

import pytest
from hypothesis import given, strategies as st

from profiler.analysis import statistics as S
from profiler.model.measurement import CommandSpec, RunSample


def test_mean_median_stddev_hand_computed():
    xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    assert S.mean(xs) == 5.0
    assert S.median(xs) == 4.5
    # sample stddev: sum of squares 32, n-1 = 7
    assert S.stddev(xs) == pytest.approx(math.sqrt(32 / 7))
    assert S.median([3.0, 1.0, 2.0]) == 2.0
    assert S.stddev([1.0]) is None


def test_mad_and_modified_zscores_hand_computed():
    xs = [1.0, 2.0, 3.0, 4.0, 100.0]
    # median 3, deviations 2,1,0,1,97 → MAD 1
    assert S.mad(xs) == 1.0
    assert S.modified_zscores(xs) == [-2.0, -1.0, 0.0, 1.0, 97.0]
    assert S.outlier_indices(xs) == [4]


def test_no_outliers_in_a_tight_sample():
    xs = [0.010, 0.0101, 0.0099, 0.0100, 0.0102, 0.0098]
    assert S.outlier_indices(xs) == []
    assert not S.first_run_much_slower(xs)


def test_first_run_much_slower_is_the_cold_cache_case():
    xs = [0.050, 0.010, 0.0101, 0.0099, 0.0100, 0.0102]
    assert S.first_run_much_slower(xs)
    spec = CommandSpec(argv=("x",), variant="v", key="v")
    r = S.summarize(spec, [RunSample(t, 0.0, 0.0, 1, 0) for t in xs])
    warnings = S.result_warnings(r)
    assert any("first run was much slower" in w for w in warnings)
    # the slow first run is not reported a second time as a plain outlier
    assert not any("statistical outlier" in w for w in warnings)


def test_wide_spread_warning_at_ten_percent():
    spec = CommandSpec(argv=("x",), variant="v", key="v")
    tight = S.summarize(spec, [RunSample(t, 0.0, 0.0, 1, 0) for t in [1.0, 1.05, 0.95, 1.0]])
    wide = S.summarize(spec, [RunSample(t, 0.0, 0.0, 1, 0) for t in [1.0, 1.3, 0.7, 1.0]])
    assert not any("too wide" in w for w in S.result_warnings(tight))
    assert any("too wide" in w for w in S.result_warnings(wide))


def test_summarize_keeps_hyperfine_fields():
    spec = CommandSpec(argv=("/bin/python", "-c", "pass"), variant="default", python="/bin/python", python_version="3.11.7", key="default")
    samples = [RunSample(0.01, 0.006, 0.002, 8_000_000, 0), RunSample(0.03, 0.008, 0.004, 9_000_000, 0)]
    r = S.summarize(spec, samples)
    assert r.command == "/bin/python -c pass"
    assert r.mean == pytest.approx(0.02)
    assert r.median == pytest.approx(0.02)
    assert r.min == 0.01 and r.max == 0.03
    assert r.user == pytest.approx(0.007) and r.system == pytest.approx(0.003)
    assert r.stddev == pytest.approx(math.sqrt(2 * 0.01**2))
    assert r.memory_usage_byte == (8_000_000, 9_000_000)
    assert r.peak_rss_bytes == 9_000_000
    assert r.exit_codes == (0, 0)


def test_summarize_without_rss_reports_null():
    spec = CommandSpec(argv=("x",), variant="v", key="v")
    r = S.summarize(spec, [RunSample(0.01, 0.0, 0.0, None, 0)])
    assert r.memory_usage_byte is None and r.stddev is None
    assert r.to_dict()["memory_usage_byte"] is None


def test_ratio_with_error_propagates_relative_errors():
    ratio, err = S.ratio_with_error(20.0, 2.0, 10.0, 1.0)
    assert ratio == 2.0
    # sqrt((2/20)^2 + (1/10)^2) * 2 = sqrt(0.02) * 2
    assert err == pytest.approx(2 * math.sqrt(0.02))
    assert S.ratio_with_error(20.0, None, 10.0, 1.0)[1] is None


def test_difference_with_error_for_import_cost():
    d, e = S.difference_with_error(0.05, 0.003, 0.04, 0.004)
    assert d == pytest.approx(0.01)
    assert e == pytest.approx(0.005)


def test_relative_speeds_reference_is_exactly_one():
    spec_a = CommandSpec(argv=("a",), variant="a", key="a")
    spec_b = CommandSpec(argv=("b",), variant="b", key="b")
    a = S.summarize(spec_a, [RunSample(t, 0, 0, 1, 0) for t in (1.0, 1.1, 0.9)])
    b = S.summarize(spec_b, [RunSample(t, 0, 0, 1, 0) for t in (2.0, 2.2, 1.8)])
    rel = {x.key: x for x in S.relative_speeds([a, b], "a")}
    assert rel["a"].ratio == 1.0 and rel["a"].ratio_stddev is None
    assert rel["b"].ratio == pytest.approx(2.0)
    assert rel["b"].ratio_stddev == pytest.approx(2.0 * math.sqrt(2 * (0.1 / 1.0) ** 2))


@given(st.lists(st.floats(min_value=1e-4, max_value=10.0), min_size=1, max_size=50))
def test_summary_invariants(xs):
    spec = CommandSpec(argv=("x",), variant="v", key="v")
    r = S.summarize(spec, [RunSample(x, 0.0, 0.0, 1, 0) for x in xs])
    assert r.min <= r.median <= r.max
    assert r.min - 1e-12 <= r.mean <= r.max + 1e-12
    assert r.runs == len(xs)
    assert (r.stddev is None) == (len(xs) < 2)
