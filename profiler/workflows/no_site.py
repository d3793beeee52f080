"""What `no-site` means, in every command: `-S` (site's work skipped: no .pth files, no
sitecustomize, no site-packages scan) with the sys.path entries that `site` would have added
and that the target imports from given back through PYTHONPATH — so an installed program still
runs, and a stdlib-only target stays a plain `python -S`. Plain `-S` is the `no-site-bare`
variant (or `--flags=-S`). The entries keep site's place: after the standard library
(`site_order`), so no lookup of a stdlib module goes through site-packages first.
"""

from __future__ import annotations

import os
from typing import Sequence

from profiler.model.target import Target


def extra_paths(site_sys_path: Sequence[str], no_site_path: Sequence[str], target: Target, origins: Sequence[str] = ()) -> list[str]:
    """Entries `site` added to sys.path (what -S and the launcher lack) from which the target
    imported something — each module counted under the longest entry holding it, as the
    import system finds it: a stdlib-only target gets none, so no-site stays a plain `python -S`."""
    skip = set(no_site_path) | {""}
    if target.kind == "script":  # python puts the script's folder first, with or without site
        skip.add(os.path.dirname(os.path.abspath(target.value)))
    else:  # -c / -m: the current directory
        skip.add(os.getcwd())
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


_SITE_OWN: dict[str, frozenset] = {}


def no_site_env(python: str, target: Target) -> tuple[tuple[str, str], ...]:
    """The environment `no-site` adds for `target` on `python`: () or (("PYTHONPATH", ...),).
    Runs the target once with site to see where its modules come from (modules that site
    itself imports at a bare start — .pth hooks — do not count: -S skips them)."""
    from profiler.capture.oxidized import discover_modules, no_site_sys_path
    from profiler.errors import TargetFailed

    try:
        return _no_site_env(python, target, discover_modules, no_site_sys_path)
    except TargetFailed:  # the target fails with site too: measuring it will say how
        return ()


_NO_SITE_PATH: dict[str, list] = {}


def _no_site_env(python, target, discover_modules, no_site_sys_path):
    if target == Target("code", "pass"):  # imports nothing: a plain -S, without running anything
        return ()
    if python not in _NO_SITE_PATH:
        _NO_SITE_PATH[python] = no_site_sys_path(python)
    if python not in _SITE_OWN:
        _SITE_OWN[python] = frozenset(r.name for r in discover_modules(python, Target("code", "pass"))[0])
    records, sys_path = discover_modules(python, target)
    origins = [r.origin for r in records if r.origin and r.name not in _SITE_OWN[python]]
    extra = extra_paths(sys_path, _NO_SITE_PATH[python], target, origins)
    if not extra:
        return ()
    return (("PYTHONPATH", os.pathsep.join(site_order(_NO_SITE_PATH[python], extra))),)


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
