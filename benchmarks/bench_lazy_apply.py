"""Benchmark (not a test): `importprof lazy --apply` against pep810's `apply`, side by side, on
real programs with their own source trees, on a real Python 3.15 (PEP 810).

For each program, the package's source is copied three times out of a real venv
(tests/_realprograms.py, pinned versions from PyPI): `original`, `importprof` (edited by
`importprof lazy --apply`, measured and verified) and `pep810` (edited by pep810 0.1.0's
`apply --write`, static analysis). importprof writes `__lazy_modules__` (its default style,
inert before 3.15); pep810 writes the `lazy` keyword (its default: with `--style lazy-modules`
its `--write` prints the declarations and writes nothing, in 0.1.0), so pep810's copy is 3.15-only
syntax and its "output oldest" check shows what that costs.

  pygments   python -m pygments -l python -f terminal SAMPLE     (no test suite in the wheel)
  pyflakes   python -m pyflakes SAMPLE                          (its own tests: pyflakes/test)
  pip        python -m pip --version                            (no test suite in the wheel)

Per program, in one run: start-up of the three copies on 3.15, interleaved (the one timing
pipeline, workflows/measure.py); output identical to the original on 3.15 and on the oldest
interpreter (the copy's folder written as <copy>); the program's own test suite on 3.15 where
it ships one.
Aims (met/MISSED per program): importprof's copy at least as fast as pep810's (its mean no
higher than pep810's mean plus the larger standard deviation), and every check pep810's copy
passes, importprof's passes too.
Usage: .venv/bin/python benchmarks/bench_lazy_apply.py [--runs 10] [--only pyflakes,pip] [--min-ms 0.3]

`--as-left` (issue 32): the tree as each tool leaves it. pylint 4.0.2's whole site-packages
(pylint, astroid and the rest), with the .pyc pip compiled for the interpreter, is copied
four times: `original`, `importprof` (`lazy --apply` with --python that interpreter),
`pep810` (0.1.0 `apply --write`) and `importcost` (0.1.1 `apply --write`, target `import
pylint.lint`), and the two peers' copies once more with `compileall` run after them (what a
user would have to add). `pylint --version` (a script putting the copy first on sys.path) is
timed on every copy as the files are left, PYTHONDONTWRITEBYTECODE=1 (as on this machine and
in many containers), round-robin interleaved: wall and CPU time (user + system, from
wait4), with the ratios. Then `lazy --apply` runs a second time on its own copy, which must
change no file. Python 3.15 is used when make setup provisioned it; without it the bench says
so and uses the newest interpreter at hand (the edit is inert there; pep810 and importcost
write `__lazy_modules__`).
Aims: importprof's copy as left at least as fast (CPU) as each peer's, as left and after
compileall; a second run changes nothing.
Usage: .venv/bin/python benchmarks/bench_lazy_apply.py --as-left [--runs 20] (alone); without
--as-left or --only (as `make bench` runs it), the programs above and then this part.
"""

from __future__ import annotations

import argparse
import json
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

from _interpreters import find_pyenv_python  # noqa: E402
from _realprograms import RealProgramUnavailable, build_real_venv, venv_bin, venv_python  # noqa: E402
from profiler.session import Session

PINS = ["pygments==2.21.0", "pyflakes==4.1.0"]  # pip: the one 3.15's venv module installs
PEP810 = "pep810==0.1.0"
BUDGET_S = 470  # a program starts only when its usual duration (est_s, measured here under load) still fits
SAMPLE_SOURCE = "textwrap.py"  # a stdlib file of the interpreter, copied: the input the programs read

PROGRAMS = [
    {"name": "pygments", "package": "pygments", "args": ["-l", "python", "-f", "terminal", "{sample}"], "tests": None,
     "est_s": 90},
    {"name": "pyflakes", "package": "pyflakes", "args": ["{sample}"],
     "tests": ["-m", "unittest", "discover", "-s", "pyflakes/test", "-t", "."], "est_s": 120},
    {"name": "pip", "package": "pip", "args": ["--version"], "tests": None, "est_s": 250},
]


