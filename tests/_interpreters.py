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


# CPython versions `make setup` provisions from Debian sid (scripts/setup.d/10-python-sid.sh),
# which notes here why it could not
SETUP_PROVIDES = ("3.14", "3.15")


def _setup_note() -> str:
    cache = os.environ.get("IMPORTPROF_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "importprof")
    try:
        with open(os.path.join(cache, "pythons", "unavailable.txt"), encoding="utf-8") as fh:
            return fh.read().strip().replace("\n", "; ")
    except OSError:
        return ""


def pyenv_python(prefix: str) -> str:
    exe = find_pyenv_python(prefix)
    if exe is None:
        if prefix in SETUP_PROVIDES:
            why = _setup_note() or "run `make setup` (scripts/setup.d/10-python-sid.sh provisions it from Debian sid)"
            pytest.skip(f"no CPython {prefix}.x under {PYENV_ROOT}/versions: {why}")
        pytest.skip(f"no pyenv CPython {prefix}.x under {PYENV_ROOT}/versions (pyenv install {prefix})")
    return exe
