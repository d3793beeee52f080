"""Real programs from the registry, in cached venvs, for tests and benchmarks.

`real_venv(python, ["black==26.10.1", "pip==25.3"])` returns the folder of a venv made from
`python` with exactly those requirements installed from PyPI (pip's own resolver; no mocks, no
vendored copies). Venvs are cached under `~/.cache/importprof/test-venvs/<key>/` (the key is the
interpreter's real path and version plus the sorted requirements), built once, behind a file lock
so that concurrent test processes and benchmarks wait for one builder instead of racing. A venv
whose build did not finish is never used: the folder is renamed into place only when complete.

When the registry cannot be reached (or the interpreter cannot make a venv), a test is skipped
with pip's own last line as the reason (`RealProgramUnavailable` outside pytest).

`venv_bin(venv, "black")` is the console script's path; `venv_python(venv)` the interpreter.
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

CACHE = Path(os.environ.get("IMPORTPROF_TEST_VENVS") or Path.home() / ".cache" / "importprof" / "test-venvs")


class RealProgramUnavailable(RuntimeError):
    """The registry or the interpreter could not provide the venv (a reason, one line)."""


def _interpreter_facts(python: str) -> tuple[str, str]:
    out = subprocess.run(
        [python, "-S", "-c", "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])"],
        capture_output=True, text=True, timeout=120,
    )
    if out.returncode != 0:
        raise RealProgramUnavailable(f"{python} does not start: {out.stderr.strip()[-200:]}")
    exe, version = out.stdout.split()[:2]
    return exe, version


def _key(exe: str, version: str, requirements: list[str]) -> str:
    text = "\n".join([exe, version, *sorted(requirements)])
    return f"py{version}-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][-300:] if lines else "(no output)"


def _build(exe: str, requirements: list[str], dest: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".building-", dir=dest.parent))
    try:
        made = subprocess.run([exe, "-m", "venv", str(tmp)], capture_output=True, text=True, timeout=600)
        if made.returncode != 0:
            raise RealProgramUnavailable(f"{exe} -m venv failed: {_last_line(made.stderr + made.stdout)}")
        if requirements:
            pip = subprocess.run(
                [str(tmp / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 *requirements],
                capture_output=True, text=True, timeout=1800,
            )
            if pip.returncode != 0:
                raise RealProgramUnavailable(
                    f"pip install {' '.join(requirements)} failed: {_last_line(pip.stderr + pip.stdout)}"
                )
        # a venv's scripts name its folder in their shebangs: build it where it will live
        # would be simplest, but the rename keeps half-built venvs invisible; fix the shebangs
        _retarget(tmp, dest)
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _retarget(tmp: Path, dest: Path) -> None:
    """Rewrite the temporary folder's path to the final one in bin/ (shebangs, activate)."""
    old, new = str(tmp).encode(), str(dest).encode()
    for f in (tmp / "bin").iterdir():
        if f.is_symlink() or not f.is_file():
            continue
        data = f.read_bytes()
        if old in data:
            f.write_bytes(data.replace(old, new))
    cfg = tmp / "pyvenv.cfg"
    if cfg.exists():
        cfg.write_bytes(cfg.read_bytes().replace(old, new))


def build_real_venv(python: str, requirements: list[str] | tuple[str, ...]) -> Path:
    """The cached venv (built when missing); raises RealProgramUnavailable with the reason."""
    reqs = list(requirements)
    exe, version = _interpreter_facts(python)
    CACHE.mkdir(parents=True, exist_ok=True)
    dest = CACHE / _key(exe, version, reqs)
    if (dest / "bin" / "python").exists():
        return dest
    with open(CACHE / (dest.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (dest / "bin" / "python").exists():
            # what a builder killed mid-build left (no builder is at work while the lock is held)
            for left in CACHE.glob(dest.name + ".building-*"):
                shutil.rmtree(left, ignore_errors=True)
            _build(exe, reqs, dest)
    return dest


def real_venv(python: str, requirements: list[str] | tuple[str, ...]) -> Path:
    """As build_real_venv, but a pytest skip with the reason when it cannot be had."""
    try:
        return build_real_venv(python, requirements)
    except (RealProgramUnavailable, subprocess.TimeoutExpired) as exc:
        if "pytest" in sys.modules:
            import pytest

            pytest.skip(f"real program venv unavailable: {exc}")
        raise


def venv_python(venv: Path) -> str:
    return str(venv / "bin" / "python")


def venv_bin(venv: Path, script: str) -> str:
    return str(venv / "bin" / script)