def _copy(site: str, package: str, dest: str) -> str:
    src = os.path.join(dest, "src")
    shutil.copytree(os.path.join(site, package), os.path.join(src, package),
                    ignore=shutil.ignore_patterns("__pycache__"))
    return src


def _requires_python(site: str, package: str) -> tuple[int, int]:
    for entry in os.listdir(site):
        if entry.lower().startswith(package.lower() + "-") and entry.endswith(".dist-info"):
            with open(os.path.join(site, entry, "METADATA"), encoding="utf-8") as fh:
                m = re.search(r"^Requires-Python:\s*>=\s*(\d+)\.(\d+)", fh.read(), re.M)
            if m:
                return int(m.group(1)), int(m.group(2))
    return (3, 9)


def _oldest(low: tuple[int, int]) -> str | None:
    for minor in range(low[1], 15):
        exe = find_pyenv_python(f"{low[0]}.{minor}")
        if exe:
            return exe
    return None


def _argv(prog: dict, python: str, sample: str) -> list[str]:
    return [python, "-m", prog["package"], *[a.replace("{sample}", sample) for a in prog["args"]]]


def _run(argv, src, timeout=300):
    env = dict(os.environ, PYTHONPATH=src)
    p = subprocess.run(argv, cwd=src, env=env, capture_output=True, text=True, timeout=timeout)
    norm = lambda t: t.replace(os.path.dirname(src), "<copy>")  # noqa: E731
    return norm(p.stdout), norm(p.stderr), p.returncode


def _masked(out):
    stdout, stderr, code = out
    number = re.compile(r"\d+(?:\.\d+)?")
    return number.sub("#", stdout), number.sub("#", stderr), code


def _declared(src: str) -> tuple[int, int]:
    """(import statements made lazy, files holding them) in a copy: statements written with the
    `lazy` keyword, and statements whose module a __lazy_modules__ declaration names."""
    from profiler.analysis.lazy_edit import SourceError, import_statements, lazy_declaration, parse_source

    count = files = 0
    for folder, _, entries in os.walk(src):
        for e in entries:
            if not e.endswith(".py"):
                continue
            path = os.path.join(folder, e)
            with open(path, "rb") as fh:
                data = fh.read()
            if b"lazy" not in data:
                continue
            try:
                decl = lazy_declaration(parse_source(data)[0])
                stmts = import_statements(data, os.path.dirname(os.path.relpath(path, src)).replace(os.sep, "."))
            except SourceError:
                continue
            names = set(decl.names or ()) if decl else set()
            n = sum(1 for s in stmts if s.keyword or (s.modules and not s.blocked and set(s.modules) <= names))
            count += n
            files += bool(n)
    return count, files


def _time(copies: dict, prog: dict, py315: str, sample: str, runs: int):
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.measure import measure

    specs = [CommandSpec(argv=tuple(_argv(prog, py315, sample)), variant=name, python=py315, key=name,
                         env=(("PYTHONPATH", src),), target=f"-m {prog['package']}", target_kind="module")
             for name, src in copies.items()]
    m = measure(specs, RunPlan(runs=runs, warmup=2, min_time_s=0.0), reference="original", session=Session())
    return {r.key: r for r in m.results}


def _ms(x):
    return "-" if x is None else f"{x * 1000:.1f}"


