"""`importprof imports` and `show` end to end: real interpreters, real logs, failure paths."""

from __future__ import annotations

import json

from conftest import assert_one_line_error


def test_capture_json(cli, real_python):
    res = cli("imports", "--python", real_python, "--runs", 2, "--warmup", 0, "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.imports/1" and doc["runs"] == 2
    assert doc["python"] == real_python and doc["python_version"].startswith("3.")
    by = {m["name"]: m for m in doc["modules"]}
    assert by["json"]["parent"] is None and by["json"]["depth"] == 0
    assert by["json.decoder"]["parent"] == "json"
    assert len(by["json"]["self_us_runs"]) == 2 and by["json"]["runs_seen"] == 2
    assert doc["total_us"] > 0


def test_table_tree_top_group_filter(cli, real_python):
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "--min-ms", 0, "--filter", "json", "-c", "import json")
    assert res.returncode == 0, res
    assert "json.decoder" in res.stdout and "import tree" in res.stdout
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "--view", "top", "--top", 3, "--group", "kind", "-c", "import json")
    assert res.returncode == 0, res
    assert "top 3 by self" in res.stdout and "by kind" in res.stdout
    assert "stdlib" in res.stdout and "frozen" in res.stdout


def test_group_kind_and_distribution_in_json(cli, real_python, tmp_path):
    (tmp_path / "localmod.py").write_text("import json\n")
    script = tmp_path / "main.py"
    script.write_text("import localmod, certifi\n")
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "--group", "kind", "--format", "json", str(script))
    assert res.returncode == 0, res
    doc = res.json()
    kinds = {m["name"]: m["kind"] for m in doc["modules"]}
    assert kinds["localmod"] == "local" and kinds["json"] == "stdlib" and kinds["certifi"] == "site-packages"
    assert kinds["posix"] == "builtin" and kinds["zipimport"] == "frozen"
    assert {g["name"] for g in doc["groups"]} >= {"local", "stdlib", "site-packages", "builtin", "frozen"}
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "--group", "distribution", "--format", "json", str(script))
    dists = {m["name"]: m["distribution"] for m in res.json()["modules"]}
    assert dists["certifi"] == "certifi" and dists["json"] == "python"


def test_command_target_reports_every_python_process(cli, real_python):
    code = f"import subprocess; subprocess.run([{real_python!r}, '-c', 'import csv'])"
    res = cli("imports", "--runs", 1, "--warmup", 0, "--format", "json", "--", real_python, "-c", code)
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["processes"] == 2 and doc["python"] is None
    assert any(m["name"] == "csv" and m["process"] == 1 for m in doc["modules"])


def test_from_log_file_and_stdin(cli, fixtures):
    log = fixtures / "importtime" / "boto3.log"
    a = cli("imports", "--from-log", log, "--format", "json")
    b = cli("imports", "--from-log", "-", "--format", "json", input=log.read_text())
    assert a.returncode == 0 and b.returncode == 0, (a, b)
    assert a.json()["modules"] == b.json()["modules"]
    assert a.json()["python"] is None and a.json()["source"] == "log"


def test_formats_to_files(cli, fixtures, tmp_path):
    log = fixtures / "importtime" / "cryptography_fernet.log"
    for fmt in ("speedscope", "chrome", "folded", "json"):
        out = tmp_path / f"out.{fmt}"
        res = cli("imports", "--from-log", log, "--format", fmt, "-o", out)
        assert res.returncode == 0, res
        assert "import tree" in res.stdout  # -o still prints the table
        text = out.read_text()
        if fmt != "folded":
            json.loads(text)
        else:
            assert "cryptography.fernet" in text


def test_show_renders_a_saved_report(cli, fixtures, tmp_path):
    out = tmp_path / "r.json"
    assert cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "-o", out).returncode == 0
    res = cli("show", out, "--view", "top", "--top", 4)
    assert res.returncode == 0 and "top 4 by cumulative" in res.stdout, res
    res = cli("show", out, "--format", "json")
    assert res.json() == json.loads(out.read_text())
    res = cli("show", out, "--format", "folded")
    assert res.stdout == (fixtures / "importtime" / "golden" / "boto3.folded").read_text()


def test_budget_gate(cli, fixtures):
    log = fixtures / "importtime" / "boto3.log"  # total 324.2 ms
    assert cli("imports", "--from-log", log, "--budget", 1000).returncode == 0
    res = cli("imports", "--from-log", log, "--budget", 100)
    assert_one_line_error(res, 1, "over the budget")
    assert "import tree" in res.stdout  # the table still comes


