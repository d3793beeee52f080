"""Programs as users run them: console scripts in venvs, shebangs naming an interpreter,
programs that exit non-zero on purpose (real venvs from the registry, tests/_realprograms.py)."""

from __future__ import annotations

import os
import sys

import pytest

from _interpreters import pyenv_python
from _realprograms import real_venv, venv_bin, venv_python
from profiler.model.target import Target
from profiler.session import Session
from profiler.workflows.targets import script_python, shebang_python

FAST = ("--runs", "2", "--warmup", "0")


@pytest.mark.parametrize("text, expected", [
    (b"#!/venv/bin/python\nimport re\n", ("/venv/bin/python", ())),
    (b"#!/usr/bin/env python3.12\n", ("python3.12", ())),
    (b"#!/usr/bin/env -S python3 -X dev\n", ("python3", ("-X", "dev"))),
    (b"#!/usr/bin/python3 -I\r\n", ("/usr/bin/python3", ("-I",))),
    (b"#!/opt/pypy3.10/bin/pypy3\n", ("/opt/pypy3.10/bin/pypy3", ())),
    # pip's launcher when the venv's path does not fit a #! line (long, or with spaces)
    (b"#!/bin/sh\n'''exec' \"/a b/venv/bin/python\" \"$0\" \"$@\"\n' '''\n", ("/a b/venv/bin/python", ())),
    (b"#!/bin/sh\necho hi\n", None),
    (b"#!/usr/bin/env node\n", None),
    (b"import sys\n", None),
    (b"#!\n", None),
    (b"", None),
])
def test_shebang_python(text, expected):
    assert shebang_python(text) == expected


def test_script_python_names_the_interpreter_and_why(tmp_path):
    script = tmp_path / "tool"
    script.write_text(f"#!{sys.executable}\nprint('hi')\n")
    path, why = script_python(Target("script", str(script)))
    assert path == sys.executable
    assert "#! line" in why and "--python overrides" in why
    missing = tmp_path / "old"
    missing.write_text("#!/nowhere/bin/python3.99\n")
    assert script_python(Target("script", str(missing))) == (
        None, f"{missing}'s #! line names /nowhere/bin/python3.99, which is not there: running it on the default python3")
    default = tmp_path / "plain"
    default.write_text("#!/usr/bin/env python3\n")
    assert script_python(Target("script", str(default))) is None
    assert script_python(Target("module", "json")) is None


BLACK = ["black==26.10.1"]


@pytest.fixture(scope="module")
def black_venv():
    return real_venv(pyenv_python("3.12"), BLACK)


@pytest.mark.slow
def test_console_script_runs_on_its_venv_python(cli, black_venv):
    """`startup venv/bin/black --version` with no --python: black imports (it is only in the
    venv), and the output says which interpreter ran and why."""
    res = cli("startup", "--variant", "default", *FAST, venv_bin(black_venv, "black"), "--version")
    assert res.returncode == 0, res
    assert f"python: {venv_python(black_venv)} (3.12" in res.stdout
    assert f"on {venv_python(black_venv)}, the interpreter its #! line names (--python overrides)" in res.stderr
    # --python wins over the #! line (and then nothing is said about it)
    other = cli("imports", "--python", sys.executable, venv_bin(black_venv, "black"), "--version")
    assert other.returncode == 3 and "No module named 'black'" in other.stderr, other
    assert "#! line" not in other.stderr


# --ignore-failure: one meaning in every command that runs a target

LINT = "import sys, json\nprint('lint.py:1:1: F401 unused import')\nsys.exit(1)\n"


