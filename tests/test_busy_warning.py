"""The busy warning, judged on what the runs got (profiler/analysis/machine.py): the runs' CPU
share while other work used the machine, never the load average alone. The figures are those
the calibration in analysis/machine.py measured."""

from __future__ import annotations

import pytest

from profiler.analysis.machine import BUSY_CPU_SHARE, busy_warnings, runs_cpu_share
from profiler.model.measurement import TimingResult


def _result(mean_ms: float, cpu_ms: float, key: str = "default", failed: bool = False) -> TimingResult:
    if failed:
        return TimingResult.from_dict({"command": key, "variant": key, "mean": None, "stddev": None, "median": None,
                                       "user": None, "system": None, "min": None, "max": None, "times": [],
                                       "exit_codes": [1], "failed": True})
    m = mean_ms / 1e3
    return TimingResult.from_dict({"command": key, "variant": key, "mean": m, "stddev": m / 20, "median": m,
                                   "user": cpu_ms * 0.85 / 1e3, "system": cpu_ms * 0.15 / 1e3, "min": m, "max": m,
                                   "times": [m] * 10, "exit_codes": [0] * 10})


def _machine(load: float, others_pct: float | None, cores: int = 2) -> dict:
    return {"logical_cores": cores, "load_average": [load, load, load], "cpu_percent": others_pct,
            "memory_total_bytes": 8 << 30, "memory_available_bytes": 6 << 30}


def test_a_ci_runners_load_average_alone_is_not_busy():
    """Load 1.0 on 2 cores (the runner's agent) with runs that got their core: no warning."""
    assert busy_warnings(_machine(1.0, 8.0), [_result(80, 78)]) == []
    assert busy_warnings(_machine(9.2, 52.0), [_result(82, 80)]) == []  # calibration: SCHED_FIFO runs, load 9


def test_runs_that_waited_for_a_core_on_a_busy_machine_are_busy():
    (w,) = busy_warnings(_machine(9.1, 87.0), [_result(440, 117)])  # calibration: shared with load 9
    assert w.startswith("the machine is busy:") and "27% of their wall time" in w and "87% of the machine" in w, w


def test_a_program_that_waits_on_its_own_is_not_busy_on_a_quiet_machine():
    """A sleep or the network lowers the runs' share; with the machine otherwise idle, it is the
    program, not the machine."""
    assert busy_warnings(_machine(0.3, 3.0), [_result(250, 40)]) == []


def test_the_share_is_the_median_over_the_measured_results():
    results = [_result(100, 95, "a"), _result(100, 30, "b"), _result(100, 90, "c"), _result(0, 0, "d", failed=True)]
    assert runs_cpu_share(results) == pytest.approx(0.9)
    assert runs_cpu_share([_result(100, 95, "a"), _result(100, 35, "b")]) == pytest.approx(0.65)
    assert runs_cpu_share([]) is None and runs_cpu_share([_result(0, 0, failed=True)]) is None
    assert busy_warnings(_machine(5.0, 90.0), results) == []  # most variants got their core


def test_no_cpu_sample_no_busy_judgement():
    assert busy_warnings(_machine(9.0, None), [_result(440, 117)]) == []
    assert busy_warnings(_machine(9.0, 90.0), []) == []


def test_the_threshold_sits_between_the_calibrated_figures():
    assert 0.27 < BUSY_CPU_SHARE < 0.94


def test_low_free_memory_is_still_said():
    m = dict(_machine(0.1, 1.0), memory_available_bytes=512 << 20)
    assert busy_warnings(m) == ["low free memory: 0.5 GiB of 8.0 GiB available"]
