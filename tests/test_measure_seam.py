"""measure() with a recorded executor (as hyperfine's mock executor): the schedule (warm-up,
interleaved rounds, adaptive counts), the statistics, failed rows and their hints, the warnings
and Ctrl-C's partial report, tested without starting a process (these run in `make test-fast`,
where starting one fails the test). The real runner is tested in test_startup_cli.py and
test_interrupts.py."""

from __future__ import annotations

import statistics

import pytest

from profiler.capture.timing import RunPlan, run_interleaved
from profiler.errors import Interrupted, TargetFailed, TimedOut, UsageError
from profiler.model.measurement import CommandSpec, RunSample
from profiler.model.words import TargetKind
from profiler.workflows.measure import measure
from profiler.session import Session

TRACEBACK = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'foo'"


def spec(key: str, variant: str | None = None, flags=(), kind: TargetKind = TargetKind.CODE) -> CommandSpec:
    return CommandSpec(argv=("python3", *flags, "-c", "pass"), variant=variant or key, flags=tuple(flags),
                       target="-c pass", key=key, target_kind=kind)


class Recorded:
    """Replays recorded runs. `script[key]`: one (wall_s, exit_code, stderr) per run, the last
    one repeated; or a callable (n-th call of that key) -> the same triple, or raising. Records
    the keys in the order they were run. It is its own factory: measure(executor=Recorded(...))."""

    def __init__(self, script: dict, rss: bool = True, cpu_share: float = 0.9):
        self.script = script
        self.rss = rss
        self.cpu_share = cpu_share
        self.calls: list[str] = []
        self.closed: list[bool] = []
        self.plans: list[RunPlan] = []
        self._stderr = ""

    def __call__(self, specs, plan, session):
        self.plans.append(plan)
        return self

    def measures_rss(self, session) -> bool:
        return self.rss

    def run(self, s: CommandSpec) -> RunSample:
        n = sum(1 for k in self.calls if k == s.key)
        self.calls.append(s.key)
        entry = self.script[s.key]
        wall, code, err = entry(n) if callable(entry) else entry[min(n, len(entry) - 1)]
        self._stderr = err
        half = wall * self.cpu_share / 2
        return RunSample(wall_s=wall, user_s=half, system_s=half, max_rss_bytes=1000 + n if self.rss else None,
                         exit_code=code)

    def stderr(self, lines: int) -> str:
        return "\n".join(self._stderr.splitlines()[-lines:])

    def close(self, kill: bool) -> None:
        self.closed.append(kill)


def ok(*walls):
    return [(w, 0, "") for w in walls]


def timed(specs, rec, plan=None, **kw):
    return measure(specs, plan or RunPlan(runs=3, warmup=1, use_spawner=False), machine={}, executor=rec, session=kw.pop("session", None) or Session(), **kw)


def test_runs_are_interleaved_round_by_round_after_the_warm_up():
    rec = Recorded({"A": ok(0.01), "B": ok(0.02), "C": ok(0.03)})
    m = timed([spec("A"), spec("B"), spec("C")], rec, RunPlan(runs=3, warmup=2, use_spawner=False))
    assert rec.calls == ["A", "B", "C"] * 5  # 2 warm-up rounds, then 3 measuring rounds
    assert [r.key for r in m.results] == ["A", "B", "C"]
    assert [r.runs for r in m.results] == [3, 3, 3]
    assert rec.closed == [False]


def test_statistics_come_from_the_measuring_runs_only():
    walls = [0.050, 0.010, 0.012, 0.011, 0.013]  # the first is the warm-up
    rec = Recorded({"A": ok(*walls), "B": ok(0.024)})
    m = timed([spec("A"), spec("B")], rec, RunPlan(runs=4, warmup=1, use_spawner=False))
    a, b = m.results
    measured = walls[1:]
    assert a.times == tuple(measured)
    assert a.mean == pytest.approx(statistics.mean(measured))
    assert a.median == pytest.approx(statistics.median(measured))
    assert a.stddev == pytest.approx(statistics.stdev(measured))
    assert (a.min, a.max) == (min(measured), max(measured))
    assert a.user == pytest.approx(statistics.mean(measured) * 0.45)
    assert a.memory_usage_byte == (1001, 1002, 1003, 1004)
    assert a.exit_codes == (0, 0, 0, 0)
    assert not a.failed and a.engine == "builtin"
    assert m.reference == "A"
    ratios = {r.key: r.ratio for r in m.relative}
    assert ratios["A"] == 1.0
    assert ratios["B"] == pytest.approx(0.024 / statistics.mean(measured))


