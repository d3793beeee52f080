"""The hyperfine engine: drive the real hyperfine (`-N`, `--export-json` to a temp file) and read
its file back into the same model as the builtin engine."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from typing import Sequence

from profiler.capture.process import run
from profiler.capture.timing import RunPlan
from profiler.errors import TargetFailed, ToolFailed, ToolMissing
from profiler.model.measurement import CommandSpec, TimingResult
from profiler.model.variant import insert_flags, pycache_flags
from profiler.parse.hyperfine_json import parse_hyperfine_json
from profiler.session import Session

MIN_VERSION = (1, 20)
INSTALL_HINT = "install it with `cargo install --locked hyperfine --version 1.20.0` (or `make setup`)"


def parse_version(text: str) -> tuple[int, ...] | None:
    """`hyperfine 1.20.0` → (1, 20, 0)."""
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


def find_hyperfine(session: Session) -> tuple[str, tuple[int, ...]]:
    exe = shutil.which("hyperfine")
    if exe is None:
        raise ToolMissing(f"hyperfine not found on PATH; {INSTALL_HINT}")
    proc = run([exe, "--version"], timeout=30, what="hyperfine", session=session)
    version = parse_version(proc.stdout)
    if proc.returncode != 0 or version is None:
        raise ToolMissing(f"{exe} --version failed; {INSTALL_HINT}")
    if version[:2] < MIN_VERSION:
        raise ToolMissing(
            f"hyperfine {'.'.join(map(str, version))} at {exe} is older than 1.20 "
            f"(no memory_usage_byte); {INSTALL_HINT}"
        )
    return exe, version


def hyperfine_argv(
    exe: str, specs: Sequence[CommandSpec], plan: RunPlan, export: str, pycache_dirs: dict
) -> list[str]:
    argv = [exe, "-N", "--style", "basic", "--export-json", export, "--warmup", str(plan.warmup)]
    if plan.runs is not None:
        argv += ["--runs", str(plan.runs)]
    else:
        argv += ["--min-runs", str(plan.min_runs)]
        if plan.max_runs is not None:
            argv += ["--max-runs", str(plan.max_runs)]
    if plan.ignore_failure:
        argv.append("-i")
    if any(s.fresh_pycache for s in specs):
        # cold-pyc: hyperfine cannot make a fresh folder per run, but it can empty one
        # before every run (--prepare, once per command, not timed).
        for s in specs:
            d = pycache_dirs.get(s.key)
            argv += ["--prepare", shlex.join(["rm", "-rf", d]) if d else "true"]
    for s in specs:
        cmd = list(s.argv)
        if s.fresh_pycache:
            cmd = insert_flags(cmd, pycache_flags(pycache_dirs[s.key]))
        if s.env:
            cmd = ["env", *(f"{k}={v}" for k, v in s.env), *cmd]
        argv += ["-n", s.key, shlex.join(cmd)]
    return argv


def _hyperfine_limit(commands: int, plan: RunPlan, session: Session) -> float:
    """hyperfine has no limit per run: --timeout bounds the whole benchmark by the runs it
    makes at most (adaptive runs stop after min_time_s, so min_runs bounds the slow case)."""
    from profiler.capture.process import run_timeout

    per_run = run_timeout(session)
    if per_run is None:
        return float("inf")
    return per_run * commands * (plan.warmup + (plan.runs or plan.min_runs) + 1)


def run_hyperfine(specs: Sequence[CommandSpec], plan: RunPlan, session: Session) -> list[TimingResult]:
    exe, _ = find_hyperfine(session=session)
    tmp = tempfile.mkdtemp(prefix="importprof-hyperfine-")
    try:
        export = os.path.join(tmp, "results.json")
        pycache = {s.key: os.path.join(tmp, f"pycache-{i}") for i, s in enumerate(specs) if s.fresh_pycache}
        argv = hyperfine_argv(exe, specs, plan, export, pycache)
        try:
            proc = run(argv, what="hyperfine", timeout=_hyperfine_limit(len(specs), plan, session=session), session=session)
        except KeyboardInterrupt:
            from profiler.errors import Interrupted

            raise Interrupted("interrupted (hyperfine keeps no partial results)") from None
        if proc.returncode != 0:
            err = proc.stderr.strip().splitlines()
            last = next((ln for ln in reversed(err) if ln.strip()), "hyperfine failed")
            last = re.sub(r"^(Error|error):\s*", "", last.strip())
            if "non-zero exit code" in last:
                raise TargetFailed(f"hyperfine: {last}")
            raise ToolFailed(f"hyperfine failed: {last}")
        with open(export, encoding="utf-8") as fh:
            text = fh.read()
        return parse_hyperfine_json(text, {s.key: s for s in specs}, source="hyperfine export")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
