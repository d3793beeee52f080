"""The harness capture (capture/harness.py): every process a command starts, under the real
strace, with real interpreters; no mocks."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest
from profiler.session import Session

STRACE = "/usr/bin/strace"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not os.path.exists(STRACE), reason="strace is not installed (make setup installs it)")]

HARNESS = textwrap.dedent(
    """
    import subprocess, sys
    # as test suites do: interpreters in a loop, output captured, some with -S, one -I, one nested
    for i in range(3):
        subprocess.run([sys.executable, "-c", "import json; print(%d)" % i], capture_output=True, check=True)
    subprocess.run([sys.executable, "-S", "-c", "import csv"], capture_output=True, check=True)
    subprocess.run([sys.executable, "-I", "-c", "import email"], check=True)
    subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import decimal'], stderr=subprocess.DEVNULL)"], check=True)
    subprocess.run(["/bin/sh", "-c", "exit 3"])
    subprocess.run([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"])
    sys.exit(5)
    """
)


def _modules(record) -> list[str]:
    return [ln.rsplit("|", 1)[1].strip() for ln in record.importtime[1:]]


def test_every_process_of_a_harness(real_python, tmp_path):
    from profiler.capture.harness import capture_processes

    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    cap = capture_processes([real_python, str(script)], cwd=str(tmp_path), session=Session())
    assert cap.returncode == 5  # returned, not raised
    procs = cap.processes
    assert [p.index for p in procs] == list(range(len(procs)))
    pys = cap.python_processes
    root = pys[0]
    assert root.argv == (real_python, str(script)) and root.parent is None and root.exit_code == 5
    by_code = {p.argv[-1]: p for p in pys[1:]}
    for i in range(3):
        p = by_code[f"import json; print({i})"]
        # the harness captured the child's stderr, yet its own import time lines are known
        assert p.parent == root.index and p.exit_code == 0 and "json" in _modules(p), p
        assert p.importtime[0].startswith("import time: self [us]")
    assert "csv" in _modules(by_code["import csv"]) and by_code["import csv"].argv[1] == "-S"
    isolated = by_code["import email"]
    assert isolated.is_python and isolated.importtime is None and "-E/-I" in isolated.importtime_note
    nested = by_code["import decimal"]
    middle = procs[nested.parent]
    assert middle.parent == root.index and middle.argv[1] == "-c" and middle.is_python
    assert "decimal" in _modules(nested) and "decimal" not in _modules(middle)
    killed = by_code["import os; os.kill(os.getpid(), 9)"]
    assert killed.signal == "SIGKILL" and killed.exit_code is None
    sh = [p for p in procs if p.executable == "/bin/sh"]
    assert len(sh) == 1 and not sh[0].is_python and sh[0].exit_code == 3 and sh[0].importtime is None
    # wall times from exec to exit, inside the command's own wall time
    for p in pys:
        if p.signal is None:
            assert 0 < p.wall_s <= cap.wall_s, p
    assert all(procs[p.parent].start_s <= p.start_s for p in procs if p.parent is not None)
    assert root.wall_s <= cap.span_s <= cap.wall_s  # the command alone, within what importprof timed
    # the program's own output is captured, not mixed into ours
    assert "import time:" in cap.stderr
    doc = cap.to_dict()
    assert doc["processes"][isolated.index]["importtime"] is None
    assert doc["processes"][isolated.index]["argv"] == list(isolated.argv)


def test_pytest_over_a_folder_that_spawns_interpreters(tmp_path):
    from profiler.capture.harness import capture_processes

    (tmp_path / "test_spawn.py").write_text(
        textwrap.dedent(
            """
            import subprocess, sys
            def test_a():
                assert subprocess.run([sys.executable, "-c", "import fractions"], capture_output=True).returncode == 0
            def test_b():
                assert subprocess.run([sys.executable, "-S", "-c", "import textwrap"], capture_output=True).returncode == 0
            """
        )
    )
    cap = capture_processes([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)], cwd=str(tmp_path), session=Session())
    assert cap.returncode == 0, cap.stdout + cap.stderr
    pys = cap.python_processes
    assert pys[0].argv[1:3] == ("-m", "pytest") and "pytest" in _modules(pys[0])
    children = [p for p in pys if p.parent == pys[0].index]
    assert sorted(p.argv[-1] for p in children) == ["import fractions", "import textwrap"]
    assert all(p.importtime for p in children)


def test_a_command_that_cannot_start(tmp_path):
    from profiler.capture.harness import capture_processes
    from profiler.errors import TargetFailed

    notes = tmp_path / "notes.txt"
    notes.write_text("not a program\n")
    notes.chmod(0o755)
    for argv in ([str(notes)], ["no-such-command-here"], [str(tmp_path)]):
        with pytest.raises(TargetFailed) as info:
            capture_processes(argv, session=Session())
        assert "\n" not in str(info.value) and "cannot run the target" in str(info.value), argv


def test_ignores_environment():
    from profiler.parse.processes import ignores_environment

    assert ignores_environment(["python3", "-I", "-c", "pass"])
    assert ignores_environment(["python3", "-sE", "x.py"])
    assert ignores_environment(["python3", "-X", "dev", "-E", "x.py"])
    assert not ignores_environment(["python3", "-c", "import sys; sys.argv == ['-E']", "-E"])
    assert not ignores_environment(["python3", "-X", "E", "x.py"])
    assert not ignores_environment(["python3", "x.py", "-I"])
    assert not ignores_environment(["python3", "-cE"])  # -c's code is "E"


def test_a_pyenv_shim_is_no_interpreter():
    """python3 on PATH may be a `#!` script (a pyenv shim) that execs bash, then the real
    interpreter in the same pid: only the real one is a Python process."""
    import shutil

    from profiler.capture.harness import capture_processes

    shim = shutil.which("python3")
    with open(shim, "rb") as fh:
        if fh.read(2) != b"#!":
            pytest.skip("python3 on PATH is no script here")
    cap = capture_processes(["python3", "-c", "import json"], session=Session())
    assert cap.returncode == 0
    first = cap.processes[0]
    assert first.executable == shim and not first.is_python and first.importtime_note is None
    pys = cap.python_processes
    assert len(pys) == 1 and pys[0].pid == first.pid and pys[0].replaced is not None
    assert "json" in _modules(pys[0])
