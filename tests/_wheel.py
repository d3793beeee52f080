"""importprof's own wheel and sdist, built for real (pip's build front end, setuptools-rust and
cargo) once per source hash and cached, so the tests that install them do not rebuild at each
run: `built_wheel()`, `built_sdist()`.

Cached under `~/.cache/importprof/test-wheels/<hash>/` (IMPORTPROF_TEST_WHEELS overrides), built
behind a file lock, published by a rename when complete. The hash covers every file a build
reads: the build configuration and the package's sources (Rust included). Cargo's target
folder is kept beside the wheels, so a changed Rust source recompiles the crate, not pyo3.
A source copy is built, never the checkout itself (a build writes build/ and *.egg-info/ into
its source folder, and this checkout's importprof.egg-info is read as installed metadata).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("IMPORTPROF_TEST_WHEELS") or Path.home() / ".cache" / "importprof" / "test-wheels")
# what a build reads besides profiler/ (profiler/oxidized_builds is a symlink to oxidized_builds/)
TOP = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "scripts/importprof")
LAUNCHER = ("Cargo.toml", "Cargo.lock", "launcher", "frozen-launcher")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "target", "build", "*.egg-info")


def _sources() -> list[Path]:
    out = [REPO / name for name in TOP if (REPO / name).exists()]
    roots = [REPO / "profiler"] + [REPO / "oxidized_builds" / n for n in LAUNCHER]
    for root in roots:
        if root.is_file():
            out.append(root)
            continue
        for folder, dirs, files in os.walk(root):  # symlinks not followed: oxidized_builds is walked itself
            dirs[:] = sorted(d for d in dirs if not SKIP(folder, [d]))
            ignored = SKIP(folder, files)
            out += [Path(folder) / f for f in sorted(files) if f not in ignored]
    return out


def source_hash() -> str:
    h = hashlib.sha256()
    for path in _sources():
        h.update(str(path.relative_to(REPO)).encode() + b"\0")
        h.update(path.read_bytes() if not path.is_symlink() else os.readlink(path).encode())
    return h.hexdigest()[:16]


def _copy_sources(dest: Path) -> None:
    for name in TOP:
        if (REPO / name).exists():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    shutil.copytree(REPO / "profiler", dest / "profiler", symlinks=True, ignore=SKIP)
    for name in LAUNCHER:
        src = REPO / "oxidized_builds" / name
        if src.is_dir():
            shutil.copytree(src, dest / "oxidized_builds" / name, ignore=SKIP)
        elif src.exists():
            (dest / "oxidized_builds").mkdir(exist_ok=True)
            shutil.copy2(src, dest / "oxidized_builds" / name)


def build_env() -> dict:
    """The build's environment: cargo on PATH (rustup's place), its target folder cached."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(CACHE / "cargo-target"))
    env["PATH"] = os.path.join(Path.home(), ".cargo", "bin") + os.pathsep + env.get("PATH", "")
    env.pop("IMPORTPROF_BUILD_NATIVE", None)
    return env


def _build(kind: str) -> Path:
    """The cached wheel (kind "wheel") or sdist ("sdist") of this source tree, built if missing."""
    key = source_hash()
    dest = CACHE / f"{kind}-{key}"
    pattern = "importprof-*.whl" if kind == "wheel" else "importprof-*.tar.gz"
    found = sorted(dest.glob(pattern))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(dest.glob(pattern))
        if found:  # built by another test process meanwhile
            return found[0]
        work = Path(tempfile.mkdtemp(prefix=f"{kind}-{key}.building-", dir=CACHE))
        try:
            src, out = work / "src", work / "out"
            src.mkdir()
            _copy_sources(src)
            if kind == "wheel":
                argv = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check", "-w", str(out), str(src)]
            else:  # PEP 517's build_sdist through the `build` front end of a cached venv
                from _realprograms import build_real_venv, venv_python

                argv = [venv_python(build_real_venv(sys.executable, ["build==1.6.1"])), "-m", "build", "--sdist", "-o", str(out), str(src)]
            proc = subprocess.run(argv, capture_output=True, text=True, env=build_env(), timeout=3600)
            if proc.returncode != 0:
                raise RuntimeError(f"building the {kind} failed: {(proc.stderr or proc.stdout)[-3000:]}")
            os.rename(out, dest)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    for old in CACHE.glob(f"{kind}-*"):  # earlier sources' builds
        if old != dest and ".building-" not in old.name:
            shutil.rmtree(old, ignore_errors=True)
    return sorted(dest.glob(pattern))[0]


def built_wheel() -> Path:
    return _build("wheel")


def built_sdist() -> Path:
    return _build("sdist")


def no_rust_env(home: Path) -> dict:
    """An environment without a Rust toolchain: ~/.cargo/bin off PATH, CARGO/RUSTC/RUSTUP_* unset,
    and HOME elsewhere (importprof's own cargo lookup also tries ~/.cargo/bin)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CARGO", "RUSTC", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR")}
    cargo_bin = os.path.join(Path.home(), ".cargo", "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and os.path.realpath(p) != os.path.realpath(cargo_bin))
    env["HOME"] = str(home)
    env.setdefault("PIP_CACHE_DIR", os.path.join(Path.home(), ".cache", "pip"))  # the registry's downloads, reused
    env.setdefault("UV_CACHE_DIR", os.path.join(Path.home(), ".cache", "uv"))
    return env
