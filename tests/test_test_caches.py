"""The caches the suite builds on first use are safe when several processes want the same one at
once (`make test` runs on several workers; a benchmark may run beside them): one process builds,
the others wait for it and use what it built; none sees a half-built one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# one test process: waits for the start signal, then asks for the venv; each real build it makes
# is written to the log (the build itself is _realprograms' own)
WANTS_THE_VENV = """
import os, sys, time
sys.path.insert(0, {tests!r})
import _realprograms

real_build = _realprograms._build


def counted(exe, requirements, dest):
    with open({log!r}, "a") as fh:
        fh.write("%d\\n" % os.getpid())
    real_build(exe, requirements, dest)


_realprograms._build = counted
open(os.path.join({ready!r}, "ready-%d" % os.getpid()), "w").close()  # lined up: waiting for the signal
while not os.path.exists({go!r}):
    time.sleep(0.002)
print(_realprograms.build_real_venv({python!r}, []))
"""


@pytest.mark.slow
def test_two_processes_wanting_the_same_venv_build_it_once(tmp_path, real_python):
    cache, go, log = tmp_path / "venvs", tmp_path / "go", tmp_path / "builds.log"
    code = WANTS_THE_VENV.format(tests=str(TESTS), log=str(log), go=str(go), ready=str(tmp_path), python=real_python)
    env = dict(os.environ, IMPORTPROF_TEST_VENVS=str(cache))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    import time

    ready = [tmp_path / f"ready-{p.pid}" for p in procs]
    while not all(r.exists() for r in ready) and all(p.poll() is None for p in procs):
        time.sleep(0.01)
    go.touch()  # both start asking at once: a venv takes seconds to make, so the second asks while the first builds
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    (first, _), (second, _) = outs
    venv = Path(first.strip())
    assert second.strip() == first.strip() and venv.parent == cache
    assert len(log.read_text().splitlines()) == 1  # built once; the other process waited and took it
    # whole, where it is named (never a half-built folder), and nothing else left in the cache
    assert subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"], capture_output=True,
                          text=True, check=True).stdout.strip() == str(venv)
    assert sorted(p.name for p in cache.iterdir()) == sorted([venv.name, venv.name + ".lock"])
