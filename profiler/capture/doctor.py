"""Facts `importprof doctor` needs from the interpreter itself, in one small run: does it write
.pyc files (sys.flags.dont_write_bytecode, -X pycache_prefix), are frozen stdlib modules in use,
and its sys.path as a `-c` program sees it."""

from __future__ import annotations

import json
import os
from typing import Mapping, Sequence

from profiler.capture.process import run
from profiler.errors import BadInput
from profiler.model.interpreter import Interpreter
from profiler.runcontext import RunContext

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


def probe_doctor_facts(python: str, flags: Sequence[str] = (), context: RunContext | None = None) -> dict:
    proc = run([python, *flags, "-c", _PROBE], missing=BadInput, what="interpreter", context=context)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-DOCTOR ")), None)
    if proc.returncode != 0 or line is None:
        raise BadInput(f"{python} could not report its start-up facts (exit {proc.returncode})")
    return json.loads(line[len("IMPORTPROF-DOCTOR ") :])


# --- doctor --verify: each fix applied in a scratch overlay, never to the user's files --------

def run_output(argv: Sequence[str], env: Mapping[str, str] | None = None, context: RunContext | None = None) -> tuple[int, str, str]:
    """One run of a command: (exit code, stdout, stderr), to tell whether a fix changes what the
    program prints."""
    proc = run(list(argv), env=dict(env) if env is not None else None, what=argv[0], context=context)
    return proc.returncode, proc.stdout, proc.stderr


def compile_into_prefix(python: str, target_argv: Sequence[str], prefix: str, context: RunContext | None = None) -> tuple[int, str]:
    """Write the .pyc of every module the target imports into `prefix` (a scratch
    -X pycache_prefix folder): one run of the target with writing bytecode allowed
    (PYTHONDONTWRITEBYTECODE left out of its environment). The target's own folders get no file.
    Returns (exit code, stderr's last lines)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = run([python, "-X", f"pycache_prefix={prefix}", *target_argv], env=env, what=python, context=context)
    return proc.returncode, "\n".join(proc.stderr.strip().splitlines()[-5:])


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def pth_overlays(interp: Interpreter, pth: str, folder: str) -> tuple[str, str]:
    """Two scratch virtual environments over the interpreter's site-packages, every entry a
    symbolic link to the real one: `full` holds them all, `without` all but the .pth file `pth`.
    Timing the target on both prices that one .pth file with nothing else changed (both pay the
    same for reaching packages through links). Returns the two interpreters (bin/python).
    Raises ValueError (with the reason) when the .pth is not in the interpreter's site-packages."""
    site_dir = os.path.dirname(os.path.abspath(pth))
    if not interp.purelib or not _same_dir(site_dir, interp.purelib):
        raise ValueError(f"{pth} is not in the interpreter's site-packages ({interp.purelib})")
    rel = os.path.relpath(interp.purelib, interp.prefix)
    if rel.startswith(".."):
        raise ValueError(f"site-packages ({interp.purelib}) lies outside the prefix {interp.prefix}")
    real_exe = os.path.realpath(interp.path)
    cfg_lines = None
    cfg = os.path.join(interp.prefix, "pyvenv.cfg")
    if os.path.isfile(cfg):
        with open(cfg, encoding="utf-8", errors="replace") as fh:
            cfg_lines = fh.read()
    else:  # an installed interpreter: a venv of it, its own site-packages replaced by the overlay
        cfg_lines = f"home = {os.path.dirname(real_exe)}\ninclude-system-site-packages = false\nversion = {interp.version}\n"
    entries = sorted(os.listdir(site_dir))
    made = []
    for name, skip in (("full", None), ("without", os.path.basename(pth))):
        root = os.path.join(folder, name)
        sp = os.path.join(root, rel)
        os.makedirs(sp)
        os.makedirs(os.path.join(root, "bin"))
        with open(os.path.join(root, "pyvenv.cfg"), "w", encoding="utf-8") as fh:
            fh.write(cfg_lines)
        exe = os.path.join(root, "bin", "python")
        os.symlink(real_exe, exe)
        for e in entries:
            if e != skip and e != "__pycache__":
                os.symlink(os.path.join(site_dir, e), os.path.join(sp, e))
        made.append(exe)
    return made[0], made[1]