@pytest.fixture()
def programs(tmp_path):
    (tmp_path / "lint.py").write_text(LINT)
    (tmp_path / "bad_syntax.py").write_text("x = (\n")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ("startup", "--variant", "default", *FAST),
    ("imports", "--runs", "1", "--warmup", "0"),
    ("trace",),
    ("why", "json"),
    ("lazy", "--runs", "2", "--warmup", "0", "--profile-runs", "1"),
])
def test_ignore_failure_measures_a_chosen_exit_and_records_it(cli, real_python, programs, command):
    lint = str(programs / "lint.py")
    refused = cli(*command, "--python", real_python, lint)
    assert refused.returncode == 3 and "--ignore-failure measures it anyway" in refused.stderr, refused
    res = cli(*command, "--python", real_python, "-i", "--format", "json", lint)
    assert res.returncode == 0, res
    doc = res.json()
    if command[0] == "startup":
        assert doc["results"][0]["exit_codes"] == [1, 1]
        return
    # recorded in the document (why has no warnings key) and shown on stderr
    if command[0] != "why":
        assert any("exited with code 1 (measured anyway: --ignore-failure)" in w for w in doc["warnings"]), doc["warnings"]
    if command[0] == "trace":
        assert doc["exit_codes"] == [1]
    assert "exited with code 1 (measured anyway: --ignore-failure)" in res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ("startup", "--variant", "default", *FAST),
    ("imports", "--runs", "1", "--warmup", "0"),
    ("trace",),
])
@pytest.mark.parametrize("target, why", [
    (("bad_syntax.py",), "SyntaxError"),
    (("-m", "nonexistent_mod"), "No module named nonexistent_mod"),
    (("-c", "import nonexistent_mod"), "ModuleNotFoundError"),
])
def test_a_program_that_never_ran_fails_even_with_the_flag(cli, real_python, programs, command, target, why):
    target = tuple(str(programs / t) if t.endswith(".py") else t for t in target)
    for flag in ((), ("--ignore-failure",)):
        res = cli(*command, "--python", real_python, *flag, *target)
        assert res.returncode == 3, res
        assert why in res.stderr, res
        assert "--ignore-failure measures it anyway" not in res.stderr, res


@pytest.mark.slow
def test_diff_pairs_black_across_versions(cli, tmp_path):
    """black 23.1.0 (mypyc-compiled on 3.11) shows a tiny `black` row nested in the one that
    loaded it; it was taken for a dotted import's wrapper, so the load was paired with the
    nested row (0.1 ms → 140 ms) and the real load listed as removed."""
    py = pyenv_python("3.11")
    old_venv, new_venv = real_venv(py, ["black==23.1.0"]), real_venv(py, ["black==26.10.1"])
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    for venv, out in ((old_venv, old), (new_venv, new)):
        res = cli("imports", "--runs", "1", "--warmup", "0", "-o", out, venv_bin(venv, "black"), "--version")
        assert res.returncode == 0, res
    doc = cli("diff", old, new, "--format", "json").json()
    black = [c for c in doc["changed"] if c["name"] == "black"]
    assert len(black) == 1 and not black[0]["wrapper"], black
    # paired with the real load (the top-level `black` row of each document), not the nested one
    import json

    def loaded(path):
        return max(m["cumulative_us"] for m in json.loads(path.read_text())["modules"] if m["name"] == "black" and m["depth"] == 0)

    assert black[0]["old_cumulative_us"] > 50_000 and black[0]["new_cumulative_us"] > 50_000, black  # black really loaded
    assert (black[0]["old_cumulative_us"], black[0]["new_cumulative_us"]) == (loaded(old), loaded(new)), black
    assert all(not m.get("wrapper") for m in doc["removed"] if m["name"] == "black")


@pytest.mark.slow
def test_no_site_keeps_sys_path_in_the_default_order(black_venv, tmp_path):
    """no-site gives site's entries back after the standard library, where site puts them: in
    first-occurrence order sys.path is the default variant's (before: PYTHONPATH put
    site-packages ahead of the stdlib)."""
    import json
    import subprocess

    from profiler.workflows.no_site import no_site_env

    script = tmp_path / "show_path.py"
    script.write_text("import sys, json, black\nprint(json.dumps(sys.path))\n")
    py = venv_python(black_venv)
    env = dict(no_site_env(py, Target("script", str(script)), session=Session()))
    assert env, "black comes from site-packages: no-site must give it back"
    default = json.loads(subprocess.run([py, str(script)], capture_output=True, text=True, check=True).stdout)
    no_site = json.loads(subprocess.run([py, "-S", str(script)], capture_output=True, text=True, check=True,
                                        env={**os.environ, **env}).stdout)
    seen = list(dict.fromkeys(no_site))
    assert seen == [p for p in default if p in seen]
    assert seen == default  # black's venv adds nothing but its site-packages
    stdlib = next(i for i, p in enumerate(seen) if p.endswith("lib-dynload"))
    assert seen.index(os.path.join(str(black_venv), "lib", "python3.12", "site-packages")) > stdlib


