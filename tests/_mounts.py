"""Real small filesystems for output-failure tests: a full 64 KiB tmpfs and a read-only one.
Mounting needs root (the test machine runs as root); elsewhere the tests that need them skip."""

from __future__ import annotations

import contextlib
import os
import subprocess

import pytest


def _mount(path: str, options: str) -> None:
    os.makedirs(path, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"mount -t tmpfs denied here: {proc.stderr.strip()}")


def _umount(path: str) -> None:
    subprocess.run(["umount", "-l", path], capture_output=True)


@contextlib.contextmanager
def full_disk(path: str, existing: bytes = b'{"old": true}\n'):
    """A 64 KiB tmpfs whose free space is used up, holding `out.json` (0600) with `existing`.
    Yields the folder."""
    _mount(path, "size=64k")
    try:
        target = os.path.join(path, "out.json")
        with open(target, "wb") as fh:
            fh.write(existing)
        os.chmod(target, 0o600)
        fd = os.open(os.path.join(path, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        yield path
    finally:
        _umount(path)


@contextlib.contextmanager
def read_only(path: str):
    """A read-only tmpfs (root can write into a chmod 555 folder, not into this)."""
    _mount(path, "ro,size=64k")
    try:
        yield path
    finally:
        _umount(path)


def listing(path: str) -> list[str]:
    return sorted(os.listdir(path))