def test_a_failing_command_becomes_a_failed_row_with_its_hint_and_the_others_go_on():
    rec = Recorded({"A": ok(0.01), "B": [(0.01, 1, TRACEBACK)], "C": ok(0.03)})
    warned = []
    m = timed([spec("A"), spec("B", "isolated", ("-I",)), spec("C")], rec, session=Session(say=warned.append))
    a, b, c = m.results
    assert rec.calls.count("B") == 1  # found in the warm-up round, never run again
    assert b.failed and b.times == () and b.mean is None and b.exit_codes == (1,)
    assert b.error == "exited with code 1: ModuleNotFoundError: No module named 'foo'"
    assert m.warnings == ("B: failed (exited with code 1: ModuleNotFoundError: No module named 'foo'): "
                          "-I ignores PYTHONPATH and the user site-packages",)
    assert warned == list(m.warnings)
    assert [r.key for r in m.measured] == ["A", "C"]
    assert [r.key for r in m.relative] == ["A", "C"]


def test_a_failure_while_measuring_keeps_every_exit_code_seen():
    rec = Recorded({"A": ok(0.01), "B": lambda n: (0.02, 1 if n == 2 else 0, "bad input" if n == 2 else "")})
    m = timed([spec("A"), spec("B")], rec)
    b = m.results[1]
    assert b.failed and b.exit_codes == (0, 0, 1)  # warm-up, measuring 1, measuring 2
    assert b.error == "exited with code 1: bad input"
    assert rec.calls == ["A", "B", "A", "B", "A", "B", "A"]


@pytest.mark.parametrize("code, err, error, ignorable", [
    (1, "usage: prog\nprog: error: boom", "exited with code 1: prog: error: boom", True),
    (-9, "", "killed by signal 9", False),
    (1, TRACEBACK, "exited with code 1: ModuleNotFoundError: No module named 'foo'", False),
])
def test_every_command_failing_is_target_failed_with_the_first_stderr_tail(code, err, error, ignorable):
    rec = Recorded({"A": [(0.01, code, err)], "B": [(0.01, 2, "other")]})
    with pytest.raises(TargetFailed) as exc:
        timed([spec("A"), spec("B")], rec)
    assert exc.value.message == f"A: the command failed ({error}): python3 -c pass"
    assert exc.value.detail == (err or None)
    assert exc.value.ignorable is ignorable


def test_ignore_failure_measures_a_plain_non_zero_exit_but_not_a_traceback():
    rec = Recorded({"A": [(0.01, 1, "1 problem found")], "B": [(0.01, 1, TRACEBACK)]})
    m = timed([spec("A"), spec("B")], rec, RunPlan(runs=3, warmup=1, ignore_failure=True, use_spawner=False))
    a, b = m.results
    assert not a.failed and a.exit_codes == (1, 1, 1) and a.runs == 3
    assert b.failed
    assert "A: 3 of 3 runs exited non-zero (ignored)" in m.warnings


def test_a_failed_reference_gives_way_to_the_first_measured_result():
    rec = Recorded({"A": [(0.01, 3, "no")], "B": ok(0.02)})
    m = timed([spec("A"), spec("B")], rec, reference="A")
    assert m.reference == "B"
    assert m.warnings[-1] == "the reference A failed: ratios are against B instead"
    assert [(r.key, r.ratio) for r in m.relative] == [("B", 1.0)]


def test_an_unknown_reference_is_a_usage_error_before_any_run():
    rec = Recorded({"A": ok(0.01)})
    with pytest.raises(UsageError, match="--reference 'Z' is not one of the measured variants"):
        timed([spec("A")], rec, reference="Z")
    assert rec.calls == []


