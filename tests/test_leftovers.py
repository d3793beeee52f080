"""Nothing left behind: a failed build/pack removes what it made (a folder it created goes; in an
existing folder, no half-made variant and no stale report stay); variants that build but behave otherwise are
failed rows of a whole report."""

from __future__ import annotations

import json
import os

import pytest

from conftest import assert_one_line_error

DIFFERS = "import sys; print(sys.flags.no_site)"  # traditional and no-site print different lines
FAILS = "import nonexistent_module_of_importprof_tests"  # its own code never runs: a failed target


@pytest.mark.slow
def test_a_failed_build_removes_the_folder_it_made(cli, tmp_path):
    out = tmp_path / "build"
    res = cli("build", "-o", out, "-c", FAILS)
    assert_one_line_error(res, 3, "the target failed")
    assert not out.exists()
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_variants_that_all_differ_are_failed_rows_in_a_whole_report(cli, tmp_path):
    """Every variant behaving otherwise than traditional is exit 3, and the report it points at
    is whole: each variant a failed row with the first differing line."""
    out = tmp_path / "build"
    res = cli("build", "-o", out, "-c", DIFFERS)
    assert_one_line_error(res, 3, "every variant but traditional failed", "build.json")
    doc = json.loads((out / "build.json").read_text())
    rows = {v["variant"]: v for v in doc["variants"]}
    assert not rows["traditional"].get("failed")
    assert rows["no-site"]["failed"] and "differs at line 1" in rows["no-site"]["error"]


@pytest.mark.slow
def test_a_failed_build_in_an_existing_folder_leaves_no_half_build(cli, tmp_path):
    out = tmp_path / "build"
    res = cli("build", "-o", out, "-c", "print('hello')")
    assert res.returncode == 0, res
    assert (out / "build.json").exists() and (out / "traditional").is_dir()
    (out / "notes.txt").write_text("mine")
    res = cli("build", "-o", out, "-c", FAILS)
    assert_one_line_error(res, 3, "the target failed")
    # the folder stays importprof's (its marker) and the user's file stays; the last build,
    # which this one was replacing, does not stay half-replaced
    assert sorted(os.listdir(out)) == [".importprof-output", "notes.txt"], os.listdir(out)


@pytest.mark.slow
def test_a_failed_pack_removes_the_folder_it_made(cli, tmp_path):
    out = tmp_path / "pack"
    res = cli("pack", "-o", out, "-c", FAILS)
    assert_one_line_error(res, 3, "the target failed")
    assert not out.exists()


def test_a_killed_invocations_folder_is_removed_by_the_next(tmp_path, fixtures):
    """SIGKILL leaves the per-invocation folder; the next run removes it (its pid is gone)."""
    from _inproc import run_main

    import tempfile

    stale = tmp_path / "importprof-999999999-abc123"  # no such pid
    (stale / "sub").mkdir(parents=True)
    alive = tmp_path / f"importprof-{os.getpid()}-keep"  # a running invocation's
    alive.mkdir()
    other = tmp_path / "importprof-run-old"  # not this naming: not ours to judge
    other.mkdir()
    old = tempfile.tempdir
    tempfile.tempdir = str(tmp_path)
    try:
        res = run_main("show", fixtures / "report" / "imports.json", "--format", "json")
    finally:
        tempfile.tempdir = old
    assert res.returncode == 0, res
    assert sorted(os.listdir(tmp_path)) == sorted([alive.name, other.name])
