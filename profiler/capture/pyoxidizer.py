"""Drive the real PyOxidizer (`pyoxidizer build --system-rust`) over importprof's pyoxidizer.bzl."""

from __future__ import annotations

import os
import shutil
import sys

from profiler.capture.process import run
from profiler.errors import ToolFailed, ToolMissing
from profiler.session import Session

DOWNLOAD_HINT = (
    "PyOxidizer 0.24 builds only with a python-build-standalone CPython 3.8-3.10 archive and cannot "
    "download one here: download e.g. cpython-3.10.9+20221220-x86_64-unknown-linux-gnu-pgo-full.tar.zst "
    "from https://github.com/indygreg/python-build-standalone/releases/tag/20221220 and pass --distribution PATH"
)


def find_pyoxidizer() -> str:
    exe = shutil.which("pyoxidizer") or os.path.join(os.path.dirname(sys.executable), "pyoxidizer")
    if not os.access(exe, os.X_OK):
        raise ToolMissing("pyoxidizer not found: pip install pyoxidizer==0.24.0")
    return exe


def config_path() -> str:
    """pyoxidizer.bzl beside the package (source checkout, editable install) or inside it."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for c in (os.path.join(os.path.dirname(pkg), "pyoxidizer.bzl"), os.path.join(pkg, "pyoxidizer.bzl")):
        if os.path.isfile(c):
            return c
    raise ToolMissing("importprof's pyoxidizer.bzl not found")


def pyoxidizer_build(exe: str, project: str, variables: dict, timeout: float = 3600, *, session: Session) -> str:
    argv = [exe, "build", "--system-rust", "--release", "--path", project]
    for k, v in variables.items():
        argv += ["--var", k, v]
    env = dict(os.environ)
    env["PATH"] = os.path.join(os.path.expanduser("~"), ".cargo", "bin") + os.pathsep + env.get("PATH", "")
    proc = run(argv, env=env, timeout=timeout, what="pyoxidizer", session=session)
    if proc.returncode != 0:
        text = proc.stderr.strip()
        if "dns error" in text or "error trying to connect" in text:
            raise ToolFailed(DOWNLOAD_HINT)
        raise ToolFailed(f"pyoxidizer build failed (exit {proc.returncode})", detail="\n".join(text.splitlines()[-12:]) or None)
    return proc.stdout
