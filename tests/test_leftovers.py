"""Nothing left behind: a failed build/pack removes what it made (a folder it
created goes; in an existing folder, no half-made variant and no stale report stay)."""

from __future__ import annotations

import os

import pytest

from conftest import assert_one_line_error

DIFFERS = "import sys; print(sys.flags.no_site)"  # traditional and no-site print different lines


@pytest.mark.slow
def test_a_failed_build_removes_the_folder_it_made(cli, tmp_path):
    out = tmp_path / "build"
    res = cli("build", "-o", out, "-c", DIFFERS)
    assert_one_line_error(res, 3, "no-site")
    assert not out.exists()
    res = cli("build", "-o", out, "-c", "raise SystemExit(3)")
    assert_one_line_error(res, 3)
    assert not out.exists()
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_a_failed_build_in_an_existing_folder_leaves_no_half_build(cli, tmp_path):
    out = tmp_path / "build"
    res = cli("build", "-o", out, "-c", "print('hello')")
    assert res.returncode == 0, res
    assert (out / "build.json").exists() and (out / "traditional").is_dir()
    (out / "notes.txt").write_text("mine")
    res = cli("build", "-o", out, "-c", DIFFERS)
    assert_one_line_error(res, 3, "no-site")
    # the folder stays importprof's (its marker) and the user's file stays: nothing half-made
    assert sorted(os.listdir(out)) == [".importprof-output", "notes.txt"], os.listdir(out)


@pytest.mark.slow
def test_a_failed_pack_removes_the_folder_it_made(cli, tmp_path):
    out = tmp_path / "pack"
    res = cli("pack", "-o", out, "-c", "raise SystemExit(3)")
    assert_one_line_error(res, 3)
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
