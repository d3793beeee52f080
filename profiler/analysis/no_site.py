"""The sys.path entries `no-site` gives back through PYTHONPATH (pure: the folders come in as
arguments; profiler/workflows/no_site.py finds them by running the target)."""

from __future__ import annotations

import os
from typing import Sequence

from profiler.model.target import Target


def extra_paths(site_sys_path: Sequence[str], no_site_path: Sequence[str], target: Target, origins: Sequence[str], cwd: str) -> list[str]:
    """Entries `site` added to sys.path (what -S and the launcher lack) from which the target
    imported something — each module counted under the longest entry holding it, as the
    import system finds it: a stdlib-only target gets none, so no-site stays a plain `python -S`."""
    # python puts the script's folder (-c / -m: the current directory) first, with or without site
    skip = set(no_site_path) | {"", target.first_path(cwd)}
    entries = sorted({p for p in site_sys_path if p}, key=len, reverse=True)
    used = set()
    for origin in origins:
        home = next((p for p in entries if origin.startswith(p.rstrip(os.sep) + os.sep)), None)
        if home is not None:
            used.add(home)
    out = []
    for p in site_sys_path:
        if p in used and p not in skip and p not in out:
            out.append(p)
    return out


def site_order(no_site_path: Sequence[str], extra: Sequence[str]) -> list[str]:
    """PYTHONPATH for no-site: the entries site would add go after the standard library, where
    site appends them. PYTHONPATH is put before the standard library, so it names the -S path
    first (the user's own PYTHONPATH entries, then the stdlib: python's sys.path[1:] under -S)
    and then the site entries; python appends its stdlib entries once more after them, where
    they are found again only by lookups that failed everywhere before (a module that exists
    nowhere). In first-occurrence order, sys.path is the default's minus what the target does
    not import from."""
    out: list[str] = []
    for p in (*no_site_path, *extra):
        if p and p not in out:
            out.append(p)
    return out
