"""Benchmark (not a test): a 100-commit backfill of the start-up history, timed.

A generated git repository of N tiny commits (default 100; every tenth adds an import to the
package, the 90th a heavy one too), a check counting instructions (`metric = "instructions"`, one
count and one timed run a commit, the cheapest exact setting), then:

  - `importprof history record --commits v0..HEAD --check cli`: the whole backfill, its wall
    time and the time per commit (each commit: a worktree, `importprof check` in it, one row);
  - the same command again: every commit already recorded, all skipped (the resume path);
  - `importprof history`, `--format json` and `-o history.html` over the N commits;
  - the store's size on disk (bytes per recorded run).

Printed with the load average beside them; exit 0 unless it cannot run (no git, no valgrind
or perf counters).
Usage: .venv/bin/python benchmarks/bench_history.py [--commits 100] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHECK = """
[tool.importprof.checks.cli]
target = ["-m", "mypkg"]
metric = "instructions"
runs = 1
instruction_runs = 1
"""

IMPORTS = ["json", "csv", "fractions", "decimal", "argparse", "dataclasses", "email.parser", "zipfile", "tarfile", "sqlite3"]


def git(repo: str, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.org", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@example.org")
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def make_repo(root: str, n: int) -> str:
    repo = os.path.join(root, "repo")
    os.makedirs(os.path.join(repo, "mypkg"))
    git(repo, "init", "-q")
    with open(os.path.join(repo, "pyproject.toml"), "w") as f:
        f.write(f'[project]\nname = "mypkg"\nversion = "0"\n{CHECK}')
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write(".importprof/\n")
    imports = ["os"]
    for i in range(n):
        if i and i % 10 == 0:
            imports.append(IMPORTS[(i // 10) % len(IMPORTS)])
        if i == n - 10:
            imports.append("asyncio")  # the heavy step (late: the commits after it count twice the instructions)
        with open(os.path.join(repo, "mypkg", "__init__.py"), "w") as f:
            f.write("".join(f"import {m}\n" for m in imports))
        with open(os.path.join(repo, "mypkg", "__main__.py"), "w") as f:
            f.write("import mypkg\n")
        with open(os.path.join(repo, "mypkg", f"n{i}.py"), "w") as f:
            f.write(f"N = {i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {i}")
        if i == 0:
            git(repo, "tag", "v0")
    return repo


def importprof(repo: str, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "profiler", *args], cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    return time.monotonic() - t0, proc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--keep", default=None, help="build the repository in DIR and keep it")
    args = ap.parse_args()
    if shutil.which("git") is None:
        print("bench_history: needs git", file=sys.stderr)
        return 2
    root = args.keep or tempfile.mkdtemp(prefix="importprof-bench-history-")
    try:
        repo = make_repo(root, args.commits)
        load = os.getloadavg()
        print(f"history backfill of {args.commits} commits (metric instructions, 1 count + 1 timed run a commit); "
              f"load average {load[0]:.2f} on {os.cpu_count()} cores")
        took, proc = importprof(repo, "history", "record", "--commits", "v0..HEAD", "--check", "cli")
        if proc.returncode != 0:
            print(f"bench_history: the backfill failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}", file=sys.stderr)
            return 2
        print(f"  backfill            {took:8.1f} s   {took / args.commits:6.2f} s a commit   ({proc.stdout.splitlines()[0]})")
        again, proc = importprof(repo, "history", "record", "--commits", "v0..HEAD", "--check", "cli")
        print(f"  resumed (all known) {again:8.2f} s   ({proc.stdout.splitlines()[0] if proc.stdout else proc.stderr.strip()})")
        for label, extra in (("history (table)", ()), ("history json", ("--format", "json", "-o", "h.json")),
                             ("history page", ("-o", "h.html"))):
            t, proc = importprof(repo, "history", *extra)
            print(f"  {label:<19} {t:8.2f} s   exit {proc.returncode}")
        t, proc = importprof(repo, "history")
        steps = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip().startswith("change point at")]
        print(f"  change points found: {len(steps)}")
        for ln in steps:
            print(f"    {ln}")
        store = os.path.join(repo, ".importprof", "history.sqlite")
        size = os.path.getsize(store) + sum(os.path.getsize(store + s) for s in ("-wal", "-shm") if os.path.exists(store + s))
        print(f"  store               {size:,} bytes ({size / args.commits:,.0f} bytes a run)")
        print(f"  load average after  {os.getloadavg()[0]:.2f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
