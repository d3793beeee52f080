"""A saved imports report read back in every layout against json.load of the same file (issue 43
item 4: every reader at json.load's pace whatever the document's layout, within its memory
bound). Not a test: prints the figures, interleaved, and the aim (show <= 1.0x json.load) with
met/MISSED.

The documents, made here from the saved fixture (tests/fixtures/report/imports.json: 106
modules of one process, three runs, with --phases' keys) repeated as 1,000 processes (106,000
records), each written as importprof writes it (a record a line), compact
(json.dump(separators=(",", ":")), as `jq -c` writes it) and on one line (json.dump):

- `phases`: the records as saved (three runs, phases): 41 MB as importprof writes it;
- `no phases`: the same without the six --phases keys;
- `one run`: the same as a one-run report (one run's figures, no spread: what `imports
  --from-log` of a harness's log writes, kept as columns when read back).

Each measurement is a process of its own (`python -c "json.load(...)"`, `importprof show FILE
--view top`), its user CPU and peak RSS from wait4; rounds interleave every command of every
file. docs/benchmarks.md ("The readers in other layouts") keeps the figures.

    .venv/bin/python benchmarks/bench_layouts.py [--rounds N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIXTURE = REPO / "tests" / "fixtures" / "report" / "imports.json"
PROCESSES = 1000
PHASE_KEYS = ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled", "phase_cumulative_us")
IMPORTPROF = [str(REPO / ".venv" / "bin" / "importprof")] if (REPO / ".venv" / "bin" / "importprof").exists() \
    else [sys.executable, "-m", "profiler.cli"]

# the command runs as the child of a small `python -S` runner that reports its wait4 rusage (a
# child forked from this process would count this process's peak RSS as its own)
RUNNER = """import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("\\nBENCH %d %r %d\\n" % (os.waitstatus_to_exitcode(status), ru.ru_utime, ru.ru_maxrss * 1024))
"""


def measured(argv: list[str], cwd: str | None = None) -> tuple[float, int]:
    """(user CPU s, peak RSS bytes) of one command."""
    done = subprocess.run([sys.executable, "-S", "-c", RUNNER, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, errors="replace", cwd=cwd)
    parts = done.stderr.rstrip("\n").rpartition("\n")[2].split()
    if len(parts) != 4 or parts[0] != "BENCH" or parts[1] != "0":
        raise SystemExit(f"benchmark command failed: {argv}\n{done.stderr[-2000:]}")
    return float(parts[2]), int(parts[3])


def reports() -> dict[str, dict]:
    """The three reports of 1,000 processes (see the module's docstring)."""
    saved = json.loads(FIXTURE.read_text())
    modules = [{**m, "process": p} for p in range(PROCESSES) for m in saved["modules"]]
    phases = {**saved, "processes": PROCESSES, "modules": modules}
    plain = {**phases, "modules": [{k: v for k, v in m.items() if k not in PHASE_KEYS} for m in modules]}
    one = {**plain, "runs": 1, "total_us_runs": [plain["total_us"]], "modules": [
        {**m, "runs_seen": 1, "self_us_runs": [m["self_us"]], "cumulative_us_runs": [m["cumulative_us"]],
         "self_us_spread": 0, "cumulative_us_spread": 0} for m in plain["modules"]]}
    return {"phases": phases, "no phases": plain, "one run": one}


def write_layouts(folder: str) -> dict[tuple[str, str], str]:
    """{(report, layout): path}: each report as importprof writes it, compact and on one line."""
    from profiler.model.document import document_json

    out = {}
    for name, doc in reports().items():
        stem = os.path.join(folder, name.replace(" ", "-"))
        texts = {
            # as `importprof show FILE --format json` writes it (a record a line)
            "importprof": document_json(doc, {k: [json.dumps(m, ensure_ascii=False) for m in doc[k]] for k in ("modules", "cached", "groups")}),
            "compact": json.dumps(doc, separators=(",", ":")),
            "one line": json.dumps(doc),
        }
        for layout, text in texts.items():
            path = f"{stem}.{layout.replace(' ', '-')}.json"
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            out[name, layout] = path
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians; default 3)")
    parser.add_argument("--keep", metavar="DIR", help="write the documents to DIR and keep them")
    parser.add_argument("--before", metavar="DIR", help="also measure show of the profiler package in DIR (e.g. `git archive "
                        "HEAD profiler | tar -x -C DIR`), interleaved: the figures before a change")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        paths = write_layouts(folder)
        load = [sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"]
        figures: dict[tuple[str, str, str], list[tuple[float, int]]] = {}
        for _ in range(args.rounds):
            for key, path in paths.items():
                figures.setdefault((*key, "json.load"), []).append(measured([*load, path]))
                figures.setdefault((*key, "show"), []).append(measured([*IMPORTPROF, "show", path, "--view", "top"]))
                if args.before:  # python -m from DIR: its profiler/ first on sys.path
                    figures.setdefault((*key, "before"), []).append(
                        measured([sys.executable, "-m", "profiler.cli", "show", path, "--view", "top"], cwd=args.before))
        load_avg = os.getloadavg()
        print(f"show --view top of a saved imports report of {PROCESSES:,} processes against json.load of the same file")
        print(f"(user CPU, median of {args.rounds} interleaved rounds; peak RSS; load average {load_avg[0]:.1f} {load_avg[1]:.1f})")
        missed = 0
        for key, path in paths.items():
            (ls, lm), (ss, sm) = ([statistics.median(x[0] for x in figures[(*key, c)]), max(x[1] for x in figures[(*key, c)])]
                                  for c in ("json.load", "show"))
            ratio = ss / ls
            before = "" if not args.before else \
                f"   (before {statistics.median(x[0] for x in figures[(*key, 'before')]):5.2f} s)"
            met = ratio <= 1.0
            missed += not met
            print(f"  {key[0]:>9}, {key[1]:<10} {os.path.getsize(path) / 1e6:5.1f} MB: json.load {ls:5.2f} s {lm / 2**20:4.0f} MB"
                  f"   show {ss:5.2f} s {sm / 2**20:4.0f} MB   {ratio:4.2f}x   aim <= 1.0x   {'met' if met else 'MISSED'}{before}")
        print(f"  => {len(paths) - missed} of {len(paths)} met")


if __name__ == "__main__":
    main()
