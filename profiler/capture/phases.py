"""Run a target once under the bootstrap launcher with importprof's instrumentation hooks
(`phases`, `import_sites`, `site`, `calls`) and collect their raw records (text)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.capture import pycache
from profiler.capture.bootstrap import bootstrap_argv, own_errors
from profiler.capture.process import run
from profiler.errors import TargetFailed
from profiler.model.target import Target
from profiler.session import Session

HOOK_ORDER = ("phases", "import_sites", "site", "calls", "statements")


def startup_modules(python: str, flags: Sequence[str], session: Session) -> list[str]:
    """sys.modules of a bare `python -S [flags] -c pass`: the modules imported before any Python
    code (and so any hook) runs, which no instrumented run can see being imported. Asked once per
    invocation (kept in `session.memo`; the next invocation asks again)."""
    key = ("startup modules", python, tuple(flags))
    if key not in session.memo:
        proc = run([python, "-S", *[f for f in flags if f != "-S"], "-c", "import sys; print(' '.join(sys.modules))"], what="interpreter", session=session)
        if proc.returncode != 0:
            raise TargetFailed(f"{python} -S -c pass failed (exit {proc.returncode})", detail=proc.stderr[-2000:] or None)
        session.memo[key] = proc.stdout.split()
    return session.memo[key]


@dataclass(frozen=True)
class InstrumentedRun:
    phases: str  # JSON lines of the phases hook ("" when not asked)
    site: str  # the site hook's JSON object ("" when not asked or site did not run)
    calls: str  # JSON lines of the calls hook
    returncode: int
    stderr: str
    importers: str = ""  # "IMPORTER MODULE" lines (phases hook with importers=True): every import statement
    statements: str = ""  # the statements hook's lines: module, file, line, self_ns, total_ns, times run


def run_instrumented(
    python: str,
    flags: Sequence[str],
    target: Target,
    hooks: Sequence[str],
    *,
    fresh_pycache: bool = False,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,  # None: one run's limit (--timeout)
    ignore_failure: bool = False,
    importers: bool = False,
    split: bool = True,
    session: Session,
) -> InstrumentedRun:
    """One run; `hooks` among HOOK_ORDER (installed in that order, phases first).
    `importers`: the phases hook also records who imports what, cached imports included.
    `split`: the phases hook splits each import into find/read/unmarshal/exec (which wraps
    importlib's functions); without it, on 3.12+, it records each import's boundaries, failure
    and site from sys.monitoring's events, nothing of the interpreter's replaced."""
    unknown = [h for h in hooks if h not in HOOK_ORDER]
    if unknown:  # a misspelled hook would silently measure without it
        raise ValueError(f"unknown hook(s) {unknown}: known {HOOK_ORDER}")
    hooks = [h for h in HOOK_ORDER if h in hooks]
    with tempfile.TemporaryDirectory(prefix="importprof-hooks-") as tmp:
        paths = {name: os.path.join(tmp, f"{name}.out") for name in ("phases", "site", "calls", "importers", "statements")}
        errors = os.path.join(tmp, "errors.out")
        options: dict[str, object] = {
            "errors_path": errors,
            "phases_path": paths["phases"],
            "site_path": paths["site"],
            "calls_path": paths["calls"],
            "statements_path": paths["statements"],
        }
        if importers:
            options["importers_path"] = paths["importers"]
        if not split:
            options["phases_split"] = False
        with pycache.fresh_pycache(fresh_pycache, tmp) as extra:
            argv = bootstrap_argv(python, [*flags, *extra], target, hooks, options)
            proc = run(argv, cwd=cwd, env=env, timeout=timeout, what="interpreter", session=session)
        own_errors(errors, target)  # importprof's failure first: never blamed on the program
        if proc.returncode != 0:
            from profiler.parse.exit_status import read_ending

            tail = "\n".join(proc.stderr.rstrip("\n").splitlines()[-10:])
            ending = read_ending(proc.returncode, tail)
            # --ignore-failure's one rule: a program that never ran its own code fails even so
            if not (ignore_failure and ending.ran_on_purpose):
                why = f" ({ending.why})" if ending.why and proc.returncode > 0 else ""
                raise TargetFailed(f"the target exited with code {proc.returncode}{why}: {target.label()}", detail=tail or None,
                                   ignorable=ending.ran_on_purpose)
        texts = {}
        for name, path in paths.items():
            try:
                with open(path, encoding="utf-8") as fh:
                    texts[name] = fh.read()
            except FileNotFoundError:
                texts[name] = ""
    return InstrumentedRun(texts["phases"], texts["site"], texts["calls"], proc.returncode, proc.stderr, texts["importers"],
                           texts["statements"])
