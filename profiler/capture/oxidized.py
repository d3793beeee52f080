"""Capture side of the oxidized variants: discover what a target imports, run the packer inside
importprof's launcher, lay out variant folders, run a built variant once.

The launcher itself is built by profiler/capture/cargo.py; decisions (what to pack, which
variants, their argv) are made in profiler/analysis/packing.py and profiler/compose/build.py.
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
from profiler.model.packing import LoadedModule, PackPlan, Unit, distribution_name
from profiler.model.target import Target
from profiler.session import Session

PACKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bootstrap", "oxidized_packer.py")
LAUNCHER_CONFIG = "importprof-launcher.cfg"


def discover_modules(python: str, target: Target, timeout: float | None = None,
                     any_exit: bool = False, *, session: Session) -> tuple[list[LoadedModule], list[str]]:
    """Run the target once (with site, as users run it) and return the modules it had at exit
    and its final sys.path. With `any_exit`, a non-zero exit is the program's behaviour (black
    --check exits 1), not a failure, as long as it got to the end."""
    records, sys_path, _ = loaded_modules(bootstrap_argv(python, [], target, ["oxidized_modules"], {}), None, timeout,
                                          what=target.label(), any_exit=any_exit, session=session)
    return records, sys_path


def loaded_modules(argv_with_hook: Sequence[str], env: Mapping[str, str] | None, timeout: float | None = None,
                   what: str = "", any_exit: bool = False, *, session: Session) -> tuple[list[LoadedModule], list[str], int]:
    """Run `argv_with_hook` (bootstrap_argv with the oxidized_modules hook, its out file filled
    in here) and read what the hook wrote: (modules at exit, sys.path at exit, exit code)."""
    import marshal

    from profiler.capture.bootstrap import LAUNCH

    argv = list(argv_with_hook)
    i = argv.index(LAUNCH) + 1
    with tempfile.TemporaryDirectory(prefix="importprof-pack-") as tmp:
        out = os.path.join(tmp, "modules.json")
        opts = marshal.loads(bytes.fromhex(argv[i]))
        opts["oxidized_modules_out"] = out
        argv[i] = marshal.dumps(opts, 4).hex()
        full = dict(os.environ, **env) if env else None
        proc = run(argv, env=full, timeout=timeout, what=argv[0], session=session)
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        if proc.returncode != 0 and any_exit:
            # a non-zero exit the program chose (black --check) is its behaviour; one where its
            # own code never ran (a traceback, no such module, a SyntaxError, a signal) is a
            # target that failed, as in every command that runs one
            from profiler.parse.exit_status import read_ending

            ending = read_ending(proc.returncode, proc.stderr[-8000:])
            if not ending.ran_on_purpose:
                raise TargetFailed(f"the target failed while collecting its imports (exit {proc.returncode}; "
                                   f"{ending.why}): {what}", detail=tail or None)
        if (proc.returncode != 0 and not any_exit) or not os.path.exists(out):
            raise TargetFailed(f"the target failed while collecting its imports (exit {proc.returncode}): {what}", detail=tail or None)
        try:
            with open(out, encoding="utf-8") as fh:
                data = json.load(fh)
        except ValueError as exc:  # cut short: a file-size limit (ulimit -f) or a full disk
            raise TargetFailed(f"the target's list of imports ({what}) is incomplete: {exc}{_fsize_hint()}") from None
    return [LoadedModule.from_dict(d) for d in data["modules"]], list(data.get("sys_path", [])), proc.returncode


def _fsize_hint() -> str:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return "" if soft == resource.RLIM_INFINITY else f" (files are limited to {soft} bytes here: ulimit -f)"


_SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", "node_modules", ".mypy_cache", ".pytest_cache", ".tox"}
# the standard library's own test suites are no part of a program
_STDLIB_SKIP_DIRS = _SKIP_DIRS | {"test", "tests", "idle_test"}


def _walk(entry: str, top: str, skip: set[str]) -> list[str]:
    path = os.path.join(entry, top)
    if os.path.isfile(path):
        return [top]
    out = []
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        rel = os.path.relpath(folder, entry).replace(os.sep, "/")
        out += [f"{rel}/{f}" for f in sorted(files)]
    return out


def _distributions(entry: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each file a distribution's RECORD lists below `entry` → (its .dist-info folder, all its
    files there: modules, data and metadata; byte-compiled caches and scripts outside left out)."""
    import csv

    owners: dict[str, tuple[str, tuple[str, ...]]] = {}
    try:
        names = sorted(n for n in os.listdir(entry) if n.endswith(".dist-info"))
    except OSError:
        return owners
    for meta in names:
        try:
            with open(os.path.join(entry, meta, "RECORD"), newline="", encoding="utf-8") as fh:
                rows = [row[0] for row in csv.reader(fh) if row]
        except (OSError, UnicodeDecodeError, csv.Error):
            continue
        files = tuple(sorted({r for r in rows if not r.startswith(("../", "/")) and "__pycache__/" not in r
                             and os.path.isfile(os.path.join(entry, r))}))
        for f in files:
            owners.setdefault(f, (meta, files))
        owners.setdefault(meta + "/", (meta, files))
    return owners


