"""Interpreter resolution: shims are resolved, venvs are kept (real shims and a real venv)."""

import os
import shutil
import subprocess

import pytest

from profiler.capture.interpreter import resolve_python
from profiler.errors import BadInput
from profiler.session import Session


def test_pyenv_shim_is_resolved_to_the_real_interpreter(real_python):
    shim = shutil.which("python3")
    interp = resolve_python(shim, session=Session())
    assert interp.path == real_python
    assert interp.requested == shim
    assert interp.version == "3.11.7"
    if "/shims/" in shim:
        assert interp.path != shim  # the bash script is not what gets timed


def test_wrapper_script_shim_made_in_the_test(tmp_path, real_python):
    # An asdf-style shim: a shell script that execs the real interpreter.
    shim = tmp_path / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{real_python}" "$@"\n')
    shim.chmod(0o755)
    assert resolve_python(str(shim), session=Session()).path == real_python


def test_venv_interpreter_stays_the_venv(tmp_path, real_python):
    venv = tmp_path / "venv"
    subprocess.run([real_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    interp = resolve_python(str(venv / "bin" / "python"), session=Session())
    assert interp.path == str(venv / "bin" / "python")  # not realpath'd
    assert interp.is_venv and interp.prefix == str(venv)
    assert os.path.realpath(interp.path) != interp.path


def test_second_interpreter(debian_python):
    interp = resolve_python(debian_python, session=Session())
    assert interp.path == debian_python and interp.version.startswith("3.11.")


@pytest.mark.slow
def test_garbage_interpreters(tmp_path):
    with pytest.raises(BadInput, match="not found"):
        resolve_python(str(tmp_path / "nope"), session=Session())
    with pytest.raises(BadInput, match="not found on PATH"):
        resolve_python("no-such-python-xyz", session=Session())
    with pytest.raises(BadInput, match="not a working Python"):
        resolve_python("/bin/true", session=Session())
    with pytest.raises(BadInput):
        resolve_python(str(tmp_path), session=Session())
