"""Whole pipelines at scale, measured side by side in one run (not a test: prints ratios and the
aims with met/MISSED; runs to its end in a few minutes).

1. The readers at 1x/2x/4x, each a whole `importprof` command in its own process (start-up,
   read, parse, summary, output), beside its floor: a bare Python split loop over the same lines
   (read the file, `for line in text.splitlines(): line.split()`, also a process of its own). Time (wall) and CPU (user
   + system, from the process's rusage: the machine is shared, CPU is the steadier figure) and
   peak RSS.
   - `trace --from-log --format json`: real multi-process strace logs, made here the way the
     issue describes (strace -f of a shell running N Python children at once, each importing
     json, csv, decimal, email, http.client, logging, argparse, tarfile); N = 8, 16, 32. Made
     as importprof's trace makes them (-f -tt -T -y -s 256), and as a user's plain
     `strace -f -o` makes them (no times, durations or fd paths).
   - `imports --from-log --headers runs` (the table): a log of 250/500/1,000 runs of pip's
     import log (real `python -X importtime -m pip --version` runs, made here, repeated to the
     size), each header a run; and the same logs read the default way, each header a process
     of one run (each process kept as columns: 8 bytes a row).
2. Every path of a big harness at 250 and 1,000 processes of pip's log (the issue's table), each
   beside the split loop over the same lines, measured in the same run: the table; the exports
   `--format json|speedscope|chrome|folded -o FILE` (written as the rows are made); `show` of the
   saved report (read back a line at a time), `diff` of it with itself, `report --from` and
   `why --report` of it, and `diff --format json -o` of it and a second run's report (every
   module changed: the diff written as its changes are made). Aims at 1,000: every
   export and read-back <= 8x the split loop (CPU), <= 100 MB peak RSS, peak RSS flat (<= 1.2x
   from 250 to 1,000); `diff` <= 2x `show`. And `trace --from-log` of the 1x and 4x strace logs:
   peak RSS <= 1x the log's size.
3. importprof's own overhead beyond the program's runs, for `imports`, `startup` and `trace`
   of `-m pip --version`: the command's wall time minus the wall time of the runs it makes, run
   alone (warm-up included) — interleaved, medians.

Usage: .venv/bin/python benchmarks/bench_scale.py [--quick]   (--quick: 1x/2x only)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from profiler.session import Session

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

IMPORTPROF = [sys.executable, "-m", "profiler.cli"] if not (REPO / ".venv" / "bin" / "importprof").exists() else [str(REPO / ".venv" / "bin" / "importprof")]
QUICK = "--quick" in sys.argv[1:]
SCALES = (1, 2) if QUICK else (1, 2, 4)
REPEATS = 2  # interleaved repeats of each measurement (medians; the whole run stays under 5 minutes)
CHILD = "import json, csv, decimal, email, http.client, logging, argparse, tarfile"
# the floor: read the same lines and split each one (a parser can do no less)
SPLIT_LOOP = "import sys\nfor line in open(sys.argv[1], encoding='utf-8', errors='replace').read().splitlines():\n    line.split()\n"


# The command runs as the child of a small `python -S` runner that reports its wait4 rusage: a
# child forked straight from this process would count this process's own peak RSS as its own
# (Linux keeps the forked memory's high-water mark across exec).
RUNNER = """import os, sys, time
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("\\nBENCH %d %r %r %d\\n" % (os.waitstatus_to_exitcode(status), time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024))
"""


def measured(argv, env=None) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, peak RSS bytes) of one command."""
    done = subprocess.run([sys.executable, "-S", "-c", RUNNER, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True, errors="replace")
    head, _, last = done.stderr.rstrip("\n").rpartition("\n")
    parts = last.split()
    if len(parts) != 5 or parts[0] != "BENCH" or parts[1] != "0":
        raise SystemExit(f"benchmark command failed: {argv[:8]}\n{done.stderr[-2000:]}")
    return float(parts[2]), float(parts[3]), int(parts[4])


def aim(what: str, value: str, met: bool, target: str) -> None:
    print(f"  => {what}: {value}   aim {target}   {'met' if met else 'MISSED'}")


def python_path() -> str:
    from profiler.capture.interpreter import resolve_python

    return resolve_python(None, session=Session()).path


# ------------------------------------------------------------------------------------------ logs
def make_strace_log(children: int, path: str, flags=("-tt", "-T", "-y", "-s", "256")) -> int:
    """strace -f of a shell starting `children` Pythons at once (`python3` as found on PATH, as a
    user types it: here a pyenv shim, whose bash processes are in the log too); `flags`: the
    ones importprof's own trace gives, or none (a user's plain `strace -f -o`)."""
    from profiler.capture.strace import find_strace

    script = f'for i in $(seq {children}); do python3 -c "{CHILD}" & done; wait'
    done = subprocess.run([find_strace(), "-f", *flags, "-o", path, "--", "/bin/sh", "-c", script],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"strace failed: {done.stderr[-500:]}")
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def make_pip_logs(python: str, folder: str, counts) -> dict[int, tuple[str, int]]:
    """{runs: (path, lines)}: real runs of pip's import log, repeated to `runs` runs."""
    head = "import time: self [us]"
    runs = []
    for _ in range(10):
        done = subprocess.run([python, "-X", "importtime", "-m", "pip", "--version"], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{python} -m pip --version failed: {done.stderr[-500:]}")
        text = done.stderr
        runs.extend(head + part for part in text.split(head)[1:])
    out = {}
    for n in counts:
        path = os.path.join(folder, f"pip-{n}.log")
        with open(path, "w") as fh:
            for i in range(n):
                fh.write(runs[i % len(runs)])
        with open(path, "rb") as fh:
            out[n] = (path, sum(1 for _ in fh))
    return out


# ------------------------------------------------------------------------------------------ readers
def in_process(logs: dict) -> None:
    """The trace pipeline without the command's start-up: read + parse + summary + JSON, in this
    process (CPU time, best of the repeats), beside the split loop over the same file."""
    from profiler.model.log_source import LogSource
    from profiler.render import get_renderer
    from profiler.workflows.trace import TraceOptions, trace

    clock = time.process_time
    print("trace pipeline in process (read + parse + summary + JSON; CPU, best of the repeats) vs the split loop")
    rows = {}
    for scale, (path, lines) in logs.items():
        best_floor = best = float("inf")
        for _ in range(REPEATS):
            t0 = clock()
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh.read().splitlines():
                    line.split()
            t1 = clock()
            get_renderer("json")(trace(TraceOptions(from_log=LogSource(path=path)), session=Session()))
            t2 = clock()
            best_floor, best = min(best_floor, t1 - t0), min(best, t2 - t1)
        rows[scale] = (lines, best, best / best_floor)
        print(f"  {str(scale) + 'x':>6} {lines:>9,} lines: split loop {best_floor:.3f}s, pipeline {best:.3f}s = {lines / best:,.0f} lines/s, x{best / best_floor:.1f} the split loop")
    lines, best, ratio = rows[max(rows)]
    aim(f"trace pipeline at {max(rows)}x", f"{lines / best:,.0f} lines/s, x{ratio:.1f} the split loop", lines / best >= 500_000 and ratio <= 5, ">= 500,000 lines/s and <= 5x")


def reader_rows(label: str, logs: dict, command, lines_aim: float | None, ratio_aim: float | None, extra_aims=None) -> None:
    """Each size: the floor and the command, interleaved REPEATS times, medians."""
    print(f"{label}")
    print(f"  {'size':>6} {'lines':>9} {'MiB':>6} | {'floor wall':>10} {'cpu':>6} | {'importprof wall':>15} {'cpu':>6} {'peak RSS':>9} | {'x floor (cpu)':>13} {'lines/s (cpu)':>13}")
    rows = {}
    for scale, (path, lines) in logs.items():
        floor, tool = [], []
        for _ in range(REPEATS):
            floor.append(measured([sys.executable, "-S", "-c", SPLIT_LOOP, path]))
            tool.append(measured(command(path)))
        fw, fc = statistics.median(f[0] for f in floor), statistics.median(f[1] for f in floor)
        tw, tc = statistics.median(t[0] for t in tool), statistics.median(t[1] for t in tool)
        rss = max(t[2] for t in tool)
        rows[scale] = (lines, tw, tc, rss, tc / fc, lines / tc)
        mib = os.path.getsize(path) / 2**20
        print(f"  {str(scale) + 'x':>6} {lines:>9,} {mib:6.1f} | {fw:9.2f}s {fc:5.2f}s | {tw:14.2f}s {tc:5.2f}s {rss / 2**20:7.0f}MB | {tc / fc:12.1f}x {lines / tc:13,.0f}")
    big = max(rows)
    lines, tw, tc, rss, ratio, rate = rows[big]
    if lines_aim is not None:
        aim(f"{label.split(':')[0]} at {big}x, end to end", f"{rate:,.0f} lines/s (CPU), {lines / tw:,.0f} lines/s (wall)", rate >= lines_aim, f">= {lines_aim:,.0f} lines/s")
    if ratio_aim is not None:
        aim(f"{label.split(':')[0]} at {big}x vs the bare split loop", f"{ratio:.1f}x (CPU)", ratio <= ratio_aim, f"<= {ratio_aim:g}x")
    small = min(rows)
    per_line = [rows[s][2] / rows[s][0] for s in sorted(rows)]
    growth = per_line[-1] / per_line[0]
    aim(f"{label.split(':')[0]} linear in size (CPU per line, {big}x vs {small}x)", f"{growth:.2f}x", growth <= 1.3, "<= 1.3x")
    for fn in extra_aims or ():
        fn(rows)


# ------------------------------------------------------------------------------------------ the harness's paths
HARNESS_SCALES = (1, 2) if QUICK else (1, 4)  # x 250 processes
EXPORT_AIM, MB_AIM, FLAT_AIM, DIFF_AIM = 8.0, 100, 1.2, 2.0


def path_row(label: str, inputs: dict, command, floor_of) -> dict:
    """One path at each size: the split loop over `floor_of(scale)` and the command, interleaved
    REPEATS times, medians (CPU) and the largest peak RSS; printed; {scale: (wall, cpu, rss, x floor)}."""
    rows = {}
    for scale in sorted(inputs):
        floor, tool = [], []
        for _ in range(REPEATS):
            floor.append(measured([sys.executable, "-S", "-c", SPLIT_LOOP, floor_of(scale)]))
            tool.append(measured(command(scale)))
        fc = statistics.median(f[1] for f in floor)
        tw, tc = statistics.median(t[0] for t in tool), statistics.median(t[1] for t in tool)
        rss = max(t[2] for t in tool)
        rows[scale] = (tw, tc, rss, tc / fc)
        print(f"  {label:44s} {250 * scale:>6,} | split loop {fc:5.2f}s cpu | {tw:6.2f}s wall {tc:5.2f}s cpu {rss / 2**20:5.0f} MB | x{tc / fc:4.1f} the split loop")
    return rows


def judge_path(label: str, rows: dict, ratio_aim: float | None = EXPORT_AIM) -> None:
    big, small = max(rows), min(rows)
    _, tc, rss, ratio = rows[big]
    if ratio_aim is not None:
        aim(f"{label} at {250 * big:,} processes vs the split loop", f"x{ratio:.1f} (CPU)", ratio <= ratio_aim, f"<= {ratio_aim:g}x")
    aim(f"{label} at {250 * big:,} processes: peak RSS", f"{rss / 2**20:.0f} MB", rss <= MB_AIM * 2**20, f"<= {MB_AIM} MB")
    growth = rss / rows[small][2]
    aim(f"{label}: peak RSS flat ({250 * big:,} vs {250 * small:,} processes)", f"x{growth:.2f}", growth <= FLAT_AIM, f"<= {FLAT_AIM}x")


def harness_paths(plogs: dict, tmp: str) -> None:
    """The issue's table: each path of a 1,000-process harness log beside the split loop."""
    logs = {s: plogs[s][0] for s in HARNESS_SCALES if s in plogs}
    print("every path of a harness's log (pip --version, one process a header), beside the split loop over the same lines "
          f"({REPEATS} repeats, medians)")
    saved = {}
    for s, log in logs.items():  # the saved reports show and diff read back (as `imports -o` writes them)
        saved[s] = os.path.join(tmp, f"harness-{s}.json")
        subprocess.run([*IMPORTPROF, "imports", "--from-log", log, "-o", saved[s]], check=True, stdout=subprocess.DEVNULL)
    table = path_row("imports --from-log (the table)", logs, lambda s: [*IMPORTPROF, "imports", "--from-log", logs[s]], logs.get)
    judge_path("the table", table)
    for fmt in ("json", "speedscope", "chrome", "folded"):
        out = os.path.join(tmp, f"export.{fmt}")
        rows = path_row(f"--format {fmt} -o FILE", logs,
                        lambda s, fmt=fmt, out=out: [*IMPORTPROF, "imports", "--from-log", logs[s], "--format", fmt, "-o", out], logs.get)
        judge_path(f"--format {fmt} -o", rows)
    mib = {s: os.path.getsize(p) / 2**20 for s, p in saved.items()}
    show = path_row("show REPORT.json (" + ", ".join(f"{m:.0f} MB" for m in mib.values()) + ")", saved,
                    lambda s: [*IMPORTPROF, "show", saved[s]], saved.get)
    judge_path("show REPORT.json", show)
    diff = path_row("diff REPORT.json REPORT.json", saved, lambda s: [*IMPORTPROF, "diff", saved[s], saved[s]], saved.get)
    judge_path("diff REPORT.json REPORT.json", diff, None)
    big = max(diff)
    ratio = diff[big][1] / show[big][1]
    aim(f"diff of two {250 * big:,}-process reports vs show of one", f"x{ratio:.2f} (CPU)", ratio <= DIFF_AIM, f"<= {DIFF_AIM:g}x")
    page = os.path.join(tmp, "page.html")
    rows = path_row("report --from REPORT.json -o page.html", saved, lambda s: [*IMPORTPROF, "report", "--from", saved[s], "-o", page], saved.get)
    judge_path("report --from REPORT.json", rows)
    rows = path_row("why --report REPORT.json json", saved, lambda s: [*IMPORTPROF, "why", "--report", saved[s], "json"], saved.get)
    judge_path("why --report REPORT.json json", rows)
    # a second run of the harness (its processes' runs in another order: every module changed)
    other = {}
    for s, log in logs.items():
        other[s] = os.path.join(tmp, f"harness-{s}-b.json")
        subprocess.run([*IMPORTPROF, "imports", "--from-log", rotated_log(log, os.path.join(tmp, f"harness-{s}-b.log")), "-o", other[s]],
                       check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, "diff.json")
    rows = path_row("diff A.json B.json --format json -o FILE", saved,
                    lambda s: [*IMPORTPROF, "diff", saved[s], other[s], "--format", "json", "-o", out], saved.get)
    judge_path("diff A.json B.json --format json -o", rows)


def rotated_log(path: str, out: str, by: int = 3) -> str:
    """The log's runs (each from an importtime header) moved `by` places: another run of the
    same harness, every process's numbers different, its layout the same."""
    head = "import time: self [us]"
    with open(path) as fh:
        text = fh.read()
    runs = [head + part for part in text.split(head)[1:]]
    with open(out, "w") as fh:
        fh.write("".join(runs[by:] + runs[:by]))
    return out


def trace_memory(slogs: dict) -> None:
    """trace --from-log's peak RSS against the log's size, at 1x and the largest."""
    print("trace --from-log --format json: peak RSS against the log's size")
    sizes = {s: slogs[s] for s in (min(slogs), max(slogs))}
    for s, (path, lines) in sizes.items():
        _, cpu, rss = measured([*IMPORTPROF, "trace", "--from-log", path, "--format", "json"])
        size = os.path.getsize(path)
        print(f"  {str(s) + 'x':>6} {lines:>9,} lines {size / 2**20:6.1f} MB | {cpu:5.2f}s cpu {lines / cpu:>9,.0f} lines/s | peak RSS {rss / 2**20:5.0f} MB = x{rss / size:.2f} the log")
        if s == max(sizes):
            aim(f"trace --from-log at {s}x: peak RSS vs the log's size", f"x{rss / size:.2f}", rss <= size, "<= 1x")


# ------------------------------------------------------------------------------------------ overheads
def overhead(label: str, tool_argv, runs_alone) -> None:
    """The command's wall time minus its runs' (run alone, one after the other), interleaved."""
    tool, alone = [], []
    for _ in range(REPEATS):
        tool.append(measured(tool_argv))
        t0, cpu = time.perf_counter(), 0.0
        for argv in runs_alone:
            cpu += measured(argv)[1]
        alone.append((time.perf_counter() - t0, cpu))
    tw, tc = statistics.median(t[0] for t in tool), statistics.median(t[1] for t in tool)
    aw, ac = statistics.median(a[0] for a in alone), statistics.median(a[1] for a in alone)
    print(f"  {label:44s} {tw:6.2f}s wall {tc:5.2f}s cpu | runs alone ({len(runs_alone)}) {aw:5.2f}s wall {ac:5.2f}s cpu | "
          f"overhead {tw - aw:+.2f}s wall {tc - ac:+.2f}s cpu  (x{tw / aw:.2f} the floor)")
    return tw - aw, tc - ac


def main() -> None:
    print(f"bench_scale: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {REPEATS} repeats each, medians"
          + (" (--quick)" if QUICK else ""))
    from profiler.parse.strace import _native
    from profiler.analysis.syscalls import _native_tally

    print(f"  native strace parser: {'built' if _native() else 'NOT built (pure Python)'}; native tallies: {'built' if _native_tally() else 'NOT built (pure Python)'}")
    python = python_path()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        slogs = {}
        for scale in SCALES:
            path = os.path.join(tmp, f"multi-{8 * scale}.strace")
            slogs[scale] = (path, make_strace_log(8 * scale, path))
        reader_rows("trace --from-log --format json: strace -f of a shell running 8/16/32 Python children at once", slogs,
                    lambda p: [*IMPORTPROF, "trace", "--from-log", p, "--format", "json"], 500_000, 5.0)
        in_process(slogs)
        plain = {}
        for scale in SCALES:
            path = os.path.join(tmp, f"plain-{8 * scale}.strace")
            plain[scale] = (path, make_strace_log(8 * scale, path, flags=()))
        reader_rows("trace --from-log --format json, a plain log: strace -f -o (no -tt, -T, -y) of the same shells", plain,
                    lambda p: [*IMPORTPROF, "trace", "--from-log", p, "--format", "json"], 500_000, 5.0)
        plogs = make_pip_logs(python, tmp, [250 * s for s in SCALES])
        plogs = {n // 250: v for n, v in plogs.items()}

        def pip_aims(label):
            """The ≤2 s / ≤200 MB aim for 1,000 runs, and peak RSS flat in the runs."""
            def check(rows):
                if 4 in rows:
                    lines, tw, tc, rss, _, _ = rows[4]
                    aim(f"{label}: 1,000 runs of pip's log", f"{tw:.2f}s wall, {tc:.2f}s cpu, {rss / 2**20:.0f} MB", tw <= 2.0 and rss <= 200 * 2**20, "<= 2 s and <= 200 MB")
                small, big = min(rows), max(rows)
                growth = (rows[big][3] / rows[small][3])
                aim(f"{label}: peak RSS flat in runs ({big}x vs {small}x)", f"x{growth:.2f}", growth <= 1.2, "<= 1.2x")
            return check

        # each header a run (--headers runs: a loop's runs of one program saved to one file): one
        # record per module with its per-run samples, folded as the log is read
        reader_rows("imports --from-log --headers runs (table): 250/500/1,000 runs of pip's import log", plogs,
                    lambda p: [*IMPORTPROF, "imports", "--from-log", p, "--headers", "runs"], None, None, [pip_aims("--headers runs")])
        # the default, each header a process of one run (a harness's log): each process kept as
        # columns (8 bytes a row), its names and nesting shared with the processes laid out alike
        reader_rows("imports --from-log (table; each header a process, the default): the same logs", plogs,
                    lambda p: [*IMPORTPROF, "imports", "--from-log", p], None, None, [pip_aims("each header a process")])
        harness_paths({s: v for s, v in plogs.items()}, tmp)
        trace_memory(slogs)
        print("importprof's own overhead beyond the program's runs (-m pip --version; wall and CPU, medians)")
        pip = [python, "-m", "pip", "--version"]
        wall, _ = overhead("imports --runs 5 (warm-up 1: 6 runs)", [*IMPORTPROF, "imports", "--python", python, "--runs", "5", "-m", "pip", "--version"],
                           [[python, "-X", "importtime", *pip[1:]]] * 6)
        aim("imports -m pip --version (5 runs): importprof's own time", f"{wall:+.2f}s", wall <= 0.3, "<= 0.3 s")
        overhead("startup --variant default --runs 5 (warm-up 3: 8 runs)",
                 [*IMPORTPROF, "startup", "--python", python, "--variant", "default", "--runs", "5", "-m", "pip", "--version"], [pip] * 8)
        from profiler.capture.strace import find_strace
        from profiler.workflows.trace import TraceOptions

        # trace's runs: the traced one, then the untraced ones shown beside it (one warm-up + N)
        log = os.path.join(tmp, "alone.strace")
        untraced = TraceOptions().untraced_runs if hasattr(TraceOptions(), "untraced_runs") else 0
        runs = [[find_strace(), "-f", "-tt", "-T", "-y", "-s", "256", "-o", log, "--", *pip]] + [pip] * (untraced + 1 if untraced else 0)
        overhead(f"trace (1 run under strace + {len(runs) - 1} untraced)",
                 [*IMPORTPROF, "trace", "--python", python, "--format", "json", "-m", "pip", "--version"], runs)
    print(f"bench_scale: done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