def _root_of(name: str, origin: str, is_package: bool) -> str | None:
    """The folder a module's top-level package sits in, from its name and file:
    /src/profiler/cli.py for profiler.cli → /src (None when the file does not sit as its name says)."""
    parts = origin.split("/")
    names = name.split(".")
    folders = names if is_package else names[:-1]  # the folders holding the file, outermost first
    stem = parts[-1].split(".", 1)[0]
    if stem != ("__init__" if is_package else names[-1]) or len(parts) < len(folders) + 2:
        return None
    if parts[len(parts) - 1 - len(folders):-1] != folders:
        return None
    return "/".join(parts[: len(parts) - 1 - len(folders)]) or "/"


def scan_units(records: Sequence[LoadedModule], sys_path: Sequence[str], stdlib: Sequence[str]) -> list[Unit]:
    """The units the recorded modules came from: for each module's file, the sys.path entry it
    sits under and its top-level name there; a top-level in the standard library is one unit,
    one owned by a distribution (its RECORD lists the file) brings the whole distribution, any
    other is its whole folder (a source tree, an editable install)."""
    entries = sorted({os.path.abspath(p) for p in sys_path if p and os.path.isdir(p)}, key=len, reverse=True)
    std = {os.path.abspath(p) for p in stdlib}
    owners: dict[str, dict] = {}
    units: dict[tuple[str, str], Unit] = {}
    for r in records:
        origin = r.origin
        if not origin or not os.path.isabs(origin) or r.name == "__main__" or r.name.startswith("_importprof"):
            continue
        entry = next((e for e in entries if origin.startswith(e + "/")), None)
        if entry is None:
            # found by a finder of its own (setuptools' editable installs map a package to its
            # source folder from sys.meta_path): the folder that holds its top-level package
            entry = _root_of(r.name, origin, r.is_package)
            if entry is None:
                continue
        rel = origin[len(entry) + 1:]
        top = rel.split("/", 1)[0]
        if entry in std:
            key = (entry, top)
            if key not in units:
                units[key] = Unit(top.split(".", 1)[0], "stdlib", entry, tuple(_walk(entry, top, _STDLIB_SKIP_DIRS)))
            continue
        if entry not in owners:
            owners[entry] = _distributions(entry)
        owned = owners[entry].get(rel)
        if owned is not None:
            meta, files = owned
            key = (entry, meta)
            if key not in units:
                name, version = distribution_name(meta)
                units[key] = Unit(name, "distribution", entry, files, meta, version)
            continue
        key = (entry, top)
        if key not in units:
            units[key] = Unit(top.split(".", 1)[0], "package", entry, tuple(_walk(entry, top, _SKIP_DIRS)))
    _shadowed_stdlib(records, units, [e for e in stdlib if os.path.isdir(e)])
    return sorted(units.values(), key=lambda u: (u.kind != "stdlib", u.name))


def _top_name(rel: str) -> str:
    """The top-level module name a unit's file provides: `pkg/x.py` → pkg, `mod.py` → mod,
    `_ext.cpython-311-x86_64-linux-gnu.so` → _ext."""
    return rel.split("/", 1)[0].split(".", 1)[0]


