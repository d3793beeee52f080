"""Build importprof's launcher (oxidized_builds/, a Cargo workspace of crates.io crates) once per
interpreter, into a cache: ~/.cache/importprof/oxidized/<key>/importprof-launcher.

The key hashes the base interpreter's facts (version, LIBDIR, LDLIBRARY, base prefix) and the
Cargo sources, so an edit or another interpreter means a new build; the Cargo target dir is
shared (~/.cache/importprof/oxidized/target) so crates compile once. `IMPORTPROF_CACHE` moves
the cache, `IMPORTPROF_OXIDIZED_SRC` points at another copy of the Cargo project.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys

from profiler.errors import ToolFailed, ToolMissing
from profiler.model.interpreter import Interpreter
from profiler.session import Session

LAUNCHER_NAME = "importprof-launcher"
_SOURCES = ("Cargo.toml", "Cargo.lock", "launcher/Cargo.toml", "launcher/build.rs", "launcher/src/main.rs")


def cache_root() -> str:
    base = os.environ.get("IMPORTPROF_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "importprof")
    return os.path.join(base, "oxidized")


def project_dir() -> str:
    """The Cargo workspace: $IMPORTPROF_OXIDIZED_SRC, else oxidized_builds/ beside the package
    (a source checkout or an editable install), else shipped inside the package."""
    candidates = []
    if os.environ.get("IMPORTPROF_OXIDIZED_SRC"):
        candidates.append(os.environ["IMPORTPROF_OXIDIZED_SRC"])
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates += [os.path.join(os.path.dirname(pkg), "oxidized_builds"), os.path.join(pkg, "oxidized_builds")]
    for c in candidates:
        if os.path.isfile(os.path.join(c, "launcher", "src", "main.rs")):
            return c
    raise ToolMissing(f"importprof's Cargo project (oxidized_builds/) not found; looked in {', '.join(candidates)}")


def find_cargo() -> str:
    cargo = shutil.which("cargo")
    if cargo is None:  # rustup's default place, often not on PATH
        cargo = os.path.join(os.path.expanduser("~"), ".cargo", "bin", "cargo")
    if not os.access(cargo, os.X_OK):
        raise ToolMissing("cargo not found: install Rust (https://rustup.rs) to build the oxidized variants")
    return cargo


def build_key(interp: Interpreter, src: str) -> str:
    h = hashlib.sha256()
    # the base interpreter's facts, not its path: a venv shares its base interpreter's launcher
    for part in (interp.version, interp.libdir or "", interp.ldlibrary or "", interp.base_prefix):
        h.update(part.encode() + b"\0")
    for rel in _SOURCES:
        p = os.path.join(src, rel)
        if os.path.exists(p):
            with open(p, "rb") as fh:
                h.update(rel.encode() + b"\0" + fh.read())
    return h.hexdigest()[:16]


def _check_shared(interp: Interpreter) -> None:
    lib = os.path.join(interp.libdir or "", interp.ldlibrary or "")
    if not interp.libdir or not (interp.ldlibrary or "").endswith(".so") or not os.path.exists(lib):
        raise ToolFailed(
            f"{interp.path} has no shared libpython ({lib or 'LDLIBRARY unset'}); the launcher links one: "
            "use an interpreter built with --enable-shared"
        )


def launcher_path(interp: Interpreter, *, session: Session) -> str:
    """The cached launcher for this interpreter, building it first when missing."""
    src = project_dir()
    key = build_key(interp, src)
    dest_dir = os.path.join(cache_root(), key)
    dest = os.path.join(dest_dir, LAUNCHER_NAME)
    if os.access(dest, os.X_OK):
        return dest
    _check_shared(interp)
    cargo = find_cargo()
    from profiler.cachelock import cached

    def make(tmp: str) -> None:
        session.info(f"building the oxidized launcher for {interp.path} (cargo, once per interpreter)...")
        _cargo_build(cargo, src, interp, session=session)
        shutil.copy2(os.path.join(cache_root(), "target", "release", LAUNCHER_NAME), tmp)

    # one lock for every key: the builds share one Cargo target folder (a second build waits,
    # then finds its launcher published whole, or builds its own)
    os.makedirs(cache_root(), exist_ok=True)
    waiting = (lambda: session.info("another importprof is building an oxidized launcher: waiting for it..."))
    return cached(dest, make, ready=lambda p: os.access(p, os.X_OK), lock_path=os.path.join(cache_root(), "build.lock"),
                  waiting=waiting)


def _cargo_build(cargo: str, src: str, interp: Interpreter, session: Session) -> None:
    from profiler.capture.process import run

    env = dict(os.environ)
    env.update(
        {
            "PYO3_PYTHON": interp.path,
            "IMPORTPROF_PYTHON_LIBDIR": interp.libdir or "",
            "IMPORTPROF_PYTHON_HOME": interp.base_prefix,
            "CARGO_TARGET_DIR": os.path.join(cache_root(), "target"),
        }
    )
    env["PATH"] = os.path.dirname(cargo) + os.pathsep + env.get("PATH", "")
    argv = [cargo, "build", "--release", "--locked", "--manifest-path", os.path.join(src, "Cargo.toml")]
    proc = run(argv, env=env, timeout=1800, what="cargo", session=session)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise ToolFailed(f"cargo build of the oxidized launcher failed (exit {proc.returncode})", detail=tail)


if __name__ == "__main__":  # used by scripts/setup.d/30-oxidized.sh
    from profiler.capture.interpreter import resolve_python
    from profiler.errors import ImportprofError

    try:
        session = Session()
        print(launcher_path(resolve_python(sys.argv[1] if len(sys.argv) > 1 else None, session=session),
                            session=session))
    except ImportprofError as exc:
        print(f"importprof: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
