"""Run a target with `-X importtime` (or PYTHONPROFILEIMPORTTIME=1 for `-- COMMAND`, so every
Python process it starts reports) and return its raw stderr; ask an interpreter where
modules come from (for --group kind|distribution).

`capture_importtime(target, interp)` is the one capture step: callable by other features
(pass `flags` for extra interpreter options, `level=2` for 3.14's cached rows, `env` for
more variables).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Mapping, Sequence

from profiler.capture.process import resolve_executable, run
from profiler.errors import BadInput
from profiler.model.interpreter import Interpreter
from profiler.model.target import Target
from profiler.session import Session


@dataclass(frozen=True)
class ImportCapture:
    argv: tuple[str, ...]
    returncode: int
    stderr: str  # import rows and the program's own stderr, interleaved as written


def importtime_argv(target: Target, interp: Interpreter | None, flags: Sequence[str] = (), level: int = 1) -> list[str]:
    if not target.is_python:
        argv = target.command_argv()
        exe = resolve_executable(argv[0])
        if exe is None:
            raise BadInput(f"command not found: {argv[0]}")
        return [exe, *argv[1:]]
    assert interp is not None
    x = "importtime" if level == 1 else f"importtime={level}"
    return [interp.path, "-X", x, *flags, *target.python_argv()]


def capture_importtime(
    target: Target,
    interp: Interpreter | None,
    *,
    flags: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    level: int = 1,
    timeout: float | None = None,
    session: Session,
) -> ImportCapture:
    """One run. Python targets get `-X importtime`; a COMMAND gets PYTHONPROFILEIMPORTTIME."""
    argv = importtime_argv(target, interp, flags, level)
    environ = dict(os.environ)
    environ.pop("PYTHONPROFILEIMPORTTIME", None)
    if not target.is_python:
        environ["PYTHONPROFILEIMPORTTIME"] = "1" if level == 1 else str(level)
    environ.update(env or {})
    proc = run(argv, env=environ, cwd=cwd, timeout=timeout, missing=BadInput, what="target", session=session)
    return ImportCapture(tuple(argv), proc.returncode, proc.stderr)


_ORIGIN_PROBE = r"""
import json, os, sys, sysconfig
names = json.loads(sys.stdin.read())
extra_path = names.pop(0)
if extra_path:
    sys.path.insert(0, extra_path)
import importlib.machinery as M
try:
    import _imp
    is_frozen = _imp.is_frozen
except Exception:
    is_frozen = lambda n: False
builtin = set(sys.builtin_module_names)
paths = sysconfig.get_paths()
stdlib = [os.path.realpath(p) for p in {paths.get("stdlib"), paths.get("platstdlib")} if p]
dists = {}
try:
    from importlib.metadata import packages_distributions
    dists = packages_distributions()
except Exception:
    try:
        from importlib.metadata import distributions
        for d in distributions():
            top = d.read_text("top_level.txt") or ""
            for t in top.split():
                dists.setdefault(t, []).append(d.metadata["Name"])
    except Exception:
        pass
def kind_of_path(path):
    if not path:
        return "unknown"
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return "site-packages"
    if any(real == s or real.startswith(s + os.sep) for s in stdlib):
        return "stdlib"
    return "local"
tops = {}
out = {}
for name in names:
    top = name.partition(".")[0]
    if name in builtin:
        out[name] = {"kind": "builtin", "distribution": "python"}
        continue
    if is_frozen(name):
        out[name] = {"kind": "frozen", "distribution": "python"}
        continue
    if top not in tops:
        path = None
        try:
            spec = M.PathFinder.find_spec(top, sys.path)
        except Exception:
            spec = None
        if spec is not None:
            path = spec.origin if spec.origin not in (None, "namespace") else next(iter(spec.submodule_search_locations or ()), None)
        if top in builtin:
            k = "builtin"
        elif is_frozen(top):
            k = "frozen"
        elif spec is None:
            k = "not found"  # this interpreter cannot import it from sys.path: a failed import?
        else:
            k = kind_of_path(path)
        d = dists.get(top)
        dist = d[0] if d else ("python" if k in ("builtin", "frozen", "stdlib") else None)
        tops[top] = {"kind": k, "distribution": dist}
    out[name] = tops[top]
print("IMPORTPROF-ORIGINS " + json.dumps(out))
"""


def probe_module_origins(interp: Interpreter, names: Sequence[str], extra_path: str | None = None, cwd: str | None = None, *, session: Session) -> dict[str, dict]:
    """name → {"kind": builtin|frozen|stdlib|site-packages|local|not found|unknown, "distribution": ...}
    as `interp` would resolve them (without importing them)."""
    payload = json.dumps([extra_path or "", *sorted(set(names))])
    proc = run([interp.path, "-c", _ORIGIN_PROBE], input=payload, cwd=cwd, missing=BadInput, what="interpreter", session=session)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-ORIGINS ")), None)
    if proc.returncode != 0 or line is None:
        raise BadInput(f"{interp.path} could not tell where modules come from (exit {proc.returncode})")
    return json.loads(line[len("IMPORTPROF-ORIGINS ") :])
