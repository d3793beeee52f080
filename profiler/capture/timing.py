"""The builtin engine: interleaved runs (A B C A B C ...) so that drift hits every command alike.

Run counts follow hyperfine: `--runs N` exactly, else adaptive (at least `min_runs`, and about
`min_time_s` of measuring per command on average, re-estimated after every round). Every
command gets the same count, so the interleaving holds to the last run.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Callable, Sequence

from profiler.capture.process import SpawnServer, StderrTail, resolve_executable, spawn_measured
from profiler.errors import BadInput, Interrupted, TargetFailed
from profiler.model.measurement import CommandSpec, RunSample


@dataclass(frozen=True)
class RunPlan:
    runs: int | None = None  # exact count; None = adaptive
    warmup: int = 3
    min_runs: int = 10
    min_time_s: float = 3.0
    max_runs: int | None = None
    ignore_failure: bool = False
    use_spawner: bool = True  # honest peak RSS (see spawner.c); False: spawn directly

    def target_runs(self, mean_s: float) -> int:
        """Runs for commands whose mean duration is mean_s (hyperfine's rule)."""
        if self.runs is not None:
            return self.runs
        n = max(self.min_runs, math.ceil(self.min_time_s / max(mean_s, 1e-6)))
        if self.max_runs is not None:
            n = min(n, self.max_runs)
        return n


Progress = Callable[[int, int, str], None]  # (runs done, runs planned, current key)


class _Prepared:
    def __init__(self, spec: CommandSpec):
        exe = resolve_executable(spec.argv[0])
        if exe is None:
            raise BadInput(f"cannot run {spec.argv[0]}: not found or not executable")
        self.spec = spec
        self.argv = [exe, *spec.argv[1:]]
        self.env = None
        if spec.env:
            env = dict(os.environ)
            env.update(dict(spec.env))
            self.env = env
        self._request = None

    def request(self, argv: list[str]) -> bytes:
        if argv is self.argv:
            if self._request is None:
                self._request = SpawnServer.encode(self.argv, self.env or os.environ)
            return self._request
        return SpawnServer.encode(argv, self.env or os.environ)

    def argv_for_run(self, tmp_root: str) -> tuple[list[str], str | None]:
        if not self.spec.fresh_pycache:
            return self.argv, None
        d = tempfile.mkdtemp(prefix="pycache-", dir=tmp_root)
        return [self.argv[0], "-X", f"pycache_prefix={d}", *self.argv[1:]], d


def _run_one(p: _Prepared, tail: StderrTail, tmp_root: str, plan: RunPlan, phase: str, server: SpawnServer | None) -> RunSample:
    argv, fresh = p.argv_for_run(tmp_root)
    tail.reset()
    try:
        if server is not None:
            sample = server.measure(p.request(argv), argv[0])
        else:
            sample = spawn_measured(argv, env=p.env, stderr=tail)
    finally:
        if fresh:
            shutil.rmtree(fresh, ignore_errors=True)
    if sample.exit_code != 0 and not plan.ignore_failure:
        how = (
            f"was killed by signal {-sample.exit_code}"
            if sample.exit_code < 0
            else f"exited with code {sample.exit_code}"
        )
        raise TargetFailed(
            f"{p.spec.key or p.spec.variant}: the command {how} during {phase} "
            f"({p.spec.command})",
            detail=tail.tail(),
        )
    return sample


def run_interleaved(
    specs: Sequence[CommandSpec], plan: RunPlan, progress: Progress | None = None
) -> dict[str, list[RunSample]]:
    """Measure every spec; returns samples by spec key, in measuring order."""
    from profiler.capture.spawner import spawner_path

    prepared = [_Prepared(s) for s in specs]
    spawner = spawner_path() if plan.use_spawner else None
    samples: dict[str, list[RunSample]] = {p.spec.key: [] for p in prepared}
    tail = StderrTail()
    tmp_root = tempfile.mkdtemp(prefix="importprof-run-")
    server = SpawnServer(spawner, tail) if spawner else None
    interrupted = False
    try:
        for _ in range(plan.warmup):
            for p in prepared:
                _run_one(p, tail, tmp_root, plan, "warm-up", server)
        # Every command gets the same number of runs so that the interleaving (A B C A B C)
        # holds to the end. Adaptive: about `min_time_s` per command on average, i.e. the
        # whole round budget spread evenly, re-estimated after every round, at least min_runs.
        target = plan.runs or plan.min_runs
        done = 0
        rounds = 0
        while rounds < target:
            for p in prepared:
                key = p.spec.key
                samples[key].append(_run_one(p, tail, tmp_root, plan, "measuring", server))
                done += 1
                if progress is not None:
                    progress(done, target * len(prepared), key)
            rounds += 1
            if plan.runs is None:
                means = [sum(x.wall_s for x in got) / len(got) for got in samples.values()]
                target = plan.target_runs(sum(means) / len(means))
    except KeyboardInterrupt:
        interrupted = True
        raise Interrupted("interrupted", partial=samples) from None
    finally:
        if server is not None:
            server.close(kill=interrupted)
        tail.close()
        shutil.rmtree(tmp_root, ignore_errors=True)
    return samples
