"""What `no-site` means, in every command: `-S` (site's work skipped: no .pth files, no
sitecustomize, no site-packages scan) with the sys.path entries that `site` would have added
and that the target imports from given back through PYTHONPATH — so an installed program still
runs, and a stdlib-only target stays a plain `python -S`. Plain `-S` is the `no-site-bare`
variant (or `--flags=-S`). The entries keep site's place: after the standard library
(`site_order`), so no lookup of a stdlib module goes through site-packages first.

What it learns once about an interpreter (its sys.path under -S, the modules site itself
imports) is kept in the invocation's session (`session.memo`), not in the module: one
invocation asks once however many runs it plans, and the next asks again (a venv whose
site-packages changed in between is seen).
"""

from __future__ import annotations

import os

from profiler.analysis.no_site import extra_paths, site_order
from profiler.model.target import DEFAULT_TARGET, Target
from profiler.model.words import TargetKind
from profiler.session import Session


def no_site_env(python: str, target: Target, session: Session,
                ignore_failure: bool = False) -> tuple[tuple[str, str], ...]:
    """The environment `no-site` adds for `target` on `python`: () or (("PYTHONPATH", ...),).
    Runs the target once with site to see where its modules come from (modules that site
    itself imports at a bare start — .pth hooks — do not count: -S skips them). With
    `ignore_failure` (the command's -i) a non-zero exit the program chose (a linter that found
    something) is its behaviour there too, as in the measured runs."""
    from profiler.capture.oxidized import discover_modules, no_site_sys_path
    from profiler.errors import TargetFailed

    try:
        return _no_site_env(python, target, discover_modules, no_site_sys_path, session=session, any_exit=ignore_failure)
    except TargetFailed:  # the target fails with site too: measuring it will say how
        return ()


def _no_site_env(python, target, discover_modules, no_site_sys_path, session: Session, any_exit: bool = False):
    if target == DEFAULT_TARGET:  # imports nothing: a plain -S, without running anything
        return ()
    memo = session.memo
    if ("no-site sys.path", python) not in memo:
        memo["no-site sys.path", python] = no_site_sys_path(python, session=session)
    if ("site's own modules", python) not in memo:
        memo["site's own modules", python] = frozenset(
            r.name for r in discover_modules(python, DEFAULT_TARGET, session=session)[0])
    no_site_path, site_own = memo["no-site sys.path", python], memo["site's own modules", python]
    records, sys_path = discover_modules(python, target, any_exit=any_exit, session=session)
    origins = [r.origin for r in records if r.origin and r.name not in site_own]
    if target.kind == TargetKind.MODULE:  # -m runs it as __main__ (runpy): its own home is found as python finds it
        origins += _module_home(target.value, sys_path)
    extra = extra_paths(sys_path, no_site_path, target, origins, os.getcwd())
    if not extra:
        return ()
    return (("PYTHONPATH", os.pathsep.join(site_order(no_site_path, extra))),)


def _module_home(module: str, sys_path: list[str]) -> list[str]:
    """Where `python -m module` finds the module's top-level package or file: the first
    sys.path entry holding it (as the path finder looks), [] when none does."""
    top = module.split(".")[0]
    for entry in sys_path:
        if not entry:
            continue
        for candidate in (os.path.join(entry, top, "__init__.py"), os.path.join(entry, top + ".py"), os.path.join(entry, top)):
            if os.path.exists(candidate):
                return [candidate]
    return []
