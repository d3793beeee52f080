"""Benchmark (not a test): importprof's builtin engine against hyperfine, side by side.

Prints ratios measured in one run, alternating engines block by block so drift hits both:
  1. mean of `python -S -c pass` and of `/bin/true`, builtin vs hyperfine -N (aim: within 3%);
  2. per-run overhead: the measured time of /bin/true (almost nothing but spawn + wait) and the
     harness's wall time per run (aim: builtin at most 1.1x hyperfine -N's);
  3. importprof's own start-up against a bare `python -c pass` of the same (venv) interpreter,
     as installed, with and without PYTHONDONTWRITEBYTECODE=1 (the aims: --version
     <= 1.2x, --help <= 2x, every command's --help <= 2x), met/MISSED printed beside each;
  4. against its peers, as users install it: importprof's wheel (built by tests/_wheel.py,
     cached per source hash) in a venv beside tuna 0.5.15 and importtime-convert 1.1.0 (the
     same interpreter), all measured interleaved in one run: `importprof --version` and every
     `importprof CMD --help` through the console script the wheel installs against
     `python -c pass` (aims 1.2x, 1.5x), and `importprof imports --from-log` of a one-run log
     (real `pip --version` under -X importtime), as the table and in each --format of the
     command (json, chrome, speedscope, folded), against the fastest of its peers on the same
     log: tuna reading and rendering it (`tuna LOG -o DIR`) and importtime-convert converting
     it (`-o json`) (aim: each <= 1.0x the fastest peer).
Usage: .venv/bin/python benchmarks/bench_startup.py [--rounds 5] [--runs 60] [--parts engines,own,peers]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from profiler.analysis.statistics import median, summarize  # noqa: E402
from profiler.capture.hyperfine import run_hyperfine  # noqa: E402
from profiler.capture.interpreter import resolve_python  # noqa: E402
from profiler.capture.timing import RunPlan, run_interleaved  # noqa: E402
from profiler.model.measurement import CommandSpec  # noqa: E402
from profiler.session import Session


def measure(specs, runs, engine):
    plan = RunPlan(runs=runs, warmup=3)
    t0 = time.perf_counter()
    if engine == "builtin":
        outcomes = run_interleaved(specs, plan, session=Session())
        results = [summarize(s, outcomes[s.key].samples) for s in specs]
    else:
        results = run_hyperfine(specs, plan, session=Session())
    elapsed = time.perf_counter() - t0
    return {r.key: r for r in results}, elapsed / (runs + 3) / len(specs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--parts", default="engines,own,peers", help="which parts: engines, own, peers")
    a = ap.parse_args()
    parts = set(a.parts.split(","))
    if "engines" in parts:
        engines(a)
    if "own" in parts:
        own_startup(a.runs)
    if "peers" in parts:
        peers(a.runs)


def engines(a) -> None:
    py = resolve_python(None, session=Session()).path
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


AIMS = {"--version": 1.2, "entry --version": 1.2, "--help": 2.0, "startup --help": 2.0, "imports --help": 2.0, "trace --help": 2.0}


def own_startup(runs: int) -> None:
    """importprof --version / --help / CMD --help vs python -c pass (same venv interpreter),
    interleaved, as installed and under PYTHONDONTWRITEBYTECODE=1 (what many containers set)."""
    from profiler.commands import command_names

    venv_py = sys.executable
    exe = os.path.join(os.path.dirname(venv_py), "importprof")
    if not os.path.exists(exe):
        print("\n(no importprof console script beside this python: own start-up not measured)")
        return
    helps = {f"{name} --help": (exe, name, "--help") for name in command_names()}
    rows = {"--version": (exe, "--version"), "--help": (exe, "--help"), **helps}
    for label, env in (("as installed", None), ("PYTHONDONTWRITEBYTECODE=1", (("PYTHONDONTWRITEBYTECODE", "1"),))):
        vs = [CommandSpec(argv=(venv_py, "-c", "pass"), variant="python -c pass", key="python -c pass", env=env),
              # the floor of any console script pip writes: its wrapper imports re and sys first
              CommandSpec(argv=(venv_py, "-c", "import re, sys"), variant="floor", key="floor", env=env),
              # the entry point itself, without pip's wrapper
              CommandSpec(argv=(venv_py, "-c", "import sys; from profiler.cli import app; sys.exit(app())", "--version"),
                          variant="entry", key="entry --version", env=env)]
        vs += [CommandSpec(argv=argv, variant=k, key=k, env=env) for k, argv in rows.items()]
        outcomes = run_interleaved(vs, RunPlan(runs=runs, warmup=3), session=Session())
        r = {s.key: summarize(s, outcomes[s.key].samples) for s in vs}
        base = r["python -c pass"].median
        print(f"\nown start-up, {label} ({runs} interleaved runs, medians; load {os.getloadavg()[0]:.2f})")
        print(f"{'command':<32}{'median':>10}{'x python -c pass':>18}   aim")
        for k, x in r.items():
            ratio = x.median / base
            aim = AIMS.get(k, 2.0 if k.endswith("--help") else None) if k not in ("python -c pass", "floor") else None
            verdict = "" if aim is None else f"<= {aim:.1f}x {'met' if ratio <= aim else 'MISSED'}"
            name = {"python -c pass": "python -c pass", "floor": "python -c 'import re, sys'",
                    "entry --version": "python -c app() --version"}.get(k, f"importprof {k}")
            print(f"{name:<32}{x.median * 1e3:>8.2f}ms{ratio:>18.2f}   {verdict}")
    print("(the console script pip writes imports re and sys before importprof's code runs: the\n"
          " 'import re, sys' row is the floor of any pip console script; 'app() --version' is importprof's\n"
          " entry point without it. --help comes from the help cache; typer loads only when a command runs)")


PEERS = ["tuna==0.5.15", "importtime-convert==1.1.0"]
PEER_ROWS = ("tuna", "importtime-convert")  # the rows of the peers reading the log
FASTEST = "fastest peer"  # a row measured against whichever of PEER_ROWS was faster


def peers(runs: int) -> None:
    """importprof as the wheel installs it, against python -c pass and its peers, one
    interleaved run (see the module's docstring, part 4)."""
    import shutil
    import subprocess
    import tempfile

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    from _realprograms import RealProgramUnavailable, build_real_venv
    from _wheel import built_wheel

    from profiler.commands import command_names

    try:
        wheel = built_wheel()
        venv = build_real_venv(resolve_python(None, session=Session()).path, [str(wheel), *PEERS])
    except (RuntimeError, RealProgramUnavailable) as exc:
        print(f"\n(peers not measured: {exc})")
        return
    b = os.path.join(venv, "bin")
    py, exe = os.path.join(b, "python"), os.path.join(b, "importprof")
    work = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        log = os.path.join(work, "pip-version.importtime.log")
        with open(log, "w") as fh:  # one run of the real pip, its -X importtime lines
            subprocess.run([py, "-X", "importtime", "-m", "pip", "--version"], stdout=subprocess.DEVNULL, stderr=fh, check=True)
        lines = sum(1 for _ in open(log))
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        helps = {f"{n} --help": (exe, n, "--help") for n in command_names()}
        for argv in [(exe, "--help"), *helps.values()]:  # the help cache, as after the first --help
            subprocess.run(argv, capture_output=True, check=True)
        same_table = subprocess.run([exe, "imports", "--from-log", log], capture_output=True, text=True)
        from profiler.render import formats_for

        formats = [(f"importprof imports --from-log --format {f}", (exe, "imports", "--from-log", log, "--format", f),
                    (FASTEST, 1.0)) for f in formats_for("imports")]
        rows = [
            ("python -c pass", (py, "-c", "pass"), None),
            ("importprof --version", (exe, "--version"), ("python -c pass", 1.2)),
            ("importprof --help", (exe, "--help"), ("python -c pass", 1.5)),
            *[(f"importprof {k}", argv, ("python -c pass", 1.5)) for k, argv in helps.items()],
            ("importprof imports --from-log", (exe, "imports", "--from-log", log), (FASTEST, 1.0)),
            *formats,
            ("tuna", (os.path.join(b, "tuna"), log, "-o", os.path.join(work, "tuna-out")), None),
            # importtime-convert reads stdin: through sh (its start is in this row)
            ("importtime-convert", ("/bin/sh", "-c", f'exec "{py}" -m importtime_convert -o json < "{log}"'), None),
        ]
        specs = [CommandSpec(argv=tuple(argv), variant=k, key=k) for k, argv, _ in rows]
        outcomes = run_interleaved(specs, RunPlan(runs=runs, warmup=3), session=Session())
        r = {s.key: summarize(s, outcomes[s.key].samples) for s in specs}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nagainst the peers, as installed from the wheel ({version}; {runs} interleaved runs, medians; "
          f"load {os.getloadavg()[0]:.2f})")
    print(f"python {py}; one-run log: pip --version, {lines} lines; importprof's table: exit {same_table.returncode}, "
          f"{len(same_table.stdout.splitlines())} lines")
    fastest = min(PEER_ROWS, key=lambda k: r[k].median)  # the peer to beat on this machine, this run
    print(f"{'command':<54}{'median':>10}{'ratio':>8}  {'vs':<20}aim")
    for key, _, against in rows:
        x = r[key]
        if against is None:
            print(f"{key:<54}{x.median * 1e3:>8.2f}ms")
            continue
        peer, aim = against
        peer = fastest if peer == FASTEST else peer
        ratio = x.median / r[peer].median
        print(f"{key:<54}{x.median * 1e3:>8.2f}ms{ratio:>8.2f}  {peer:<20}<= {aim:.1f}x {'met' if ratio <= aim else 'MISSED'}")
    print(f"(the --from-log rows: against the faster of {' and '.join(PEER_ROWS)} in this run, {fastest})")


if __name__ == "__main__":
    main()