def bench_program(prog: dict, venv: str, pep810: str, py315: str, runs: int, work: str, min_ms: float) -> dict:
    site = os.path.join(str(venv), "lib", "python3.15", "site-packages")
    base = os.path.join(work, prog["name"])
    copies = {name: _copy(site, prog["package"], os.path.join(base, name)) for name in ("original", "importprof", "pep810")}
    sample = os.path.join(base, "sample.py")
    shutil.copy(os.path.join(os.path.dirname(os.__file__), SAMPLE_SOURCE), sample)
    oldest = _oldest(_requires_python(site, prog["package"]))
    python = venv_python(venv)
    row = {"name": prog["name"], "oldest": oldest}

    t0 = time.monotonic()
    pep = subprocess.run([pep810, "apply", os.path.join(copies["pep810"], prog["package"]), "--write"],
                         capture_output=True, text=True, timeout=600)
    row["pep810_s"] = time.monotonic() - t0
    row["pep810_rc"] = pep.returncode

    cmd = [os.path.join(ROOT, ".venv", "bin", "importprof"), "lazy", "--python", python,
           "--apply", prog["package"], "--min-ms", str(min_ms), "--runs", "3", "--warmup", "1",
           "--profile-runs", "1", "--max-bisect-runs", "30", "-o", os.path.join(base, "apply.json")]
    if oldest:
        cmd += ["--oldest-python", oldest]
    if prog["tests"]:
        cmd += ["--verify-with", " ".join(["{python}", *prog["tests"]])]
    cmd += ["-m", prog["package"], *[a.replace("{sample}", sample) for a in prog["args"]]]
    t0 = time.monotonic()
    imp = subprocess.run(cmd, cwd=copies["importprof"], capture_output=True, text=True, timeout=900)
    row["importprof_s"] = time.monotonic() - t0
    row["importprof_rc"] = imp.returncode
    if imp.returncode != 0:
        row["importprof_error"] = (imp.stderr.strip().splitlines() or ["(no output)"])[-1]
    doc = {}
    if os.path.exists(os.path.join(base, "apply.json")):
        with open(os.path.join(base, "apply.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
    row["importprof_applied"] = sum(1 for s in doc.get("statements", ()) if s["decision"] == "applied")
    row["importprof_taken_back"] = sum(1 for s in doc.get("statements", ()) if s["measured"] == "differs in verification")
    row["predicted_ms"] = doc.get("predicted_us", 0) / 1000
    row["declared"] = {name: _declared(src) for name, src in copies.items()}

    # output identical to the original's, on 3.15 and on the oldest interpreter
    checks = {}
    for label, py in (("3.15", python), ("oldest", oldest)):
        if not py:
            continue
        ref = _run(_argv(prog, py, sample), copies["original"])
        for name in ("importprof", "pep810"):
            checks[(name, f"output {label}")] = _run(_argv(prog, py, sample), copies[name]) == ref
    if prog["tests"]:
        ref = _masked(_run([python, *prog["tests"]], copies["original"]))
        row["tests_original_rc"] = ref[2]
        for name in ("importprof", "pep810"):
            checks[(name, "own tests 3.15")] = _masked(_run([python, *prog["tests"]], copies[name])) == ref
    row["checks"] = checks
    row["timing"] = _time(copies, prog, python, sample, runs)
    return row


# ------------------------------------------------------------------ --as-left: the tree as each tool leaves it

AS_LEFT_PINS = ["pylint==4.0.2"]
PEERS = ["pep810==0.1.0", "importcost==0.1.1"]
RUN_PY = """import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tree"))
from pylint import run_pylint
run_pylint()
"""


def _newest_python() -> tuple[str | None, bool]:
    """(interpreter, is 3.15): 3.15 when make setup provisioned it, else the newest pyenv one
    pylint 4 runs on."""
    py = find_pyenv_python("3.15")
    if py:
        return py, True
    for minor in range(14, 9, -1):
        py = find_pyenv_python(f"3.{minor}")
        if py:
            return py, False
    return None, False


def _site_packages(venv) -> str:
    lib = os.path.join(str(venv), "lib")
    return os.path.join(lib, next(d for d in os.listdir(lib) if d.startswith("python")), "site-packages")


def _tree_copy(site: str, base: str, name: str) -> str:
    """base/name/tree: the site-packages copied whole, .pyc included (times kept), and run.py."""
    dest = os.path.join(base, name)
    shutil.copytree(site, os.path.join(dest, "tree"), symlinks=True, ignore=shutil.ignore_patterns("pip", "pip-*"))
    with open(os.path.join(dest, "run.py"), "w", encoding="utf-8") as fh:
        fh.write(RUN_PY)
    return dest


def _tree_state(tree: str) -> dict:
    out = {}
    for folder, _, files in os.walk(tree):
        for f in files:
            p = os.path.join(folder, f)
            st = os.stat(p)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, tree)] = (hash(fh.read()), st.st_mtime_ns)
    return out


