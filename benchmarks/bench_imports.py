"""Benchmark (not a test): parse + aggregate 20 runs of a ~1,500-module -X importtime log.

The runs are the two real logs tests/fixtures/importtime/big_{1,2}.log.gz (`import IPython,
boto3, sympy, flask` on the base interpreter, 1,535 modules each), alternated to 20 runs.
Measured side by side in this run, best of --rounds:
  - the fast paths (whole-text parse, column-by-column aggregation: what importprof runs), and
  - the careful paths (line-by-line parse, per-run trees: what any other log goes through,
    the path every run once went through),
printed as times, their ratio, and the aim (<= 0.05 s) with met/MISSED.
The machine's load average is printed beside them (the figures are wall-clock times).
Usage: .venv/bin/python benchmarks/bench_imports.py [--rounds 7] [--runs 20]
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from profiler.analysis.imports_aggregate import aggregate_logs, aggregate_logs_by_trees  # noqa: E402
from profiler.parse.importtime import parse_importtime, parse_importtime_lines  # noqa: E402
from profiler.render.report_json import render_json  # noqa: E402
from profiler.workflows.imports import report_from_logs  # noqa: E402

AIM_S = 0.05


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    fixtures = os.path.join(ROOT, "tests", "fixtures", "importtime")
    texts = [gzip.decompress(open(os.path.join(fixtures, f"big_{i}.log.gz"), "rb").read()).decode() for i in (1, 2)]
    runs = [texts[i % 2] for i in range(args.runs)]
    rows = parse_importtime(texts[0]).row_count

    def measure(parse, aggregate):
        def once():
            t0 = time.perf_counter()
            logs = [parse(t, f"run {i}") for i, t in enumerate(runs)]
            t1 = time.perf_counter()
            aggregate(logs)
            t2 = time.perf_counter()
            return t2 - t0, t1 - t0, t2 - t1

        return once

    fast_once = measure(parse_importtime, aggregate_logs)
    slow_once = measure(parse_importtime_lines, aggregate_logs_by_trees)
    fast, slow = [], []
    for _ in range(args.rounds):  # interleaved: both see the same machine
        fast.append(fast_once())
        slow.append(slow_once())
    fast_t, slow_t = min(fast), min(slow)
    logs = [parse_importtime(t) for t in runs]
    assert aggregate_logs(logs) == aggregate_logs_by_trees(logs)  # same output, or the figure means nothing
    report = report_from_logs(logs, machine={}, python=None, python_version=None, target=None, source="log")
    t3 = time.perf_counter()
    render_json(report)
    json_t = time.perf_counter() - t3
    load = os.getloadavg()[0]
    print(f"log: {rows} modules per run, {args.runs} runs, best of {args.rounds} rounds; load average {load:.2f} on {os.cpu_count()} CPUs")
    print(f"{'':34} {'total':>8} {'parse':>8} {'aggregate':>10}")
    print(f"{'fast paths (what importprof runs)':34} {fast_t[0]:7.3f}s {fast_t[1]:7.3f}s {fast_t[2]:9.3f}s")
    print(f"{'careful paths (the slow reference)':34} {slow_t[0]:7.3f}s {slow_t[1]:7.3f}s {slow_t[2]:9.3f}s")
    print(f"ratio fast/careful: {fast_t[0] / slow_t[0]:.2f}x (same output: checked)")
    verdict = "met" if fast_t[0] <= AIM_S else "MISSED"
    print(f"parse + aggregate {args.runs} runs: {fast_t[0]:.3f} s, aim <= {AIM_S} s ({fast_t[0] / AIM_S:.2f}x of the aim): {verdict}")
    print(f"json render of the {len(report.modules)}-module report: {json_t:.3f} s")


if __name__ == "__main__":
    main()
