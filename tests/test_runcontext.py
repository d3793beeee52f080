"""The run context is passed down, not looked up, and `--python` is resolved once per invocation
(real interpreters, real processes, real strace)."""

import shutil
import subprocess
import sys
import threading

import pytest

from profiler.capture.interpreter import interpreter_for, resolve_python
from profiler.capture.process import run
from profiler.errors import BadInput, TimedOut
from profiler.model.interpreter import Interpreter
from profiler.runcontext import DEFAULT_TIMEOUT_S, RunContext, given


def test_a_call_without_a_context_gets_a_fresh_default_one():
    a, b = given(None), given(None)
    assert a is not b and a.timeout_s == b.timeout_s == DEFAULT_TIMEOUT_S and a.say is None
    mine = RunContext(timeout_s=5)
    assert given(mine) is mine


def test_set_timeout_zero_means_no_limit():
    ctx = RunContext()
    ctx.set_timeout(0)
    assert ctx.timeout_s is None
    ctx.set_timeout(2.5)
    assert ctx.timeout_s == 2.5


def test_warnings_go_through_the_context_once():
    said = []
    ctx = RunContext(say=said.append)
    ctx.warn("x")
    ctx.warn("x")
    ctx.warn("y")
    assert said == ["x", "y"]


@pytest.mark.slow
def test_the_limit_is_the_context_passed_not_another_invocations(real_python):
    # two contexts side by side (two invocations in one process, in two threads): each run keeps
    # its own limit; nothing one sets is seen by the other
    short, long_ = RunContext(timeout_s=0.5), RunContext(timeout_s=30)
    out = {}

    def go(name, ctx):
        try:
            run([real_python, "-c", "import time; time.sleep(2)"], what="sleeper", context=ctx)
            out[name] = "finished"
        except TimedOut as exc:
            out[name] = exc.message

    threads = [threading.Thread(target=go, args=("short", short)), threading.Thread(target=go, args=("long", long_))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "within 0.5 s" in out["short"]
    assert out["long"] == "finished"


@pytest.mark.slow
def test_one_context_probes_an_interpreter_once(real_python):
    ctx = RunContext()
    first = resolve_python(real_python, context=ctx)
    assert resolve_python(real_python, context=ctx) is first  # kept in the context
    assert resolve_python(first.path, context=ctx) is first  # the resolved path spelled again
    other = resolve_python(real_python, context=RunContext())  # another invocation asks afresh
    assert other is not first and other == first


def test_a_resolved_interpreter_is_only_checked_not_probed(tmp_path):
    # an Interpreter whose path does not exist: resolving it would fail; checking it does not
    path = str(tmp_path / "no-such-python")
    ghost = Interpreter(path=path, requested="ghost", version="3.12.1", implementation="cpython", prefix=str(tmp_path),
                        base_prefix=str(tmp_path), stdlib=str(tmp_path), purelib=str(tmp_path))
    assert interpreter_for(ghost, context=RunContext()) is ghost
    with pytest.raises(BadInput, match="interpreter not found"):
        interpreter_for(ghost.path, context=RunContext())


def _probes(strace_log: str) -> list[str]:
    """The interpreter probes (the facts script run with -S -E) that reached a real interpreter."""
    probes = []
    with open(strace_log) as fh:
        for line in fh:
            if "execve(" in line and "import json, os, sys, sysconfig" in line and "ENOENT" not in line:
                probes.append(line.split('"')[1])
    return [p for p in probes if "/bin/python" in p]


@pytest.mark.slow
def test_one_report_invocation_probes_its_interpreter_once(tmp_path, real_python):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    log = tmp_path / "execve.log"
    argv = ["strace", "-f", "-qq", "-s", "60", "-e", "trace=execve", "-o", str(log),
            sys.executable, "-m", "profiler", "report", "--python", real_python, "--skip", "trace,doctor",
            "--runs", "1", "--warmup", "0", "--import-runs", "1", "-o", str(tmp_path / "page.html"), "-c", "import json"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 and "ptrace" in proc.stderr.lower():
        pytest.skip("ptrace is not allowed here")
    assert proc.returncode == 0, proc.stderr
    # startup, imports and site each ran on it, and the page names it: asked for its facts once
    assert _probes(str(log)) == [real_python]