# traced figures say they are traced

@pytest.mark.slow
def test_trace_shows_the_untraced_wall_time_beside_the_traced_one(cli, real_python):
    res = cli("trace", "--python", real_python, "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    h = res.json()["harness"]
    assert h["untraced_runs"] == 3 and h["untraced_wall_s"] > 0 and h["wall_s"] > 0
    table = cli("trace", "--python", real_python, "-c", "import json")
    head = table.stdout.splitlines()[:2]
    assert "inside syscalls (traced)" in head[0]
    assert head[1].startswith("times are traced: strace stops the program at every syscall; the traced run took ")
    assert ", the same command untraced " in head[1] and "(median of 3 runs)" in head[1]
    both = cli("trace", "--python", real_python, "--variant", "default,no-site", "-c", "import json")
    assert "| time in syscalls (traced) " in both.stdout and "| wall time untraced (median) " in both.stdout


@pytest.mark.slow
def test_startup_of_a_command_labels_the_traced_harness_figures(cli, tmp_path):
    venv = real_venv(pyenv_python("3.12"), ["pytest==8.3.3"])
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert 1\n")
    res = cli("startup", "--runs", "2", "--warmup", "0", "--", venv_bin(venv, "pytest"), "-q", str(tmp_path / "tests"))
    assert res.returncode == 0, res
    out = res.stdout
    assert out.startswith("harness: 1 Python process (one capture traced by strace: its times are traced, not measured)"), out
    assert "| the command's wall time (traced) " in out
    assert "| the command's wall time untraced (the timing table's median) " in out
    assert "the command's wall time (median)" not in out


# A/B: two targets in one run

def test_vs_reads_a_target_as_the_grammar_does():
    from profiler.commands._target import parse_target_words
    from profiler.errors import UsageError

    assert parse_target_words("venv/bin/black --version") == Target("script", "venv/bin/black", ("--version",))
    assert parse_target_words("-c 'import json' x") == Target("code", "import json", ("x",))
    assert parse_target_words("-mjson.tool --help") == Target("module", "json.tool", ("--help",))
    assert parse_target_words("-- pytest -q tests") == Target("command", "pytest", ("-q", "tests"))
    for bad, why in (("", "needs a target"), ("--runs 3", "not --runs"), ("-c", "needs a value"), ("'open", "quotation")):
        with pytest.raises(UsageError, match=why):
            parse_target_words(bad)


@pytest.mark.slow
def test_startup_vs_times_two_venvs_console_scripts_interleaved(cli):
    py = pyenv_python("3.11")
    old, new = real_venv(py, ["black==23.1.0"]), real_venv(py, ["black==26.10.1"])
    res = cli("startup", *FAST, "--format", "json", "--vs", f"{venv_bin(new, 'black')} --version",
              venv_bin(old, "black"), "--version")
    assert res.returncode == 0, res
    doc = res.json()
    rows = [(r["python"], r["target"], r["exit_codes"]) for r in doc["results"]]
    assert rows == [(venv_python(old), f"{venv_bin(old, 'black')} --version", [0, 0]),
                    (venv_python(new), f"{venv_bin(new, 'black')} --version", [0, 0])]
    assert doc["reference"] == doc["results"][0]["key"]
    ratio = next(x for x in doc["relative"] if x["key"] == doc["results"][1]["key"])
    assert ratio["ratio"] > 0 and ratio.get("ratio_stddev") is not None, ratio
    assert res.stderr.count("the interpreter its #! line names") == 2
    table = cli("startup", *FAST, "--vs", "-c 'import json'", "-c", "pass")
    assert "vs default -c pass" in table.stdout, table
    assert "x ± " in table.stdout, table  # the ratio with its spread


@pytest.mark.slow
def test_imports_across_two_interpreters_is_a_diff(cli):
    a, b = pyenv_python("3.11"), pyenv_python("3.12")
    res = cli("imports", "--runs", "1", "--warmup", "0", "--python", a, "--python", b, "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.diff/1"
    assert doc["old"]["python_version"].startswith("3.11") and doc["new"]["python_version"].startswith("3.12")
    table = cli("imports", "--runs", "1", "--warmup", "0", "--vs", "-c 'import json, csv'", "-c", "import json")
    assert table.returncode == 0, table
    assert table.stdout.splitlines()[1].startswith("old: -c 'import json' (") and "new: -c 'import json, csv'" in table.stdout
    assert "csv" in table.stdout.split("added:")[1]
    # two interpreters: each side is named by the interpreter as given (the target is the same)
    two = cli("imports", "--runs", "1", "--warmup", "0", "--python", a, "--python", b, "-c", "import json")
    assert two.returncode == 0, two
    assert two.stdout.splitlines()[1].startswith(f"old: -c 'import json' on {a} (3.11") and f"new: -c 'import json' on {b} (3.12" in two.stdout


# tables read well

def test_warnings_are_summed_up_by_kind():
    from profiler.model.warnings import RunWarning

    def warning_kind(text: str) -> str:
        return RunWarning.of(text).label

    assert warning_kind("default @ 3.12.1: the spread is too wide to trust (stddev 63% of the mean, over 10%): "
                        "quiet the machine or raise --runs") == "the spread is too wide to trust"
    assert warning_kind("the machine is busy: load average 4.97 on 2 logical cores; timings will be noisy") == "the machine is busy"
    assert warning_kind("isolated: failed (exited with code 3)") == "isolated failed"
    assert warning_kind("3 of 3 runs exited with code 1 (measured anyway: --ignore-failure)") == "N of N runs exited with code N"
    assert warning_kind("these documents measure different targets: -c 'import json' (a.json); -c 'import csv' (b.json); "
                        "compare their figures with care") == "these documents measure different targets"
    assert warning_kind("no-site @ 3.12.1: failed (exited with code 1)") == "no-site @ N.N failed"


def test_a_kind_said_once_keeps_its_figures(capsys, monkeypatch):
    """The summary line groups warnings by kind without their figures; a kind said once is shown
    with its own ("unavailable on 3.12", never "on N.N")."""
    from profiler.commands import _common
    from profiler.session import Session

    monkeypatch.setenv("IMPORTPROF_VERBOSE", "0")
    session = Session(hold=True)  # an invocation's: its warnings held for one line
    for w in ("default @ 3.12.1: the spread is too wide to trust (stddev 63%)", "no-site @ 3.12.1: the spread is too wide to trust (stddev 20%)",
              "variants oxidized, filesystem, in-memory unavailable on 3.12: python-oxidized-importer 0.9 works with 3.8-3.11"):
        session.warn(w)
    assert capsys.readouterr().err == ""  # held until after the output
    _common.flush_warnings(session)
    line = capsys.readouterr().err.strip()
    assert line == ("importprof: warning: 3 warnings: 2 × the spread is too wide to trust; variants oxidized, filesystem, "
                    "in-memory unavailable on 3.12 (--verbose shows each)"), line


@pytest.mark.slow
def test_warnings_come_after_the_table_in_one_line(cli, real_python):
    args = ("startup", "--python", real_python, "--runs", "2", "--warmup", "0", "--variant", "default,isolated,no-frozen",
            "--flags=-O", "-c", "import sys; sys.exit(3) if sys.flags.isolated or sys.flags.optimize else None")
    quiet = cli(*args, env={"IMPORTPROF_VERBOSE": "0"})
    assert quiet.returncode == 0, quiet
    lines = [ln for ln in quiet.stderr.splitlines() if ln.startswith("importprof: warning:")]
    assert len(lines) == 1 and lines[0].endswith("(--verbose shows each)"), quiet
    assert "isolated failed" in lines[0] and "-O failed" in lines[0]
    loud = cli(*args[:1], "--verbose", *args[1:], env={"IMPORTPROF_VERBOSE": "0"})
    assert "importprof: warning: isolated: failed (exited with code 3)" in loud.stderr, loud
    # the failed rows' errors under the table, whole; the Mean column says only that it failed
    assert "| isolated " in quiet.stdout and "failed (below)" in quiet.stdout
    assert "\nisolated: failed: exited with code 3\n" in quiet.stdout


@pytest.mark.slow
def test_a_mistyped_command_gets_did_you_mean(cli):
    from conftest import assert_one_line_error

    assert_one_line_error(cli("statup", "-c", "pass"), 2, "no such command: statup (did you mean startup?)")
    assert_one_line_error(cli("zzz"), 2, "no such command: zzz (see `importprof --help`)")


@pytest.mark.slow
def test_several_pythons_compare_each_variant_with_their_own_default(cli):
    a, b = pyenv_python("3.11"), pyenv_python("3.12")
    res = cli("startup", *FAST, "--variant", "default,no-site-bare", "--python", a, "--python", b, "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    key = {(r["python_version"][:4], r["variant"]): r["key"] for r in doc["results"]}
    ref = {x["key"]: x["reference"] for x in doc["relative"]}
    assert ref[key["3.11", "no-site-bare"]] == key["3.11", "default"]
    assert ref[key["3.12", "no-site-bare"]] == key["3.12", "default"]
    assert ref[key["3.12", "default"]] == key["3.11", "default"] == doc["reference"]
    table = cli("startup", *FAST, "--variant", "default,no-site-bare", "--python", a, "--python", b)
    assert "vs its Python's default" in table.stdout and "each Python's variants against that Python's first variant" in table.stdout


def test_the_spread_column_names_what_it_is_the_spread_of(fixtures):
    from test_diff import real, rep

    from profiler.render.console_imports import ImportsView, render_imports_table

    report = rep(real(fixtures, "boto3.log"), real(fixtures, "boto3.log"), real(fixtures, "boto3.log"))
    top = render_imports_table(report, tty=False, view=ImportsView(view="top", top=3))
    assert top.count("| spread (self) |") == 1 and top.count("| spread (cumulative) |") == 1
    tree = render_imports_table(report, tty=False)
    assert "| spread (cumulative) |" in tree and "| spread |" not in tree


# import-time work inside a module's body

@pytest.mark.slow
def test_statements_name_the_costly_line_of_a_module_body(cli, real_python, tmp_path):
    (tmp_path / "slowmod.py").write_text(
        "import json\n"
        "TABLE = sum(i * i for i in range(3_000_000))  # the work done at import\n"
        "def f():\n    return TABLE\n")
    (tmp_path / "app.py").write_text("import slowmod\nprint(slowmod.f() > 0)\n")
    res = cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "--statements", "--format", "json",
              str(tmp_path / "app.py"))
    assert res.returncode == 0, res
    by = {m["name"]: m for m in res.json()["modules"]}
    top = by["slowmod"]["statements"][0]
    assert (top["line"], top["statement"]) == (2, "TABLE = sum(i * i for i in range(3_000_000))  # the work done at import")
    assert top["site"] == f"{tmp_path / 'slowmod.py'}:2" and top["samples"] >= 3
    assert top["self_us"] > 0.5 * by["slowmod"]["statements_sampled_us"]
    assert all(not (s["statement"] or "").startswith("import ") for m in by.values() for s in m.get("statements", ()))
    table = cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "--statements", "--view", "top",
                str(tmp_path / "app.py"))
    row = next(ln for ln in table.stdout.splitlines() if "slowmod.py:2" in ln)
    assert row.startswith("| slowmod ") and "TABLE = sum(" in row


@pytest.mark.slow
def test_statements_of_generated_code_are_the_statement_that_generated_it(cli, real_python, tmp_path):
    """Code exec'd from a string (site's .pth lines, dataclasses' generated methods) runs in
    '<module>' frames of '<string>': they were shown as statements '<string>:1' with no line,
    instead of the statement of the module body that exec'd them."""
    (tmp_path / "genmod.py").write_text(
        "import collections\n"
        "exec('TOTAL = sum(i * i for i in range(3_000_000))')  # work in code made from a string\n")
    (tmp_path / "app.py").write_text("import genmod\nprint(genmod.TOTAL > 0)\n")
    res = cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "--statements", "--format", "json",
              str(tmp_path / "app.py"))
    assert res.returncode == 0, res
    by = {m["name"]: m for m in res.json()["modules"]}
    sites = [s["site"] for m in by.values() for s in m.get("statements", ())]
    assert not [s for s in sites if s.startswith("<string>")], sites
    assert by["genmod"]["statements"][0]["site"] == f"{tmp_path / 'genmod.py'}:2"


