"""Benchmark (not a test): do `importprof doctor`'s estimates hold? Calibration against the real
thing, in one run.

For each program, from a real venv of CPython 3.11 (tests/_realprograms.py, the same pins as
bench_lazy.py so that `make bench` builds one venv), `importprof doctor --verify` prices each
finding (the estimate) and then applies its fix in a scratch overlay and times it (the measured
saving, wall and CPU time):

  pip          python -m pip --version
  pygmentize   pygmentize -f terminal hello.py
  http         http --offline --ignore-stdin https://example.org/api?q=1 a=b
  black        black --version
  pygments-no-pyc  a copy of pygments without .pyc files beside a script running pygmentize's main,
               under PYTHONDONTWRITEBYTECODE=1 (no-pyc; in-memory with compiling in it)

Per finding: estimate, measured wall saving ± spread, measured CPU saving ± spread (spread: the
two timings' per-run standard deviations combined). A start-up is one busy thread, so on an idle
machine its wall time is about its CPU time; on a busy one the wall difference is mostly waiting
for a core and its standard error widens, the CPU difference less so. Aim: each verified
estimate agrees with the CPU time or the wall time its fix saved: within ±30 % of it, or within
two standard errors of it (the spread / √runs), or within 1 ms. Estimates read from wall-time
measurements (lazy's self times, a .pth's time under site) grow with the machine's load as
the wall figures do; the in-memory estimate is CPU time, as its check is.
On CPython 3.11 lazy's "measured" saving is the emulation's prediction and frozen-off's figure
is the estimate itself: those rows are listed (verdict "vs lazy's prediction (3.11 emulates)",
"the estimate itself") and left out of the aim's count.
`module-work` and `failed-lookups` have no scratch fix and are listed as not verified. A program
that cannot be installed or measured is a printed line, never a crash.
Usage: .venv/bin/python benchmarks/bench_doctor.py [--runs 3] [--timing-runs 8] [--only pip,http] [--budget-s 170]
"""

from __future__ import annotations

import argparse
import atexit
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_lazy import BUILD_ENV, PINS  # noqa: E402  (the same pins and build: one cached venv for both)
from profiler.model.target import Target  # noqa: E402
from profiler.session import Session

TOLERANCE = 0.30  # of the measured CPU saving
FLOOR_US = 1000  # below 1 ms apart an estimate is as good as the timings can tell
CPU = re.compile(r"CPU time \(user \+ system\) saved: (-?[\d.]+) ms(?: ± ([\d.]+) ms)?")
# a finding whose measured figure is its CPU time (in-memory: compare's CPU) says its wall figure beside it
WALL = re.compile(r"wall time saved: (-?[\d.]+) ms(?: ± ([\d.]+) ms)?")


def _targets(venv: str) -> list[tuple[str, Target]]:
    b = os.path.join(venv, "bin")
    return [
        ("pip", Target("module", "pip", ("--version",))),
        ("pygmentize", Target("script", f"{b}/pygmentize", ("-f", "terminal", "hello.py"))),
        ("http", Target("script", f"{b}/http", ("--offline", "--ignore-stdin", "https://example.org/api?q=1", "a=b"))),
        ("black", Target("script", f"{b}/black", ("--version",))),
        # no-pyc: a copy of pygments with no .pyc, run under PYTHONDONTWRITEBYTECODE (as an image
        # built without compileall runs): no-pyc's estimate, and in-memory's with compiling in it
        ("pygments-no-pyc", Target("script", "no_pyc_app.py", ())),
    ]


def _no_pyc_copy(venv: str, work: str) -> None:
    """pygments copied beside no_pyc_app.py without its __pycache__ folders (sys.path[0] first)."""
    import glob

    src = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "pygments"))
    if src:
        shutil.copytree(src[0], os.path.join(work, "pygments"), ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(work, "no_pyc_app.py"), "w") as fh:
        fh.write("import sys\nfrom pygments.cmdline import main\n"
                 "sys.exit(main(['pygmentize', '-f', 'terminal', 'hello.py']))\n")


def _ms(us: float | None) -> str:
    return "-" if us is None else f"{us / 1000:.1f}"


def judged(estimate_us: int, saved_us: float | None, spread_us: float | None, runs: int) -> bool | None:
    """Whether the estimate agrees with one measured saving (None: not measured): within ±30 %
    of it, or two standard errors (the spread / √runs), or 1 ms."""
    if saved_us is None:
        return None
    se = (spread_us or 0.0) / math.sqrt(max(runs, 1))
    return abs(estimate_us - saved_us) <= max(TOLERANCE * abs(saved_us), 2 * se, FLOOR_US)


def not_a_measurement(f) -> str | None:
    """The verdict of a finding whose "measured" figure is not a measurement (None: it is one).
    On CPython 3.11 lazy's saving is the emulation's prediction, and frozen-off's figure is its
    estimate itself: neither is judged against the estimate."""
    if f.kind == "lazy" and "the emulation" in (f.verify or ""):
        return "vs lazy's prediction (3.11 emulates)"
    if f.kind == "frozen-off" and f.measured_us is not None and f.measured_us == f.cost_us:
        return "the estimate itself (not judged)"
    return None


