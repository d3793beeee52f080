"""`--python` → the interpreters that really run: one spec resolved once, and the specs that name
several found on this machine.

A pyenv/asdf shim is a shell script: timing it times bash. We ask the interpreter itself for
`sys.executable` (through the shim, once) and run that path from then on. A venv's interpreter
stays the venv's (its `sys.executable` is the venv path): we never `realpath` it, which would
drop the venv's site-packages.

    PATH or NAME     one interpreter (resolve_python; default: python3 on PATH)
    pyenv:3.12       pyenv versions whose name starts with 3.12 (3.12, 3.12.1, 3.12-dev...)
    pyenv:*          every pyenv version (likewise asdf:..., uv:..., system:...)
    venv             the active virtual environment ($VIRTUAL_ENV)
    all              every interpreter found: pyenv, asdf, uv-managed, the system's python3.*,
                     the active venv

Each one found is resolved as a single `--python` is (a shim to its `sys.executable`, a venv
kept as the venv). The same interpreter reached twice (same real executable and same prefix:
`python3` and `python3.11` of one install, `pyenv:3.11` and `/usr/...` spelled twice) is kept
once, at its first place. A venv is not a duplicate of its base interpreter: its prefix differs.

Where it is resolved: once, at the commands' edge (profiler/commands/_options.py:
`interpreters_given`), into the Interpreter(s) the options object carries; the workflows and
compositions below receive them and only check the capability they need (`interpreter_for`
with an Interpreter is `require`, no probe), and a composition (report, doctor, lazy) hands
its Interpreter to the workflows it runs. `interpreter_for` still takes a spec (a path, a name,
None for the default) for library callers that pass one. The resolved interpreters are kept in
the invocation's session (`Session.interpreters`), not in a module global: one
invocation asks each interpreter for its facts once, and the next invocation asks afresh.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Callable, Iterable, Union

from profiler.errors import BadInput
from profiler.model.interpreter import Interpreter, require
from profiler.session import Session

# what `--python` means when it is not given
DEFAULT_PYTHON = "python3"

# a `--python` value as a workflow receives it: the spec, or the interpreter already resolved
PythonSpec = Union[str, Interpreter, None]

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

def resolve_python(requested: str | None = None, *, source: str | None = None,
                   session: Session) -> Interpreter:
    """`--python` value (path or name; default `python3` on PATH) → the real Interpreter.
    Specs that name several (`pyenv:3.12`, `all`): resolve_pythons. `session`: the invocation's
    session (the probe's time limit; what it resolved already is not probed again)."""
    cache = session.interpreters
    requested = requested or DEFAULT_PYTHON
    key = (requested, source)
    if key in cache:
        return cache[key]
    if source is None and is_multi_spec(requested):
        return _resolve_one_of(requested, session)
    path: str | None
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
    import json

    from profiler.capture.process import run  # its runner (and the RunSample model) only when one is probed

    proc = run([path, "-S", "-E", "-c", _PROBE], missing=BadInput, what="interpreter", session=session)
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
    cache[key] = interp
    # the resolved path spelled again (a part handed the path, not the Interpreter) is this
    # interpreter, not a second probe (a venv's path is its own, so the venv is kept)
    cache.setdefault((exe, source), interp)
    return interp


def _resolve_one_of(spec: str, session: Session) -> Interpreter:
    """`pyenv:3.12` where one interpreter is taken: fine when it names exactly one."""
    found = resolve_pythons([spec], session=session)
    if len(found) > 1:
        names = ", ".join(i.version for i in found)
        raise BadInput(f"--python {spec} names {len(found)} interpreters ({names}); this command takes one: "
                       "give a path or a narrower spec (e.g. pyenv:3.12)")
    return found[0]


def interpreter_for(python: PythonSpec, feature: str | None = None, *, for_what: str | None = None,
                    session: Session) -> Interpreter:
    """The one entry of a workflow: its `--python` (the Interpreter the command's edge or a
    composing workflow resolved, used as is; a spec only from a library caller) → the
    Interpreter, refused in one line (exit 2) when it lacks `feature` (a command, capability or
    variant name: profiler.model.interpreter.require)."""
    interp = python if isinstance(python, Interpreter) else resolve_python(python, session=session)
    if feature is not None:
        require(interp, feature, for_what=for_what)
    return interp


# --- specs that name several interpreters ---------------------------------------------------

SOURCES = ("pyenv", "asdf", "uv", "system", "venv")
_SYSTEM_DIRS = ("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin")
_SYSTEM_NAME = re.compile(r"^python3\.\d+$")


def _home(*parts: str) -> str:
    return os.path.join(os.path.expanduser("~"), *parts)


def _versions_dir(source: str) -> list[tuple[str, str]]:
    """(version name, its folder) for the version managers' install folders."""
    if source == "pyenv":
        root = os.environ.get("PYENV_ROOT") or _home(".pyenv")
        base = os.path.join(root, "versions")
    elif source == "asdf":
        root = os.environ.get("ASDF_DATA_DIR") or _home(".asdf")
        base = os.path.join(root, "installs", "python")
    elif source == "uv":
        base = os.environ.get("UV_PYTHON_INSTALL_DIR") or os.path.join(
            os.environ.get("XDG_DATA_HOME") or _home(".local", "share"), "uv", "python"
        )
    else:
        return []
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    return [(n, os.path.join(base, n)) for n in names if os.path.isdir(os.path.join(base, n))]


def _exe_in(folder: str) -> str | None:
    for name in ("python", "python3"):
        exe = os.path.join(folder, "bin", name)
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    # an install with only python3.X (uv's layout, some builds)
    import glob

    found = sorted(glob.glob(os.path.join(folder, "bin", "python[0-9]*")))
    found = [f for f in found if re.search(r"python\d(\.\d+)?$", f) and os.access(f, os.X_OK)]
    return found[0] if found else None


def _uv_version(name: str) -> str:
    """uv names its installs `cpython-3.12.1-linux-x86_64-gnu`: the version part."""
    m = re.match(r"^[a-z]+-(\d[^-]*)", name)
    return m.group(1) if m else name


def _matches(version_name: str, pattern: str) -> bool:
    if pattern in ("*", ""):
        return True
    # a version prefix by components: 3.1 matches 3.1.x, not 3.12
    return version_name == pattern or version_name.startswith((pattern + ".", pattern + "-", pattern + "t"))


def candidates(source: str, pattern: str = "*") -> list[str]:
    """Executables of one source, in version order (no interpreter is run here)."""
    out: list[str] = []
    if source in ("pyenv", "asdf", "uv"):
        rows = []
        for name, folder in _versions_dir(source):
            version = _uv_version(name) if source == "uv" else name
            if _matches(version, pattern):
                exe = _exe_in(folder)
                if exe:
                    rows.append((_version_key(version), exe))
        out = [exe for _, exe in sorted(rows)]
    elif source == "system":
        rows = []
        for d in _SYSTEM_DIRS:
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                exe = os.path.join(d, n)
                if _SYSTEM_NAME.match(n) and _matches(n[len("python"):], pattern) and os.access(exe, os.X_OK):
                    rows.append((_version_key(n[len("python"):]), exe))
        out = [exe for _, exe in sorted(rows)]
    elif source == "venv":
        venv = os.environ.get("VIRTUAL_ENV")
        if venv:
            exe = _exe_in(venv)
            if exe:
                out = [exe]
    return out


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 10**6 for p in re.split(r"[.\-]", version))