def _timed(argv, env, cwd) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one run, CPU from wait4 (user + system of the process tree)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, p.returncode


def _interleaved(copies: dict, python: str, runs: int) -> dict:
    """name -> (walls, cpus): every copy once per round, the order rotated each round."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPYCACHEPREFIX", None)
    names = list(copies)
    got = {n: ([], []) for n in names}
    for n in names:  # warm-up: the page cache, not the bytecode (nothing is written)
        _timed([python, os.path.join(copies[n], "run.py"), "--version"], env, copies[n])
    for r in range(runs):
        for n in names[r % len(names):] + names[:r % len(names)]:
            wall, cpu, code = _timed([python, os.path.join(copies[n], "run.py"), "--version"], env, copies[n])
            if code != 0:
                raise SystemExit(f"{n}: pylint --version exited {code} on the copy as left")
            got[n][0].append(wall)
            got[n][1].append(cpu)
    return got


def _stats(xs) -> tuple[float, float]:
    import statistics

    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def _stale_pyc(python: str, tree: str) -> int:
    """How many .pyc of `python`'s tag the interpreter would not use as they are (stale)."""
    code = ("import importlib.machinery, importlib.util, os, sys\n"
            "n = 0\n"
            "for d, _, fs in os.walk(sys.argv[1]):\n"
            "    for f in fs:\n"
            "        if not f.endswith('.py'): continue\n"
            "        src = os.path.join(d, f); c = importlib.util.cache_from_source(src)\n"
            "        if not os.path.exists(c): continue\n"
            "        loader = importlib.machinery.SourceFileLoader('m', src)\n"
            "        calls = []\n"
            "        orig = loader.source_to_code\n"
            "        loader.source_to_code = lambda *a, **k: (calls.append(1), orig(*a, **k))[1]\n"
            "        try:\n"
            "            loader.get_code('m')\n"
            "        except SyntaxError:\n"
            "            pass\n"
            "        n += bool(calls)\n"
            "print(n)\n")
    env = dict(os.environ)
    env.pop("PYTHONPYCACHEPREFIX", None)
    out = subprocess.run([python, "-c", code, tree], env=env, capture_output=True, text=True)
    return int(out.stdout.strip() or -1)


def _apply_importprof(python: str, dest: str, runs: int) -> tuple[int, float, str]:
    cmd = [os.path.join(ROOT, ".venv", "bin", "importprof"), "lazy", "--python", python, "--apply", "tree",
           # --profile-runs as a user leaves it (3): with 1, a single run prices each module, and
           # one run priced astroid.exceptions at 9.1 ms (its self time ranged 0.6-12.8 ms over 12
           # runs here, floor ~0.6 ms), which a second --apply then took
           "--runs", str(runs), "--warmup", "1", "-o", os.path.join(dest, "apply.json"),
           "run.py", "--version"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=dest, capture_output=True, text=True, timeout=3600)
    tail = (p.stderr.strip().splitlines() or [""])[-1]
    summary = next((ln for ln in p.stdout.splitlines() if " made lazy in " in ln), tail)
    return p.returncode, time.monotonic() - t0, summary


