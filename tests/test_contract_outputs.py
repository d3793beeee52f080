"""The contract on the OS's side of writing (the battery's other half: test_contract_battery.py):
never destroy what is not importprof's. A device or a pipe is written in place (never renamed
over), a FIFO nobody reads, a socket or a disk is refused, and an output folder importprof did
not make is refused unless --force, which replaces only importprof's own files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from _battery import OUTPUT_COMMANDS, READING, call, one_error


@pytest.mark.parametrize("name", list(READING))
def test_an_output_fifo_nobody_reads_is_refused_at_once(name, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rc, _, err = call([*READING[name], "-o", str(fifo)], tmp_path)
    one_error(rc, err, 2, "FIFO", "no program reads")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("name", list(OUTPUT_COMMANDS))
def test_an_output_socket_is_refused_before_anything_runs(name, tmp_path):
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        rc, _, err = call([*OUTPUT_COMMANDS[name], "-o", str(path)], tmp_path)
    one_error(rc, err, 2, "socket")
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def _char_device(folder: Path) -> Path:
    """A character device of our own (the null device's numbers), as the issue's reproduction
    makes it; renaming a file over the real /dev/null would break the machine."""
    node = folder / "node"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD): the device cases run where it is allowed")
    return node


@pytest.mark.parametrize("name", list(READING))
def test_an_output_device_is_written_in_place(name, tmp_path):
    node = _char_device(tmp_path)
    rc, _, err = call([*READING[name], "-o", str(node)], tmp_path)
    assert rc == 0, err
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the device was replaced by a file"


FOLDER_WRITERS = {
    "build": (("build", "-o", "{dir}", "-c", "pass"), "build.json", "traditional"),
    "pack": (("pack", "-o", "{dir}", "-c", "pass"), "pack.json", "in-memory"),
    "compare": (("compare", "--workload", "hello", "--runs", "1", "--syscalls", "off", "--build-dir", "{dir}"), "build.json", "traditional"),
}


def _users_folder(root: Path, report: str, entry: str) -> tuple[Path, dict]:
    folder = root / "mine"
    (folder / entry).mkdir(parents=True)
    (folder / entry / "keep.txt").write_text("x\n")
    (folder / report).write_text("mine\n")
    (folder / "notes.txt").write_text("other\n")
    return folder, _snapshot(folder)


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_folder_importprof_did_not_make_is_refused(name, tmp_path):
    args, report, entry = FOLDER_WRITERS[name]
    folder, before = _users_folder(tmp_path, report, entry)
    rc, _, err = call([a.format(dir=folder) for a in args], tmp_path)
    one_error(rc, err, 2, "did not make", "--force")
    assert _snapshot(folder) == before


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_force_never_replaces_what_is_not_importprofs(name, tmp_path):
    args, report, entry = FOLDER_WRITERS[name]
    folder, before = _users_folder(tmp_path, report, entry)
    rc, _, err = call([args[0], "--force", *[a.format(dir=folder) for a in args[1:]]], tmp_path)
    one_error(rc, err, 2, report, entry, "not importprof's")
    assert _snapshot(folder) == before


@pytest.mark.slow
@pytest.mark.parametrize("name", ["build", "pack"])
def test_force_writes_beside_the_users_files(name, tmp_path):
    """With --force in a folder of the user's, importprof's files land beside the user's, which
    stay as they were; the marker lists what importprof wrote, and a second run needs --force again."""
    args, report, entry = FOLDER_WRITERS[name]
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("other\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "keep.txt").write_text("x\n")
    before = _snapshot(folder)
    extra = ("--variant", "traditional") if name == "build" else ()
    rc, _, err = call([args[0], "--force", *extra, *[a.format(dir=folder) for a in args[1:]]], tmp_path)
    assert rc == 0, err
    after = _snapshot(folder)
    assert {k: v for k, v in after.items() if k in before} == before
    assert report in after and ".importprof-output" in after
    rc, _, err = call([a.format(dir=folder) for a in args], tmp_path)
    one_error(rc, err, 2, "--force")


@pytest.mark.slow
def test_keep_log_on_a_device_is_written_in_place(tmp_path):
    node = _char_device(tmp_path)
    rc, _, err = call(["trace", "--keep-log", str(node), "-c", "pass"], tmp_path)
    assert rc == 0, err
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the device was replaced by a file"


@pytest.mark.slow
def test_keep_log_into_a_fifo_is_copied_to_its_reader(tmp_path):
    import threading

    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        rc, _, err = call(["trace", "--keep-log", str(fifo), "-c", "pass"], tmp_path)
    finally:
        if reader.is_alive():  # the command failed before opening it: let the reader go
            with open(fifo, "wb"):
                pass
        reader.join()
    assert rc == 0, err
    assert b"execve(" in got[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
