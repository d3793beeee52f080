"""What `lazy --apply` remembers between invocations: each module's floor (its lowest self time
measured by any --apply on this folder with this interpreter), in importprof's cache
($XDG_CACHE_HOME/importprof/lazy-apply, else ~/.cache/importprof/lazy-apply), never in the tree.

Why: a statement is chosen when the self time of what it defers clears --min-ms, and that time
is the floor of every run (compose/lazy_apply.py: _pool_self_times). A floor falls as runs are
pooled: the first --apply pools its passes' runs (15 or more on pylint), a second one only its
own three, so a statement the first priced at 0.9 ms a second priced at 1.1 ms and took (pylint
4.0.2 on 3.15: 6 imports of 3 modules, in one second --apply of three). Pooled with what the
first measured, the second's floor is never above the first's: it judges each statement as the
first did, and an applied tree stays as it is.

A module's floor is kept while its file is as it was when recorded (size and modification
time, taken after the edit is written): a file changed since is measured afresh. A folder's
memory not written for 30 days is removed. The cache is
an optimisation of judgement, never of correctness: unreadable, it is ignored; unwritable, the
next --apply measures afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Mapping

VERSION = 1


def _path(directory: str, python: str, version: str) -> str:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256("\0".join((os.path.realpath(directory), python, version)).encode()).hexdigest()[:24]
    return os.path.join(root, "importprof", "lazy-apply", f"{key}.json")


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def load(directory: str, python: str, version: str, files: Mapping[str, str]) -> dict[str, int]:
    """name -> floor (µs) of the modules whose file is as recorded."""
    try:
        with open(_path(directory, python, version), encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("modules"), dict):
        return {}
    out: dict[str, int] = {}
    for name, entry in doc["modules"].items():
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int) and isinstance(entry[1], str)):
            continue
        floor, path, stamp = entry
        if files.get(name) == path and _stamp(path) == stamp:
            out[name] = floor
    return out


def save(directory: str, python: str, version: str, files: Mapping[str, str], floors: Mapping[str, int]) -> None:
    """The floors of the modules loaded from files, merged with those recorded (the lower kept)."""
    from profiler import sinks

    kept = load(directory, python, version, files)
    modules = {}
    for name, floor in floors.items():
        path = files.get(name)
        stamp = _stamp(path) if path else None
        if path and stamp is not None:
            modules[name] = [min(floor, kept.get(name, floor)), path, stamp]
    target = _path(directory, python, version)
    _prune(os.path.dirname(target))
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        sinks.write_atomic(target, json.dumps({"version": VERSION, "directory": os.path.realpath(directory),
                                               "python": python, "modules": modules}, sort_keys=True))
    except Exception:  # noqa: BLE001 - a cache that cannot be written is measured afresh next time
        return


KEPT_DAYS = 30


def _prune(folder: str) -> None:
    """The memories of folders no --apply touched for KEPT_DAYS (a removed checkout, a test's
    temporary tree) removed, so the cache does not grow without end."""
    import time

    limit = time.time() - KEPT_DAYS * 86400
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith(".json") and os.stat(path).st_mtime < limit:
                os.unlink(path)
        except OSError:
            continue
