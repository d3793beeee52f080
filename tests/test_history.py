"""`importprof history`: a real git repository of a dozen commits built here, one of which makes
the package import more (fractions, and decimal through it); backfilled by the real CLI in
temporary worktrees with exact instruction counts, read back as a table, JSON and a page that a
real chromium renders; export / import between stores; two `check --record` at once; an
interrupted backfill; the bad inputs, each one line."""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, assert_one_line_error
from test_bisect import commit, git
from tests._signals import start_importprof

pytestmark = pytest.mark.slow

CHECKS = """
[tool.importprof.checks.cli]
target = ["-m", "mypkg"]
metric = "instructions"
runs = 1
instruction_runs = 1

[tool.importprof.checks.quick]
target = ["-c", "pass"]
runs = 1
"""


def dozen_commits(root: Path) -> tuple[Path, dict]:
    """Twelve commits; the sixth ("format prices") makes mypkg import fractions."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = {"base": commit(repo, "base", {
        "pyproject.toml": f'[project]\nname = "mypkg"\nversion = "0"\n{CHECKS}',
        "mypkg/__init__.py": "import json\n",
        "mypkg/__main__.py": "import mypkg\n",
    })}
    git(repo, "tag", "v1")
    for i in range(1, 5):
        shas[f"change {i}"] = commit(repo, f"change {i}", {f"mypkg/notes_{i}.py": f"NOTE = {i}\n"})
    shas["regression"] = commit(repo, "format prices", {"mypkg/__init__.py": "import json\nimport fractions\n"})
    for i in range(5, 11):
        shas[f"change {i}"] = commit(repo, f"change {i}", {f"mypkg/notes_{i}.py": f"NOTE = {i}\n"})
    (repo / ".gitignore").write_text(".importprof/\n")
    return repo, shas


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, cli):
    """The dozen commits, backfilled once (about two minutes: valgrind counts)."""
    repo, shas = dozen_commits(tmp_path_factory.mktemp("history"))
    res = cli("history", "record", "--commits", "v1..HEAD", "--check", "cli", cwd=repo)
    assert res.returncode == 0, res
    return repo, shas, res


def test_record_then_history_names_the_commit_and_the_modules_it_added(recorded, cli):
    repo, shas, res = recorded
    assert "recorded 12 of 12 commits of the check cli" in res.stdout
    table = cli("history", cwd=repo)
    assert table.returncode == 0, table
    assert f"change point at {shas['regression'][:10]} format prices" in table.stdout, table.stdout
    assert table.stdout.count("change point at") == 1, table.stdout
    added = table.stdout.split("change point at", 1)[1]
    assert "appeared    fractions" in added and "appeared    decimal" in added, added

    out = cli("history", "--format", "json", "-o", "history.json", cwd=repo)
    assert out.returncode == 0, out
    from profiler.inputs.documents import read_document

    doc = read_document(str(repo / "history.json"), ["history"])  # validated against schemas/history.json
    [series] = doc["series"]
    assert len(series["points"]) == 12 and series["figure"] == "instructions"
    [cp] = doc["change_points"]
    assert cp["commit"] == shas["regression"] and cp["previous"] == shas["change 4"]
    assert cp["after"] > cp["before"] and cp["unrecorded_between"] == 0
    appeared = {m["name"] for m in cp["modules"] if m["change"] == "appeared"}
    assert {"fractions", "decimal"} <= appeared, cp["modules"]

    # resumable: every commit is recorded on this machine and interpreter already
    again = cli("history", "record", "--commits", "v1..HEAD", "--check", "cli", cwd=repo)
    assert again.returncode == 0 and "recorded 0 of 12" in again.stdout and "12 already recorded" in again.stdout, again


def test_the_page_renders_in_a_real_browser(recorded, cli):
    from test_report import dump_dom

    repo, shas, _ = recorded
    res = cli("history", "-o", "history.html", cwd=repo)
    assert res.returncode == 0, res
    page = repo / "history.html"
    assert page.read_text().startswith("<!DOCTYPE html>")
    dom = dump_dom(page)
    assert "<svg" in dom and 'class="curve"' in dom
    change = dom.split('<details class="change">', 1)[1].split("</details>", 1)[0]
    assert shas["regression"][:10] in change and "format prices" in change
    assert "fractions" in change and "appeared" in change


def test_export_from_two_stores_import_into_a_third_is_the_union(recorded, cli, tmp_path):
    repo, _, _ = recorded
    other = tmp_path / "b.sqlite"
    res = cli("check", "quick", "--record", "--history", other, cwd=repo)
    assert res.returncode == 0, res
    assert cli("history", "export", "-o", tmp_path / "a.jsonl", cwd=repo).returncode == 0
    assert cli("history", "export", "--history", other, "-o", tmp_path / "b.jsonl", cwd=repo).returncode == 0
    third = tmp_path / "c.sqlite"
    res = cli("history", "import", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--history", third, cwd=repo)
    assert res.returncode == 0 and "imported 13 check runs" in res.stdout, res
    res = cli("history", "import", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--history", third, cwd=repo)
    assert res.returncode == 0 and "imported 0 check runs" in res.stdout and "13 already there" in res.stdout, res

    def uids(path):
        with sqlite3.connect(path) as c:
            return sorted(r[0] for r in c.execute("SELECT uid FROM runs"))

    assert uids(third) == sorted(uids(repo / ".importprof" / "history.sqlite") + uids(other))
    doc = json.loads(cli("history", "--history", third, "--format", "json", cwd=repo).stdout)
    assert {s["check"]: len(s["points"]) for s in doc["series"]} == {"cli": 12, "quick": 1}


def test_two_check_record_at_once_both_land(recorded, cli, tmp_path):
    repo, shas, _ = recorded
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-m", "profiler", "check", "quick", "--record", "--history", str(store)]
    procs = [subprocess.Popen(argv, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    with sqlite3.connect(store) as c:
        rows = c.execute("SELECT commit_sha, check_name FROM runs").fetchall()
    assert rows == [(shas["change 10"], "quick")] * 2


def test_the_history_page_lines_run(recorded, cli):
    """docs/commands/history.md's command lines, in order, in the recorded repository (its
    backfill line finds every commit recorded already)."""
    from test_readme import console_lines

    repo, _, _ = recorded
    page = REPO / "docs" / "commands" / "history.md"
    ran = 0
    for n, text in console_lines(page):
        argv = shlex.split(text, comments=True)
        if argv[:1] != ["importprof"]:
            continue
        res = cli(*argv[1:], cwd=repo)
        assert res.returncode == 0, (n, text, res)
        ran += 1
        for i, a in enumerate(argv):
            if a == "-o":
                assert (repo / argv[i + 1]).exists(), (n, text)
    assert ran >= 6


def test_an_interrupted_backfill_keeps_what_it_recorded(tmp_path, cli):
    repo, shas = dozen_commits(tmp_path)
    store = tmp_path / "h.sqlite"
    args = ["history", "record", "--commits", "v1..HEAD", "--check", "quick", "--history", str(store)]
    proc = start_importprof(args, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    count = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.3)
        if store.exists():
            try:
                with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as c:
                    count = c.execute("SELECT count(*) FROM runs").fetchone()[0]
            except sqlite3.Error:
                continue
            if count >= 2:
                break
    assert count >= 2 and proc.poll() is None, "the backfill ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    with sqlite3.connect(store) as c:
        kept = c.execute("SELECT count(*) FROM runs").fetchone()[0]
    assert 2 <= kept < 12
    assert "worktree" not in git(repo, "worktree", "list").split("\n", 1)[-1]
    res = cli("history", "record", "--commits", "v1..HEAD", "--check", "quick", "--history", store, "--every", "4", cwd=repo)
    assert res.returncode == 0, res
    assert "already recorded on this machine, skipped" in res.stdout or kept < 2, res


def test_bad_input_is_one_line_and_the_store_is_never_overwritten(tmp_path, cli):
    repo, shas = dozen_commits(tmp_path)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    before = junk.read_bytes()
    for args in (("history",), ("history", "export"), ("history", "import", str(tmp_path / "none.jsonl")),
                 ("check", "quick", "--record")):
        assert_one_line_error(cli(*args, "--history", junk, cwd=repo), 2, "corrupt", "left as it is")
    assert junk.read_bytes() == before

    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as c:
        c.execute("PRAGMA user_version = 99")
        c.execute("CREATE TABLE runs (x)")
        c.execute("CREATE TABLE names (x)")
    assert_one_line_error(cli("history", "--history", newer, cwd=repo), 2, "newer importprof", "store version 99")

    for spec, needle in (("nope..HEAD", "not a commit"), ("v1..nope", "not a commit"), ("HEAD", "a range A..B"),
                         (f"HEAD..{shas['base']}", "not an ancestor")):
        assert_one_line_error(cli("history", "record", "--commits", spec, "--check", "quick", cwd=repo), 2, needle)
    assert_one_line_error(cli("history", "record", "--commits", "v1..HEAD", "--check", "nope", cwd=repo), 2, "no check named")
    assert_one_line_error(cli("history", cwd=repo), 2, "no history store")
    assert_one_line_error(cli("history", "frobnicate", cwd=repo), 2, "unknown history action")
    assert_one_line_error(cli("history", "record", "--check", "quick", cwd=repo), 2, "needs --commits")
    assert_one_line_error(cli("history", "--commits", "v1..HEAD", cwd=repo), 2, "does not take --commits")
    assert_one_line_error(cli("history", "--figure", "speed", cwd=repo), 2, "unknown --figure")

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": "importprof.history_export/1"}\n{"uid": 1}\n')
    store = tmp_path / "s.sqlite"
    assert_one_line_error(cli("history", "import", bad, "--history", store, cwd=repo), 2, "bad.jsonl:2")
    assert not store.exists()  # nothing checked, nothing made
    assert not (repo / ".importprof").exists()


def test_history_bisect_narrows_a_change_point_between_recorded_commits(tmp_path, cli):
    """Every fourth commit recorded: the step shows at the 9th commit, three unrecorded before
    it; `history bisect` measures two of them and puts it on the planted commit."""
    repo, shas = dozen_commits(tmp_path)
    res = cli("history", "record", "--commits", "v1..HEAD", "--every", "4", "--check", "cli", cwd=repo)
    assert res.returncode == 0 and "recorded 4 of 4 commits" in res.stdout, res
    doc = json.loads(cli("history", "--format", "json", cwd=repo).stdout)
    [cp] = doc["change_points"]
    assert cp["commit"] == shas["change 7"] and cp["previous"] == shas["change 4"] and cp["unrecorded_between"] == 3, cp
    table = cli("history", cwd=repo).stdout
    assert "3 unrecorded commits since" in table and "history bisect" in table, table

    res = cli("history", "bisect", "--check", "cli", "--format", "json", cwd=repo)
    assert res.returncode == 0, res
    [cp] = json.loads(res.stdout)["change_points"]
    assert cp["commit"] == shas["regression"] and cp["previous"] == shas["change 4"] and cp["unrecorded_between"] == 0, cp
    assert {"fractions", "decimal"} <= {m["name"] for m in cp["modules"] if m["change"] == "appeared"}
    points = [p["commit"] for p in json.loads(res.stdout)["series"][0]["points"]]
    assert len(points) == 6  # the four recorded, and the two bisect measured (halving three)


def test_a_commit_that_cannot_be_built_is_recorded_as_an_error_with_why(tmp_path, cli):
    repo, shas = dozen_commits(tmp_path)
    broken = f"{shlex.quote(sys.executable)} -c 'raise SystemExit(4)'"
    res = cli("history", "record", "--commits", "HEAD~1..HEAD", "--check", "quick",
              "--install", broken, cwd=repo)
    assert res.returncode == 0, res
    assert "recorded 2 of 2 commits of the check quick (2 could not be measured)" in res.stdout, res
    assert "install step" in res.stdout and "exited 4" in res.stdout
    doc = json.loads(cli("history", "--format", "json", cwd=repo).stdout)
    [series] = doc["series"]
    assert [(p["commit"], p["status"], p["value"]) for p in series["points"]] == \
        [(shas["change 9"], "error", None), (shas["change 10"], "error", None)]
    assert "exited 4" in series["points"][0]["error"] and doc["change_points"] == []
    # recorded, so skipped on the next backfill as any other commit
    again = cli("history", "record", "--commits", "HEAD~1..HEAD", "--check", "quick", cwd=repo)
    assert "recorded 0 of 2" in again.stdout, again


def test_check_record_marks_a_dirty_tree_and_records_outside_git_without_a_commit(tmp_path, cli):
    repo, shas = dozen_commits(tmp_path)
    (repo / "mypkg" / "notes_1.py").write_text("NOTE = 'edited'\n")
    res = cli("check", "quick", "--record", cwd=repo)
    assert res.returncode == 0, res
    assert "differs from" in res.stderr and "marked dirty" in res.stderr, res
    doc = json.loads(cli("history", "--format", "json", "--figure", "import_ms", cwd=repo).stdout)
    [point] = doc["series"][0]["points"]
    assert point["commit"] == shas["change 10"] and point["dirty"] is True and doc["series"][0]["figure"] == "import_ms"
    assert "+" in cli("history", cwd=repo).stdout.split(shas["change 10"][:10], 1)[1][:1]

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text('[tool.importprof]\nhistory = "runs/h.sqlite"\n' + CHECKS)
    res = cli("check", "quick", "--record", cwd=plain)
    assert res.returncode == 0 and "not in a git repository" in res.stderr, res
    assert (plain / "runs" / "h.sqlite").exists()  # [tool.importprof] history, beside the pyproject.toml
    doc = json.loads(cli("history", "--format", "json", cwd=plain).stdout)
    assert [p["commit"] for p in doc["series"][0]["points"]] == [None]
