"""What the README and the docs/ pages state as fact, checked against the real thing: the interpreter table of
`importprof pythons`, the error line's format and exit codes, the program's stdin."""

from __future__ import annotations

import os
import re

import pytest

from test_readme import pages_text

README = pages_text()  # the README and the docs/ pages: what they state as fact


def _table_after(marker: str) -> list[dict]:
    """The first fenced table after `marker`, as rows keyed by its header."""
    text = README[README.index(marker):]
    lines = [ln for ln in text.split("```\n", 2)[1].splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[1:]]


@pytest.mark.slow
def test_the_interpreter_table_says_what_importprof_pythons_says(cli):
    rows = _table_after("which commands and variants each can serve")
    present = [r for r in rows if os.path.exists(r["python"])]
    assert len(present) >= 3, rows
    args = [a for r in present for a in ("--python", r["python"])]
    res = cli("pythons", *args, "--format", "json")
    assert res.returncode == 0, res
    table = cli("pythons", *args)
    now = {r["python"]: r for r in _rows(table.stdout)}
    for r in present:
        assert (now[r["python"]]["version"], now[r["python"]]["commands"], now[r["python"]]["variants"]) == \
            (r["version"], r["commands"], r["variants"]), r["python"]


def _rows(text: str) -> list[dict]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[1:]]


ERROR_LINE = re.compile(r"^importprof: error: \S.*$")


@pytest.mark.slow
def test_a_failure_is_one_error_line_with_the_stated_exit_code(cli, fixtures):
    assert "a failure is one line on stderr, `importprof: error: MESSAGE`, with\nexit code 2 (usage, bad input), 3 (the " \
           "program or a tool failed) or 1 (a gate), never a\ntraceback" in README
    cases = [
        (("startup", "--runs", "many"), 2),
        (("imports", "--python", "/no/such/python"), 2),
        (("startup", "--runs", "1", "--warmup", "0", "-m", "nonexistent_mod"), 3),
        (("imports", "--from-log", fixtures / "importtime" / "boto3.log", "--budget", "0"), 1),
    ]
    for args, code in cases:
        res = cli(*args)
        assert res.returncode == code, res
        errors = [ln for ln in res.stderr.splitlines() if ln.startswith("importprof: error:")]
        assert len(errors) == 1 and ERROR_LINE.match(errors[0]), res
        assert "Traceback" not in res.stderr, res


STDIN_IS_DEV_NULL = "import os, sys; sys.exit(0 if os.path.realpath('/proc/self/fd/0') == '/dev/null' else 7)"


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ("startup", "--runs", "1", "--warmup", "0", "--variant", "default"),
    ("imports", "--runs", "1", "--warmup", "0"),
    ("trace",),
    ("why", "os"),
    ("lazy", "--runs", "1", "--warmup", "0", "--profile-runs", "1"),
])
def test_the_programs_stdin_is_dev_null(cli, real_python, command):
    assert "the program's stdin is `/dev/null`" in README
    # importprof's own stdin is a pipe with data: the program must not get it
    res = cli(*command, "--python", real_python, "-c", STDIN_IS_DEV_NULL, input="data the program must not read\n")
    assert res.returncode == 0, res