@pytest.mark.slow
def test_statements_find_httpie_building_an_ssl_context_at_import(cli):
    venv = real_venv(pyenv_python("3.12"), ["httpie==3.2.4"])
    res = cli("imports", "--runs", "1", "--warmup", "0", "--statements", "--format", "json", venv_bin(venv, "http"), "--version")
    assert res.returncode == 0, res
    ssl_ = next(m for m in res.json()["modules"] if m["name"] == "httpie.ssl_")
    top = ssl_["statements"][0]
    assert top["site"].endswith("httpie/ssl_.py:109") and top["statement"].startswith("DEFAULT_SSL_CIPHERS_STRING = ")


@pytest.mark.slow
def test_why_statements_shows_the_work_in_the_module_asked_about(cli, real_python, tmp_path):
    (tmp_path / "slowmod.py").write_text("import json\nTABLE = sum(i * i for i in range(3_000_000))\n")
    (tmp_path / "app.py").write_text("import slowmod\n")
    res = cli("why", "slowmod", "--statements", "--python", real_python, "--format", "json", str(tmp_path / "app.py"))
    assert res.returncode == 0, res
    top = res.json()["statements"][0]
    assert top["line"] == 2 and top["of_body_pct"] > 50
    # the estimate is the share of the module's measured self, which it cannot exceed
    chain_self = res.json()["chains"][0]["hops"][-1]["self_us"]
    assert 0 < top["estimated_us"] <= chain_self
    table = cli("why", "slowmod", "--statements", "--python", real_python, str(tmp_path / "app.py"))
    assert "import-time work in slowmod's body" in table.stdout and "slowmod.py:2" in table.stdout
    from conftest import assert_one_line_error

    assert_one_line_error(cli("why", "json", "--statements", "--from-log", str(tmp_path / "app.py")), 2, "--statements runs the target")


