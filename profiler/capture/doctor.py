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
from profiler.session import Session

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


def probe_doctor_facts(python: str, flags: Sequence[str] = (), *, session: Session) -> dict:
    proc = run([python, *flags, "-c", _PROBE], missing=BadInput, what="interpreter", session=session)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-DOCTOR ")), None)
    if proc.returncode != 0 or line is None:
        raise BadInput(f"{python} could not report its start-up facts (exit {proc.returncode})")
    return json.loads(line[len("IMPORTPROF-DOCTOR ") :])


# --- doctor --verify: each fix applied in a scratch overlay, never to the user's files --------

def run_output(argv: Sequence[str], env: Mapping[str, str] | None = None, *, session: Session) -> tuple[int, str, str]:
    """One run of a command: (exit code, stdout, stderr), to tell whether a fix changes what the
    program prints."""
    proc = run(list(argv), env=dict(env) if env is not None else None, what=argv[0], session=session)
    return proc.returncode, proc.stdout, proc.stderr


def compile_into_prefix(python: str, target_argv: Sequence[str], prefix: str, session: Session) -> tuple[int, str]:
    """Write the .pyc of every module the target imports into `prefix` (a scratch
    -X pycache_prefix folder): one run of the target with writing bytecode allowed
    (PYTHONDONTWRITEBYTECODE left out of its environment). The target's own folders get no file.
    Returns (exit code, stderr's last lines)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = run([python, "-X", f"pycache_prefix={prefix}", *target_argv], env=env, what=python, session=session)
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


# --- in-memory: what the path importer does for the target's modules, timed without a hook ----

_PATH_IMPORT_PROBE = r"""
import json, marshal, os, statistics, sys, time
import importlib.machinery as M
from importlib.util import MAGIC_NUMBER
args = json.loads(sys.stdin.read())
sys.dont_write_bytecode = True  # compiling a module here must not write its .pyc into the program's folders
sys.path[:] = args["sys_path"]
snapshot = dict(sys.path_importer_cache)
# the finders an import asks before and including the path finder (a packed module is found by
# the in-memory importer placed first, so it is asked none of them)
finders = list(sys.meta_path)
finders = finders[: finders.index(M.PathFinder) + 1] if M.PathFinder in finders else [M.PathFinder]
clock = time.thread_time_ns  # CPU time of this thread: a busy machine's waiting is not counted


def valid_pyc(spec):
    # the .pyc CPython would use (a timestamp .pyc matching its source, or a hash-based one)
    try:
        with open(spec.cached, "rb") as fh:
            head = fh.read(16)
        st = os.stat(spec.origin)
    except (OSError, TypeError, NotImplementedError):
        return False
    if len(head) < 16 or head[:4] != MAGIC_NUMBER:
        return False
    flags = int.from_bytes(head[4:8], "little")
    if flags:
        return True
    return (int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)


