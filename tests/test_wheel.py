"""importprof as users install it: the wheel carries the native strace parser (one cp39-abi3
wheel, built here on the dev venv's CPython, installed into other CPythons), installs and runs
it with no Rust toolchain anywhere (pip, `uv tool install`, `pipx install`), and the sdist
builds it where cargo exists and falls back to pure Python with one line where it does not.

Real builds (pip, setuptools-rust, cargo; cached per source hash by tests/_wheel.py), real
venvs, packages from the registry. "The native path ran" is checked, not assumed: after a
`trace --from-log` run both native modules must be in sys.modules (loaded by the run: the
parser and the tallies import them on first use), `_native()` (what the parser calls) must
return the installed module, and `importprof --version` must say so."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from _interpreters import pyenv_python
from _realprograms import real_venv, venv_bin
from _wheel import build_env, built_sdist, built_wheel, no_rust_env

pytestmark = pytest.mark.slow

FIXTURE_LOG = Path(__file__).resolve().parent / "fixtures" / "strace" / "multiproc.log"
NATIVE = ("profiler.parse._strace_native", "profiler.analysis._syscall_tally")
NO_CARGO_LINE = ("importprof: cargo not found: building without the native strace parser "
                 "(pure Python, about half as fast); install Rust (https://rustup.rs) and reinstall to get it")


def _run(argv, env, cwd, timeout=900):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def _no_rust(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = no_rust_env(home)
    assert shutil.which("cargo", path=env["PATH"]) is None and shutil.which("rustc", path=env["PATH"]) is None
    return env


def _fresh_venv(python: str, where: Path, env: dict) -> Path:
    proc = _run([python, "-m", "venv", where], env, where.parent)
    assert proc.returncode == 0, proc.stderr
    return where


def _pip_install(venv: Path, what: Path, env: dict, *extra: str):
    quiet = () if "-v" in extra else ("-q",)  # -v shows the build's own lines (-q -v would cancel out)
    proc = _run([venv / "bin" / "python", "-m", "pip", "install", *quiet, "--disable-pip-version-check", *extra, what], env, venv.parent, timeout=1800)
    if proc.returncode != 0 and "Could not find a version" in proc.stderr + proc.stdout:
        pytest.skip(f"the registry is not reachable: {proc.stderr.strip()[-200:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _trace_from_log(python: str, env: dict, cwd: Path) -> tuple[dict, set[str]]:
    """`importprof trace --from-log FIXTURE --format json` in the venv of `python`: the document,
    and which native modules the run loaded (in sys.modules after it: only a successful import
    puts a module there, whereas -X importtime also lists the failed attempts)."""
    code = ("import sys, io, contextlib\nfrom profiler.cli import app\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out): rc = app(sys.argv[1:])\n"
            "sys.stdout.write(out.getvalue())\n"
            f"sys.stderr.write('NATIVE=' + ' '.join(n for n in {NATIVE!r} if n in sys.modules))\n"
            "sys.exit(rc)")
    proc = _run([python, "-c", code, "trace", "--from-log", FIXTURE_LOG, "--format", "json"], env, cwd)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout), set(proc.stderr.rsplit("NATIVE=", 1)[1].split())


def _check_native_ran(bin_dir: Path, python: str, env: dict, cwd: Path) -> None:
    importprof = str(bin_dir / "importprof")
    version = _run([importprof, "--version"], env, cwd)
    assert version.returncode == 0 and version.stdout.endswith(" (native strace parser: yes)\n"), version.stdout + version.stderr
    table = _run([importprof, "trace", "--from-log", FIXTURE_LOG], env, cwd)  # the console script's own run
    assert table.returncode == 0 and "openat" in table.stdout, table.stderr[-2000:]
    doc, loaded = _trace_from_log(python, env, cwd)
    assert doc["schema"] == "importprof.trace/1" and doc["syscalls"], sorted(doc)
    assert loaded == set(NATIVE), loaded
    probe = _run([python, "-c", "from profiler.parse.strace import _native; import profiler.parse._strace_native as m; "
                  "print(_native() is m, m.__file__)"], env, cwd)
    assert probe.returncode == 0 and probe.stdout.startswith("True "), probe.stdout + probe.stderr
    where = probe.stdout.split(" ", 1)[1].strip()  # the installed module, not a checkout's
    assert "site-packages" in where and not where.startswith(str(FIXTURE_LOG.parents[3])), where


def test_the_wheel_is_one_abi3_wheel_carrying_both_native_modules_and_the_light_script():
    wheel = built_wheel()
    assert wheel.name.endswith("-cp39-abi3-linux_x86_64.whl"), wheel.name
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        script = zf.read("importprof-0.1.0.data/scripts/importprof").decode()
    assert {"profiler/parse/_strace_native.abi3.so", "profiler/analysis/_syscall_tally.abi3.so"} <= names
    # package data travels; the Rust sources stay out of the wheel (they are the sdist's)
    assert {"profiler/capture/spawner.c", "profiler/schemas/trace.json", "profiler/render/html_assets/page.js",
            "profiler/oxidized_builds/launcher/src/main.rs"} <= names
    assert not [n for n in names if n.startswith("profiler/native/")]
    # the installer rewrites `#!python`; the script imports nothing but sys before importprof
    assert script.startswith("#!python\n") and "import re" not in script and "from profiler.cli import app" in script


def test_a_fresh_venv_without_rust_runs_the_wheels_native_parser(tmp_path):
    env = _no_rust(tmp_path)
    python = pyenv_python("3.13")  # not the interpreter that built it: abi3
    venv = _fresh_venv(python, tmp_path / "venv", env)
    _pip_install(venv, built_wheel(), env)
    _check_native_ran(venv / "bin", str(venv / "bin" / "python"), env, tmp_path)

    # the oxidized launcher is the one native part built on the user's machine (by cargo, at the
    # first build/compare): without cargo its variants are failed rows naming what to install,
    # and the others are built (HOME is a fresh folder: no launcher cached from earlier)
    app = tmp_path / "app.py"
    app.write_text("import json\nprint(json.dumps({'a': 1}))\n")
    target_python = pyenv_python("3.11")  # the oxidized variants need CPython 3.8 to 3.11
    proc = _run([venv / "bin" / "importprof", "build", "-o", tmp_path / "out", "--format", "json", "--python",
                 target_python, app], env, tmp_path, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {v["variant"]: v for v in json.loads(proc.stdout)["variants"]}
    assert not rows["traditional"].get("failed") and not rows["no-site"].get("failed"), rows
    oxidized = [rows[n] for n in ("oxidized", "filesystem", "in-memory")]
    for row in oxidized:
        assert row["failed"] and "cargo not found: install Rust (https://rustup.rs)" in row["error"], row
        assert "rustup.rs" in row["hint"], row
    assert "Traceback" not in proc.stderr


def test_uv_tool_install_and_pipx_install_of_the_wheel(tmp_path):
    tools = real_venv(pyenv_python("3.11"), ["uv==0.13.8", "pipx==1.18.4"])
    env = _no_rust(tmp_path)
    python = pyenv_python("3.10")  # another CPython than the one that built it (abi3)
    wheel = built_wheel()
    uv_env = dict(env, UV_TOOL_DIR=str(tmp_path / "uv-tools"), UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
                  UV_PYTHON_DOWNLOADS="never", UV_NO_CONFIG="1")
    proc = _run([venv_bin(tools, "uv"), "tool", "install", "--python", python, wheel], uv_env, tmp_path, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    uv_python = next((tmp_path / "uv-tools").glob("importprof/bin/python"))
    _check_native_ran(tmp_path / "uv-bin", str(uv_python), uv_env, tmp_path)

    pipx_env = dict(env, PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
                    PIPX_MAN_DIR=str(tmp_path / "pipx-man"))
    proc = _run([venv_bin(tools, "pipx"), "install", "--python", python, wheel], pipx_env, tmp_path, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_native_ran(tmp_path / "pipx-bin", str(tmp_path / "pipx" / "venvs" / "importprof" / "bin" / "python"), pipx_env, tmp_path)


def test_the_sdist_builds_the_parser_with_cargo_and_falls_back_in_one_line_without(tmp_path):
    sdist = built_sdist()
    import tarfile

    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    assert {"setup.py", "scripts/importprof", "profiler/native/Cargo.toml", "profiler/native/Cargo.lock",
            "profiler/native/src/lib.rs"} <= names
    python = pyenv_python("3.12")

    # without Rust: installed, one line said at build time, the pure-Python parser runs
    env = _no_rust(tmp_path)
    (tmp_path / "a").mkdir()
    copy = Path(shutil.copy2(sdist, tmp_path / "a"))  # its own path: pip's wheel cache keys on it
    venv = _fresh_venv(python, tmp_path / "plain", env)
    proc = _pip_install(venv, copy, env, "-v")
    said = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "cargo not found" in ln]
    assert [ln.strip() for ln in said] == [NO_CARGO_LINE], said
    version = _run([venv / "bin" / "importprof", "--version"], env, tmp_path)
    assert version.stdout.endswith(" (native strace parser: no)\n"), version.stdout + version.stderr
    plain, loaded = _trace_from_log(str(venv / "bin" / "python"), env, tmp_path)
    assert loaded == set()

    # with cargo on PATH: the same sdist compiles it
    (tmp_path / "b").mkdir()
    copy = Path(shutil.copy2(sdist, tmp_path / "b"))
    env_rust = dict(build_env(), PIP_CACHE_DIR=env["PIP_CACHE_DIR"])
    venv = _fresh_venv(python, tmp_path / "native", env_rust)
    _pip_install(venv, copy, env_rust)
    native, _ = _trace_from_log(str(venv / "bin" / "python"), env, tmp_path)
    _check_native_ran(venv / "bin", str(venv / "bin" / "python"), env, tmp_path)
    # the same records either way: the summary's counts agree
    assert [(s["name"], s["count"]) for s in native["syscalls"]] == [(s["name"], s["count"]) for s in plain["syscalls"]]


def test_the_wheel_runs_on_python_3_9(tmp_path):
    """The oldest CPython importprof supports: the registry resolves an older typer there, which
    reads options from inspect.signature without evaluating string annotations (3.9 cannot), so
    every `--format` became `--fmt`; and `X | None` in the documents' fields cannot be evaluated
    by typing before 3.10. Both work from the wheel in a fresh 3.9 venv."""
    env = _no_rust(tmp_path)
    python = pyenv_python("3.9")
    venv = _fresh_venv(python, tmp_path / "venv", env)
    _pip_install(venv, built_wheel(), env)
    importprof = venv / "bin" / "importprof"
    helps = _run([importprof, "startup", "--help"], env, tmp_path)
    assert helps.returncode == 0 and "--format" in helps.stdout and "--fmt" not in helps.stdout, helps.stdout
    proc = _run([importprof, "startup", "--runs", "2", "--warmup", "0", "--variant", "default", "--format", "json", "-c", "pass"],
                env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "importprof.startup/1" and len(doc["results"][0]["times"]) == 2
    _check_native_ran(venv / "bin", str(venv / "bin" / "python"), env, tmp_path)
