"""Resolve `--python` to the interpreter that really runs.

A pyenv/asdf shim is a shell script: timing it times bash. We ask the interpreter itself for
`sys.executable` (through the shim, once) and run that path from then on. A venv's interpreter
stays the venv's (its `sys.executable` is the venv path): we never `realpath` it, which would
drop the venv's site-packages.
"""

from __future__ import annotations

import json
import os
import shutil

from profiler.capture.process import run
from profiler.errors import BadInput
from profiler.model.interpreter import Interpreter

_PROBE = r"""
import json, os, sys, sysconfig
# With -S, site has not applied a venv's pyvenv.cfg: find it as site.venv() would.
prefix = sys.prefix
exe_dir = os.path.dirname(os.path.abspath(sys.executable))
for d in (exe_dir, os.path.dirname(exe_dir)):
    if os.path.isfile(os.path.join(d, "pyvenv.cfg")):
        prefix = d
        break
paths = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix})
print("IMPORTPROF-PROBE " + json.dumps({
    "path": sys.executable,
    "version": "%d.%d.%d" % sys.version_info[:3],
    "implementation": sys.implementation.name,
    "prefix": prefix,
    "base_prefix": getattr(sys, "base_prefix", sys.prefix),
    "stdlib": paths.get("stdlib"),
    "purelib": paths.get("purelib"),
    "libdir": sysconfig.get_config_var("LIBDIR"),
    "ldlibrary": sysconfig.get_config_var("LDLIBRARY"),
}))
"""

_CACHE: dict[str, Interpreter] = {}


def resolve_python(requested: str | None = None) -> Interpreter:
    """`--python` value (path or name; default `python3` on PATH) → the real Interpreter."""
    requested = requested or "python3"
    if requested in _CACHE:
        return _CACHE[requested]
    if os.sep in requested:
        path = os.path.abspath(requested)
        if not os.path.exists(path):
            raise BadInput(f"interpreter not found: {requested}")
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise BadInput(f"not an executable interpreter: {requested}")
    else:
        path = shutil.which(requested)
        if path is None:
            raise BadInput(f"interpreter not found on PATH: {requested}")
    # -S: the probe must not pay for (or be broken by) site; -E: ignore PYTHON* variables.
    # sys.prefix still reflects a venv without site (getpath reads pyvenv.cfg).
    proc = run([path, "-S", "-E", "-c", _PROBE], timeout=60, missing=BadInput, what="interpreter")
    line = next(
        (ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-PROBE ")), None
    )
    if proc.returncode != 0 or line is None:
        raise BadInput(f"not a working Python interpreter: {requested} (exit {proc.returncode})")
    try:
        facts = json.loads(line[len("IMPORTPROF-PROBE ") :])
    except ValueError:
        raise BadInput(f"not a working Python interpreter: {requested}") from None
    exe = facts["path"] or path
    if not os.path.isabs(exe) or not os.path.exists(exe):
        exe = path
    facts["path"] = exe
    interp = Interpreter(requested=requested, **facts)
    if interp.implementation == "cpython" and interp.version_tuple < (3, 8):
        raise BadInput(f"{exe} is Python {interp.version}; importprof needs CPython 3.8 or newer")
    _CACHE[requested] = interp
    return interp