def one_pass():
    sys.path_importer_cache.clear()
    sys.path_importer_cache.update(snapshot)
    paths = {}  # module -> its search locations (None: not a package), False: not found
    kinds = {}  # module -> "file" (timed), "compiled" (no valid .pyc), "other" (extension, namespace...)
    saved = compiling = 0

    def locate(name):
        nonlocal saved, compiling
        if name in paths:
            return paths[name]
        paths[name] = False
        parent = name.rpartition(".")[0]
        where = None
        if parent:
            where = locate(parent)
            if not where:
                return False
        t0 = clock()
        spec = None
        for finder in finders:  # as importlib's _find_spec asks them, up to the path finder
            try:
                spec = finder.find_spec(name, where)
            except Exception:  # a finder that fails here fails the import too: not priced
                return False
            if spec is not None:
                break
        t1 = clock()
        if spec is None:
            return False
        loader = spec.loader
        if finder is not M.PathFinder:
            kinds[name] = "other"  # builtin, frozen, or another finder's: not the path importer's work
        elif isinstance(loader, (M.SourceFileLoader, M.SourcelessFileLoader)):
            # no valid .pyc: get_code compiles the source, as every start does (no-pyc); packed
            # bytecode spares that too
            compiled = isinstance(loader, M.SourceFileLoader) and not valid_pyc(spec)
            try:
                t2 = clock()
                code = loader.get_code(name)
                t3 = clock()
                if compiled:
                    blob = marshal.dumps(code)
                else:
                    with open(spec.cached if isinstance(loader, M.SourceFileLoader) else spec.origin, "rb") as fh:
                        blob = fh.read()[16:]
            except (ImportError, OSError, ValueError, EOFError, SyntaxError):  # the import fails as well
                return False
            t4 = clock()
            marshal.loads(blob)  # what a packed module still costs: unmarshalling its code
            t5 = clock()
            saved += (t1 - t0) + (t3 - t2) - (t5 - t4)
            if compiled:
                compiling += (t3 - t2) - (t5 - t4)
            kinds[name] = "compiled" if compiled else "file"
        else:
            kinds[name] = "other"
        paths[name] = spec.submodule_search_locations
        return paths[name]

    for name in args["modules"]:
        locate(name)
    asked = set(args["modules"])
    counts = {k: sum(1 for n in asked if kinds.get(n) == k) for k in ("file", "compiled", "other")}
    counts["missing"] = sum(1 for n in asked if n not in kinds)
    return saved // 1000, counts, compiling // 1000


results = [one_pass() for _ in range(args["passes"])]
costs = [r[0] for r in results]
counts = results[0][1]
compiling = [r[2] for r in results]
print("IMPORTPROF-PATH-IMPORT " + json.dumps({
    "saved_us": int(statistics.median(costs)),
    "spread_us": int(statistics.pstdev(costs)),
    "compile_us": int(statistics.median(compiling)),
    "compile_spread_us": int(statistics.pstdev(compiling)),
    "passes": costs,
    "located": counts["file"] + counts["compiled"],
    "compiled": counts["compiled"],
    "other": counts["other"],
    "missing": counts["missing"],
    "asked": len(set(args["modules"])),
}))
"""


def path_import_cost(python: str, sys_path: Sequence[str], modules: Sequence[str], passes: int = 5,
                     *, session: Session) -> dict:
    """What packing `modules` into memory takes away, timed in the target's interpreter on its
    sys.path without any hook: for each module loaded from a file, the path importer's find (the
    finders sys.meta_path asks up to and including the path finder: builtin, frozen, a .pth's
    finder such as setuptools' _distutils_hack, then sys.path's finders with their directory
    listings and stats; an in-memory importer placed first spares a packed module all of them)
    and its loader's get_code (path bookkeeping, stat, open and read of the .pyc, its header
    checks) minus unmarshalling the code, which a packed module still does. CPU time of the
    probe's thread (time.thread_time), the median of `passes` passes, each with fresh finders for
    the folders the modules are in. A module without a valid .pyc is compiled as each start
    compiles it, which packed bytecode spares too (the no-pyc finding's cost, so counted in both);
    nothing is written.
    `located` of the `asked` modules were timed, `compiled` of those had no valid .pyc, `other`
    were found but not by the path finder's file loaders (extension modules, namespace packages,
    builtin, frozen: not packed), `missing` were not found from this sys.path (a folder the
    program adds itself). `compile_us`: the compiled modules' share of saved_us (their get_code,
    reading and compiling the source, minus unmarshalling), which .pyc files would spare (no-pyc).
    Returns {saved_us, spread_us, compile_us, compile_spread_us, passes, located, compiled, other,
    missing, asked}; raises BadInput when the probe could not run."""
    import json as _json

    payload = _json.dumps({"sys_path": list(sys_path), "modules": list(modules), "passes": passes})
    proc = run([python, "-c", _PATH_IMPORT_PROBE], input=payload, missing=BadInput, what="interpreter", session=session)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORTPROF-PATH-IMPORT ")), None)
    if proc.returncode != 0 or line is None:
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["(no output)"]
        raise BadInput(f"{python} could not time its path importer (exit {proc.returncode}): {tail[0]}")
    return _json.loads(line[len("IMPORTPROF-PATH-IMPORT ") :])
