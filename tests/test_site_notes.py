"""Issue 11.11: a .pth file site processes twice gets a note that says so and why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from profiler.analysis.site import repeated_pth_notes


def test_same_directory_twice_and_lib64_twin():
    sp = "/v/lib/python3.11/site-packages"
    notes = repeated_pth_notes([f"{sp}/a.pth", f"{sp}/b.pth", f"{sp}/a.pth", f"{sp}/b.pth"])
    assert len(notes) == 1 and f"{sp} 2 times (a.pth, b.pth)" in notes[0]
    assert "site.venv()" in notes[0] and "site.main()" in notes[0]
    twin = repeated_pth_notes(["/v/lib64/python3.11/site-packages/c.pth", f"{sp}/c.pth"])
    assert len(twin) == 1 and "lib64 is a symlink to lib" in twin[0] and "c.pth" in twin[0]
    assert repeated_pth_notes([f"{sp}/a.pth", f"{sp}/b.pth"]) == []


@pytest.fixture(scope="module")
def venv_site(cli):
    """The site document of the project's own venv (made by `make setup`)."""
    venv_python = Path(sys.prefix) / "bin" / "python"
    res = cli("site", "--python", venv_python, "--runs", "1", "--format", "json")
    assert res.returncode == 0, res
    return res.stdout


def test_this_venv_processes_its_pth_files_twice(venv_site):
    """The project's own venv: site reads its .pth files twice, as strace shows; the site
    document says so."""
    doc = json.loads(venv_site)
    paths = [p["path"] for p in doc["pth"]]
    assert len(paths) > len(set(paths)), paths  # really processed twice
    notes = [w for w in doc["warnings"] if w.startswith("site processed the .pth files of")]
    assert len(notes) == 1 and "site.venv()" in notes[0], doc["warnings"]


def test_the_reports_summary_counts_files_not_passes(venv_site, tmp_path):
    """`report`'s line for the site part counts the .pth files, not site's passes over them (the
    venv's one file, read twice, was "2 .pth files")."""
    from profiler.compose.report import report_from_files
    from profiler.render.console_report import render_report_summary

    doc = json.loads(venv_site)
    paths = [p["path"] for p in doc["pth"]]
    saved = tmp_path / "site.json"
    saved.write_text(venv_site)
    summary = render_report_summary(report_from_files([str(saved)]))
    files = len(set(paths))
    assert f"| {files} .pth file{'' if files == 1 else 's'} ({len(paths)} passes) |" in summary, summary
