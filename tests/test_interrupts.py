"""Hangs, Ctrl-C and SIGTERM in every command that runs a program.

The target starts a grandchild (`sleep <marker>`), touches a file to say it is running, then
never exits. For each command:
- `--timeout 2`: exit 3 with one line naming the run and the limit;
- SIGINT to importprof's pid alone (not its group, as `kill -INT PID` does): exit 130, one line;
- SIGTERM, SIGHUP, SIGQUIT: exit 143, 129, 131, one line;
and in every case no process importprof started is left (the target, its grandchild, strace),
and the temporary folder (TMPDIR) is empty again.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._signals import start_importprof

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

COMMANDS = {
    "startup": ["startup", "--runs", "1", "--warmup", "0"],
    "imports": ["imports", "--runs", "1", "--warmup", "0"],
    "trace": ["trace"],
    "why": ["why", "json", "--runs", "1"],
    "report": ["report", "--runs", "1", "--warmup", "0", "--import-runs", "1"],
    "lazy": ["lazy", "--runs", "1", "--warmup", "0"],
    "doctor": ["doctor", "--runs", "1", "--timing-runs", "1"],
    "pack": ["pack", "-o", "{tmp}/pack"],
    "build": ["build", "-o", "{tmp}/build"],
    "compare": ["compare", "--runs", "1", "--warmup", "0", "--syscalls", "off", "--build-dir", "{tmp}/builds"],
}


class Hang:
    def __init__(self, tmp_path: Path):
        self.marker = f"{random.randint(100000, 999999)}.{os.getpid()}"
        self.ready = tmp_path / f"running-{self.marker}"
        self.tmpdir = tmp_path / "tmp"
        self.tmpdir.mkdir()
        self.work = tmp_path / "work"
        self.work.mkdir()
        self.code = (
            "import subprocess, time, pathlib; "
            f"subprocess.Popen(['sleep', '{self.marker}']); "
            f"pathlib.Path({str(self.ready)!r}).touch(); time.sleep(10**6)"
        )

    def start(self, command: str, *extra: str) -> subprocess.Popen:
        args = [a.format(tmp=self.work) for a in COMMANDS[command]]
        env = {**os.environ, "TMPDIR": str(self.tmpdir), "PYTHONPATH": str(REPO)}
        return start_importprof(
            [*args, *extra, "-c", self.code],
            cwd=self.work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL, start_new_session=True,  # our signals reach importprof's pid only
        )

    def wait_running(self, proc: subprocess.Popen, limit: float = 120) -> None:
        deadline = time.monotonic() + limit
        while not self.ready.exists():
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"importprof ended before the target ran (exit {proc.returncode}):\n{err[-3000:]}")
            if time.monotonic() > deadline:
                self.cleanup(proc)
                pytest.fail("the target never started")
            time.sleep(0.05)

    def left_running(self) -> list[str]:
        """Processes still alive that this test's importprof started (found by the marker)."""
        ps = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
        return [ln.strip() for ln in ps.splitlines() if self.marker in ln and "ps -eo" not in ln]

    def cleanup(self, proc: subprocess.Popen) -> None:
        """After a failure: end what is ours, by pid (importprof's group, then marked leftovers)."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for line in self.left_running():
            try:
                os.kill(int(line.split()[0]), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass

    def finish(self, proc: subprocess.Popen, limit: float = 120) -> tuple[int, str, str]:
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            self.cleanup(proc)
            out, err = proc.communicate()
            pytest.fail(f"importprof did not end within {limit} s:\n{err[-3000:]}")
        time.sleep(0.3)  # a killed group's members are reaped by init
        left = self.left_running()
        tmp_left = sorted(os.listdir(self.tmpdir))
        if left:
            self.cleanup(proc)
        shown = f"exit {proc.returncode}\n--stderr--\n{err[-3000:]}"
        assert not left, f"left running: {left}\n{shown}"
        assert not tmp_left, f"left in TMPDIR: {tmp_left}\n{shown}"
        assert "Traceback" not in err, shown
        return proc.returncode, out, err


def _one_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("importprof: error:")]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_timeout_kills_the_run_and_what_it_started(command, tmp_path):
    hang = Hang(tmp_path)
    proc = hang.start(command, "--timeout", "3")
    rc, _, err = hang.finish(proc)
    line = _one_error(err)
    assert rc == 3, err[-3000:]
    assert "did not finish within 3 s" in line, line


@pytest.mark.parametrize("command", list(COMMANDS))
def test_sigint_to_importprof_alone(command, tmp_path):
    hang = Hang(tmp_path)
    proc = hang.start(command)
    hang.wait_running(proc)
    os.kill(proc.pid, signal.SIGINT)
    rc, _, err = hang.finish(proc)
    assert rc == 130, err[-3000:]
    assert "interrupted" in _one_error(err)


@pytest.mark.parametrize("command,signame", [
    *((c, "SIGTERM") for c in ("startup", "imports", "trace", "report", "build")),
    # the terminal closing (SIGHUP) and SIGQUIT end importprof as SIGTERM does: children stopped,
    # the temporary folder removed, the shell's code for the signal
    *((c, s) for c in ("startup", "lazy", "doctor") for s in ("SIGHUP", "SIGQUIT")),
])
def test_terminating_signals(command, signame, tmp_path):
    hang = Hang(tmp_path)
    proc = hang.start(command)
    hang.wait_running(proc)
    signum = getattr(signal, signame)
    os.kill(proc.pid, signum)
    rc, _, err = hang.finish(proc)
    assert rc == 128 + signum, err[-3000:]
    assert f"terminated ({signame})" in _one_error(err)


def test_timeout_is_stated_in_help():
    out = subprocess.run([sys.executable, "-m", "profiler", "imports", "--help"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    text = " ".join(out.split())  # the help wraps at any word
    assert "--timeout SECONDS" in text and "default 60" in text and "at most 1000000" in text, out


def test_timeout_must_be_a_number_of_seconds(tmp_path):
    # 1e20 and 1e30: beyond what the OS can wait for (time_t, a C int of milliseconds)
    for bad in ("nan", "-1", "inf", "soon", "1e20", "1e30", "1000001"):
        proc = subprocess.run([sys.executable, "-m", "profiler", "imports", "--timeout", bad, "-c", "pass"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "--timeout" in _one_error(proc.stderr)


@pytest.mark.parametrize(
    "args,heading",
    [
        (["startup", "--runs", "500", "--warmup", "0", "-c", "import time; time.sleep(0.02)"], "interrupted: partial results"),
        (["report", "--runs", "500", "--warmup", "0", "--skip", "imports,trace,site", "-c", "import time; time.sleep(0.02)"],
         "interrupted: partial results"),
        (["compare", "--workload", "hello", "--runs", "500", "--warmup", "0", "--syscalls", "off"], "| traditional"),
    ],
    ids=["startup", "report", "compare"],
)
def test_ctrl_c_shows_the_runs_measured_so_far(args, heading, tmp_path):
    """Once a few runs are measured, Ctrl-C prints their table, then the one error line."""
    import threading

    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    extra = ["--build-dir", str(tmp_path / "builds")] if args[0] == "compare" else []
    proc = start_importprof([*args[:1], *extra, *args[1:]],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    lines: list[str] = []
    seen = threading.Event()

    def read():
        import re

        for line in proc.stderr:
            lines.append(line)
            if re.search(r"\d+ runs? each", line):  # the measuring phase's line ("1 command, 500 runs each"):
                seen.set()  # said at the first run measured after the command's first second

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not seen.wait(90):
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("no progress seen:\n" + "".join(lines[-20:]))
    time.sleep(3)  # a few rounds (progress lines are sparse once under way)
    os.kill(proc.pid, signal.SIGINT)
    out = proc.stdout.read()
    proc.wait(60)
    reader.join(10)
    err = "".join(lines)
    assert proc.returncode == 130, err[-3000:]
    assert heading in out, out[-3000:]
    assert "runs measured so far" in _one_error(err)


# ------------------------------------------------------------------ detached descendants
# A target whose child leaves its process group and session (setsid, as a daemon does) escapes
# killpg: importprof is the invocation's child subreaper, so the orphan comes back to it and is
# stopped after the run (with one warning), and a tracer (strace -f follows it) is not left
# waiting for it: the command ends when the target ends.
DETACHING = {
    "startup": ["startup", "--runs", "1", "--warmup", "0", "--variant", "default"],
    "imports": ["imports", "--runs", "1", "--warmup", "0"],
    "trace": ["trace"],
    "why": ["why", "subprocess", "--runs", "1"],
}


def _detaching_code(marker: str, then: str) -> str:
    return ("import subprocess; "
            f"subprocess.Popen(['setsid', 'sleep', '{marker}'], stdin=subprocess.DEVNULL); {then}")


@pytest.mark.parametrize("command", list(DETACHING))
def test_a_detached_descendant_is_stopped_when_the_target_ends(command, tmp_path):
    hang = Hang(tmp_path)
    env = {**os.environ, "TMPDIR": str(hang.tmpdir), "PYTHONPATH": str(REPO)}
    # the sleep holds the target's stdout and stderr: waiting for their end would wait 1000+ s
    proc = start_importprof([*DETACHING[command], "--timeout", "300", "-c", _detaching_code(hang.marker, "pass")],
                            cwd=hang.work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    rc, _, err = hang.finish(proc, limit=200)
    assert rc == 0, err[-3000:]
    assert "left processes running" in err and "stopped them" in err, err[-3000:]


@pytest.mark.parametrize("command", ["startup", "trace"])
def test_timeout_stops_detached_descendants_too(command, tmp_path):
    hang = Hang(tmp_path)
    env = {**os.environ, "TMPDIR": str(hang.tmpdir), "PYTHONPATH": str(REPO)}
    proc = start_importprof([*DETACHING[command], "--timeout", "3",
                             "-c", _detaching_code(hang.marker, "import time; time.sleep(10**6)")],
                            cwd=hang.work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    rc, _, err = hang.finish(proc)
    assert rc == 3, err[-3000:]
    assert "stopped it and every process it started" in _one_error(err)
