"""Facts `importprof doctor` needs from the interpreter itself, in one small run: does it write
.pyc files (sys.flags.dont_write_bytecode, -X pycache_prefix), are frozen stdlib modules in use,
and its sys.path as a `-c` program sees it."""

from __future__ import annotations

import json
from typing import Sequence

from profiler.capture.process import run
from profiler.errors import BadInput

_PROBE = r"""
import json, os, sys
print("IMPORTPROF-DOCTOR " + json.dumps({
    "dont_write_bytecode": bool(sys.flags.dont_write_bytecode),
    "env_dont_write_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
    "pycache_prefix": getattr(sys, "pycache_prefix", None),
    "os_origin": getattr(getattr(os, "__spec__", None), "origin", None),
    "frozen_xoption": sys._xoptions.get("frozen_modules"),
    "env_frozen": os.environ.get("PYTHON_FROZEN_MODULES"),
    "version": list(sys.version_info[:3]),
    "sys_path": sys.path,
}))
"""


def probe_doctor_facts(python: str, flags: Sequence[str] = ()) -> dict:
    proc = run([python, *flags, "-c", _PROBE], missing=BadInput, what="interpreter")
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-DOCTOR ")), None)
    if proc.returncode != 0 or line is None:
        raise BadInput(f"{python} could not report its start-up facts (exit {proc.returncode})")
    return json.loads(line[len("IMPORTPROF-DOCTOR ") :])
