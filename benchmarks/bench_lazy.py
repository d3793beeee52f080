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
misses, the causes are measured and printed: the modules of the program's own packages (not
the stdlib, which differs between versions) that one side imported and the other did not, and
the share of the emulation's overhead in the measured lazy time.
Usage: .venv/bin/python benchmarks/bench_lazy.py [--runs 10] [--only pip,app] [--pythons 3.11,3.14,3.15]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from profiler.model.target import Target  # noqa: E402
from profiler.workflows.lazy import LazyOptions, lazy  # noqa: E402

PINS = ["pip==25.3", "pypistats==1.14.0", "black==26.10.1", "httpie==3.2.4", "sphinx==9.0.4"]
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


def _own_modules(report_modules: set[str]) -> set[str]:
    """The modules of the programs' packages (comparable across Python versions)."""
    tops = ("pip", "pypistats", "black", "blib2to3", "httpie", "sphinx", "docutils", "requests", "urllib3", "rich",
            "click", "pygments", "jinja2", "babel", "mylib", "packaging", "platformdirs", "pathspec", "charset_normalizer",
            "idna", "certifi", "multidict", "markdown_it", "mdurl", "httpx", "httpcore", "anyio", "pytablewriter")
    return {m for m in report_modules if m.partition(".")[0] in tops}


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
    for v in versions:
        python = find_pyenv_python(v)
        if python is None:
            notes.append(f"Python {v}: not installed (make setup provisions 3.14 and 3.15)")
            continue
        try:
            venv = str(build_real_venv(python, PINS))
        except (RealProgramUnavailable, OSError) as exc:
            notes.append(f"Python {v}: no venv with {' '.join(PINS)}: {exc}")
            continue
        vpython = os.path.join(venv, "bin", "python")
        for name, target in _targets(venv, app):
            if only and name not in only:
                continue
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                r = lazy(LazyOptions(target=target, python=vpython, runs=args.runs, warmup=2, profile_runs=1,
                                     statement_runs=0, max_bisect_runs=40))
            except Exception as exc:  # a row that cannot be measured is reported, the others still run
                rows.setdefault(name, {})[v] = f"failed: {str(exc).splitlines()[0][:100]}"
                continue
            finally:
                os.chdir(cwd)
            rows.setdefault(name, {})[v] = r
    load = os.getloadavg()[0]
    print(f"lazy imports: predicted (3.11, 3.14: emulation, its own cost taken out) vs measured (3.15: -X lazy_imports=all)")
    print(f"lazy/eager time ratio, {args.runs} interleaved runs per variant; same pins on every interpreter: {' '.join(PINS)}")
    print(f"load average {load:.2f} on {os.cpu_count()} CPUs; {time.time() - started:.0f} s")
    head = f"{'program':10}" + "".join(f" {v + (' pred' if v != '3.15' else ' meas'):>10}" for v in versions)
    head += "".join(f" {'±15% ' + v:>11}" for v in versions if v != "3.15")
    print(head)
    misses = []
    for name, per in rows.items():
        ref = per.get("3.15")
        ref_ratio = ref.prediction.ratio if hasattr(ref, "prediction") and ref.prediction else None
        line = f"{name:10}"
        verdicts = []
        for v in versions:
            r = per.get(v)
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
                        misses.append((name, v, r, ref, off))
        print(line + "".join(verdicts))
    for name, per in rows.items():
        for v, r in per.items():
            if isinstance(r, str):
                print(f"  {name} on {v}: {r}")
            else:
                e = {x.variant: x.mean for x in r.results}
                kept = ", ".join(m.name for m in r.must_stay_eager) or "-"
                p = r.prediction
                print(f"  {name} on {v} ({r.python_version}): eager {e.get('eager', 0) * 1e3:.1f} ms, lazy {e.get('lazy', 0) * 1e3:.1f} ms "
                      f"measured, {p.lazy_mean * 1e3 if p else 0:.1f} ms predicted (overhead {p.overhead_s * 1e3 if p else 0:.1f} ms); "
                      f"modules {r.modules_eager} -> {r.modules_lazy}; identical {r.identical_output}; kept eager: {kept}")
    for name, v, r, ref, off in misses:
        if not hasattr(ref, "prediction"):
            continue
        print(f"cause, {name} on {v} ({off:+.0%}):")
        mine = _own_modules({a.name for a in r.avoided})
        theirs = _own_modules({a.name for a in ref.avoided})
        only_315 = sorted(theirs - mine)
        only_em = sorted(mine - theirs)
        print(f"  program modules deferred by 3.15 but imported under the emulation: {len(only_315)}"
              + (f" ({', '.join(only_315[:6])}{', …' if len(only_315) > 6 else ''})" if only_315 else ""))
        print(f"  program modules deferred by the emulation but imported by 3.15: {len(only_em)}"
              + (f" ({', '.join(only_em[:6])}{', …' if len(only_em) > 6 else ''})" if only_em else ""))
        e = {x.variant: x.mean for x in r.results}
        ee = {x.variant: x.mean for x in ref.results}
        if r.prediction and e.get("lazy"):
            print(f"  emulation overhead taken out: {r.prediction.overhead_s * 1e3:.1f} ms of {e['lazy'] * 1e3:.1f} ms lazy")
        if ee.get("eager") and e.get("eager"):
            print(f"  eager time {e['eager'] * 1e3:.1f} ms on {v} vs {ee['eager'] * 1e3:.1f} ms on 3.15; "
                  f"import time {r.total_self_us / 1e3:.1f} ms vs {ref.total_self_us / 1e3:.1f} ms; "
                  f"avoided {r.avoided_us / 1e3:.1f} ms vs {ref.avoided_us / 1e3:.1f} ms of own import time")
    for n in notes:
        print("note:", n)
    print(f"aim: each prediction within ±{AIM:.0%} of 3.15's measured ratio: "
          + ("met" if not misses and rows else f"MISSED on {len(misses)} row(s)"))


if __name__ == "__main__":
    main()
