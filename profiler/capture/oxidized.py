"""Capture side of the oxidized variants: discover what a target imports, run the packer inside
importprof's launcher, lay out variant folders, run a built variant once.

The launcher itself is built by profiler/capture/cargo.py; decisions (what to pack, which
variants, their argv) are made in profiler/analysis/packing.py and profiler/workflows/build.py.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Mapping, Sequence

from profiler.capture.bootstrap import bootstrap_argv
from profiler.capture.process import run
from profiler.errors import TargetFailed, ToolFailed
from profiler.model.packing import LoadedModule, PlannedModule
from profiler.model.target import Target

PACKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bootstrap", "oxidized_packer.py")
LAUNCHER_CONFIG = "importprof-launcher.cfg"


def discover_modules(python: str, target: Target, timeout: float | None = None) -> tuple[list[LoadedModule], list[str]]:
    """Run the target once (with site, as users run it) and return the modules it had at exit
    and its final sys.path."""
    with tempfile.TemporaryDirectory(prefix="importprof-pack-") as tmp:
        out = os.path.join(tmp, "modules.json")
        argv = bootstrap_argv(python, [], target, ["oxidized_modules"], {"oxidized_modules_out": out})
        proc = run(argv, timeout=timeout, what=python)
        if proc.returncode != 0 or not os.path.exists(out):
            tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
            raise TargetFailed(f"the target failed while collecting its imports (exit {proc.returncode}): {target.label()}", detail=tail or None)
        with open(out) as fh:
            data = json.load(fh)
    return [LoadedModule.from_dict(d) for d in data["modules"]], list(data.get("sys_path", []))


def no_site_sys_path(python: str) -> list[str]:
    proc = run([python, "-S", "-c", "import sys, json; print(json.dumps(sys.path[1:]))"], what=python)
    if proc.returncode != 0:
        raise TargetFailed(f"{python} -S failed (exit {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def read_source(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        import io
        import tokenize

        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(enc)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


def run_packer(launcher: str, python: str, modules: Sequence[PlannedModule], out_dir: str, sets: Sequence[str]) -> dict:
    """Pack with the python-oxidized-importer crate (inside the launcher). Returns per-set stats."""
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="importprof-plan-", delete=False) as fh:
        json.dump({"out": os.path.abspath(out_dir), "lib": "lib", "modules": [m.to_dict() for m in modules], "sets": list(sets)}, fh)
        plan_path = fh.name
    try:
        proc = run([launcher, "-S", "-E", PACKER, plan_path], timeout=900, what="importprof-launcher")
    finally:
        os.unlink(plan_path)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-PACK ")), None)
    if proc.returncode != 0 or line is None:
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise ToolFailed(f"packing resources failed (exit {proc.returncode})", detail=tail or None)
    return json.loads(line[len("IMPORTPROF-PACK ") :])


def clear_dir(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def install_launcher(launcher: str, folder: str, config: Mapping[str, str]) -> str:
    """Copy the launcher into `folder` with its config file beside it; return the copy's path."""
    os.makedirs(folder, exist_ok=True)
    exe = os.path.join(folder, os.path.basename(launcher))
    shutil.copy2(launcher, exe)
    lines = ["# written by importprof build: see oxidized_builds/launcher/src/main.rs"]
    lines += [f"{k}={v}" for k, v in config.items()]
    with open(os.path.join(folder, LAUNCHER_CONFIG), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return exe


def run_variant(argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None = None, timeout: float | None = None):
    full = None
    if env:
        full = dict(os.environ)
        full.update(env)
    return run(list(argv), env=full, cwd=cwd, timeout=timeout, what=argv[0])


def write_json(path: str, data: dict) -> None:
    from profiler.sinks import write_atomic

    write_atomic(path, (json.dumps(data, indent=2) + "\n").encode())