def bench_as_left(runs: int) -> int:
    python, is315 = _newest_python()
    if python is None:
        print("no pyenv Python 3.10+ here: pylint 4 cannot run; bench ends")
        return 0
    if not is315:
        print(f"no Python 3.15 here (make setup provisions it): using {python}, where the edits are inert "
              "(__lazy_modules__ is a plain list before 3.15); the figures show only what the edits cost")
    try:
        venv = build_real_venv(python, AS_LEFT_PINS)
        tools = build_real_venv(find_pyenv_python("3.11") or sys.executable, PEERS)
    except RealProgramUnavailable as exc:
        print(f"real programs unavailable: {exc}; bench ends")
        return 0
    started = time.monotonic()
    site = _site_packages(venv)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bench-lazy-as-left-") as work:
        copies = {n: _tree_copy(site, work, n) for n in ("original", "importprof", "pep810", "importcost")}
        style = [] if is315 else ["--style", "lazy-modules"]
        rc, secs, summary = _apply_importprof(python, copies["importprof"], 5)
        rows["importprof"] = f"exit {rc} in {secs:.0f} s: {summary}"
        t0 = time.monotonic()
        p = subprocess.run([venv_bin(tools, "pep810"), "apply", "tree", "--write", *style], cwd=copies["pep810"],
                           capture_output=True, text=True, timeout=3600)
        rows["pep810"] = f"exit {p.returncode} in {time.monotonic() - t0:.0f} s: {(p.stdout.strip().splitlines() or [''])[-1]}"
        t0 = time.monotonic()
        p = subprocess.run([venv_bin(tools, "importcost"), "apply", "tree", "--target", "import pylint.lint", "--python",
                            python, "--write", *(["--style", "lazy-modules"] if not is315 else [])],
                           cwd=copies["importcost"], env=dict(os.environ, PYTHONPATH=os.path.join(copies["importcost"], "tree")),
                           capture_output=True, text=True, timeout=3600)
        rows["importcost"] = f"exit {p.returncode} in {time.monotonic() - t0:.0f} s: {len(p.stdout.splitlines())} lines of output"
        for peer in ("pep810", "importcost"):
            name = f"{peer}+compileall"
            copies[name] = os.path.join(work, name)
            shutil.copytree(copies[peer], copies[name], symlinks=True)
            subprocess.run([python, "-m", "compileall", "-q", os.path.join(copies[name], "tree")], capture_output=True)
        stale = {n: _stale_pyc(python, os.path.join(d, "tree")) for n, d in copies.items()}
        timing = _interleaved(copies, python, runs)
        before = _tree_state(os.path.join(copies["importprof"], "tree"))
        rc2, secs2, summary2 = _apply_importprof(python, copies["importprof"], 3)
        after = _tree_state(os.path.join(copies["importprof"], "tree"))
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))

    print(f"\npylint 4.0.2 --version as each tool leaves the tree, Python {os.path.realpath(python)}, "
          f"PYTHONDONTWRITEBYTECODE=1, {runs} interleaved rounds")
    head = ("copy", "stale .pyc", "wall ms", "CPU ms", "CPU vs original", "importprof CPU vs this")
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    cpu = {n: _stats(timing[n][1]) for n in copies}
    wall = {n: _stats(timing[n][0]) for n in copies}
    for n in copies:
        print(" | ".join([n, str(stale[n]), f"{wall[n][0] * 1e3:.1f} ± {wall[n][1] * 1e3:.1f}",
                          f"{cpu[n][0] * 1e3:.1f} ± {cpu[n][1] * 1e3:.1f}", f"{cpu['original'][0] / cpu[n][0]:.2f}x",
                          f"{cpu['importprof'][0] / cpu[n][0]:.2f}"]))
    print()
    for n, text in rows.items():
        print(f"{n} apply: {text}")
    print(f"importprof second --apply: exit {rc2} in {secs2:.0f} s, {len(changed)} files changed"
          + (f" ({', '.join(changed[:5])})" if changed else "") + f": {summary2}")
    peers = [n for n in copies if n not in ("original", "importprof")]
    met_speed = all(cpu["importprof"][0] <= cpu[n][0] for n in peers)
    print(f"\naims: as fast as every peer (CPU mean, as left and after compileall): {'met' if met_speed else 'MISSED'}; "
          f"second run changes nothing: {'met' if not changed and rc2 == 0 else 'MISSED'}; "
          f"bench took {time.monotonic() - started:.0f} s")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", default="")
    ap.add_argument("--min-ms", type=float, default=0.3, help="importprof lazy --apply --min-ms")
    ap.add_argument("--as-left", action="store_true", help="pylint 4.0.2: the trees as importprof, pep810 and importcost leave them")
    args = ap.parse_args()
    if args.as_left:
        return bench_as_left(args.runs)
    py315 = find_pyenv_python("3.15")
    if py315 is None:
        print("no Python 3.15 under pyenv: nothing to compare (PEP 810 needs it); bench ends")
        return 0
    try:
        venv = build_real_venv(py315, PINS)
        tools = build_real_venv(find_pyenv_python("3.11") or sys.executable, [PEP810])
    except RealProgramUnavailable as exc:
        print(f"real programs unavailable: {exc}; bench ends")
        return 0
    pep810 = venv_bin(tools, "pep810")
    only = {x for x in args.only.split(",") if x}
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-lazy-apply-") as work:
        for prog in PROGRAMS:
            if only and prog["name"] not in only:
                continue
            if time.monotonic() - started + prog["est_s"] > BUDGET_S:
                print(f"# {prog['name']}: left out, the bench has used {time.monotonic() - started:.0f} s of its "
                      f"{BUDGET_S} s and it usually takes {prog['est_s']} s", flush=True)
                continue
            print(f"# {prog['name']} ...", flush=True)
            rows.append(bench_program(prog, venv, pep810, py315, args.runs, work, args.min_ms))

    print()
    print(f"importprof lazy --apply (__lazy_modules__) vs pep810 0.1.0 apply --write (lazy keyword), Python 3.15 "
          f"({os.path.realpath(py315)}), {args.runs} interleaved runs per copy")
    head = ("program", "lazy statements (files) importprof / pep810", "start-up ms: original", "importprof", "pep810",
            "imp/pep", "faster aim", "checks (importprof | pep810)", "works aim")
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    all_met = True
    for r in rows:
        t = r["timing"]
        o, i, p = t["original"], t["importprof"], t["pep810"]
        ratio = (i.mean / p.mean) if i.mean and p.mean else None
        faster = i.mean is not None and p.mean is not None and i.mean <= p.mean + max(i.stddev or 0, p.stddev or 0)
        checks_i = {what: ok for (n, what), ok in r["checks"].items() if n == "importprof"}
        checks_p = {what: ok for (n, what), ok in r["checks"].items() if n == "pep810"}
        works = all(checks_i.get(w, False) for w, ok in checks_p.items() if ok)
        shown = "; ".join(f"{w}: {'ok' if checks_i[w] else 'FAIL'} | {'ok' if checks_p[w] else 'FAIL'}" for w in checks_i)
        di, dp = r["declared"]["importprof"], r["declared"]["pep810"]
        met = faster and works and r["importprof_rc"] == 0
        all_met &= met
        print(" | ".join([
            r["name"], f"{di[0]} ({di[1]}) / {dp[0]} ({dp[1]})",
            f"{_ms(o.mean)} ± {_ms(o.stddev)}", f"{_ms(i.mean)} ± {_ms(i.stddev)}", f"{_ms(p.mean)} ± {_ms(p.stddev)}",
            f"{ratio:.2f}" if ratio else "-", "met" if faster else "MISSED", shown, "met" if works else "MISSED",
        ]))
    print()
    for r in rows:
        extra = f"; importprof error: {r['importprof_error']}" if r.get("importprof_error") else ""
        o, i = r["timing"]["original"], r["timing"]["importprof"]
        # the prediction beside the thing itself: the start-up this bench measured, original vs importprof's copy
        saved = f"{(o.mean - i.mean) * 1e3:.1f} ms measured here" if o.mean is not None and i.mean is not None else "not measured"
        print(f"{r['name']}: importprof applied {r['importprof_applied']} statements "
              f"({r['importprof_taken_back']} taken back by verification; saving predicted {r['predicted_ms']:.1f} ms, "
              f"{saved}) in "
              f"{r['importprof_s']:.0f} s (exit {r['importprof_rc']}); pep810 apply took {r['pep810_s']:.1f} s "
              f"(exit {r['pep810_rc']}); oldest interpreter: {r['oldest'] or 'none at hand'}{extra}")
    print(f"\naims: {'all met' if all_met else 'some MISSED'}; bench took {time.monotonic() - started:.0f} s")
    if not only:  # make bench: the tree as each tool leaves it, and the second --apply, too
        print("\n# --as-left: pylint 4.0.2 ...", flush=True)
        return bench_as_left(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
