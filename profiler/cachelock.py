"""Artefacts in the user's cache that concurrent invocations share (the measuring spawner, the
frozen launcher's object, the oxidized launcher, the help texts): built by one process while
the others wait, published whole or not at all.

`cached(dest, make)` is the one way such an artefact comes to be:
- a `dest` already there is whole (it only ever appears by a rename) and is used at once, no lock;
- otherwise the builder takes an exclusive `fcntl.flock` on a lock file beside it (`dest.lock`,
  or a lock shared by several artefacts, e.g. one Cargo target folder), looks again (another
  process may have published it while this one waited), builds into a temporary path beside
  `dest` (`dest.PID.tmp`: same folder, so the rename is atomic), and renames it into place;
- a build that fails or is interrupted removes its temporary; what a killed builder left
  (`dest.*.tmp`) is removed by the next builder, under the lock, so nothing half-built is ever
  used or left.

The lock is released by the kernel when the holder dies (SIGKILL included), so a killed builder
never blocks the next one. Standard library only (imported at start-up by the help cache).
"""

from __future__ import annotations

import contextlib
import os
from typing import Callable, Iterator


@contextlib.contextmanager
def locked(lock_path: str, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path` (made when missing) for the block; waits for another
    holder to finish (`waiting()` is called first when it has to)."""
    import fcntl

    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def remove_leftovers(dest: str) -> None:
    """The temporaries of builds of `dest` that did not finish (`dest.*.tmp`). Call it holding
    the lock: no builder is at work then."""
    import shutil

    folder, name = os.path.split(dest)
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for other in names:
        if other.startswith(name + ".") and other.endswith(".tmp"):
            path = os.path.join(folder, other)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def cached(dest: str, make: Callable[[str], None], *, ready: Callable[[str], bool] | None = None,
           lock_path: str | None = None, waiting: Callable[[], None] | None = None) -> str:
    """`dest`, made by `make(tmp)` when it is not there yet: `make` writes the artefact (a file or
    a folder) at `tmp`, which is then renamed to `dest`. `ready(dest)`: whether it is there
    (default: it exists). `lock_path`: the lock (default `dest.lock`); `waiting()`: called when
    another process holds it (to say why this one waits). Exceptions from `make`
    propagate, with the temporary removed."""
    ready = ready or os.path.exists
    if ready(dest):
        return dest
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    with locked(lock_path or dest + ".lock", waiting):
        if ready(dest):  # published by another process while this one waited
            return dest
        remove_leftovers(dest)
        if os.path.isdir(dest) and not os.path.islink(dest):  # there but not whole (an older importprof's)
            import shutil

            shutil.rmtree(dest, ignore_errors=True)
        tmp = f"{dest}.{os.getpid()}.tmp"
        try:
            make(tmp)
            os.replace(tmp, dest)
        finally:
            remove_leftovers(dest)
    return dest


SWEEP_EVERY_S = 24 * 3600


def remove_dead_temporaries(root: str, stale: Callable[[str], bool] | None = None) -> None:
    """In a cache of many small entries each published by its own rename (`NAME.PID.tmp` →
    NAME, no lock: the packers' bytecode cache), the temporaries of writers that no longer run
    (a SIGKILL mid-write), and the entries `stale(path)` says no reader will use again (another
    version's, unread for a week). A live writer's (its PID runs) is kept; nothing else is touched.
    The walk costs ~35 ms per 1,000 entries: it is made at most once a day (`.swept` holds when)."""
    import time

    from profiler.liveness import alive

    stamp = os.path.join(root, ".swept")
    try:
        if time.time() - os.stat(stamp).st_mtime < SWEEP_EVERY_S:
            return
    except OSError:
        pass
    try:
        os.makedirs(root, exist_ok=True)
        with open(stamp, "w"):
            pass
    except OSError:
        return
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if stale is not None and not name.endswith(".tmp") and stale(os.path.join(folder, name)):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
                continue
            if not name.endswith(".tmp"):
                continue
            pid = name[:-len(".tmp")].rpartition(".")[2]
            if not pid.isdigit() or alive(int(pid), None):
                continue
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))
