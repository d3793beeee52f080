"""Benchmark (not a test): does `importprof lazy` predict PEP 810? Calibration against the real
thing, in one run.

For each program, on Python 3.11 and 3.14 `importprof lazy`'s emulation predicts the lazy/eager
time ratio of `-X lazy_imports=all` (the measured lazy run minus the emulation's own cost, see
the README); on Python 3.15 the same workflow measures it with the real mechanism. Each program
runs from a real venv per interpreter with the same pinned versions (tests/_realprograms.py):

  pip          python -m pip --version
  pypistats    pypistats --help
  black        black --help
  httpie       http --help
  sphinx       sphinx-build --version
  json.tool    python -m json.tool --help
  app          the lazy test app (a sibling package, heavy imports in a branch not taken, a
               self-registering plugin that must stay eager), written to a temporary folder

Aim: each prediction within ±15 % of 3.15's measured ratio (met/MISSED per row). Where a row
misses, the causes are measured and printed (two recorded runs per side): the modules both
versions import eagerly that one lazy run imports and the other defers, the modules only one
version imports at all (stdlib differences), the emulation's overhead and the timings' spread.
Usage: .venv/bin/python benchmarks/bench_lazy.py [--runs 10] [--only pip,app] [--pythons 3.11,3.14,3.15]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from profiler.model.target import Target  # noqa: E402
from profiler.compose.lazy import LazyOptions, lazy  # noqa: E402
from profiler.session import Session

# black's wheels for 3.11-3.14 are compiled by mypyc (its modules are extension modules, whose
# imports are C calls no lazy mechanism sees), 3.15 has none: black is built from its source on
# every interpreter (PIP_NO_BINARY=black; the marker only names that venv apart), the same code
PINS = ["pip==25.3", "pypistats==1.14.0", "black==26.10.1; implementation_name == 'cpython'", "httpie==3.2.4",
        "sphinx==9.0.4"]
BUILD_ENV = {"PIP_NO_BINARY": "black"}
AIM = 0.15

APP = {
    "app.py": (
        "import sys\nimport mylib.plugin_hello\nimport mylib.registry\nimport mylib.report\nimport argparse\n\n"
        "if len(sys.argv) > 1 and sys.argv[1] == 'report':\n    print(mylib.report.render({'a': 1}))\n"
        "print('plugins:', ','.join(mylib.registry.names()))\n"
    ),
    "mylib/__init__.py": "",
    "mylib/registry.py": "_NAMES = []\n\ndef register(name):\n    _NAMES.append(name)\n\ndef names():\n    return list(_NAMES)\n",
    "mylib/plugin_hello.py": "from mylib.registry import register\n\nregister('hello')\n",
    "mylib/report.py": (
        "import asyncio\nimport decimal\nimport email.parser\nimport json\nimport xml.dom.minidom\n\n"
        "def render(data):\n    return json.dumps(data) + str(decimal.Decimal(1))\n"
    ),
}


def _write_app(root: str) -> str:
    for name, text in APP.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    return os.path.join(root, "app.py")


def _targets(venv: str, app: str) -> list[tuple[str, Target]]:
    b = os.path.join(venv, "bin")
    return [
        ("pip", Target("module", "pip", ("--version",))),
        ("pypistats", Target("script", os.path.join(b, "pypistats"), ("--help",))),
        ("black", Target("script", os.path.join(b, "black"), ("--help",))),
        ("httpie", Target("script", os.path.join(b, "http"), ("--help",))),
        ("sphinx", Target("script", os.path.join(b, "sphinx-build"), ("--version",))),
        ("json.tool", Target("module", "json.tool", ("--help",))),
        ("app", Target("script", app)),
    ]


def _sets(python: str, target: Target, cwd: str) -> tuple[set[str], set[str], str]:
    """Modules executed by one eager and one lazy recorded run (3.15: -X lazy_imports=all)."""
    import subprocess

    from profiler.capture.lazy import run_lazy
    from profiler.parse.lazy import parse_lazy_record

    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    out = []
    for lazy_run in (False, True):
        rec = run_lazy(python, version, target, lazy=lazy_run, cwd=cwd, session=Session()).record
        out.append(set(parse_lazy_record(rec).executed_names) if rec else set())
    return out[0], out[1], version


def _causes(r, python, target, ref, python315, target315, cwd) -> list[str]:
    """Why a prediction misses, measured: which modules the two runs import differently (among
    the modules both versions' eager runs import), the stdlib's own differences between the
    versions, the emulation's overhead and the run-to-run spread of the two ratios."""
    e1, l1, v1 = _sets(python, target, cwd)
    e2, l2, v2 = _sets(python315, target315, cwd)
    both = e1 & e2
    more = sorted((l1 - l2) & both)
    less = sorted((l2 - l1) & both)
    lines = [
        f"modules both versions import eagerly: {len(both)}; lazy on {v1} imports {len(more)} of them that 3.15 defers"
        + (f" ({', '.join(more[:8])}{', …' if len(more) > 8 else ''})" if more else "")
        + f", and defers {len(less)} that 3.15 imports" + (f" ({', '.join(less[:8])}{', …' if len(less) > 8 else ''})" if less else ""),
        f"modules only one version's eager run imports (stdlib and dependency differences): {len(e1 - e2)} on {v1}, "
        f"{len(e2 - e1)} on {v2}; lazy runs: {len(l1)} vs {len(l2)} modules",
    ]
    e = {x.variant: x for x in r.results}
    ee = {x.variant: x for x in ref.results}
    if r.prediction and "lazy" in e:
        lines.append(f"emulation overhead taken out: {r.prediction.overhead_s * 1e3:.1f} ms of {e['lazy'].mean * 1e3:.1f} ms lazy "
                     f"(launcher {r.prediction.launcher_s * 1e3:.1f} ms)")
    if "eager" in e and "eager" in ee:
        spread = [x.stddev / x.mean for x in (e["eager"], e["lazy"], ee["eager"], ee["lazy"]) if x.mean and x.stddev is not None]
        lines.append(f"eager {e['eager'].mean * 1e3:.1f} ms on {v1} vs {ee['eager'].mean * 1e3:.1f} ms on 3.15; import time "
                     f"{r.total_self_us / 1e3:.1f} vs {ref.total_self_us / 1e3:.1f} ms, avoided {r.avoided_us / 1e3:.1f} vs "
                     f"{ref.avoided_us / 1e3:.1f} ms; run-to-run spread (stddev/mean) up to {max(spread, default=0):.0%}")
    return lines


def main() -> None:
    from _interpreters import find_pyenv_python
    from _realprograms import RealProgramUnavailable, build_real_venv

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", default="")
    ap.add_argument("--pythons", default="3.11,3.14,3.15")
    args = ap.parse_args()
    only = {w for w in args.only.split(",") if w}
    versions = [v for v in args.pythons.split(",") if v]
    tmp = tempfile.mkdtemp(prefix="bench-lazy-")
    app = _write_app(tmp)
    started = time.time()
    rows: dict[str, dict[str, object]] = {}
    notes: list[str] = []
    venvs: dict[str, str] = {}
    for v in versions:
        python = find_pyenv_python(v)
        if python is None:
            notes.append(f"Python {v}: not installed (make setup provisions 3.14 and 3.15)")
            continue
        try:
            os.environ.update(BUILD_ENV)
            venvs[v] = str(build_real_venv(python, PINS))
        except (RealProgramUnavailable, OSError, subprocess.SubprocessError) as exc:
            notes.append(f"Python {v}: no venv with {' '.join(PINS)}: {exc}")
    # program by program, the interpreters one after the other: the three measurements of a row
    # are minutes closer in time than interpreter by interpreter (the machine's load drifts)
    names = [n for n, _ in _targets("", app) if not only or n in only]
    for name in names:
        for v, venv in venvs.items():
            target = dict(_targets(venv, app))[name]
            vpython = os.path.join(venv, "bin", "python")
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                r = lazy(LazyOptions(target=target, python=vpython, runs=args.runs, warmup=2, profile_runs=1,
                                     statement_runs=0, max_bisect_runs=40), session=Session())
            except Exception as exc:  # a row that cannot be measured is reported, the others still run
                rows.setdefault(name, {})[v] = f"failed: {str(exc).splitlines()[0][:100]}"
                continue
            finally:
                os.chdir(cwd)
            rows.setdefault(name, {})[v] = (r, vpython, target)
    load = os.getloadavg()[0]
    print("lazy imports: predicted (3.11, 3.14: emulation, its own cost taken out) vs measured (3.15: -X lazy_imports=all)")
    print(f"lazy/eager time ratio, {args.runs} interleaved runs per variant; same pins on every interpreter: {' '.join(PINS)}")
    print(f"load average {load:.2f} on {os.cpu_count()} CPUs; {time.time() - started:.0f} s")
    head = f"{'program':10}" + "".join(f" {v + (' pred' if v != '3.15' else ' meas'):>10}" for v in versions)
    head += "".join(f" {'±15% ' + v:>11}" for v in versions if v != "3.15")
    print(head)
    misses = []
    for name, per in rows.items():
        ref = per.get("3.15")
        ref = ref[0] if isinstance(ref, tuple) else ref
        ref_ratio = ref.prediction.ratio if hasattr(ref, "prediction") and ref.prediction else None
        line = f"{name:10}"
        verdicts = []
        for v in versions:
            r = per.get(v)
            r = r[0] if isinstance(r, tuple) else r
            ratio = r.prediction.ratio if hasattr(r, "prediction") and r.prediction else None
            line += f" {ratio:9.2f}x" if ratio is not None else f" {'-':>10}"
            if v != "3.15":
                if ratio is None or ref_ratio is None:
                    verdicts.append(f" {'-':>11}")
                else:
                    off = ratio / ref_ratio - 1
                    ok = abs(off) <= AIM
                    verdicts.append(f" {('met' if ok else 'MISSED') + f' {off:+.0%}':>11}")
                    if not ok:
                        misses.append((name, v, per[v], per["3.15"], off))
        print(line + "".join(verdicts))
    for name, per in rows.items():
        for v, r in per.items():
            if isinstance(r, str):
                print(f"  {name} on {v}: {r}")
            else:
                r = r[0]
                e = {x.variant: x.mean for x in r.results}
                kept = ", ".join(m.name for m in r.must_stay_eager) or "-"
                p = r.prediction
                print(f"  {name} on {v} ({r.python_version}): eager {e.get('eager', 0) * 1e3:.1f} ms, lazy {e.get('lazy', 0) * 1e3:.1f} ms "
                      f"measured, {p.lazy_mean * 1e3 if p else 0:.1f} ms predicted (overhead {p.overhead_s * 1e3 if p else 0:.1f} ms); "
                      f"modules {r.modules_eager} -> {r.modules_lazy}; identical {r.identical_output}; kept eager: {kept}")
    for name, v, (r, python, target), (ref, python315, target315), off in misses:
        print(f"cause, {name} on {v} ({off:+.0%}):")
        print("  " + "\n  ".join(_causes(r, python, target, ref, python315, target315, tmp)))
    for n in notes:
        print("note:", n)
    print(f"aim: each prediction within ±{AIM:.0%} of 3.15's measured ratio: "
          + ("met" if not misses and rows else f"MISSED on {len(misses)} row(s)"))


if __name__ == "__main__":
    main()
