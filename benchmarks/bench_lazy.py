"""Benchmark (not a test): eager vs lazy imports side by side in one run, on four programs:

  app        issue 13's test app (sibling package, heavy imports in a branch not taken, a
             self-registering plugin that must stay eager), written to a temporary folder
  importprof `python -m profiler --help` on this repository's venv
  pip        `python -m pip --version` on the base interpreter
  json.tool  `python -m json.tool --help` on the base interpreter

Each goes through `importprof lazy`'s workflow: identical-output check (bisection when needed),
then eager and lazy timed interleaved (the builtin runner), then priced with -X importtime.
Printed: mean eager, mean lazy, the time ratio lazy/eager (below 1: lazy is faster), modules
executed, avoided import time, what had to stay eager. Aim (issue 13): the app's lazy run is
faster than its eager run (met/MISSED); the others are reported against PEP 690's "50-70 % less
start-up for real CLIs" for scale, not as an aim.
Usage: .venv/bin/python benchmarks/bench_lazy.py [--runs 20] [--only app,pip]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from profiler.model.target import Target  # noqa: E402
from profiler.workflows.lazy import LazyOptions, lazy  # noqa: E402

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


def _base_python() -> str:
    import subprocess

    return subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    base = _base_python()
    venv = os.path.join(ROOT, ".venv", "bin", "python")
    tmp = tempfile.mkdtemp(prefix="bench-lazy-")
    workloads = [
        ("app", base, Target("script", _write_app(tmp))),
        ("importprof", venv, Target("module", "profiler", ("--help",))),
        ("pip", base, Target("module", "pip", ("--version",))),
        ("json.tool", base, Target("module", "json.tool", ("--help",))),
    ]
    only = {w for w in args.only.split(",") if w}
    rows = []
    cwd = os.getcwd()
    for name, python, target in workloads:
        if only and name not in only:
            continue
        os.chdir(tmp if name == "app" else ROOT)
        try:
            r = lazy(LazyOptions(target=target, python=python, runs=args.runs, warmup=2))
        finally:
            os.chdir(cwd)
        by = {x.variant: x for x in r.results}
        e, z = by["eager"], by["lazy"]
        rows.append((name, e.mean, z.mean, z.mean / e.mean, r, python))
    load = os.getloadavg()[0]
    print(f"eager vs lazy imports, {args.runs} interleaved runs each; load average {load:.2f} on {os.cpu_count()} CPUs")
    print(f"{'program':11} {'eager':>9} {'lazy':>9} {'lazy/eager':>10} {'saved':>7} {'modules':>11} {'avoided':>9}  identical  must stay eager")
    for name, em, lm, ratio, r, python in rows:
        kept = ", ".join(m.name for m in r.must_stay_eager) or "-"
        print(f"{name:11} {em * 1e3:7.1f}ms {lm * 1e3:7.1f}ms {ratio:9.2f}x {(1 - ratio) * 100:6.0f}% "
              f"{r.modules_eager:4} -> {r.modules_lazy:4} {r.avoided_us / 1e3:7.1f}ms  {str(r.identical_output):9}  {kept}")
    for name, em, lm, ratio, r, python in rows:
        print(f"  {name}: {r.target} on {python} ({r.python_version}); bisect runs {r.bisect_runs}")
    app = next((row for row in rows if row[0] == "app"), None)
    if app is not None:
        verdict = "met" if app[3] < 1 and app[4].identical_output else "MISSED"
        print(f"aim (issue 13): the app's lazy run is faster with identical output: lazy/eager {app[3]:.2f}x: {verdict}")
    print("for scale (not an aim): PEP 690 / Cinder report 50-70 % less start-up for real CLIs")


if __name__ == "__main__":
    main()