def test_failures(cli, fixtures, tmp_path, real_python):
    assert_one_line_error(cli("imports", "--from-log", tmp_path / "missing.log"), 2, "no such file")
    empty = tmp_path / "empty.log"
    empty.write_text("nothing here\n")
    assert_one_line_error(cli("imports", "--from-log", empty), 2, "no import time rows")
    bad = tmp_path / "bad.log"
    bad.write_text("import time: self [us] | cumulative | imported package\nimport time:   1x |   2 | json\n")
    assert_one_line_error(cli("imports", "--from-log", bad), 2, "line 2")
    assert_one_line_error(cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "--view", "flat"), 2, "--view")
    assert_one_line_error(cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "--format", "svg"), 2, "--format")
    assert_one_line_error(cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "--group", "kind"), 2, "--python")
    assert_one_line_error(cli("imports", "--from-log", fixtures / "importtime" / "boto3.log", "--group", "size"), 2, "--group")
    assert_one_line_error(cli("imports", "--runs", 0, "-c", "pass"), 2, "--runs")
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "-c", "import sys, json; sys.stderr.write('boom here\\n'); sys.exit(1)")
    assert_one_line_error(res, 3, "exited with code 1")
    assert "boom here" in res.stderr
    assert "import time:" not in res.stderr  # rows kept apart from the program's stderr
    out = tmp_path / "never.json"
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "-o", out, "-c", "raise SystemExit(4)")
    assert_one_line_error(res, 3, "code 4")
    assert not out.exists()
    assert_one_line_error(cli("imports", "--python", "/nonexistent/python", "-c", "pass"), 2, "interpreter")
    # a target that cannot run: exit 3, as in every command
    assert_one_line_error(cli("imports", "--runs", 1, "--warmup", 0, "--", "/nonexistent/cmd"), 3, "cannot run /nonexistent/cmd")
    assert_one_line_error(cli("show", tmp_path / "missing.json"), 2, "no such file")
    notjson = tmp_path / "x.json"
    notjson.write_text("{")
    assert_one_line_error(cli("show", notjson), 2, "not JSON")
    notjson.write_text('{"schema": "importprof.startup/1"}')
    assert_one_line_error(cli("show", notjson), 2, "importprof.imports/1")


def test_help_lists_the_commands(cli):
    res = cli("--help")
    assert res.returncode == 0
    for name in ("imports", "show", "diff", "why"):
        assert name in res.stdout


def test_a_program_that_exits_non_zero_on_purpose_is_measured_with_ignore_failure(cli, real_python, tmp_path):
    """A red test suite or a linter exits 1 and its imports are still worth reading (QA P2)."""
    code = "import json, sys; sys.stderr.write('1 test failed\\n'); sys.exit(1)"
    res = cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "-c", code)
    assert_one_line_error(res, 3, "exited with code 1", "--ignore-failure")
    assert "1 test failed" in res.stderr and "import time:" not in res.stderr  # the program's stderr, not import rows
    ok = cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "-i", "--format", "json", "-c", code)
    assert ok.returncode == 0, ok
    assert "json" in {m["name"] for m in ok.json()["modules"]}
    (tmp_path / "h.py").write_text("import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import csv']); sys.exit(1)\n")
    harness = cli("imports", "--runs", "1", "--warmup", "0", "-i", "--format", "json", "--", real_python, "h.py", cwd=tmp_path)
    assert harness.returncode == 0 and harness.json()["harness"]["python_processes"] == 2, harness


def test_a_harness_process_with_unreadable_import_lines_is_named_not_dropped(cli, real_python, tmp_path):
    """A child whose import time lines cannot be read is counted among the unreached, with why."""
    (tmp_path / "h.py").write_text(
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', 'import sys; sys.stderr.write(\"import time: x | 2 | bad\\\\n\")'])\n"
    )
    res = cli("imports", "--runs", "1", "--warmup", "0", "--format", "json", "--", real_python, "h.py", cwd=tmp_path)
    assert res.returncode == 0, res
    h = res.json()["harness"]
    assert h["python_processes_total"] == 2
    assert any("its import time lines" in u["reason"] for u in h["unreached"]), h
    assert "wrote no import times" in res.stderr


def test_headers_runs_reads_each_header_as_a_run_and_the_level_is_1_or_2(cli, fixtures):
    """--headers runs: a log of three runs of one program is that program over three runs (one
    record per module, three values each); without --from-log, or an unknown value, it is a
    usage error. --importtime-level takes 1 or 2 (CPython refuses the others at start-up)."""
    text = (fixtures / "importtime" / "boto3.log").read_text()
    log = cli("imports", "--from-log", "-", "--headers", "runs", "--format", "json", input=text * 3)
    assert log.returncode == 0, log
    doc = log.json()
    assert doc["runs"] == 3 and doc.get("processes", 1) == 1
    assert all(len(m["self_us_runs"]) == 3 for m in doc["modules"])
    default = cli("imports", "--from-log", "-", "--format", "json", input=text * 3).json()
    assert default["runs"] == 1 and default["processes"] == 3
    for args in (("--headers", "runs", "-c", "pass"), ("--from-log", "-", "--headers", "bogus"), ("--importtime-level", "3", "-c", "pass")):
        bad = cli("imports", *args, input=text)
        assert_one_line_error(bad, 2)
