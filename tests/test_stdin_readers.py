"""Standard input's two readers (`-` read whole by `imports --from-log -`, a piece at a time by
`trace --from-log -`) go through one check (inputs.bounded._stdin_chunks), so they agree on what stdin
can be: a descriptor read as a file is, a stream without one (a library caller's io.StringIO)
read through the stream within the same input limit, closed or unreadable one line. The real
command line, in this process."""

from __future__ import annotations

import io

import pytest

from _inproc import run_main
from conftest import FIXTURES, assert_one_line_error

IMPORTTIME = (FIXTURES / "importtime" / "boto3.log").read_text()
STRACE = (FIXTURES / "strace" / "multiproc.log").read_text()


def _from_file(tmp_path, text, *args):
    path = tmp_path / "log"
    path.write_text(text)
    return run_main(*args, "--from-log", path, "--format", "json")


@pytest.mark.parametrize("command, text", [("imports", IMPORTTIME), ("trace", STRACE)])
def test_a_stream_without_a_descriptor_is_read_as_the_file_is(tmp_path, monkeypatch, command, text):
    want = _from_file(tmp_path, text, command)
    assert want.returncode == 0, want
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    got = run_main(command, "--from-log", "-", "--format", "json")
    assert got.returncode == 0, got
    a, b = want.json(), got.json()
    for doc in (a, b):
        doc.pop("machine")
        doc.pop("source", None)
    assert a == b


@pytest.mark.parametrize("command", ["imports", "trace"])
def test_an_unreadable_or_closed_stdin_is_one_line(monkeypatch, command):
    closed = io.StringIO("import time: x")
    closed.close()
    monkeypatch.setattr("sys.stdin", closed)
    assert_one_line_error(run_main(command, "--from-log", "-"), 2, "from standard input")
    monkeypatch.setattr("sys.stdin", None)
    assert_one_line_error(run_main(command, "--from-log", "-"), 2, "from standard input: it is closed")


@pytest.mark.parametrize("command", ["imports", "trace"])
def test_a_stream_past_the_input_limit_is_one_line(monkeypatch, command):
    monkeypatch.setenv("IMPORTPROF_MAX_INPUT_MB", "1")
    monkeypatch.setattr("sys.stdin", io.StringIO("x" * ((1 << 20) + 1)))
    assert_one_line_error(run_main(command, "--from-log", "-"), 2, "the input limit")
