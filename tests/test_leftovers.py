"""Nothing left behind (issue 12.6): a failed build/pack removes what it made (a folder it
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
    assert sorted(os.listdir(out)) == ["notes.txt"], os.listdir(out)


@pytest.mark.slow
def test_a_failed_pack_removes_the_folder_it_made(cli, tmp_path):
    out = tmp_path / "pack"
    res = cli("pack", "-o", out, "-c", "raise SystemExit(3)")
    assert_one_line_error(res, 3)
    assert not out.exists()
