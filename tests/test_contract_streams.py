"""The contract on the streams, through the real entry point (python -m profiler): a closed
stdout is silence (as a closed pipe), an ASCII locale gets '?' for what it cannot carry, file
names that are not UTF-8 round-trip into documents and pages, and progress is one line per
phase in a log, a bar on a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _battery import GOOD_DOC, READING, SLOW_TARGET, entry


# ------------------------------------------------------------------ streams (the real entry point)
# A closed stdout is silence (as a closed pipe), an ASCII locale gets '?' for what it cannot
# carry, file names that are not UTF-8 round-trip into documents and pages.
STREAM_COMMANDS = {**READING, "pythons": ("pythons",), "startup": ("startup", "--runs", "1", "--warmup", "0", "--variant", "default")}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STREAM_COMMANDS))
def test_a_closed_stdout_is_silence(name, tmp_path):
    proc = entry(STREAM_COMMANDS[name], tmp_path, close=1)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0 and "Traceback" not in err and "error" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STREAM_COMMANDS))
def test_an_ascii_locale_gets_replacements_not_a_traceback(name, tmp_path):
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}
    proc = entry(STREAM_COMMANDS[name], tmp_path, env=env)
    err = proc.stderr.decode("ascii", "replace")
    assert proc.returncode == 0 and "Traceback" not in err, err
    proc.stdout.decode("ascii")  # nothing the stream could not carry got through


@pytest.mark.slow
def test_file_names_that_are_not_utf8_round_trip(tmp_path):
    bad = os.fsencode(tmp_path) + b"/bad\xff.json"
    Path(os.fsdecode(bad)).write_bytes(Path(GOOD_DOC).read_bytes())
    page, doc = os.fsencode(tmp_path) + b"/page\xfe.html", os.fsencode(tmp_path) + b"/out\xfe.json"
    for args in (["report", "--from", os.fsdecode(bad), "-o", os.fsdecode(page)],
                 ["report", "--from", os.fsdecode(bad), "--format", "json", "-o", os.fsdecode(doc)],
                 ["diff", os.fsdecode(bad), os.fsdecode(bad)]):
        proc = entry(args, tmp_path)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert b"bad\xff.json" in Path(os.fsdecode(page)).read_bytes()
    assert b"bad\xff.json" in Path(os.fsdecode(doc)).read_bytes()  # the name's own bytes, not U+FFFD
    proc = entry(["show", os.fsdecode(bad), "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ progress in a log
PROGRESS_COMMANDS = {
    "startup": ("startup", "--runs", "4", "--warmup", "1", "--variant", "default,no-site", *SLOW_TARGET),
    "imports": ("imports", "--runs", "6", "--warmup", "1", *SLOW_TARGET),
    "trace": ("trace", "--variant", "default,no-site", *SLOW_TARGET),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PROGRESS_COMMANDS))
def test_progress_in_a_log_is_one_line_per_phase(name, tmp_path):
    """stderr not a terminal (a CI log): no counts, no bar, each phase's line at most once."""
    import re

    proc = entry(PROGRESS_COMMANDS[name], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    lines = [ln for ln in err.splitlines() if ln.startswith("importprof: ") and not ln.startswith(("importprof: warning", "importprof: note"))]
    progress = [ln for ln in lines if re.match(r"importprof: (measuring|importing|tracing)", ln)]
    assert progress, err  # the command ran for more than a second: its phase was said
    assert len(progress) == len(set(progress)), err
    assert not re.search(r"\(\d+/\d+\)|\brun \d+\b|\r|\x1b\[", err), err  # no counts, no fragments, no bar


@pytest.mark.slow
def test_progress_on_a_terminal_is_a_bar(tmp_path):
    """stderr a terminal: the bar is drawn there (and no plain phase lines)."""
    import pty

    import threading

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "IMPORTPROF_NO_HELP_CACHE": "1",
           "COLUMNS": "100", "TERM": "xterm"}
    chunks: list[bytes] = []

    def drain():  # read as it is drawn: a full terminal buffer would stop the writer
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the last writer closed its side
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.run([sys.executable, "-m", "profiler", *PROGRESS_COMMANDS["startup"]], cwd=tmp_path, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, timeout=300)
    finally:
        os.close(slave)
        reader.join(30)
        os.close(master)
    drawn = b"".join(chunks)
    assert proc.returncode == 0
    text = drawn.decode("utf-8", "replace")
    assert "measuring" in text and "\x1b[" in text, text[-2000:]
    assert "importprof: measuring" not in text, text[-2000:]


def test_plain_progress_says_each_phase_once(monkeypatch, capsys):
    """The plain lines, driven as the workflows drive them: an announced phase once, counts never,
    a part's counted updates under its announced name, nothing before the first second."""
    from profiler.commands._common import Progress
    from profiler.session import Phase, Session

    clock = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    session = Session()
    with Progress("report", session):
        session.progress(Phase("startup"))
        session.progress(Phase("startup", "2 commands, 10 runs each"))
        clock[0] = 2.0
        for i in range(1, 21):
            session.progress(Phase("startup", "default" if i % 2 else "no-site", i, 20))
        session.progress(Phase("imports"))
        for i in range(1, 6):
            session.progress(Phase("imports", f"run {i}", i, 5))
        session.progress(Phase("", done=5, total=5))
    with Progress("checking", session):
        clock[0] = 10.0
        for name in ("cli", "cli", "api"):
            session.progress(Phase(name, "imports", 1, 3))
            session.progress(Phase(name, "wall time", 1, 3))
    with Progress("quick", session):
        session.progress(Phase("1 command"))
        session.progress(Phase("default", done=1, total=1))
    session.progress(Phase("after", done=1, total=1))  # no display once the command's ended: nothing
    err = capsys.readouterr().err.splitlines()
    assert err == ["importprof: report: startup: 2 commands, 10 runs each", "importprof: report: imports",
                   "importprof: checking: cli", "importprof: checking: api"], err
