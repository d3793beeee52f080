"""Benchmark (not a test): importprof's builtin engine against hyperfine, side by side.

Prints ratios measured in one run, alternating engines block by block so drift hits both:
  1. mean of `python -S -c pass` and of `/bin/true`, builtin vs hyperfine -N (aim: within 3%);
  2. per-run overhead: the measured time of /bin/true (almost nothing but spawn + wait) and the
     harness's wall time per run (aim: builtin at most 1.1x hyperfine -N's);
  3. `importprof --version` against a bare `python -c pass` of the same (venv) interpreter
     (aim: within 1.5x).
Usage: .venv/bin/python benchmarks/bench_startup.py [--rounds 5] [--runs 60]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from profiler.analysis.statistics import mean, median, summarize  # noqa: E402
from profiler.capture.hyperfine import run_hyperfine  # noqa: E402
from profiler.capture.interpreter import resolve_python  # noqa: E402
from profiler.capture.timing import RunPlan, run_interleaved  # noqa: E402
from profiler.model.measurement import CommandSpec  # noqa: E402


def measure(specs, runs, engine):
    plan = RunPlan(runs=runs, warmup=3)
    t0 = time.perf_counter()
    if engine == "builtin":
        samples = run_interleaved(specs, plan)
        results = [summarize(s, samples[s.key]) for s in specs]
    else:
        results = run_hyperfine(specs, plan)
    elapsed = time.perf_counter() - t0
    return {r.key: r for r in results}, elapsed / (runs + 3) / len(specs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=60)
    a = ap.parse_args()
    py = resolve_python(None).path
    specs = [
        CommandSpec(argv=(py, "-S", "-c", "pass"), variant="python -S -c pass", key="python -S -c pass"),
        CommandSpec(argv=("/bin/true",), variant="/bin/true", key="/bin/true"),
    ]
    # 1+2: each command alone (same conditions as hyperfine, which runs one command at a time)
    means = {e: {s.key: [] for s in specs} for e in ("builtin", "hyperfine")}
    per_run = {"builtin": [], "hyperfine": []}
    for i in range(a.rounds):
        order = ("builtin", "hyperfine") if i % 2 == 0 else ("hyperfine", "builtin")
        for spec in specs:
            for engine in order:
                res, harness = measure([spec], a.runs, engine)
                per_run[engine].append(harness) if spec.key == "/bin/true" else None
                means[engine][spec.key].append(res[spec.key].mean)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; python {py}")
    print(f"{a.rounds} alternating rounds x {a.runs} runs per engine and command (median of round means)\n")
    print(f"{'each command alone':<24}{'builtin':>12}{'hyperfine':>12}{'ratio':>9}   aim")
    for s in specs:
        b = median(means["builtin"][s.key])
        h = median(means["hyperfine"][s.key])
        aim = "within 3%" if s.key.startswith("python") else "<= 1.10x (per-run overhead)"
        print(f"{s.key:<24}{b * 1e3:>10.3f}ms{h * 1e3:>10.3f}ms{b / h:>9.3f}   {aim}")
    b, h = median(per_run["builtin"]), median(per_run["hyperfine"])
    print(f"{'harness wall per run':<24}{b * 1e3:>10.3f}ms{h * 1e3:>10.3f}ms{b / h:>9.3f}   (/bin/true: whole loop incl. bookkeeping)")

    # the same two commands measured together: builtin interleaves (A B A B), hyperfine does not
    both = {e: {s.key: [] for s in specs} for e in ("builtin", "hyperfine")}
    for i in range(a.rounds):
        for engine in (("builtin", "hyperfine") if i % 2 == 0 else ("hyperfine", "builtin")):
            res, _ = measure(specs, a.runs, engine)
            for k, r in res.items():
                both[engine][k].append(r.mean)
    print(f"\n{'together (interleaved)':<24}{'builtin':>12}{'hyperfine':>12}{'ratio':>9}")
    for s in specs:
        b, h = median(both["builtin"][s.key]), median(both["hyperfine"][s.key])
        print(f"{s.key:<24}{b * 1e3:>10.3f}ms{h * 1e3:>10.3f}ms{b / h:>9.3f}")
    print("(interleaving puts /bin/true after a python run, with colder caches, each time:\n"
          " that is the point of interleaving, not engine overhead)")

    # importprof --version vs bare python -c pass, same venv interpreter, interleaved
    venv_py = sys.executable
    exe = os.path.join(os.path.dirname(venv_py), "importprof")
    if os.path.exists(exe):
        vs = [
            CommandSpec(argv=(venv_py, "-c", "pass"), variant="python -c pass", key="python -c pass"),
            CommandSpec(argv=(exe, "--version"), variant="importprof --version", key="importprof --version"),
            CommandSpec(argv=(venv_py, "-c", "from profiler.cli import app; app()", "--version"), variant="app() --version", key="python -c app() --version"),
            CommandSpec(argv=(exe, "--help"), variant="importprof --help", key="importprof --help"),
        ]
        samples = run_interleaved(vs, RunPlan(runs=a.runs, warmup=3))
        r = {s.key: summarize(s, samples[s.key]) for s in vs}
        base = r["python -c pass"].median
        print(f"\n{'own start-up (venv)':<30}{'median':>12}{'x python -c pass':>18}")
        for k, x in r.items():
            print(f"{k:<30}{x.median * 1e3:>10.2f}ms{x.median / base:>18.2f}" + ("   aim <= 1.5x" if k.endswith("--version") else ""))
        print("(the console script pip generates imports `re` before importprof runs: about 7 ms here;\n"
              " `python -c app() --version` calls the same entry point without it: importprof's own share)")


if __name__ == "__main__":
    main()
