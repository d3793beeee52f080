"""`--metric instructions`: instructions retired per run, a count that a busy machine does not
disturb. perf counters when the kernel exposes them (`perf stat -e instructions`), otherwise
valgrind (callgrind's total Ir: slow, about 50x, but exact)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from typing import Sequence

from profiler.capture.process import run
from profiler.capture.pycache import fresh_pycache
from profiler.errors import TargetFailed, ToolFailed, ToolMissing
from profiler.model.measurement import CommandSpec
from profiler.model.variant import insert_flags
from profiler.session import Session


def perf_counts_instructions(session: Session) -> bool:
    perf = shutil.which("perf")
    if perf is None:
        return False
    proc = run([perf, "stat", "-x", ",", "-e", "instructions:u", "true"], timeout=30, what="perf", session=session)
    return proc.returncode == 0 and not any(
        "not supported" in ln or "not counted" in ln for ln in proc.stderr.splitlines()
    ) and _perf_value(proc.stderr) is not None


def _perf_value(stderr: str) -> int | None:
    for line in stderr.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and parts[2].startswith("instructions"):
            try:
                return int(parts[0])
            except ValueError:
                return None
    return None


def parse_callgrind_total(text: str) -> int | None:
    """The `totals:` (or `summary:`) line of a callgrind out file: total Ir."""
    for key in ("totals:", "summary:"):
        m = re.search(rf"^{key}\s+(\d+)", text, re.M)
        if m:
            return int(m.group(1))
    return None


def count_instructions(spec: CommandSpec, method: str, session: Session) -> int:
    env = None
    if spec.env:
        env = dict(os.environ)
        env.update(dict(spec.env))
    tmp = tempfile.mkdtemp(prefix="importprof-instr-")
    try:
        with fresh_pycache(spec.fresh_pycache, tmp) as extra:
            return _count(insert_flags(spec.argv, extra), env, tmp, spec.key, method, session=session)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _count(argv: list[str], env: dict | None, tmp: str, key: str, method: str, session: Session) -> int:
    if method == "perf":
        proc = run(["perf", "stat", "-x", ",", "-e", "instructions:u", *argv], env=env, what="perf", session=session)
        if proc.returncode != 0:
            raise TargetFailed(f"{key}: the command failed under perf (exit {proc.returncode})")
        n = _perf_value(proc.stderr)
        if n is None:
            raise ToolFailed("perf stat gave no instruction count")
        return n
    out = os.path.join(tmp, "callgrind.out")
    proc = run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--log-file=" + os.path.join(tmp, "vg.log"), *argv],
        env=env,
        what="valgrind", session=session,
    )
    if proc.returncode != 0:
        raise TargetFailed(f"{key}: the command failed under valgrind (exit {proc.returncode})")
    with open(out, encoding="utf-8", errors="replace") as fh:
        n = parse_callgrind_total(fh.read())
    if n is None:
        raise ToolFailed("valgrind's callgrind output has no instruction total")
    return n


def pick_method(session: Session) -> str:
    if perf_counts_instructions(session=session):
        return "perf"
    if shutil.which("valgrind") is None:
        raise ToolMissing(
            "--metric instructions needs perf counters (not available on this kernel) or valgrind; "
            "install valgrind with `apt-get install -y valgrind`"
        )
    return "valgrind"


def measure_instructions(specs: Sequence[CommandSpec], runs: int = 1, *, session: Session) -> dict[str, list[int]]:
    """`runs` counts per spec, interleaved (spec by spec within each round): their spread is
    the metric's own run-to-run variation (hash randomization, ASLR), shown beside it."""
    method = pick_method(session=session)
    out: dict[str, list[int]] = {s.key: [] for s in specs}
    for _ in range(runs):
        for s in specs:
            out[s.key].append(count_instructions(s, method, session=session))
    return out
