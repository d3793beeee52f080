"""`importprof startup` end to end on real interpreters (small run counts; no timing thresholds)."""

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import assert_one_line_error
from profiler.session import Session
from tests._signals import start_importprof

FAST = ("--runs", "3", "--warmup", "0")


def test_builtin_engine_default_variants_table(cli, real_python):
    res = cli("startup", "--python", real_python, *FAST)
    assert res.returncode == 0, res
    lines = res.stdout.splitlines()
    for name in ("default", "no-site", "isolated", "no-frozen"):
        assert any(ln.startswith(f"| {name} ") for ln in lines), res
    # plain text when stdout is not a terminal: no escape codes, nothing wrapped
    assert "\x1b[" not in res.stdout
    widths = {len(ln) for ln in lines if ln.startswith(("|", "+"))}
    assert len(widths) == 1, res
    assert f"python: {real_python}" in res.stdout


def test_json_document_fields_and_interleaving(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "default,no-site", "--flags=-X dev", *FAST, "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()  # --format without -o: the document only, no table
    assert doc["schema"] == "importprof.startup/1"
    assert {"logical_cores", "physical_cores", "load_average", "memory_available_bytes"} <= set(doc["machine"])
    names = [r["variant"] for r in doc["results"]]
    assert names == ["default", "no-site", "-X dev"]
    for r in doc["results"]:
        assert len(r["times"]) == 3 and r["exit_codes"] == [0, 0, 0]
        assert r["python"] == real_python and r["python_version"] == "3.11.7"
        assert all(m > 1_000_000 for m in r["memory_usage_byte"])  # bytes, not KiB
        assert r["user"] is not None and r["system"] is not None
    by = {r["variant"]: r for r in doc["results"]}
    assert by["no-site"]["flags"] == ["-S"] and by["-X dev"]["flags"] == ["-X", "dev"]
    assert by["no-site"]["command"] == f"{real_python} -S -c pass"
    rel = {x["key"]: x for x in doc["relative"]}
    assert rel["default"]["ratio"] == 1.0


def test_peak_rss_is_the_commands_own_not_importprofs(cli, real_python):
    # Spawned from importprof (~30 MiB) the kernel would floor every child's peak RSS at that.
    res = cli("startup", "--runs", "2", "--warmup", "0", "--format", "json", "--", "/bin/true")
    assert res.returncode == 0, res
    (r,) = res.json()["results"]
    assert r["variant"] == "command" and r["command"] == "/bin/true"
    assert max(r["memory_usage_byte"]) < 8 * 2**20


def test_exports_and_outputs_are_files(cli, real_python, tmp_path):
    j, m, o = tmp_path / "h.json", tmp_path / "h.md", tmp_path / "o.json"
    res = cli("startup", "--python", real_python, "--variant", "no-site", *FAST,
              "--export-json", j, "--export-markdown", m, "-o", o)
    assert res.returncode == 0, res
    assert "| no-site " in res.stdout  # -o still prints the table
    assert json.loads(j.read_text())["schema"] == "importprof.startup/1"
    assert json.loads(o.read_text())["results"][0]["variant"] == "no-site"
    md = m.read_text()
    assert md.startswith("| Command | Mean [ms] |") and "`no-site`" in md
    assert not list(tmp_path.glob(".importprof-*"))  # no temp files left behind


def test_import_costs(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "no-site", *FAST, "--import", "json", "--import", "csv", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    costs = doc["import_costs"]
    assert [(c["module"], c["variant"]) for c in costs] == [("json", "no-site"), ("csv", "no-site")]
    by = {r["key"]: r for r in doc["results"]}
    for c in costs:
        assert set(c) == {"module", "variant", "python", "mean", "stddev"}
        imp = by[f"no-site · import {c['module']}"]
        assert c["mean"] == pytest.approx(imp["mean"] - by["no-site"]["mean"])
        assert c["python"] == real_python


def test_reference_and_cold_pyc(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "default,cold-pyc", "--reference", "cold-pyc", *FAST, "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["reference"] == "cold-pyc"
    rel = {x["key"]: x for x in doc["relative"]}
    assert rel["cold-pyc"]["ratio"] == 1.0
    assert "pycache_prefix=<fresh>" in " ".join(next(r for r in doc["results"] if r["variant"] == "cold-pyc")["flags"])


def test_two_interpreters(cli, real_python, debian_python):
    res = cli("startup", "--python", real_python, "--python", debian_python, "--variant", "no-site", *FAST, "--format", "json")
    assert res.returncode == 0, res
    rs = res.json()["results"]
    assert [(r["python"], r["python_version"]) for r in rs] == [(real_python, "3.11.7"), (debian_python, "3.11.2")]
    assert len({r["key"] for r in rs}) == 2


def test_hyperfine_engine_reads_back_into_the_same_model(cli, real_python):
    if shutil.which("hyperfine") is None:
        pytest.fail("hyperfine missing: make setup installs it")
    res = cli("startup", "--engine", "hyperfine", "--python", real_python, "--variant", "default,no-site", *FAST, "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["engine"] == "hyperfine"
    for r in doc["results"]:
        assert r["engine"] == "hyperfine" and len(r["times"]) == 3
        assert r["user_times"] is None  # hyperfine gives only the mean user/system
        assert r["user"] is not None and len(r["memory_usage_byte"]) == 3
        assert r["command"].startswith(real_python)
    assert [r["variant"] for r in doc["results"]] == ["default", "no-site"]


def test_adaptive_runs_at_least_ten(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "no-site", "--warmup", "0", "--format", "json")
    assert res.returncode == 0, res
    (r,) = res.json()["results"]
    assert len(r["times"]) >= 10


def test_instructions_metric_with_valgrind(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "no-site", "--runs", "1", "--warmup", "0", "--metric", "instructions", "--format", "json")
    assert res.returncode == 0, res
    (r,) = res.json()["results"]
    assert isinstance(r["instructions"], int) and r["instructions"] > 1_000_000


# ---- failures: one line, the right exit code, no traceback, no output file ----

def test_missing_interpreter(cli, tmp_path):
    out = tmp_path / "o.json"
    res = cli("startup", "--python", "/no/such/python", "-o", out)
    assert_one_line_error(res, 2, "interpreter not found")
    assert not out.exists()


def test_not_a_python(cli):
    assert_one_line_error(cli("startup", "--python", "/bin/ls"), 2, "not a working python")


def test_unknown_variant_is_a_usage_error(cli):
    assert_one_line_error(cli("startup", "--variant", "default,turbo"), 2, "unknown variant")


def test_failing_target_shows_stderr_tail(cli, real_python, tmp_path):
    out = tmp_path / "o.json"
    res = cli("startup", "--python", real_python, "--variant", "default", *FAST, "-o", out,
              "-c", "import sys; sys.stderr.write('kaboom\\n'); sys.exit(4)")
    assert_one_line_error(res, 3, "exited with code 4", "--ignore-failure")
    assert "kaboom" in res.stderr
    assert not out.exists()


def test_ignore_failure_records_exit_codes(cli, real_python):
    res = cli("startup", "--python", real_python, "--variant", "default", *FAST, "-i", "--format", "json", "-c", "raise SystemExit(5)")
    assert res.returncode == 0, res
    assert res.json()["results"][0]["exit_codes"] == [5, 5, 5]
    assert "exited non-zero" in res.stderr


def _path_without(tool: str, tmp_path) -> str:
    """A PATH with every directory except those holding `tool` (python stays reachable)."""
    keep = [d for d in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(d, tool))]
    return os.pathsep.join(keep)


def test_hyperfine_missing(cli, real_python, tmp_path):
    res = cli("startup", "--engine", "hyperfine", "--python", real_python, env={"PATH": _path_without("hyperfine", tmp_path)})
    assert_one_line_error(res, 3, "hyperfine not found")


def test_valgrind_missing(cli, real_python, tmp_path):
    from profiler.capture.instructions import perf_counts_instructions

    if perf_counts_instructions(session=Session()):
        pytest.skip("perf counts instructions on this kernel: valgrind is not needed")
    env = {"PATH": _path_without("valgrind", tmp_path)}
    res = cli("startup", "--python", real_python, "--metric", "instructions", env=env)
    assert_one_line_error(res, 3, "valgrind")


def test_ctrl_c_prints_what_was_measured(real_python):
    proc = start_importprof(
        ["startup", "--python", real_python, "--variant", "no-site", "--runs", "100000", "--warmup", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(2.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in out and "| no-site " in out
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("importprof: error: interrupted: showing the")


def test_command_target_rejects_variants(cli):
    assert_one_line_error(cli("startup", "--variant", "no-site", "--", "/bin/true"), 2, "variants apply to Python targets")


# --- real projects: failing variants are rows, no-site keeps installed packages ---

def _app(tmp_path):
    """A script beside its own package, as users have them."""
    app = tmp_path / "app"
    (app / "mylib").mkdir(parents=True)
    (app / "mylib" / "__init__.py").write_text("import json\n")
    (app / "app.py").write_text("import mylib\nprint('ok')\n")
    return app


def test_a_variant_that_fails_is_a_row_and_the_others_are_measured(cli, real_python, tmp_path):
    app = _app(tmp_path)
    res = cli("startup", "--python", real_python, "--variant", "default,isolated", *FAST, "--format", "json", "app.py", cwd=app)
    assert res.returncode == 0, res
    by = {r["variant"]: r for r in res.json()["results"]}
    assert by["default"]["failed"] is False and by["default"]["mean"] > 0
    iso = by["isolated"]
    assert iso["failed"] is True and iso["mean"] is None and iso["times"] == []
    assert iso["exit_codes"] and all(c == 1 for c in iso["exit_codes"])
    assert "ModuleNotFoundError" in iso["error"] and "\n" not in iso["error"]
    assert "-I drops the script's folder from sys.path" in res.stderr
    # the table shows it failed, without a timing figure
    table = cli("startup", "--python", real_python, "--variant", "default,isolated", *FAST, "app.py", cwd=app)
    row = next(ln for ln in table.stdout.splitlines() if ln.startswith("| isolated"))
    assert "failed" in row and " ms" not in row, table


def test_a_target_failing_in_every_variant_exits_3(cli, real_python, tmp_path):
    res = cli("startup", "--python", real_python, "--variant", "default,no-site", *FAST, "-c", "import nonexistent_mod")
    assert_one_line_error(res, 3, "ModuleNotFoundError")


def _venv_with_package(tmp_path, real_python):
    """A venv whose site-packages holds a package (no pip, no network: a real folder)."""
    venv = tmp_path / "venv"
    subprocess.run([real_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "fakepkg").mkdir()
    (site / "fakepkg" / "__init__.py").write_text("import json\nVALUE = 42\n")
    return venv / "bin" / "python"


def test_no_site_keeps_the_paths_an_installed_program_needs(cli, real_python, tmp_path):
    py = _venv_with_package(tmp_path, real_python)
    res = cli("startup", "--python", py, "--variant", "default,no-site,no-site-bare", *FAST, "--format", "json",
              "-c", "import fakepkg; print(fakepkg.VALUE)")
    assert res.returncode == 0, res
    doc = res.json()
    by = {r["variant"]: r for r in doc["results"]}
    assert not by["default"]["failed"] and not by["no-site"]["failed"], res
    assert by["no-site-bare"]["failed"] and "No module named 'fakepkg'" in by["no-site-bare"]["error"]
    assert any("PYTHONPATH=" in n and "site-packages" in n for n in doc["notes"]), doc["notes"]
    # the no-site command runs as written (its PYTHONPATH in front, as a shell takes it)
    again = subprocess.run(["bash", "-c", by["no-site"]["command"]], capture_output=True, text=True)
    assert by["no-site"]["command"].startswith("PYTHONPATH=") and again.stdout == "42\n", again
    assert "-S drops site-packages" in res.stderr
    # a stdlib-only target: no-site stays a plain -S
    plain = cli("startup", "--python", py, "--variant", "no-site", *FAST, "--format", "json", "-c", "import json")
    assert any("imports nothing from the paths site adds" in n for n in plain.json()["notes"]), plain


def test_program_arguments_reach_the_program(cli, real_python, tmp_path):
    res = cli("startup", "--python", real_python, "--variant", "default", *FAST, "--format", "json", "-m", "json.tool", "--help")
    assert res.returncode == 0, res
    assert res.json()["results"][0]["command"].endswith("-m json.tool --help")
    res = cli("startup", "--python", real_python, "--variant", "default", *FAST, "-m", "pip", "--version")
    assert res.returncode == 0, res
    res = cli("startup", "--python", real_python, "app.py", "--runs", "3")
    line = assert_one_line_error(res, 2, "--runs")
    assert "importprof startup --python" in line and "--runs 3 app.py" in line


def test_a_target_that_cannot_run_is_one_line_before_anything_runs(cli, tmp_path):
    """The same message and exit code in every command: a SCRIPT that is no file (with how to
    run a program or a module), a COMMAND that is not there; a misspelled option is said first."""
    for command in ("startup", "imports", "trace", "lazy", "report"):
        res = cli(command, "hyperfine", "--version", cwd=tmp_path)
        line = assert_one_line_error(res, 2, "no such script: hyperfine")
        assert f"importprof {command} -- hyperfine --version" in line
        if command == "lazy":  # lazy measures Python imports: a COMMAND is refused before it is looked at
            assert_one_line_error(cli(command, "--", "nosuchcmd", cwd=tmp_path), 2, "needs a Python target")
        else:
            assert_one_line_error(cli(command, "--", "nosuchcmd", cwd=tmp_path), 3, "cannot run nosuchcmd: not found on PATH")
    line = assert_one_line_error(cli("startup", "--rusn", "3", "-c", "pass"), 2, "no such option: --rusn")
    assert "did you mean --runs?" in line


@pytest.mark.parametrize("kind", ["enoexec", "directory", "broken-link", "not-executable", "missing"])
def test_an_exec_failure_is_one_line(cli, tmp_path, kind):
    path = tmp_path / "thing"
    if kind == "enoexec":
        path.write_text("just some notes\n")
        path.chmod(0o755)
    elif kind == "directory":
        path.mkdir()
    elif kind == "broken-link":
        path.symlink_to(tmp_path / "gone")
    elif kind == "not-executable":
        path.write_text("#!/bin/sh\ntrue\n")
        path.chmod(0o644)
    as_python = cli("startup", "--python", path, *FAST)
    assert_one_line_error(as_python, 2, str(path))
    as_command = cli("startup", *FAST, "--", path)
    assert_one_line_error(as_command, 3, "cannot run")


HARNESS = """\
import subprocess, sys
for i in range(4):
    flags = ["-S"] if i % 2 else []
    subprocess.run([sys.executable, *flags, "-c", "import json, csv"], check=True, capture_output=True)
subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import email.parser'], check=True)"], check=True)
"""


def test_a_harness_command_gets_its_python_processes_summed(cli, real_python, tmp_path):
    """A harness as test suites are: interpreters started in a loop (some with -S, output
    captured), one level nested. `startup -- COMMAND` times the command and says what its
    Python processes spent importing."""
    (tmp_path / "run_all.py").write_text(HARNESS)
    res = cli("startup", *FAST, "--format", "json", "--", real_python, "run_all.py", cwd=tmp_path)
    assert res.returncode == 0, res
    h = res.json()["harness"]
    assert h["python_processes"] == 7
    per = {p["index"]: p for p in h["per_process"]}
    root = next(p for p in per.values() if p["parent"] is None)
    assert root["argv"] == [real_python, "run_all.py"]
    nested = next(p for p in per.values() if "import email.parser" in p["argv"])
    assert per[nested["parent"]]["parent"] == root["index"]  # a grandchild
    assert sum(1 for p in per.values() if "-S" in p["argv"]) == 2
    assert all(p["imports_us"] > 0 and p["wall_s"] > 0 for p in per.values())
    assert h["imports_us"] == sum(p["imports_us"] for p in per.values())
    assert 0 < h["imports_share"] and h["command_wall_s"] > 0
    assert {m["name"] for m in h["summed"]} >= {"json", "csv", "email.parser"}
    assert next(m for m in h["summed"] if m["name"] == "json")["processes"] == 4  # the loop's four
    table = cli("startup", *FAST, "--", real_python, "run_all.py", cwd=tmp_path)
    assert table.stdout.startswith("harness: 7 Python processes"), table


def test_harness_children_that_ignore_the_environment_are_counted_and_named(cli, real_python, tmp_path):
    """-E / -I children never see PYTHONPROFILEIMPORTTIME: they are not in the import figures,
    and the report says how many, which, and why (never silently fewer processes)."""
    (tmp_path / "run.py").write_text(
        "import subprocess, sys\n"
        "for flags in ([], ['-I'], ['-E']):\n"
        "    subprocess.run([sys.executable, *flags, '-c', 'import json'], check=True, capture_output=True)\n"
    )
    res = cli("startup", *FAST, "--format", "json", "--", real_python, "run.py", cwd=tmp_path)
    assert res.returncode == 0, res
    h = res.json()["harness"]
    assert h["python_processes"] == 2 and h["python_processes_total"] == 4
    assert sorted(tuple(u["argv"][1:2]) for u in h["unreached"]) == [("-E",), ("-I",)]
    assert all("ignores PYTHONPROFILEIMPORTTIME" in u["reason"] for u in h["unreached"])
    assert "2 of 4 Python processes wrote no import times" in res.stderr


def test_a_wrong_reference_is_refused_before_anything_runs(cli, real_python, tmp_path):
    marker = tmp_path / "ran"
    res = cli("startup", "--python", real_python, "--reference", "nosuch", *FAST, "-c", f"open({str(marker)!r}, 'w')")
    assert_one_line_error(res, 2, "--reference 'nosuch'")
    assert not marker.exists()  # no run started