def verdict(estimate_us: int, wall: tuple, cpu: tuple, runs: int) -> str:
    """met when the estimate agrees with the CPU time or the wall time the fix saved (see the
    module's aim; a busy machine widens the wall side's standard error, not the CPU side's)."""
    by_cpu, by_wall = judged(estimate_us, *cpu, runs), judged(estimate_us, *wall, runs)
    if by_cpu is None and by_wall is None:
        return "-"
    rel = ("no CPU figure" if cpu[0] is None else f"CPU {cpu[0] / 1000:+.1f} ms, near 0" if abs(cpu[0]) < FLOOR_US
           else f"{estimate_us / cpu[0] - 1:+.0%} of CPU")
    said = "met" if by_cpu or by_wall else "MISSED"
    how = "CPU" if by_cpu else "wall" if by_wall else "neither"
    return f"{said} ({rel}; by {how})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="profiled runs (doctor's --runs; its default)")
    ap.add_argument("--timing-runs", type=int, default=8)
    ap.add_argument("--only", default="")
    ap.add_argument("--budget-s", type=float, default=170.0, help="programs not started by then are skipped (said)")
    args = ap.parse_args()
    only = {w for w in args.only.split(",") if w}
    started = time.time()
    print("doctor: each finding's estimate vs what --verify measured (its fix applied in a scratch overlay)")
    from _interpreters import find_pyenv_python
    from _realprograms import RealProgramUnavailable, build_real_venv

    python = find_pyenv_python("3.11")
    if python is None:
        print("skipped: no pyenv CPython 3.11 (the in-memory fix needs 3.8-3.11)")
        return
    try:
        os.environ.update(BUILD_ENV)
        venv = str(build_real_venv(python, PINS))
    except (RealProgramUnavailable, OSError, subprocess.SubprocessError) as exc:
        print(f"skipped: no venv with {' '.join(PINS)}: {str(exc).splitlines()[0] if str(exc) else exc}")
        return
    from profiler.compose.doctor import DoctorOptions, doctor

    vpython = os.path.join(venv, "bin", "python")
    work = tempfile.mkdtemp(prefix="bench-doctor-")
    atexit.register(shutil.rmtree, work, True)
    with open(os.path.join(work, "hello.py"), "w") as fh:
        fh.write("def f(x):\n    return x + 1\n")
    _no_pyc_copy(venv, work)
    rows, notes, misses, n_judged = [], [], 0, 0
    for name, target in _targets(venv):
        if only and name not in only:
            continue
        if time.time() - started > args.budget_s:
            notes.append(f"{name}: skipped, the {args.budget_s:.0f} s budget was spent (--budget-s)")
            continue
        here = os.getcwd()
        os.chdir(work)
        t0 = time.time()
        saved_env = os.environ.get("PYTHONDONTWRITEBYTECODE")
        if name == "pygments-no-pyc":
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        try:
            rep = doctor(DoctorOptions(target=target, python=vpython, runs=args.runs, timing_runs=args.timing_runs, trace=False,
                                       verify=True), session=Session())
        except Exception as exc:  # a program that cannot be measured is a line, the others still run
            notes.append(f"{name}: not measured: {(str(exc).splitlines() or [type(exc).__name__])[0][:160]}")
            continue
        finally:
            os.chdir(here)
            if saved_env is None:
                os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            else:
                os.environ["PYTHONDONTWRITEBYTECODE"] = saved_env
        notes.append(f"{name}: as is {(rep.verify_startup_s or 0) * 1e3:.1f} ms in the verification run, "
                     f"{rep.startup_s * 1e3 if rep.startup_s else 0:.1f} ms in doctor's first; {time.time() - t0:.0f} s")
        for f in rep.findings:
            m = CPU.search(f.verify or "")
            cpu = float(m.group(1)) * 1000 if m else None
            cpu_sd = float(m.group(2)) * 1000 if m and m.group(2) else None
            w = WALL.search(f.verify or "")
            wall_us, wall_sd = ((float(w.group(1)) * 1000, float(w.group(2)) * 1000 if w.group(2) else None) if w
                                else (f.measured_us, f.measured_spread_us))
            unjudged = not_a_measurement(f)
            v = unjudged or verdict(f.cost_us, (wall_us, wall_sd), (cpu, cpu_sd), args.timing_runs)
            if v != "-" and unjudged is None:
                n_judged += 1
                misses += v.startswith("MISSED")
            wall = "-" if wall_us is None else f"{_ms(wall_us)} ± {_ms(wall_sd)}"
            rows.append((name, f.kind, _ms(f.cost_us), wall,
                         "-" if cpu is None else f"{_ms(cpu)} ± {_ms(cpu_sd)}",
                         v if v != "-" else ("not verified" if f.measured_us is None else "-")))
    load = os.getloadavg()[0]
    print(f"CPython 3.11 venv ({' '.join(PINS)}); --timing-runs {args.timing_runs}, --runs {args.runs}, --no-trace; "
          f"load average {load:.2f} on {os.cpu_count()} CPUs; {time.time() - started:.0f} s")
    head = ("program", "finding", "estimate ms", "wall ms ± spread", "CPU ms ± spread", "verdict")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    for n in notes:
        print("note:", n)
    print(f"aim: each verified estimate within ±{TOLERANCE:.0%} (or 2 standard errors, or 1 ms) of the CPU or the wall "
          f"time its fix saved: " + ("met" if n_judged and not misses else f"MISSED on {misses} of {n_judged}" if n_judged else "nothing verified")
          + " (lazy's prediction on 3.11 and frozen-off's estimate itself are listed, not judged)")


if __name__ == "__main__":
    main()