def test_doctor_module_work_finding_is_the_share_of_the_measured_self():
    from profiler.analysis.doctor import module_work_findings
    from profiler.model.import_records import ModuleRecord

    def mod(name, self_us, body_us, statements):
        return ModuleRecord(name, self_us, self_us, None, 0, 0, 1, (self_us,), (self_us,),
                            extra={"statements_sampled_us": body_us, "statements": statements})

    ssl_ = mod("httpie.ssl_", 29_000, 80_000, [{"site": "/v/httpie/ssl_.py:109", "self_us": 76_000, "samples": 90,
                                                "statement": "DEFAULT_SSL_CIPHERS_STRING = ':'.join(...)"}])
    small = mod("small", 1_000, 1_000, [{"site": "/v/small.py:3", "self_us": 1_000, "samples": 4, "statement": "X = 1"}])
    found = module_work_findings([small, ssl_])
    assert [(f.kind, f.where, f.cost_us, f.estimate) for f in found] == [("module-work", "/v/httpie/ssl_.py:109", 27_550, True)]
    assert found[0].title == "httpie.ssl_ does work at import: DEFAULT_SSL_CIPHERS_STRING = ':'.join(...)"


@pytest.mark.slow
def test_doctor_names_a_module_doing_work_at_import(cli, real_python, tmp_path):
    (tmp_path / "slowmod.py").write_text("import json\nTABLE = sum(i * i for i in range(3_000_000))\n")
    (tmp_path / "app.py").write_text("import slowmod\n")
    res = cli("doctor", "--python", real_python, "--runs", "1", "--timing-runs", "2", "--no-trace", "--format", "json",
              str(tmp_path / "app.py"))
    assert res.returncode == 0, res
    work = [f for f in res.json()["findings"] if f["kind"] == "module-work"]
    assert work and work[0]["where"] == f"{tmp_path / 'slowmod.py'}:2", res.json()["findings"]


