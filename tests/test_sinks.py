"""Outputs fail cleanly: a directory, a full disk, a read-only folder are one
`importprof: error:` line (exit 2 for a bad path, 3 for a write that could not finish), the
file named by -o is unchanged, no temp file is left, and the check happens before measuring."""

from __future__ import annotations

import os
import stat

import pytest

from _inproc import run_main
from _mounts import full_disk, listing, read_only
from conftest import assert_one_line_error


@pytest.fixture
def inproc():
    """The command line in-process: the checks under test happen before anything is spawned
    (tests that do run a program are marked slow)."""
    return run_main

IMPORTS_DOC = "report/imports.json"
LOG = "importtime/cryptography_fernet.log"


# ------------------------------------------------------------------ the sink itself
def test_write_atomic_into_a_directory_is_bad_output(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import write_atomic

    with pytest.raises(BadOutput, match="is a directory"):
        write_atomic(tmp_path, "x")
    assert listing(tmp_path) == []


@pytest.mark.slow  # mounts a tmpfs (root)
def test_write_atomic_on_a_full_disk_keeps_the_old_file(tmp_path):
    from profiler.errors import OutputFailed
    from profiler.sinks import write_atomic

    with full_disk(str(tmp_path / "full")) as d:
        before = listing(d)
        with pytest.raises(OutputFailed, match="No space left"):
            write_atomic(os.path.join(d, "out.json"), "y" * 100_000)
        assert open(os.path.join(d, "out.json"), "rb").read() == b'{"old": true}\n'
        assert listing(d) == before


@pytest.mark.slow  # mounts a tmpfs (root)
def test_write_atomic_read_only_folder_is_bad_output(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import check_output_dir, check_writable, write_atomic

    with read_only(str(tmp_path / "ro")) as d:
        target = os.path.join(d, "out.json")
        with pytest.raises(BadOutput, match="Read-only file system"):
            check_writable(target)
        with pytest.raises(BadOutput, match="Read-only file system"):
            write_atomic(target, "x")
        with pytest.raises(BadOutput, match="Read-only file system"):
            check_output_dir(os.path.join(d, "a", "b"))
        assert listing(d) == []


def test_write_atomic_keeps_an_existing_files_mode(tmp_path):
    from profiler.sinks import write_atomic

    target = tmp_path / "secret.json"
    target.write_text("old")
    os.chmod(target, 0o600)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600


def test_write_atomic_new_file_honours_the_umask(tmp_path):
    from profiler.sinks import write_atomic

    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "a.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o600
    old = os.umask(0o002)
    try:
        write_atomic(tmp_path / "b.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "b.json").st_mode) == 0o664


def test_write_atomic_through_a_symlink_keeps_the_link(tmp_path):
    from profiler.sinks import write_atomic

    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_check_writable_refuses_a_directory_and_a_missing_folder(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import check_output_dir, check_writable

    with pytest.raises(BadOutput, match="is a directory"):
        check_writable(str(tmp_path))
    with pytest.raises(BadOutput, match="does not exist"):
        check_writable(str(tmp_path / "nope" / "x.json"))
    (tmp_path / "file").write_text("")
    with pytest.raises(BadOutput, match="not a folder"):
        check_writable(str(tmp_path / "file" / "x.json"))
    with pytest.raises(BadOutput, match="not a folder"):
        check_output_dir(str(tmp_path / "file"))
    with pytest.raises(BadOutput, match="not a folder"):
        check_output_dir(str(tmp_path / "file" / "sub"))
    check_output_dir(str(tmp_path / "new" / "sub"))  # made later: fine
    assert not (tmp_path / "new").exists()
    assert listing(tmp_path) == ["file"]


# ------------------------------------------------------------------ the commands
def _readers(fixtures):
    doc = str(fixtures / IMPORTS_DOC)
    return {
        "show": ["show", doc],
        "diff": ["diff", doc, doc],
        "why": ["why", "json", "--report", doc],
        "imports": ["imports", "--from-log", str(fixtures / LOG)],
        "trace": ["trace", "--from-log", str(fixtures / "strace/multiproc.log")],
        "report": ["report", "--from", doc],
    }


@pytest.mark.parametrize("command", ["show", "diff", "why", "imports", "trace", "report"])
def test_output_is_a_directory(inproc, fixtures, tmp_path, command):
    (tmp_path / "d").mkdir()
    res = inproc(*_readers(fixtures)[command], "-o", tmp_path / "d")
    assert_one_line_error(res, 2, "is a directory")
    assert listing(tmp_path) == ["d"] and listing(tmp_path / "d") == []


@pytest.mark.slow  # mounts a tmpfs (root)
@pytest.mark.parametrize("command", ["show", "diff", "why", "imports", "trace", "report"])
def test_output_on_a_full_disk(inproc, fixtures, tmp_path, command):
    with full_disk(str(tmp_path / "full")) as d:
        before = listing(d)
        res = inproc(*_readers(fixtures)[command], "-o", os.path.join(d, "out.json"))
        assert_one_line_error(res, 3, "No space left")
        assert open(os.path.join(d, "out.json"), "rb").read() == b'{"old": true}\n'
        assert stat.S_IMODE(os.stat(os.path.join(d, "out.json")).st_mode) == 0o600
        assert listing(d) == before


@pytest.mark.slow  # mounts a tmpfs (root)
@pytest.mark.parametrize("command", ["show", "diff", "why", "imports", "trace", "report"])
def test_output_in_a_read_only_folder(inproc, fixtures, tmp_path, command):
    with read_only(str(tmp_path / "ro")) as d:
        res = inproc(*_readers(fixtures)[command], "-o", os.path.join(d, "out.json"))
        assert_one_line_error(res, 2, "Read-only file system")
        assert listing(d) == []


@pytest.mark.slow  # mounts a tmpfs (root)
@pytest.mark.parametrize("option", ["-o", "--export-json", "--export-markdown"])
def test_startup_checks_its_outputs_before_measuring(inproc, tmp_path, option):
    marker = tmp_path / "ran"
    with read_only(str(tmp_path / "ro")) as d:
        res = inproc("startup", "--runs", "1", "--warmup", "0", option, os.path.join(d, "out"),
                  "-c", f"open({str(marker)!r}, 'w')")
        assert_one_line_error(res, 2, "Read-only file system")
    assert not marker.exists(), "the target ran although the output could not be written"


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--export-json", "--export-markdown"])
def test_startup_exports_on_a_full_disk(inproc, tmp_path, option):
    with full_disk(str(tmp_path / "full")) as d:
        before = listing(d)
        res = inproc("startup", "--runs", "1", "--warmup", "0", "--variant", "default", option, os.path.join(d, "out.json"))
        assert_one_line_error(res, 3, "No space left")
        assert open(os.path.join(d, "out.json"), "rb").read() == b'{"old": true}\n'
        assert listing(d) == before


def test_imports_checks_its_output_before_measuring(inproc, tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "d").mkdir()
    res = inproc("imports", "--runs", "1", "--warmup", "0", "-o", tmp_path / "d", "-c", f"open({str(marker)!r}, 'w')")
    assert_one_line_error(res, 2, "is a directory")
    assert not marker.exists()


@pytest.mark.slow  # mounts a tmpfs (root)
@pytest.mark.parametrize(
    "args",
    [
        ["pack", "-o", "{}", "-c", "pass"],
        ["build", "-o", "{}", "-c", "pass"],
        ["compare", "--workload", "hello", "--runs", "1", "--warmup", "0", "--syscalls", "off", "--build-dir", "{}"],
    ],
    ids=["pack", "build", "compare"],
)
def test_output_folders_in_a_read_only_folder(inproc, tmp_path, args):
    with read_only(str(tmp_path / "ro")) as d:
        res = inproc(*[a.format(os.path.join(d, "out")) for a in args])
        assert_one_line_error(res, 2, "Read-only file system")
        assert listing(d) == []


@pytest.mark.slow
def test_stdout_on_a_full_disk(fixtures, tmp_path):
    import subprocess
    import sys

    with full_disk(str(tmp_path / "full")) as d:
        with open(os.path.join(d, "filler"), "ab") as out:
            proc = subprocess.run([sys.executable, "-m", "profiler", "show", str(fixtures / IMPORTS_DOC), "--format", "json"],
                                  stdout=out, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [ln for ln in proc.stderr.splitlines() if ln.startswith("importprof: error:")] == [
        "importprof: error: cannot write to standard output: No space left on device"
    ], proc.stderr


# ------------------------------------------------------------------ trace --keep-log
@pytest.mark.slow
def test_keep_log_is_not_overwritten_by_a_failing_run(inproc, tmp_path):
    kept = tmp_path / "kept.strace"
    kept.write_text("the previous log\n")
    res = inproc("trace", "--keep-log", kept, "-c", "raise SystemExit(4)")
    assert_one_line_error(res, 3, "exit code 4")
    assert kept.read_text() == "the previous log\n"
    assert listing(tmp_path) == ["kept.strace"]


@pytest.mark.slow
def test_keep_log_replaces_a_file_keeping_its_mode(inproc, tmp_path):
    kept = tmp_path / "kept.strace"
    kept.write_text("old\n")
    os.chmod(kept, 0o600)
    res = inproc("trace", "--keep-log", kept, "-c", "import json")
    assert res.returncode == 0, res
    assert "execve(" in kept.read_text()
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert listing(tmp_path) == ["kept.strace"]


@pytest.mark.slow
def test_keep_log_cut_short_by_a_full_disk_is_said(inproc, tmp_path):
    with full_disk(str(tmp_path / "full")) as d:
        before = listing(d)
        res = inproc("trace", "--keep-log", os.path.join(d, "out.json"), "-c", "import json")
        assert_one_line_error(res, 3, "cut short", "No space left")
        assert "syscalls" not in res.stdout
        assert open(os.path.join(d, "out.json"), "rb").read() == b'{"old": true}\n'
        assert listing(d) == before


# ------------------------------------------------------------------ writes stay inside what the user named (issue 36)
def test_write_atomic_within_refuses_a_link_leading_out(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import write_atomic

    folder, outside = tmp_path / "out", tmp_path / "victim.json"
    folder.mkdir()
    outside.write_text("keep")
    (folder / "build.json").symlink_to(outside)
    with pytest.raises(BadOutput, match=f"leads to {outside}, outside"):
        write_atomic(folder / "build.json", "{}", within=folder)
    assert outside.read_text() == "keep" and (folder / "build.json").is_symlink()
    assert listing(folder) == ["build.json"]


def test_write_atomic_within_a_symlinked_folder_is_what_was_named(tmp_path):
    from profiler.sinks import write_atomic

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "named").symlink_to(real)
    write_atomic(tmp_path / "named" / "a.json", "{}", within=tmp_path / "named")
    assert (real / "a.json").read_text() == "{}"


def test_write_atomic_keeps_mode_and_sets_the_modification_time(tmp_path):
    from profiler.sinks import write_atomic

    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    f.chmod(0o640)
    write_atomic(f, "x = 2\n", mtime_ns=1_500_000_000_987_654_321)
    assert f.read_text() == "x = 2\n" and stat.S_IMODE(f.stat().st_mode) == 0o640
    assert f.stat().st_mtime_ns == 1_500_000_000_987_654_321


def test_an_output_folder_with_a_planted_link_out_is_refused(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import OUTPUT_MARKER, check_output_folder

    folder, outside = tmp_path / "builds", tmp_path / "elsewhere"
    folder.mkdir()
    outside.mkdir()
    (folder / OUTPUT_MARKER).write_text("*\n")  # importprof's own folder: everything in it is its own
    (folder / "traditional").symlink_to(outside)
    with pytest.raises(BadOutput, match="traditional in it leads to .*outside the folder"):
        check_output_folder(str(folder), "--build-dir", force=True, entries=("traditional",))
    check_output_folder(str(folder), "--build-dir", force=True, entries=("oxidized",))  # the others are fine


@pytest.mark.slow
def test_a_killed_writers_temporary_is_removed_by_the_next_write_and_a_live_ones_kept(tmp_path):
    """A writer SIGKILLed mid-write leaves .importprof-PID-START-*.tmp beside the output; the next
    write into that folder removes it (its PID no longer runs), never one of a running writer,
    another user's, or a file of another name."""
    import signal
    import subprocess
    import sys

    from profiler.liveness import start_time
    from profiler.sinks import write_atomic

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    started = start_time(child.pid)
    child.send_signal(signal.SIGKILL)
    child.wait()
    dead = tmp_path / f".importprof-{child.pid}-{started}-abc123.tmp"
    dead.write_text('{"half": ')
    live = tmp_path / f".importprof-{os.getpid()}-{start_time(os.getpid())}-xyz789.tmp"
    live.write_text("being written")
    other = tmp_path / ".importprof-notes.tmp"
    other.write_text("not ours")
    write_atomic(str(tmp_path / "report.json"), "{}\n")
    assert (tmp_path / "report.json").read_text() == "{}\n"
    assert not dead.exists() and live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted([live.name, other.name])