def is_multi_spec(spec: str) -> bool:
    """True for specs that may name several interpreters (`all`, `pyenv:3.12`...)."""
    if spec in ("all", "venv"):
        return True
    source, sep, _ = spec.partition(":")
    return bool(sep) and source in SOURCES


def expand_spec(spec: str) -> list[tuple[str, str | None]]:
    """One `--python` value → (path or name, source) pairs, not yet run."""
    if spec == "all":
        pairs: list[tuple[str, str | None]] = []
        for source in SOURCES:
            pairs += [(exe, source) for exe in candidates(source)]
        default = shutil.which(DEFAULT_PYTHON)  # what a plain `--python` runs (often a shim: resolved)
        if default:
            pairs.append((default, "path"))
        return pairs
    if spec == "venv":
        found = candidates("venv")
        if not found:
            raise BadInput("--python venv: no active virtual environment (VIRTUAL_ENV is not set)")
        return [(found[0], "venv")]
    source, sep, pattern = spec.partition(":")
    if sep and source in SOURCES:
        found = candidates(source, pattern)
        if not found:
            known = sorted((n for n, _ in _versions_dir(source)), key=_version_key) if source in ("pyenv", "asdf", "uv") else []
            hint = f" (installed: {', '.join(known)})" if known else ""
            if "," in pattern:  # --variant takes a comma list; --python is repeated instead
                each = [p if ":" in p or "/" in p else f"{source}:{p}" for p in pattern.split(",") if p]
                hint += f"; --python names one interpreter: repeat it ({' '.join('--python ' + p for p in each)})"
            raise BadInput(f"--python {spec}: no {source} interpreter matches {pattern or '*'}{hint}")
        return [(exe, source) for exe in found]
    return [(spec, None)]


def _identity(interp: Interpreter) -> tuple[str, str]:
    return (os.path.realpath(interp.path), os.path.realpath(interp.prefix or ""))


def resolve_pythons(
    specs: Iterable[PythonSpec] | None,
    *,
    warn: Callable[[str], None] | None = None,
    session: Session,
) -> list[Interpreter]:
    """Repeatable `--python` values → the interpreters, each once, in the order given.

    A spec naming one interpreter that does not work is an error (exit 2), as for a single
    `--python`. Within `all` or `pyenv:*`, an install that does not start is skipped with a
    warning (a broken leftover should not stop the others); the command fails only if nothing
    is left."""
    specs = [s for s in (specs or []) if s] or [None]
    out: list[Interpreter] = []
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        if isinstance(spec, Interpreter):
            found = [spec]
        elif spec is None or not is_multi_spec(spec):
            found = [resolve_python(spec, session=session)]
        else:
            found = []
            for path, source in expand_spec(spec):
                try:
                    found.append(resolve_python(path, source=source, session=session))
                except BadInput as exc:
                    if warn:
                        from profiler.model.words import Said, WarningKind

                        warn(Said(f"--python {spec}: skipped {path}: {exc}", WarningKind.PYTHON_SKIPPED, f"skipped {path}",
                                  f"--python {spec}"))
        for interp in found:
            ident = _identity(interp)
            if ident in seen:
                continue
            seen.add(ident)
            out.append(interp)
    if not out:
        raise BadInput(f"--python {' '.join(str(s or DEFAULT_PYTHON) for s in specs)}: no working interpreter found")
    return out


def discover_all(warn: Callable[[str], None] | None = None, *, session: Session) -> list[Interpreter]:
    """Every interpreter `all` names, sorted by implementation and version (for `pythons`);
    empty when none is found."""
    if not expand_spec("all"):
        return []
    found = resolve_pythons(["all"], warn=warn, session=session)
    return sorted(found, key=lambda i: (i.implementation != "cpython", i.version_tuple, i.is_venv, i.path))
