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

# Runs on every interpreter from 2.7 on: no f-strings, no sys.implementation (3.3+), nothing
# that sysconfig lacks in 2.7 (get_paths(vars=...) and get_config_var exist there).
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
impl = getattr(sys, "implementation", None)
if impl is not None:
    impl = impl.name
else:
    import platform
    impl = platform.python_implementation().lower()
shared = sysconfig.get_config_var("Py_ENABLE_SHARED")
print("IMPORTPROF-PROBE " + json.dumps({
    "path": sys.executable,
    "version": "%d.%d.%d" % tuple(sys.version_info[:3]),
    "implementation": impl,
    "prefix": prefix,
    "base_prefix": getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)),
    "stdlib": paths.get("stdlib"),
    "purelib": paths.get("purelib"),
    "libdir": sysconfig.get_config_var("LIBDIR"),
    "ldlibrary": sysconfig.get_config_var("LDLIBRARY"),
    "enable_shared": None if shared is None else bool(shared),
    "include": sysconfig.get_config_var("INCLUDEPY"),
}))
"""

_CACHE: dict[tuple[str, str | None], Interpreter] = {}


def resolve_python(requested: str | None = None, *, source: str | None = None) -> Interpreter:
    """`--python` value (path or name; default `python3` on PATH) → the real Interpreter.
    Specs that name several (`pyenv:3.12`, `all`): profiler.capture.discovery.resolve_pythons."""
    requested = requested or "python3"
    key = (requested, source)
    if key in _CACHE:
        return _CACHE[key]
    from profiler.capture.discovery import is_multi_spec

    if source is None and is_multi_spec(requested):
        return _resolve_one_of(requested)
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
    proc = run([path, "-S", "-E", "-c", _PROBE], missing=BadInput, what="interpreter")
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
    facts = {k: v for k, v in facts.items() if k in Interpreter.__dataclass_fields__}
    interp = Interpreter(requested=requested, source=source, **facts)
    # No version refusal here: each command refuses, per interpreter, what it cannot do
    # (profiler.model.interpreter.require), so `startup` still times 2.7.
    _CACHE[key] = interp
    return interp


def _resolve_one_of(spec: str) -> Interpreter:
    """`pyenv:3.12` where one interpreter is taken: fine when it names exactly one."""
    from profiler.capture.discovery import resolve_pythons

    found = resolve_pythons([spec])
    if len(found) > 1:
        names = ", ".join(i.version for i in found)
        raise BadInput(f"--python {spec} names {len(found)} interpreters ({names}); this command takes one: "
                       "give a path or a narrower spec (e.g. pyenv:3.12)")
    return found[0]
