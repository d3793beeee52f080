"""Workloads for `importprof compare --workload NAME` (and `pack --all-stdlib`).

  import-stdlib  imports the ~540 stdlib modules listed in import_stdlib.txt (exclusions and why
                 are written at the top of that file), then prints how many it imported
  hello          starts, prints a line, exits
  harness        launches a small CLI N times in a row, like Mercurial's test harness (default:
                 `importprof --help`, from the venv importprof runs in, so that `traditional`
                 has the `site` a user has); see harness.py
"""

from __future__ import annotations

import os

from profiler.model.target import Target
from profiler.model.words import TargetKind

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ("import-stdlib", "hello", "harness")
HARNESS_DRIVER = os.path.join(HERE, "harness.py")


def workload_target(name: str) -> Target:
    """The Python target a workload builds and runs (`harness` wraps its CLI target: see
    profiler/compose/compare.py)."""
    if name == "import-stdlib":
        return Target(TargetKind.SCRIPT, os.path.join(HERE, "import_stdlib.py"))
    if name == "hello":
        return Target(TargetKind.SCRIPT, os.path.join(HERE, "hello.py"))
    raise ValueError(name)
