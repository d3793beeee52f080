"""What the contract's test modules share (test_contract_battery.py, test_contract_outputs.py,
test_contract_streams.py, test_contract_concurrency.py): valid inputs from the fixtures, the
commands that write an output, and the real command line run in this process (`in_process`,
`call`), as `python -m profiler` (`in_subprocess`, `entry`), with the one error line a failure
says (`one_error`)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
GOOD_LOG = str(FIXTURES / "importtime" / "cryptography_fernet.log")
GOOD_DOC = str(FIXTURES / "report" / "imports.json")
SLOW_TARGET = ("-c", "import time; time.sleep(0.2)")

OUTPUT_COMMANDS = {
    "show": ("show", GOOD_DOC),
    "diff": ("diff", GOOD_DOC, GOOD_DOC),
    "why-report": ("why", "json", "--report", GOOD_DOC),
    "imports-from-log": ("imports", "--from-log", GOOD_LOG),
    "trace-from-log": ("trace", "--from-log", str(FIXTURES / "strace" / "multiproc.log")),
    "report-from": ("report", "--from", GOOD_DOC),
    # these would measure: the output is checked first, so they fail at once
    "startup": ("startup", "--runs", "1", "--warmup", "0"),
    "imports": ("imports", "--runs", "1", "--warmup", "0"),
    "trace": ("trace",),
    "why": ("why", "json", "--runs", "1"),
    "site": ("site", "--runs", "1"),
    "report": ("report", "--runs", "1", "--warmup", "0"),
    "compare": ("compare", "--workload", "hello", "--runs", "1", "--warmup", "0", "--syscalls", "off"),
    "lazy": ("lazy", "--runs", "1", "--warmup", "0"),
    "doctor": ("doctor",),
    "pythons": ("pythons",),
    "check": ("check",),
    "bisect": ("bisect", "--good", "HEAD~1", "--bad", "HEAD", "--check", "x"),
}
READING = {k: v for k, v in OUTPUT_COMMANDS.items() if k in ("show", "diff", "why-report", "imports-from-log", "trace-from-log", "report-from")}


def _stdin_for(kind: str | None, folder: Path):
    if kind is None:
        return open(os.devnull)
    if kind == "closed":
        return None  # what Python makes of a closed descriptor 0
    if kind == "zero":
        return open("/dev/zero")
    big = folder / "big-stdin"
    big.write_bytes(b"x" * ((2 << 20) + 1))
    return open(big)


def in_process(args: list[str], cwd: Path, tmp: Path, env=(), stdin: str | None = None) -> tuple[int, str, str]:
    from profiler.commands import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)}
    old_cwd, old_tmp, old_env = os.getcwd(), tempfile.tempdir, os.environ.get("TMPDIR")
    old_extra = {k: os.environ.get(k) for k, _ in env}
    old_stdin = sys.stdin
    os.chdir(cwd)
    tempfile.tempdir = str(tmp)
    os.environ["TMPDIR"] = str(tmp)
    os.environ.update(dict(env))
    sys.stdin = _stdin_for(stdin, tmp.parent)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except BaseException:  # what main() let out: the traceback a user would see
                import traceback

                err.write("Traceback (most recent call last):\n" + traceback.format_exc())
                rc = 1
    finally:
        if sys.stdin is not None:
            sys.stdin.close()
        sys.stdin = old_stdin
        for k, v in old_extra.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.chdir(old_cwd)
        tempfile.tempdir = old_tmp
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        for s, h in handlers.items():
            signal.signal(s, h)
    out.flush()
    return rc, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue()


def in_subprocess(args: list[str], cwd: Path, tmp: Path, env=(), stdin: str | None = None) -> tuple[int, str, str]:
    full = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(Path(__file__).resolve().parent.parent), **dict(env)}
    source = _stdin_for(stdin, tmp.parent)
    try:
        proc = subprocess.run([sys.executable, "-m", "profiler", *args], cwd=cwd, env=full, capture_output=True, text=True,
                              stdin=source if source is not None else subprocess.DEVNULL, timeout=300,
                              preexec_fn=(lambda: os.close(0)) if stdin == "closed" else None)
    finally:
        if source is not None:
            source.close()
    return proc.returncode, proc.stdout, proc.stderr


def call(args: list[str], root: Path, **kw) -> tuple[int, str, str]:
    cwd, tmp = root / "work", root / "tmp"
    for d in (cwd, tmp):
        d.mkdir(exist_ok=True)
    rc, out, err = in_process(args, cwd, tmp, **kw)
    assert "Traceback" not in err, err
    assert os.listdir(tmp) == [], f"left in the temporary folder: {os.listdir(tmp)}"
    return rc, out, err


def one_error(rc: int, err: str, code: int, *needles: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("importprof: error:")]
    assert rc == code and len(lines) == 1, f"exit {rc}\n{err}"
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def entry(args, cwd: Path, env=None, close=None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "IMPORTPROF_NO_HELP_CACHE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "profiler", *args], cwd=cwd, env=full,
                          stdout=None if close == 1 else subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300,
                          preexec_fn=(lambda: os.close(close)) if close is not None else None)
