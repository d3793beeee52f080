"""cold-pyc's folder: a fresh, empty `-X pycache_prefix` folder for every run, so every import
compiles. The one place that makes it; every capture path that runs a spec goes through it."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from typing import Iterator

from profiler.model.variant import pycache_flags


@contextmanager
def fresh_pycache(needed: bool, parent: str | None = None) -> Iterator[tuple[str, ...]]:
    """The interpreter flags of one run: `-X pycache_prefix=<a new empty folder under parent>`
    when `needed` (a spec's or variant's fresh_pycache), removed once the run is over; ()
    otherwise."""
    if not needed:
        yield ()
        return
    folder = tempfile.mkdtemp(prefix="pycache-", dir=parent)
    try:
        yield pycache_flags(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
