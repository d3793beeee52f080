"""The emulation's rewritten-code cache (bootstrap/hook_lazy_rewrite.py) keeps apart the entries
of two importprof installations sharing ~/.cache (a clone beside a venv's): each keeps its own,
so neither makes the other's timed lazy runs compile every module again. Before, both wrote
one file per source, each evicting the other's at every run (pip on 3.11 measured 340 ms lazy
against 80 ms while another installation's tests ran)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from profiler.model.target import Target
from tests._interpreters import pyenv_python

pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _misses(python: str, launch_dir: str, script: str, record: str, env: dict) -> int:
    from profiler.capture.lazy import lazy_argv

    argv = lazy_argv(python, "3.11", (), Target("script", script), record_path=record)
    here = os.path.join(ROOT, "profiler", "bootstrap")
    argv = [a.replace(here, launch_dir) if a.startswith(here) else a for a in argv]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(record, encoding="utf-8") as fh:
        return json.load(fh)["counts"]["cache_misses"]


def test_two_installations_keep_their_own_entries(tmp_path, monkeypatch):
    python = pyenv_python("3.11")
    cache = tmp_path / "cache"
    # the launcher's options name the cache (capture/lazy.py: hook_cache_dir, read here): this
    # test's own, so that no earlier run's entry answers for the copy's hooks (their mtime is set)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    (tmp_path / "mod_a.py").write_text("import json\nX = 1\n")
    script = tmp_path / "app.py"
    script.write_text("import mod_a\nprint(mod_a.X)\n")
    mine = os.path.join(ROOT, "profiler", "bootstrap")
    other = tmp_path / "other" / "bootstrap"  # a second installation: the same hooks, another mtime
    shutil.copytree(mine, other, ignore=shutil.ignore_patterns("__pycache__"))
    for name in os.listdir(other):
        os.utime(other / name, ns=(1_000_000_000, 1_000_000_000))
    record = str(tmp_path / "record.json")
    first_mine = _misses(python, mine, str(script), record, env)
    first_other = _misses(python, str(other), str(script), record, env)
    assert first_mine > 0 and first_other > 0  # each compiled its own
    assert _misses(python, mine, str(script), record, env) == 0  # the other's run evicted nothing
    assert _misses(python, str(other), str(script), record, env) == 0