@pytest.mark.slow
def test_a_mixed_report_heads_each_part_with_what_it_measured(cli, tmp_path):
    from test_report import dump_dom

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert cli("imports", "--python", pyenv_python("3.11"), "--runs", "1", "--warmup", "0", "-o", a, "-c", "import json").returncode == 0
    assert cli("imports", "--python", pyenv_python("3.12"), "--runs", "1", "--warmup", "0", "-o", b, "-c", "import csv").returncode == 0
    page = tmp_path / "mixed.html"
    res = cli("report", "--from", a, b, "-o", page)
    assert res.returncode == 0, res
    dom = dump_dom(page)
    import re

    import json

    heads = re.findall(r"<h2>([^<]*)</h2>", dom)
    va, vb = (json.loads(p.read_text())["python_version"] for p in (a, b))
    assert any(h.endswith(f"\u2014 -c 'import json' on Python {va}") for h in heads), heads
    assert any(h.endswith(f"\u2014 -c 'import csv' on Python {vb}") for h in heads), heads
    # one document, or documents of one target and Python: no such heading
    single = tmp_path / "single.html"
    assert cli("report", "--from", a, "-o", single).returncode == 0
    assert not any("\u2014 -c" in h for h in re.findall(r"<h2>([^<]*)</h2>", dump_dom(single)))


