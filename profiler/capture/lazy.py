"""Run a Python target once under the bootstrap launcher with the `lazy` hook: every import
deferred until first use (or, `lazy=False`, the same launcher with no finder: the eager
reference), the names in `keep` kept eager. Returns the program's observable output and the
hook's raw record (JSON text)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.capture.bootstrap import bootstrap_argv, own_errors
from profiler.capture.process import run
from profiler.errors import TargetFailed
from profiler.model.target import Target
from profiler.session import Session


@dataclass(frozen=True)
class LazyRunOutput:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    record: str  # the hook's JSON document ("" when the program never reached exit handlers)


def hook_cache_dir() -> str | None:
    """Where the launcher keeps compiled hooks (a timed lazy run must not pay for compiling
    the hook's source: a program adopting lazy imports would import its finder from a .pyc)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "importprof", "hooks")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    if not os.access(path, os.W_OK):
        return None
    from profiler.cachelock import remove_dead_temporaries

    # what runs killed mid-write left (NAME.PID.tmp), and the emulation's rewritten code made by
    # another version of its hooks (bootstrap/hook_lazy_rewrite.py names each entry for it): at
    # most once a day
    remove_dead_temporaries(path, _another_rewrite())
    return path


UNREAD_S = 7 * 86400


def _another_rewrite():
    """`stale(path)` for the hook cache: a rewritten-code entry (`….<tag>.<hex>.lazy`) made by
    another version of the rewriting hooks (its hex is not the mtime of this installation's, as
    hook_lazy.py computes it) and not read for a week (another installation still in use keeps
    its own). None when the hooks cannot be read (nothing is removed)."""
    import time

    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bootstrap")
    try:
        mine = "%x" % max(os.stat(os.path.join(here, f"hook_lazy_{n}.py")).st_mtime_ns for n in ("bind", "rewrite"))
    except OSError:
        return None
    def stale(path: str) -> bool:
        if not path.endswith(".lazy") or path[:-len(".lazy")].rpartition(".")[2] == mine:
            return False
        try:
            return time.time() - os.stat(path).st_atime > UNREAD_S
        except OSError:
            return False

    return stale


def lazy_flags(python_version: str, lazy: bool) -> list[str]:
    """Interpreter flags of a lazy run: PEP 810's `-X lazy_imports=all` on 3.15+."""
    major, minor = (int(p) for p in python_version.split(".")[:2])
    return ["-X", "lazy_imports=all"] if lazy and (major, minor) >= (3, 15) else []


def lazy_argv(
    python: str,
    python_version: str,
    flags: Sequence[str],
    target: Target,
    *,
    lazy: bool = True,
    keep: Sequence[str] = (),
    record_path: str | None = None,
    only: Sequence[tuple[str, str]] = (),
    calibrate: int = 0,
    errors_path: str | None = None,
) -> list[str]:
    """The launcher command line of one run (also what `lazy` times: no record_path).
    `only`: (importer, module) pairs, the only imports made lazy (one statement's change);
    `calibrate`: the hook times its own per-event costs with that many iterations."""
    options = {"lazy": lazy, "lazy_keep": sorted(keep)}
    if only:
        options["lazy_only"] = [list(p) for p in only]
    if calibrate:
        options["lazy_calibrate"] = int(calibrate)
    cache = hook_cache_dir()
    if cache:
        options["hook_cache"] = cache
    if record_path:
        options["lazy_path"] = record_path
    if errors_path:
        options["errors_path"] = errors_path
    return bootstrap_argv(python, [*flags, *lazy_flags(python_version, lazy)], target, ("lazy",), options)


def bare_launcher_argv(python: str, flags: Sequence[str], target: Target) -> list[str]:
    """The launcher with no hook: what the lazy run pays for being started through it (timed
    beside the bare interpreter on the same target, the difference is taken out of a prediction)."""
    return bootstrap_argv(python, list(flags), target, (), {})


def run_lazy(
    python: str,
    python_version: str,
    target: Target,
    *,
    lazy: bool = True,
    keep: Sequence[str] = (),
    only: Sequence[tuple[str, str]] = (),
    calibrate: int = 0,
    flags: Sequence[str] = (),
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,  # None: one run's limit (--timeout)
    session: Session,
) -> LazyRunOutput:
    """One run to completion; a non-zero exit is data here (lazy loading may break the program)."""
    with tempfile.TemporaryDirectory(prefix="importprof-lazy-") as tmp:
        path = os.path.join(tmp, "lazy.json")
        errors = os.path.join(tmp, "errors.out")
        argv = lazy_argv(python, python_version, flags, target, lazy=lazy, keep=keep, record_path=path,
                         only=only, calibrate=calibrate, errors_path=errors)
        proc = run(argv, cwd=cwd, env=env, timeout=timeout, missing=TargetFailed, what="target", session=session)
        own_errors(errors, target)  # importprof's failure first: never blamed on the program
        try:
            with open(path, encoding="utf-8") as fh:
                record = fh.read()
        except FileNotFoundError:
            record = ""
    return LazyRunOutput(tuple(argv), proc.returncode, proc.stdout, proc.stderr, record)
