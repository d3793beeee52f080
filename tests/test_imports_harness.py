"""`importprof imports -- COMMAND` on a real harness: per process, summed, the
headline; and logs of many processes drawn within bounds. Real interpreters, real
strace (through capture/harness.py)."""

from __future__ import annotations

import sys

import pytest

from profiler.parse.importtime import parse_importtime
from profiler.render.console_imports import ImportsView, render_imports_table
from profiler.workflows.imports import add_processes, report_from_logs

HARNESS = """\
import subprocess, sys
for code in ("import json", "import csv", "import email.parser"):
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
subprocess.run([sys.executable, "-S", "-c", "import json"], check=True)
subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import csv'], check=True)"], check=True)
"""


@pytest.fixture()
def harness(tmp_path):
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    return script


def test_harness_json_per_process_summed_and_headline(cli, real_python, harness):
    res = cli("imports", "--runs", 2, "--warmup", 0, "--format", "json", "--", real_python, harness, cwd=harness.parent)
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.imports/1" and doc["processes"] == 7
    per = doc["per_process"]
    assert [p["index"] for p in per] == list(range(7))
    assert per[0]["argv"] == [real_python, str(harness)] and per[0]["parent"] is None
    assert [p["argv"][1:] for p in per[1:]] == [
        ["-c", "import json"], ["-c", "import csv"], ["-c", "import email.parser"], ["-S", "-c", "import json"],
        ["-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import csv'], check=True)"], ["-c", "import csv"],
    ]  # the children whose stderr the harness captured are there too
    assert [p["parent"] for p in per] == [None, 0, 0, 0, 0, 0, 5]  # one level nested
    assert all(p["python"] == real_python and p["wall_s"] > 0 and p["imports_us"] > 0 for p in per)
    summed = {m["name"]: m for m in doc["summed"]}
    assert summed["site"]["processes"] == 6  # every process but the -S one
    assert summed["csv"]["processes"] == 2 and summed["email.parser"]["processes"] == 1
    by_process: dict[str, set] = {}
    for m in doc["modules"]:
        by_process.setdefault(m["name"], set()).add(m["process"])
    assert all(m["processes"] == len(by_process[m["name"]]) for m in doc["summed"])
    cums = [m["cumulative_us"] for m in doc["summed"]]
    assert cums == sorted(cums, reverse=True)
    h = doc["harness"]
    assert h["python_processes"] == 7 and h["imports_us"] == sum(p["imports_us"] for p in per)
    assert h["capture"] == "strace" and h["command_wall_s"] > 0 and h["imports_share"] == pytest.approx(h["imports_us"] / 1e6 / h["command_wall_s"], abs=1e-3)


def test_harness_console_summary_above_the_module_tables(cli, real_python, harness):
    res = cli("imports", "--runs", 1, "--warmup", 0, "--top", 3, "--", real_python, harness, cwd=harness.parent)
    assert res.returncode == 0, res
    out = res.stdout
    assert "harness: 7 Python processes" in out and "import time / the command's wall time" in out
    assert "read through strace" in out
    at = [out.index(s) for s in ("harness: 7 Python processes", "Python processes (7; top 3", "modules summed over the processes", "import tree per process")]
    assert at == sorted(at)
    assert "… 4 more (--top 3)" in out


def test_pytest_over_tests_that_spawn_interpreters(cli, tmp_path):
    tests = tmp_path / "suite"
    tests.mkdir()
    (tests / "test_spawn.py").write_text(
        "import subprocess, sys\n"
        "def test_a():\n    subprocess.run([sys.executable, '-c', 'import json'], check=True)\n"
        "def test_b():\n    subprocess.run([sys.executable, '-I', '-c', 'import csv'], check=True)\n"  # -I: ignores the variable
        "def test_c():\n    subprocess.run([sys.executable, '-c', 'import csv'], check=True, capture_output=True)\n"
    )
    res = cli("imports", "--runs", 1, "--warmup", 0, "--format", "json", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests, cwd=tmp_path)
    assert res.returncode == 0, res
    doc = res.json()
    per = doc["per_process"]
    assert doc["processes"] == 3 and per[0]["argv"][1:3] == ["-m", "pytest"]
    assert [p["argv"][1:] for p in per[1:]] == [["-c", "import json"], ["-c", "import csv"]]
    assert {m["name"] for m in doc["modules"] if m["process"] == 0} >= {"pytest", "_pytest"}


HEADER = "import time: self [us] | cumulative | imported package\n"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def test_a_log_of_many_processes_draws_only_the_rows_it_shows(fixtures):
    one = HEADER + "".join(row(10, 10, 1, f"m{i}") for i in range(30)) + row(5, 305, 0, "pkg")
    log = parse_importtime(one * 200)
    report = add_processes(report_from_logs([log], machine={}, python=None, python_version=None, target=None, source="log"))
    assert report.processes == 200 and len(report.per_process) == 200 and report.harness is None
    assert report.summed[0].name == "pkg" and report.summed[0].processes == 200 and report.summed[0].cumulative_us == 200 * 305
    out = render_imports_table(report, tty=False, view=ImportsView(min_ms=0, top=10))
    assert len(out.splitlines()) < 400 + 60  # 6,200 tree lines otherwise
    assert "the tree is cut after 400 of 6200 lines (200 processes)" in out
    assert "… 190 more (--top 10)" in out
    doc = report.to_dict()
    assert doc["per_process"][0] == {"index": 0, "argv": None, "python": None, "parent": None, "wall_s": None, "imports_us": 305}
    back = type(report).from_dict(doc)
    assert back.per_process == report.per_process and back.summed == report.summed


def test_log_with_several_headers_gets_per_process_and_summed(cli, fixtures):
    doc = cli("imports", "--from-log", fixtures / "importtime" / "command_subprocesses.log", "--format", "json").json()
    assert doc["processes"] == 3 and len(doc["per_process"]) == 3 and "harness" not in doc
    assert {m["name"] for m in doc["summed"]} >= {"json", "csv", "site"}


def test_without_strace_the_command_stderr_is_read_with_a_warning(cli, real_python, harness):
    res = cli("imports", "--runs", 1, "--warmup", 0, "--format", "json", "--", real_python, harness, cwd=harness.parent, env={"PATH": "/nonexistent"})
    assert res.returncode == 0, res
    assert "strace not found" in res.stderr and "reading the command's stderr instead" in res.stderr
    doc = res.json()
    # the three children whose stderr the harness captured are missed that way
    assert doc["processes"] == 4 and "harness" not in doc and all(p["argv"] is None for p in doc["per_process"])