WIDTH_PROBE = r"""
<script>
(function () {
  var table = document.getElementById("imports-table");
  var box = table.closest(".scroll") || table.parentElement;
  document.documentElement.setAttribute("data-probe", JSON.stringify({
    scroll: box.scrollWidth, client: box.clientWidth,
    columns: Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); })}));
})();
</script>
"""


@pytest.mark.slow
def test_the_reports_top_modules_table_fits_1400_px(cli, real_python, tmp_path):
    """With the phase columns, the top-modules table is whole at 1,400 px: nothing scrolls out
    of sight (`imported by`, its last column, was cut at the page's former 1,120 px)."""
    import json
    import re

    from test_report import chromium

    doc = tmp_path / "phases.json"
    assert cli("imports", "--python", real_python, "--runs", "1", "--warmup", "0", "--phases", "-o", doc,
               "-c", "import email.parser, urllib.parse, http.client").returncode == 0
    page = tmp_path / "page.html"
    assert cli("report", "--from", doc, "-o", page).returncode == 0
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", WIDTH_PROBE + "</body>"), encoding="utf-8")
    proc = chromium("--window-size=1400,1000", "--dump-dom", probe.resolve().as_uri())
    got = json.loads(re.search(r"data-probe=\"([^\"]*)\"", proc.stdout).group(1).replace("&quot;", '"'))
    assert "imported by" in got["columns"] and "Σ phases" in got["columns"], got
    assert got["scroll"] <= got["client"], got


def test_imports_statements_from_a_log_names_the_option_asked_for(cli, fixtures):
    """The refusal named --phases / --lazy-candidates when --statements was what was given."""
    from conftest import assert_one_line_error

    res = cli("imports", "--statements", "--from-log", fixtures / "importtime" / "boto3.log")
    assert_one_line_error(res, 2, "--statements runs a Python target")
