"""Benchmark (not a test): parse + aggregate 20 runs of a ~1,500-module -X importtime log.

The runs are the two real logs tests/fixtures/importtime/big_{1,2}.log.gz (`import IPython,
boto3, sympy, flask` on the base interpreter, ~1,535 modules each), alternated to 20 runs.
Prints the median of several rounds against the aim (0.3 s), and the same work split into
its steps, measured side by side in this run. Also the json render of the result.
Usage: .venv/bin/python benchmarks/bench_imports.py [--rounds 5] [--runs 20]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from profiler.analysis.imports import aggregate_logs  # noqa: E402
from profiler.parse.importtime import parse_importtime  # noqa: E402
from profiler.render.report_json import render_json  # noqa: E402
from profiler.workflows.imports import report_from_logs  # noqa: E402

AIM_S = 0.3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    fixtures = os.path.join(ROOT, "tests", "fixtures", "importtime")
    texts = [gzip.decompress(open(os.path.join(fixtures, f"big_{i}.log.gz"), "rb").read()).decode() for i in (1, 2)]
    runs = [texts[i % 2] for i in range(args.runs)]
    rows = parse_importtime(texts[0]).row_count
    total, parse_t, agg_t, json_t = [], [], [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        logs = [parse_importtime(t, f"run {i}") for i, t in enumerate(runs)]
        t1 = time.perf_counter()
        aggregate_logs(logs)
        t2 = time.perf_counter()
        total.append(t2 - t0)
        parse_t.append(t1 - t0)
        agg_t.append(t2 - t1)
        report = report_from_logs(logs, machine={}, python=None, python_version=None, target=None, source="log")
        t3 = time.perf_counter()
        render_json(report)
        json_t.append(time.perf_counter() - t3)
    med = statistics.median(total)
    print(f"log: {rows} modules per run, {args.runs} runs, {args.rounds} rounds (median)")
    print(f"parse + aggregate: {med:.3f} s  (aim {AIM_S} s: {med / AIM_S:.2f}x of the aim, {'OK' if med <= AIM_S else 'OVER'})")
    print(f"  parse:     {statistics.median(parse_t):.3f} s ({statistics.median(parse_t) / med:.0%})")
    print(f"  aggregate: {statistics.median(agg_t):.3f} s ({statistics.median(agg_t) / med:.0%})")
    print(f"json render of the {len(report.modules)}-module report: {statistics.median(json_t):.3f} s")


if __name__ == "__main__":
    main()
