"""Build (once, into a cache) and use the tiny C spawner that makes peak RSS honest.

See spawner.c for why. Without a C compiler the builtin engine still times runs by spawning
them itself, but reports `memory_usage_byte` as null (it could only report importprof's own
size), and says so once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib import resources

from profiler.capture.process import run
from profiler.session import Session

_SPAWNER: list = []  # memo: [path or None]


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "importprof")


class _NoCompiler(Exception):
    """The compiler failed: no spawner (runs are timed without it)."""


def spawner_path(session: Session) -> str | None:
    """Path to the compiled spawner, compiling it on first use; None when no compiler."""
    if _SPAWNER:
        return _SPAWNER[0]
    source = resources.files("profiler.capture").joinpath("spawner.c").read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:12]
    exe = os.path.join(cache_dir(), f"spawner-{digest}")
    if not os.access(exe, os.X_OK):
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
        if cc is None:
            _SPAWNER.append(None)
            return None
        from profiler.cachelock import cached

        def make(out: str) -> None:  # compiled beside the cache, published whole (concurrent runs wait)
            tmpdir = tempfile.mkdtemp(prefix="spawner-")
            try:
                src = os.path.join(tmpdir, "spawner.c")
                with open(src, "wb") as fh:
                    fh.write(source)
                proc = run([cc, "-O2", "-o", out, src], timeout=120, what="C compiler", session=session)
                if proc.returncode != 0 or not os.path.isfile(out):
                    raise _NoCompiler()
            finally:
                shutil.rmtree(tmpdir, ignore_errors=True)

        try:
            cached(exe, make, ready=lambda p: os.access(p, os.X_OK))
        except (_NoCompiler, OSError):
            _SPAWNER.append(None)
            return None
    _SPAWNER.append(exe)
    return exe
