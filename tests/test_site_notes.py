"""Issue 11.11: a .pth file site processes twice gets a note that says so and why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from profiler.analysis.site import repeated_pth_notes


def test_same_directory_twice_and_lib64_twin():
    sp = "/v/lib/python3.11/site-packages"
    notes = repeated_pth_notes([f"{sp}/a.pth", f"{sp}/b.pth", f"{sp}/a.pth", f"{sp}/b.pth"])
    assert len(notes) == 1 and f"{sp} 2 times (a.pth, b.pth)" in notes[0]
    assert "site.venv()" in notes[0] and "site.main()" in notes[0]
    twin = repeated_pth_notes(["/v/lib64/python3.11/site-packages/c.pth", f"{sp}/c.pth"])
    assert len(twin) == 1 and "lib64 is a symlink to lib" in twin[0] and "c.pth" in twin[0]
    assert repeated_pth_notes([f"{sp}/a.pth", f"{sp}/b.pth"]) == []


def test_this_venv_processes_its_pth_files_twice(cli):
    """The project's own venv (made by `make setup`): site reads its .pth files twice, as strace
    shows; the site document says so."""
    venv_python = Path(sys.prefix) / "bin" / "python"
    res = cli("site", "--python", venv_python, "--runs", "1", "--format", "json")
    assert res.returncode == 0, res
    doc = json.loads(res.stdout)
    paths = [p["path"] for p in doc["pth"]]
    assert len(paths) > len(set(paths)), paths  # really processed twice
    notes = [w for w in doc["warnings"] if w.startswith("site processed the .pth files of")]
    assert len(notes) == 1 and "site.venv()" in notes[0], doc["warnings"]
