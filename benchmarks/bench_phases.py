"""The `phases` instrumentation's overhead, measured side by side in one run (not a test).

For the same target on the same interpreter, interleaved runs of:
  A. the uninstrumented `python -X importtime TARGET`: Σ self µs of its import rows;
  A'. the uninstrumented `-X importtime` of the launcher (`phases_record: false`: no wrapper
     installed), last row per module;
  B. the instrumented launcher run (hooks `phases`, as `imports --phases` runs it): Σ phases
     (find + read + unmarshal + exec) of its records.
  C. B with -X importtime on too: both clocks in ONE process (importtime's self includes the
     wrappers' cost, Σ phases excludes most of it) — the overhead in isolation.
Sums run over the modules every run imported (the interpreter's own start-up modules,
imported before any hook can run, are only in A), and medians over runs are compared:
ratio = Σ phases / Σ importtime self. Aim: within 5 %. A' runs through the same launcher as
B (the launcher imports nothing itself), so B/A' isolates the hooks' cost.
Also printed: every hook (phases + sites + site), and with `calls` (lazy candidates;
sys.setprofile is expected to cost much more). Then (valgrind callgrind; BENCH_INSTRUCTIONS=0 skips
it) the hook's cost in instructions, which a busy machine does not disturb.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from profiler.capture.bootstrap import bootstrap_argv  # noqa: E402
from profiler.capture.interpreter import resolve_python  # noqa: E402
from profiler.capture.phases import run_instrumented  # noqa: E402
from profiler.capture.process import run  # noqa: E402
from profiler.model.target import Target  # noqa: E402
from profiler.parse.importtime import parse_importtime  # noqa: E402
from profiler.parse.phases import parse_phase_records  # noqa: E402
from profiler.session import Session

RUNS = int(os.environ.get("BENCH_RUNS", "7"))
PYTHON = os.environ.get("BENCH_PYTHON")  # default: python3 on PATH (the base interpreter here)
TARGETS = [
    Target("code", "pass"),
    Target("code", "import email.mime.text, decimal, json, tomllib, argparse, logging, http.client"),
]
HOOK_SETS = {"phases": ("phases",), "all hooks": ("phases", "import_sites", "site"), "with calls": ("phases", "import_sites", "site", "calls")}


def importtime_self(python: str, target: Target) -> dict[str, int]:
    proc = run([python, "-X", "importtime", *target.python_argv()], timeout=120, session=Session())
    if proc.returncode:
        raise SystemExit(f"target failed: {proc.stderr[-500:]}")
    out: dict[str, int] = {}
    for p in parse_importtime(proc.stderr).processes:
        for row in p.rows:
            if row.self_us is not None:
                out.setdefault(row.name, row.self_us)
    return out


def launcher_importtime_self(python: str, target: Target, hooks=(), record=False) -> tuple[dict[str, int], dict[str, int]]:
    """-X importtime of the launcher (last row per module), and with record=True the phases."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "phases.out")
        opts = {"phases_path": out_path, "phases_record": record}
        argv = bootstrap_argv(python, ["-X", "importtime"], target, ["phases", *hooks], opts)
        proc = run(argv, timeout=120, session=Session())
        if proc.returncode:
            raise SystemExit(f"target failed: {proc.stderr[-500:]}")
        rows: dict[str, int] = {}
        for p in parse_importtime(proc.stderr).processes:
            for row in p.rows:
                if row.self_us is not None:
                    rows[row.name] = row.self_us  # the last import of that name
        phases: dict[str, int] = {}
        if record:
            with open(out_path) as fh:
                for m in parse_phase_records(fh.read()):
                    if not m.failed:
                        phases.setdefault(m.name, m.self_us)
    return rows, phases


def phases_self(python: str, target: Target, hooks) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in parse_phase_records(run_instrumented(python, (), target, hooks, session=Session()).phases):
        if not m.failed:
            out.setdefault(m.name, m.self_us)
    return out


