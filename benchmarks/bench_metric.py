"""Benchmark (not a test): how much each start-up metric varies from run to run on this
machine — wall time against instructions retired — the same command, in one run.

A CI gate on a metric flakes when the metric's own noise reaches the gate's margin: `importprof
check` offers `budget_instructions` / `max_growth_pct` on instructions because they barely move
(aim: instructions vary by <= 0.5 % over the runs, so a 2 % growth budget never flakes), while
wall time on a shared machine moves by far more. Printed per metric: median, min, max, range
((max - min) / median) and the largest deviation from the median, the aim with met/MISSED, and
the load average beside them. Wall times come from importprof's own timing engine (the `startup`
workflow, warm-up runs first); instructions from the same counter `check` uses (perf where the
kernel exposes it, else valgrind's callgrind).
Usage: .venv/bin/python benchmarks/bench_metric.py [--runs 20] [--code "import json, decimal"] [--python PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from profiler.session import Session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

AIM_INSTRUCTIONS_PCT = 0.5
GATE_PCT = 2.0


def describe(name: str, values: list[float], unit: str, fmt) -> dict:
    med = statistics.median(values)
    rng = (max(values) - min(values)) / med * 100
    dev = max(abs(v - med) for v in values) / med * 100
    print(f"  {name:<13} median {fmt(med)}{unit}  min {fmt(min(values))}  max {fmt(max(values))}  "
          f"range {rng:.3f} %  largest deviation from the median {dev:.3f} %  "
          f"({'within' if dev < GATE_PCT else 'BEYOND'} a {GATE_PCT:g} % gate)")
    return {"range": rng, "dev": dev}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--code", default="import json, decimal")
    ap.add_argument("--python", default=None, help="default: python3 on PATH")
    args = ap.parse_args()

    from profiler.capture.instructions import count_instructions, pick_method
    from profiler.capture.interpreter import resolve_python
    from profiler.model.target import Target
    from profiler.workflows.plan import plan_runs
    from profiler.workflows.session import invocation
    from profiler.compose.startup import StartupOptions, startup

    with invocation():
        interp = resolve_python(args.python, session=Session())
        target = Target("code", args.code)
        load_before = os.getloadavg()
        t0 = time.monotonic()
        timed = startup(StartupOptions(target=target, pythons=[interp], variants=["default"], runs=args.runs, warmup=3), session=Session())
        wall_ms = [t * 1000 for t in timed.results[0].times]
        t1 = time.monotonic()
        method = pick_method(session=Session())
        spec = plan_runs(target, [interp], ["default"]).specs[0]
        counts = [count_instructions(spec, method, session=Session()) for _ in range(args.runs)]
        t2 = time.monotonic()
    load_after = os.getloadavg()
    print(f"bench_metric: python {interp.version} -c {args.code!r}, {args.runs} runs of each metric on this machine")
    print(f"  load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {os.cpu_count()} logical cores")
    w = describe("wall time", wall_ms, " ms", lambda v: f"{v:.2f}")
    i = describe("instructions", [float(c) for c in counts], "", lambda v: f"{v:,.0f}")
    print(f"  instructions counted by {method}: {t2 - t1:.1f} s for {args.runs} counts; wall timing {t1 - t0:.1f} s")
    ratio = w["range"] / i["range"] if i["range"] else float("inf")
    print(f"  wall time varies {ratio:.0f}x more than instructions (range against range)")
    met = i["range"] <= AIM_INSTRUCTIONS_PCT
    print(f"  aim: instructions range <= {AIM_INSTRUCTIONS_PCT} % over {args.runs} runs: {i['range']:.3f} % "
          f"{'met' if met else 'MISSED'}")


if __name__ == "__main__":
    main()
