"""Shared fixtures: real interpreters and the real CLI (no mocks)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# tests read each warning on its own line (the default sums them up in one line after the
# output: tests/test_real_programs.py checks that with IMPORTPROF_VERBOSE=0)
os.environ.setdefault("IMPORTPROF_VERBOSE", "1")
# every warning importprof says is typed where it is said (session.py: _typed_if_ours): a plain
# string from inside profiler/ fails the test; the modules after `except:` still say plain words
# (issue 43 item 2, tests/test_warnings_typed.py: STILL_PLAIN)
STILL_PLAIN = ("profiler.commands._imports_run", "profiler.compose.startup")
os.environ.setdefault("IMPORTPROF_TYPED_WARNINGS", "except:" + ",".join(STILL_PLAIN))


def _real(python: str) -> str:
    out = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.fixture(scope="session")
def real_python() -> str:
    """The base interpreter behind `python3` on PATH (pyenv shim resolved)."""
    which = shutil.which("python3")
    assert which, "python3 not on PATH"
    return _real(which)


@pytest.fixture(scope="session")
def debian_python() -> str:
    path = "/usr/bin/python3.11"
    if not os.path.exists(path):
        pytest.skip("Debian's python3.11 is not installed (make setup installs it)")
    return path


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


class CLIResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)

    def __repr__(self) -> str:  # shown by pytest on failure
        return f"<CLIResult rc={self.returncode}\n--stdout--\n{self.stdout[-3000:]}\n--stderr--\n{self.stderr[-3000:]}>"


@pytest.fixture(scope="session")
def cli():
    """Run the real `importprof` (this venv's console script entry) as a subprocess."""

    def run(*args, cwd=None, env=None, input=None, timeout=600) -> CLIResult:
        e = dict(os.environ)
        e.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "profiler", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=e,
            input=input,
            timeout=timeout,
        )
        return CLIResult(proc)

    return run


def assert_one_line_error(res: CLIResult, code: int, *needles: str) -> str:
    """A failure: the exit code, no traceback, and one `importprof: error:` line naming it."""
    assert res.returncode == code, res
    # importprof's own traceback starts a line; the program's, quoted as detail, is indented "  | "
    assert not any(ln.startswith("Traceback") for ln in res.stderr.splitlines()), res
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("importprof: error:")]
    assert len(errors) == 1, res
    for n in needles:
        assert n.lower() in errors[0].lower(), res
    return errors[0]


# --- `make test-fast`: unit tests only, and it is checked -------------------------------------
SPAWNING_FIXTURES = {"cli", "real_python", "debian_python"}


def pytest_collection_modifyitems(config, items):
    """A test that uses a fixture that runs interpreters is slow, marked or not."""
    for item in items:
        if SPAWNING_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


# --- `make test` runs the suite on one worker per core (pytest-xdist, `--dist loadfile`: a test
# module's tests run on one worker, in order, so a module's fixtures run once as in one process;
# not `--dist loadgroup`: with pytest 9.2, xdist 3.8 cannot tag a node id with its group, and
# every test would be scheduled alone)
@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """The workers see the terminal variables the suite was started with. pytest's process has
    loaded readline, which exports COLUMNS and LINES (80x24) into the C environment a child
    inherits (os.environ does not show them): a worker would start with them in os.environ, and
    tables on a terminal, click's help and every importprof a test starts would be drawn 80 wide."""
    node.workerinput["importprof_terminal_env"] = {k: os.environ.get(k) for k in ("COLUMNS", "LINES")}


def pytest_configure(config):
    for key, value in getattr(config, "workerinput", {}).get("importprof_terminal_env", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def _no_process_in_fast_tests(request, monkeypatch):
    """Under `make test-fast` (IMPORTPROF_TEST_FAST=1) a test not marked slow may not start a
    process: it fails, naming the mark it lacks, instead of making the fast run slow."""
    if not os.environ.get("IMPORTPROF_TEST_FAST") or request.node.get_closest_marker("slow"):
        return

    def refuse(*args, **kwargs):
        raise AssertionError(f"{request.node.nodeid} starts a process: mark it @pytest.mark.slow")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)
    monkeypatch.setattr(os, "fork", refuse)


def examples(n: int) -> int:
    """A property test's number of examples: all of them in `make test`, a tenth (at least 10) in
    the quick lane (`make test-fast`, IMPORTPROF_TEST_FAST=1), which every edit runs."""
    return max(10, n // 10) if os.environ.get("IMPORTPROF_TEST_FAST") else n


def lane(values, quick) -> list:
    """Parameters for both lanes: every value in `make test`; in the quick lane only those in
    `quick` (the others marked slow), so an equivalence over every real log keeps one or two
    representatives for each edit and the whole set for CI."""
    return [v if v in quick else pytest.param(v, marks=pytest.mark.slow) for v in values]


def write_tree(root: Path, files: dict) -> Path:
    """A small project on disk: {relative path: text}; folders made as needed. Returns root."""
    for rel, text in files.items():
        p = Path(root) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return Path(root)


@pytest.fixture(autouse=True)
def _typed_warnings_read_as_their_words_did(monkeypatch):
    """Each typed warning importprof says in a test's own process is counted under the label,
    and said once with the figures, that its words give when read as plain words (model/warnings.py
    _read_untyped, as every warning was read before it was typed): the summary line byte for
    byte. Warnings said in a CLI test's child process are not seen here (tests/test_warnings_typed.py
    holds each place's fields)."""
    from profiler.model.warnings import RunWarning
    from profiler.session import Session

    said = Session._say

    def checked(self, warning, message):
        if warning.kind is not None:
            read = RunWarning.of(warning.text)
            assert (warning.figures, warning.label) == (read.figures, read.label), warning.text
        return said(self, warning, message)

    monkeypatch.setattr(Session, "_say", checked)
