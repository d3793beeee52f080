"""profiler/cachelock.py in one process (two real processes at once, and a builder killed by
SIGKILL, are in tests/test_contract_concurrency.py): what `cached` publishes, what a failed build
leaves (nothing), what an earlier killed builder left (removed), and the bytecode cache's sweep."""

from __future__ import annotations

import os

import pytest

from profiler.cachelock import cached, remove_dead_temporaries


def test_a_file_is_built_once_and_published_whole(tmp_path):
    dest = tmp_path / "sub" / "artefact"
    calls = []

    def make(tmp):
        calls.append(tmp)
        with open(tmp, "w") as fh:
            fh.write("whole\n")

    assert cached(str(dest), make) == str(dest)
    assert cached(str(dest), make) == str(dest)  # there: used, not built again
    assert dest.read_text() == "whole\n" and len(calls) == 1
    assert calls[0] == f"{dest}.{os.getpid()}.tmp"  # beside it: the rename is atomic
    assert sorted(p.name for p in dest.parent.iterdir()) == ["artefact", "artefact.lock"]


def test_a_folder_is_published_whole(tmp_path):
    dest = tmp_path / "venv"

    def make(tmp):
        os.mkdir(tmp)
        (open(os.path.join(tmp, "a"), "w")).close()

    cached(str(dest), make, ready=lambda p: os.path.exists(os.path.join(p, "a")))
    assert (dest / "a").exists()


def test_a_failed_build_leaves_nothing(tmp_path):
    dest = tmp_path / "artefact"

    def make(tmp):
        with open(tmp, "w") as fh:
            fh.write("half")
        raise RuntimeError("the compiler failed")

    with pytest.raises(RuntimeError):
        cached(str(dest), make)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["artefact.lock"]


def test_what_a_killed_builder_left_is_removed_by_the_next(tmp_path):
    dest = tmp_path / "artefact"
    (tmp_path / "artefact.4242.tmp").write_text("half")  # a file a killed builder was writing
    (tmp_path / "artefact.4243.tmp").mkdir()  # a folder one was filling
    (tmp_path / "artefact.4243.tmp" / "x").write_text("half")
    (tmp_path / "artefact-other.tmp").write_text("not one of ours")
    cached(str(dest), lambda tmp: open(tmp, "w").write("whole"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["artefact", "artefact-other.tmp", "artefact.lock"]


def test_a_folder_there_but_not_whole_is_built_again(tmp_path):
    dest = tmp_path / "venv"
    dest.mkdir()  # an older importprof's half folder: not ready
    (dest / "junk").write_text("x")
    cached(str(dest), lambda tmp: (os.mkdir(tmp), open(os.path.join(tmp, "ok"), "w").close()),
           ready=lambda p: os.path.exists(os.path.join(p, "ok")))
    assert sorted(p.name for p in dest.iterdir()) == ["ok"]


def test_the_sweep_removes_dead_writers_temporaries_only(tmp_path):
    sub = tmp_path / "ab"
    sub.mkdir()
    (sub / "abcdef").write_bytes(b"entry")
    (sub / "abcdef.999999999.tmp").write_bytes(b"half")  # no such PID
    (sub / f"abcdef.{os.getpid()}.tmp").write_bytes(b"being written")  # a live writer's
    (sub / "notes.tmp").write_bytes(b"not a writer's")
    remove_dead_temporaries(str(tmp_path))
    assert sorted(p.name for p in sub.iterdir()) == sorted(["abcdef", f"abcdef.{os.getpid()}.tmp", "notes.tmp"])
    (sub / "abcdef.999999998.tmp").write_bytes(b"half")
    remove_dead_temporaries(str(tmp_path))  # swept less than a day ago: not walked again
    assert (sub / "abcdef.999999998.tmp").exists()


def test_the_hook_cache_sweep_removes_another_versions_unread_rewrites(tmp_path):
    """The lazy emulation's rewritten code is named for its hooks' version (two installations keep
    their own); the daily sweep removes another version's entries unread for a week, and keeps
    this installation's and another's still read."""
    import os
    import time

    from profiler.capture.lazy import UNREAD_S, _another_rewrite

    stale = _another_rewrite()
    assert stale is not None
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "profiler", "bootstrap")
    mine = "%x" % max(os.stat(os.path.join(here, f"hook_lazy_{n}.py")).st_mtime_ns for n in ("bind", "rewrite"))
    folder = tmp_path / "lazy-code" / "src"
    folder.mkdir(parents=True)
    names = {"mine": f"m.py.cpython-311.{mine}.lazy", "old": "m.py.cpython-311.1a2b.lazy",
             "read": "m.py.cpython-311.3c4d.lazy", "other": "notes.txt"}
    for n in names.values():
        (folder / n).write_bytes(b"x")
    week_ago = time.time() - UNREAD_S - 3600
    for key in ("mine", "old", "other"):
        os.utime(folder / names[key], (week_ago, week_ago))
    remove_dead_temporaries(str(tmp_path), stale)
    assert sorted(os.listdir(folder)) == sorted(names[k] for k in ("mine", "read", "other"))