def _shadowed_stdlib(records: Sequence[LoadedModule], units: dict, stdlib: Sequence[str]) -> None:
    """A top-level name the recording run (with site) took from a finder of its own, under another
    unit's files, that the standard library also has: setuptools' `_distutils_hack`, installed by
    a .pth file, serves `distutils` from setuptools/_distutils. The variants without site (every
    packed one) import the standard library's module of that name, which no unit held, so it came
    through the path finder behind the pack (46 modules of import-stdlib): its standard library
    unit is packed too. Only for a module whose file a packed unit holds under another name: a
    name some unit provides as itself, or one found outside every unit (a zip, a folder of the
    program's own) is left alone (what is first on the path wins, as in python)."""
    provided = {_top_name(f) for u in units.values() for f in u.files}
    packed_files = {u.root.rstrip("/") + "/" + f for u in units.values() for f in u.files}
    for r in records:
        top = r.name.split(".", 1)[0]
        if top in provided or r.origin not in packed_files or r.name in ("__main__", "__mp_main__") \
                or r.name.startswith("_importprof"):
            continue  # only a module whose file a unit packs under another name (not a zip's, a script's)
        provided.add(top)
        for entry in stdlib:
            if os.path.isfile(os.path.join(entry, top, "__init__.py")):
                found = top
            elif os.path.isfile(os.path.join(entry, top + ".py")):
                found = top + ".py"
            else:
                continue
            units[(entry, found)] = Unit(top, "stdlib", entry, tuple(_walk(entry, found, _STDLIB_SKIP_DIRS)))
            break


def no_site_sys_path(python: str, session: Session) -> list[str]:
    proc = run([python, "-S", "-c", "import sys, json; print(json.dumps(sys.path[1:]))"], what=python, session=session)
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


def bytecode_cache() -> str:
    """The packers' shared bytecode cache (entries published by rename: bootstrap/pack_cache.py),
    without what packers killed mid-write left."""
    from profiler.cachelock import remove_dead_temporaries
    from profiler.capture.cargo import cache_root

    folder = os.path.join(os.path.dirname(cache_root()), "bytecode")
    remove_dead_temporaries(folder)
    return folder


def run_packer_script(argv0: str, packer: str, plan: dict, marker: str, failure: str, what: str, session: Session) -> dict:
    """Run a bootstrap packer (`argv0 -S -E PACKER PLAN_JSON`) and return the JSON it prints after
    `marker`; a failed run or a missing line is ToolFailed(`failure`) with stderr's tail."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="importprof-plan-", delete=False) as fh:
        json.dump(plan, fh)
        plan_path = fh.name
    try:
        proc = run([argv0, "-S", "-E", packer, plan_path], timeout=900, what=what, session=session)
    finally:
        os.unlink(plan_path)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker + " ")), None)
    if proc.returncode != 0 or line is None:
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise ToolFailed(f"{failure} (exit {proc.returncode})", detail=tail or None)
    return json.loads(line[len(marker) + 1:])


def run_packer(launcher: str, python: str, plan: PackPlan, out_dir: str, sets: Sequence[str], session: Session) -> dict:
    """Pack with the python-oxidized-importer crate (inside the launcher). Returns per-set stats
    and `failed` ([name, reason] of the sources that do not compile)."""
    os.makedirs(out_dir, exist_ok=True)
    return run_packer_script(
        launcher, PACKER,
        {"out": os.path.abspath(out_dir), "lib": "lib", "modules": [m.to_dict() for m in plan.modules],
         "data": [d.to_dict() for d in plan.data], "sets": list(sets), "cache": bytecode_cache()},
        "IMPORTPROF-PACK", "packing resources failed", "importprof-launcher", session=session)


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


def run_variant(argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None = None, timeout: float | None = None, *, session: Session):
    full = None
    if env:
        full = dict(os.environ)
        full.update(env)
    return run(list(argv), env=full, cwd=cwd, timeout=timeout, what=argv[0], session=session)


def file_stamps(paths) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of each file that exists: what tells a rewritten file."""
    out = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        out[p] = (st.st_mtime_ns, st.st_size)
    return out


def read_files(paths: Sequence[str]) -> list[bytes | None]:
    out: list[bytes | None] = []
    for p in paths:
        try:
            with open(p, "rb") as fh:
                out.append(fh.read())
        except OSError:
            out.append(None)
    return out


def restore_files(contents) -> None:
    """Put back what read_files read (a variant's run may rewrite the files its target names)."""
    for path, data in contents:
        if data is None:
            continue
        try:
            with open(path, "rb") as fh:
                if fh.read() == data:
                    continue
        except OSError:
            pass
        with open(path, "wb") as fh:
            fh.write(data)


def write_json(path: str, data: dict) -> None:
    from profiler.sinks import write_atomic

    write_atomic(path, (json.dumps(data, indent=2) + "\n").encode())