def main() -> None:
    python = resolve_python(PYTHON, session=Session()).path
    print(f"python: {python}; {RUNS} interleaved runs per variant; medians")
    worst = 0.0
    for target in TARGETS:
        plain: list[dict] = []
        base: list[dict] = []
        both: list[tuple[dict, dict]] = []
        inst: dict[str, list[dict]] = {k: [] for k in HOOK_SETS}
        for _ in range(RUNS):
            plain.append(importtime_self(python, target))
            base.append(launcher_importtime_self(python, target)[0])
            both.append(launcher_importtime_self(python, target, record=True))
            for k, hooks in HOOK_SETS.items():
                inst[k].append(phases_self(python, target, hooks))
        print(f"\ntarget: {target.label()}")
        for label, ref in (("A  plain python -X importtime", plain), ("A' launcher, no hooks", base)):
            print(f"  vs {label}:")
            for k in HOOK_SETS:
                common = set.intersection(*(set(d) for d in ref), *(set(d) for d in inst[k]))
                a = statistics.median(sum(d[n] for n in common) for d in ref)
                b = statistics.median(sum(d[n] for n in common) for d in inst[k])
                ratio = b / a if a else float("nan")
                # min over runs: the least disturbed run of each (robust on a shared machine)
                a_min = min(sum(d[n] for n in common) for d in ref)
                b_min = min(sum(d[n] for n in common) for d in inst[k])
                if k == "phases" and ref is base:
                    worst = max(worst, abs(b_min / a_min - 1))
                print(
                    f"    {k:<11} {len(common):>3} modules   -X importtime Σself {a / 1000:7.2f} ms   "
                    f"Σ phases {b / 1000:7.2f} ms   ratio {ratio:5.3f} (min/min {b_min / a_min:5.3f})"
                )
        common = set.intersection(*(set(r) & set(p) for r, p in both))
        a = statistics.median(sum(r[n] for n in common) for r, _ in both)
        b = statistics.median(sum(p[n] for n in common) for _, p in both)
        print(f"  C  same process, {len(common)} modules: -X importtime Σself {a / 1000:7.2f} ms   Σ phases {b / 1000:7.2f} ms   ratio {b / a:5.3f}")
    verdict = "met" if worst <= AIM else "MISSED"
    load = os.getloadavg()[0]
    print(f"\nphases hook vs A' (launcher, no hooks; min/min, wall clock): worst |ratio - 1| = {worst:.1%} "
          f"(aim <= {AIM:.0%}: {verdict}; load average {load:.2f} on {os.cpu_count()} CPUs)")
    if os.environ.get("BENCH_INSTRUCTIONS", "1") != "0":
        instructions(python)


AIM = 0.05  # phases hook vs the uninstrumented launcher


def _ir(argv) -> int | None:
    """Instructions a run executes (valgrind callgrind's total Ir): a count a busy machine does
    not disturb, unlike the wall clock above."""
    import shutil

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    proc = run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], timeout=600, session=Session())
    import re

    m = re.search(r"Collected : (\d+)", proc.stderr)
    return int(m.group(1)) if m else None


def instructions(python: str) -> None:
    """The hook's cost in instructions, one run each under callgrind (deterministic):
    (launcher + phases hook) - (launcher, hook installed but recording off), over the import
    work itself (launcher, recording off) - (bare `python -S -c pass`). The hook's records are
    written at exit (json) after recording stopped: counted apart."""
    bare = _ir([python, "-S", "-c", "pass"])
    if bare is None:
        print("\ninstructions: valgrind not found (skipped)")
        return
    print("\ninstructions (valgrind callgrind, one run each; Ir):")
    worst = 0.0
    for target in TARGETS:
        off = _ir(bootstrap_argv(python, [], target, ["phases"], {"phases_record": False}))
        on = _ir(bootstrap_argv(python, [], target, ["phases"], {}))
        dump = _ir(bootstrap_argv(python, [], target, ["phases"], {"phases_path": os.devnull}))
        work = off - bare
        share = (on - off) / work
        worst = max(worst, share)
        print(f"  {target.label()}")
        print(f"    import work (launcher, recording off) - bare python -S: {work / 1e6:8.1f} M")
        print(f"    phases hook while importing:                            {(on - off) / 1e6:8.1f} M = {share:.1%} of the import work")
        print(f"    writing the records at exit (json, after recording):    {(dump - on) / 1e6:8.1f} M")
    print(f"phases hook overhead in instructions, worst target: {worst:.1%} (aim <= {AIM:.0%}: {'met' if worst <= AIM else 'MISSED'})")


if __name__ == "__main__":
    main()
