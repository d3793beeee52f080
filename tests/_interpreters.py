"""The real interpreters of this machine, by version, for tests that run on several of them.

`pyenv_python("3.12")` is the pyenv-installed CPython 3.12.x; a test that needs one this machine
lacks is skipped with the reason (never silently)."""

from __future__ import annotations

import glob
import os

import pytest

PYENV_ROOT = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")


def find_pyenv_python(prefix: str) -> str | None:
    for d in sorted(glob.glob(os.path.join(PYENV_ROOT, "versions", prefix + ".*"))):
        exe = os.path.join(d, "bin", "python")
        if os.access(exe, os.X_OK):
            return exe
    return None


def pyenv_python(prefix: str) -> str:
    exe = find_pyenv_python(prefix)
    if exe is None:
        pytest.skip(f"no pyenv CPython {prefix}.x under {PYENV_ROOT}/versions (pyenv install {prefix})")
    return exe
