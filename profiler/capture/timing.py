"""The builtin engine: interleaved runs (A B C A B C ...) so that drift hits every command alike.

Run counts follow hyperfine: `--runs N` exactly, else adaptive (at least `min_runs`, and about
`min_time_s` of measuring per command on average, re-estimated after every round). Every
command gets the same count, so the interleaving holds to the last run.

A command that fails (exits non-zero, is killed by a signal, or — with `ignore_failure` —
still ends in a Python traceback or never started: parse/exit_status.py) is not measured further: its `Outcome` keeps the exit codes
seen and a one-line error, and the other commands go on. Deciding what that means for the
report (a failed row, or exit 3 when everything failed) is the workflow's job
(`profiler/workflows/measure.py`).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from profiler.capture.process import SpawnServer, StderrTail, check_runnable, spawn_measured
from profiler.capture.pycache import fresh_pycache
from profiler.errors import Interrupted, TimedOut, UsageError
from profiler.model.measurement import CommandSpec, RunSample
from profiler.model.variant import insert_flags
from profiler.session import Phase, Session


@dataclass(frozen=True)
class RunPlan:
    runs: int | None = None  # exact count; None = adaptive
    warmup: int = 3
    min_runs: int = 10
    min_time_s: float = 3.0
    max_runs: int | None = None
    ignore_failure: bool = False  # non-zero exits are the program's normal behaviour (hyperfine -i)
    use_spawner: bool = True  # honest peak RSS (see spawner.c); False: spawn directly

    def __post_init__(self) -> None:  # the one range check, whoever builds the plan
        if self.runs is not None and self.runs < 1:
            raise UsageError("--runs must be at least 1")
        if self.warmup < 0:
            raise UsageError("--warmup cannot be negative")

    def target_runs(self, mean_s: float) -> int:
        """Runs for commands whose mean duration is mean_s (hyperfine's rule)."""
        if self.runs is not None:
            return self.runs
        n = max(self.min_runs, math.ceil(self.min_time_s / max(mean_s, 1e-6)))
        if self.max_runs is not None:
            n = min(n, self.max_runs)
        return n


Progress = Callable[[int, int, str], None]  # (runs done, runs planned, current key)


@dataclass(frozen=True)
class Failure:
    """Why a command stopped being measured."""

    exit_code: int
    phase: str  # "warm-up" | "measuring"
    error: str  # one line: the last line of its stderr, or how it ended
    stderr_tail: str  # the last lines of its stderr (shown indented under the error)
    crashed: bool = False  # a signal or a Python traceback, not just a non-zero exit


@dataclass
class Outcome:
    """Everything measured for one command: its samples, and its failure if it failed."""

    samples: list[RunSample] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    failure: Failure | None = None


def describe_exit(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exited with code {code}"


def last_line(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")


class _Prepared:
    def __init__(self, spec: CommandSpec):
        self.spec = spec
        self.argv = [check_runnable(spec.argv[0]), *spec.argv[1:]]
        self.env = None
        if spec.env:
            env = dict(os.environ)
            env.update(dict(spec.env))
            self.env = env
        self._request: bytes | None = None

    def request(self, argv: list[str]) -> bytes:
        if argv is self.argv:
            if self._request is None:
                self._request = SpawnServer.encode(self.argv, self.env or os.environ)
            return self._request
        return SpawnServer.encode(argv, self.env or os.environ)


class Executor(Protocol):
    """What `run_interleaved` asks to run one command once; the scheduling (warm-up, rounds,
    adaptive counts, failures, Ctrl-C) is run_interleaved's. `ProcessExecutor` spawns the real
    process; a recorded one (tests/test_measure_seam.py, as hyperfine's mock executor) replays
    samples, so the schedule, the statistics and the failure rows are tested without a process.
    A factory `(specs, plan, session) -> Executor` is what measure()/run_interleaved take; it
    also answers `measures_rss(session)` (whether peak RSS is measured: the spawner was built)
    and may answer `read_machine(session)` (the machine facts measure() reports; a recorded
    measurement's, capture/runner.py). Without one, measure() takes the session's runner's
    (capture/runner.py: executor_of: this ProcessExecutor, recorded or replayed)."""

    def run(self, spec: CommandSpec) -> RunSample: ...

    def stderr(self, lines: int) -> str:
        """The last `lines` lines the last run wrote on stderr."""
        ...

    def close(self, kill: bool) -> None: ...


class ProcessExecutor:
    """The real runner: each command's argv prepared once, run through the measuring spawner
    (capture/spawner.c) or spawn_measured, a fresh pycache folder per cold-pyc run, the stderr
    tail kept for the failure line."""

    def __init__(self, specs: Sequence[CommandSpec], plan: RunPlan, session: Session):
        from profiler.capture.spawner import spawner_path

        self._prepared = {s.key: _Prepared(s) for s in specs}
        spawner = spawner_path(session=session) if plan.use_spawner else None
        self._session = session
        self._tail = StderrTail()
        self._tmp_root = tempfile.mkdtemp(prefix="importprof-run-")
        self._server = SpawnServer(spawner, self._tail, session=session) if spawner else None

    @staticmethod
    def measures_rss(session: Session) -> bool:
        from profiler.capture.spawner import spawner_path

        return spawner_path(session=session) is not None

    def run(self, spec: CommandSpec) -> RunSample:
        p = self._prepared[spec.key]
        with fresh_pycache(spec.fresh_pycache, self._tmp_root) as extra:
            argv = insert_flags(p.argv, extra) if extra else p.argv
            self._tail.reset()
            if self._server is not None:
                return self._server.measure(p.request(argv), argv[0])
            return spawn_measured(argv, env=p.env, stderr=self._tail, session=self._session)

    def stderr(self, lines: int) -> str:
        return self._tail.tail(lines=lines)

    def close(self, kill: bool) -> None:
        if self._server is not None:
            self._server.close(kill=kill)
        self._tail.close()
        shutil.rmtree(self._tmp_root, ignore_errors=True)


ExecutorFactory = Callable[[Sequence[CommandSpec], RunPlan, "Session"], Executor]


def _failure(sample: RunSample, executor: Executor, plan: RunPlan, phase: str) -> Failure | None:
    """None when the run counts as a success. With ignore_failure a non-zero exit is fine, but
    a signal or a Python traceback still is a crash, not the program's normal exit."""
    if sample.exit_code == 0:
        return None
    from profiler.parse.exit_status import read_ending

    text = executor.stderr(20)
    ending = read_ending(sample.exit_code, text)
    crashed = not ending.ran_on_purpose  # a signal, a traceback, or the program never started
    if plan.ignore_failure and not crashed:
        return None
    how = describe_exit(sample.exit_code)
    line = last_line(text)
    return Failure(sample.exit_code, phase, f"{how}: {line}" if line else how, "\n".join(text.splitlines()[-10:]), crashed)


def run_interleaved(
    specs: Sequence[CommandSpec], plan: RunPlan, *, session: Session,
    executor: ExecutorFactory | None = None,
) -> dict[str, Outcome]:
    """Measure every spec; returns each one's Outcome by spec key, in measuring order.
    Ctrl-C raises Interrupted carrying the outcomes so far. `executor`: what runs one command
    once (default ProcessExecutor: the real process)."""
    prepared = list(specs)
    runner = (executor or ProcessExecutor)(prepared, plan, session)
    outcomes: dict[str, Outcome] = {s.key: Outcome() for s in prepared}
    interrupted = False

    def one(spec: CommandSpec, phase: str) -> None:
        out = outcomes[spec.key]
        try:
            sample = runner.run(spec)
        except TimedOut as exc:  # name the run: which command, which run of it
            n = len(out.exit_codes) + 1
            who = f"{spec.variant} ({spec.target})" if spec.target else spec.variant
            raise TimedOut(f"{phase} run {n} of {who}: {exc.message}") from None
        out.exit_codes.append(sample.exit_code)
        out.failure = _failure(sample, runner, plan, phase)
        if out.failure is None and phase == "measuring":
            out.samples.append(sample)

    def alive() -> list[CommandSpec]:
        return [s for s in prepared if outcomes[s.key].failure is None]

    n = len(prepared)
    runs = f"{plan.runs} run{'s' if plan.runs != 1 else ''}" if plan.runs else f"at least {plan.min_runs} runs"
    session.progress(Phase(f"{n} command{'s' if n != 1 else ''}, {runs} each" + (f" after {plan.warmup} warm-up" if plan.warmup else "")))
    try:
        # Round by round, so a command that cannot run at all is found in the first round,
        # before the others are measured for minutes.
        for _ in range(plan.warmup):
            for p in alive():
                one(p, "warm-up")
        # Every command gets the same number of runs so that the interleaving (A B C A B C)
        # holds to the end. Adaptive: about `min_time_s` per command on average, i.e. the
        # whole round budget spread evenly, re-estimated after every round, at least min_runs.
        target = plan.runs or plan.min_runs
        done = 0
        rounds = 0
        while rounds < target and alive():
            for p in alive():
                one(p, "measuring")
                done += 1
                session.progress(Phase.of(done, target * len(prepared), p.key))
            rounds += 1
            if plan.runs is None:
                means = [sum(x.wall_s for x in o.samples) / len(o.samples) for o in outcomes.values() if o.samples]
                if means:
                    target = plan.target_runs(sum(means) / len(means))
    except KeyboardInterrupt:
        interrupted = True
        raise Interrupted("interrupted", partial=outcomes) from None
    finally:
        runner.close(interrupted)
    return outcomes