@pytest.mark.parametrize("max_runs, expected", [(None, 10), (5, 5)])
def test_adaptive_counts_aim_at_min_time_per_command(max_runs, expected):
    rec = Recorded({"A": ok(0.1), "B": ok(0.1)})
    plan = RunPlan(runs=None, warmup=0, min_runs=2, min_time_s=1.0, max_runs=max_runs, use_spawner=False)
    m = timed([spec("A"), spec("B")], rec, plan)
    assert [r.runs for r in m.results] == [expected, expected]
    assert rec.calls == ["A", "B"] * expected


def test_ctrl_c_gives_the_runs_measured_so_far_as_a_partial_report():
    def interrupted_on_third(n):
        if n == 2:
            raise KeyboardInterrupt
        return (0.02, 0, "")

    rec = Recorded({"A": ok(0.01), "B": interrupted_on_third})
    with pytest.raises(Interrupted) as exc:
        timed([spec("A"), spec("B")], rec)
    partial = exc.value.partial
    assert exc.value.message == "interrupted: showing the 3 runs measured so far"
    assert partial.interrupted
    assert [(r.key, r.runs) for r in partial.results] == [("A", 2), ("B", 1)]
    assert rec.closed == [True]  # the runner is told to kill what still runs


def test_ctrl_c_before_any_run_says_so():
    """Ctrl-C during the warm-up: no run measured, which the line says (not "showing the 0 runs")."""
    def interrupted_at_once(n):
        raise KeyboardInterrupt

    rec = Recorded({"A": interrupted_at_once})
    with pytest.raises(Interrupted) as exc:
        timed([spec("A")], rec)
    assert exc.value.message == "interrupted: before any run was measured"
    assert exc.value.partial.interrupted and exc.value.partial.results == ()


def test_a_timeout_names_the_phase_the_run_and_the_command():
    def slow(n):
        raise TimedOut("did not finish within 1 s")

    rec = Recorded({"A": slow})
    with pytest.raises(TimedOut, match=r"^warm-up run 1 of A \(-c pass\): did not finish within 1 s$"):
        timed([spec("A")], rec)
    assert rec.closed == [False]


def test_warnings_in_order_no_spawner_then_busy_then_per_result():
    rec = Recorded({"A": ok(0.050, 0.010, 0.010, 0.010)}, rss=False, cpu_share=0.5)
    warned = []
    busy_machine = {"cpu_percent": 60.0}
    m = measure([spec("A")], RunPlan(runs=3, warmup=1), machine=busy_machine, executor=rec, session=Session(say=warned.append))
    assert m.results[0].memory_usage_byte is None
    assert m.warnings[0].startswith("the machine is busy: the runs were on a CPU for 50% of their wall time")
    assert m.warnings[1] == "no C compiler to build the measuring spawner: peak RSS is not measured (null)"
    assert warned[0] == m.warnings[1]  # said before the runs
    assert warned[1] == m.warnings[0]  # judged after them
    assert m.machine == busy_machine


def test_progress_says_the_phase_once_then_counts_measuring_runs():
    rec = Recorded({"A": ok(0.01), "B": ok(0.01)})
    seen = []
    timed([spec("A"), spec("B")], rec, RunPlan(runs=2, warmup=1, use_spawner=False),
          session=Session(bar=lambda phase: seen.append((phase.done, phase.total, phase.label))))
    assert seen == [(0, 0, "2 commands, 2 runs each after 1 warm-up"),
                    (1, 4, "A"), (2, 4, "B"), (3, 4, "A"), (4, 4, "B")]


def test_run_interleaved_takes_the_executor_too():
    rec = Recorded({"A": ok(0.01)})
    outcomes = run_interleaved([spec("A")], RunPlan(runs=2, warmup=0, use_spawner=False), executor=rec, session=Session())
    assert [s.wall_s for s in outcomes["A"].samples] == [0.01, 0.01]
    assert rec.plans[0].runs == 2
