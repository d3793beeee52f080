"""Interpreters of every version: discovery, capabilities, `importprof pythons` (real
interpreters from pyenv; a version this machine lacks is skipped with the reason)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests._interpreters import pyenv_python


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.9", "3.10", "3.12", "3.13"])
def test_a_hook_that_writes_at_exit_does_not_crash_the_interpreter(version, tmp_path):
    # 3.7-3.9 call the atexit module back through a borrowed pointer: the launcher once let it
    # be freed, and every hook writing at exit ended in a segfault (exit -11).
    from profiler.capture.bootstrap import bootstrap_argv
    from profiler.model.target import Target

    out = tmp_path / "modules.json"
    argv = bootstrap_argv(pyenv_python(version), [], Target("code", "import json; print('ok')"),
                          ["oxidized_modules"], {"oxidized_modules_out": str(out)})
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    names = {m["name"] for m in json.loads(out.read_text())["modules"]}
    assert "json" in names
