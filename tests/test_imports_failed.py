"""Failed imports: shown as failed with their cost, never as loaded modules; the
interpreter's own start-up modules are never lazy-import candidates. Real interpreters."""

from __future__ import annotations

import pytest

from profiler.analysis.imports_marks import mark_failed
from profiler.analysis.imports_views import startup_names
from profiler.parse.importtime import parse_importtime
from profiler.workflows.imports import report_from_logs

SCRIPT = """\
for name in ("nt", "winreg", "not_installed_xyz", "badmod"):
    try:
        __import__(name)
    except ImportError:
        pass
import json
"""


@pytest.fixture()
def failing(tmp_path):
    (tmp_path / "badmod.py").write_text("import csv\nraise ImportError('boom')\n")
    script = tmp_path / "failing.py"
    script.write_text(SCRIPT)
    return script


def test_log_alone_cannot_tell_a_failed_import(real_python, tmp_path, failing):
    """What -X importtime prints for a failed import on this Python: a row like any other."""
    import subprocess

    err = subprocess.run([real_python, "-X", "importtime", str(failing)], capture_output=True, text=True, cwd=tmp_path).stderr
    rows = {ln.rsplit("|", 1)[1].strip(): ln for ln in err.splitlines() if ln.startswith("import time:") and "|" in ln}
    for name in ("nt", "winreg", "not_installed_xyz", "badmod", "json"):
        assert name in rows  # same format, same columns: nothing marks the failure


def test_failed_imports_in_json_table_and_groups(cli, real_python, failing):
    res = cli("imports", "--python", real_python, "--runs", 2, "--group", "kind", "--format", "json", failing, cwd=failing.parent)
    assert res.returncode == 0, res
    doc = res.json()
    roots = {m["name"]: m for m in doc["modules"] if m["depth"] == 0}
    for name in ("nt", "winreg", "not_installed_xyz", "badmod"):
        assert roots[name]["failed"] is True and roots[name]["cumulative_us"] > 0  # shown with its cost
    assert roots["json"]["failed"] is False
    by = {m["name"]: m for m in doc["modules"]}
    assert by["csv"]["failed"] is False  # imported by badmod before it raised: loaded
    assert by["site"]["failed"] is False and by["sitecustomize"]["failed"] is True  # none installed
    groups = {g["name"]: g for g in doc["groups"]}
    assert groups["(failed imports)"]["modules"] >= 4
    res = cli("imports", "--python", real_python, "--runs", 1, "--warmup", 0, "--min-ms", 0, failing, cwd=failing.parent)
    assert res.returncode == 0, res
    assert "| nt (failed)" in res.stdout and "| badmod (failed)" in res.stdout and "| json  " in res.stdout
    assert " imports failed (marked (failed))" in res.stdout


def test_why_marks_a_failed_hop(cli, real_python, failing):
    res = cli("why", "winreg", "--python", real_python, "--format", "json", failing, cwd=failing.parent)
    assert res.returncode == 0, res
    (chain,) = res.json()["chains"]
    assert chain["hops"][-1]["name"] == "winreg" and chain["hops"][-1]["failed"] is True
    res = cli("why", "winreg", "--python", real_python, failing, cwd=failing.parent)
    assert "winreg (failed)" in res.stdout, res


def test_site_and_startup_modules_are_never_lazy_candidates(cli, real_python, failing):
    res = cli("imports", "--python", real_python, "--runs", 1, "--lazy-candidates", "--format", "json", failing, cwd=failing.parent)
    assert res.returncode == 0, res
    doc = res.json()
    cands = {m["name"] for m in doc["modules"] if m.get("lazy_candidate")}
    start = startup_names([_rec(m) for m in doc["modules"]])
    assert "site" in start and "encodings" in start
    assert not cands & start, cands & start
    assert not {m["name"] for m in doc["modules"] if m.get("failed")} & cands
    assert "json" in cands  # imported by the program and never called: a real candidate


def _rec(d):
    from profiler.model.import_records import ModuleRecord

    return ModuleRecord.from_dict(d)


HEADER = "import time: self [us] | cumulative | imported package\n"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def test_mark_failed_pairs_rows_and_outcomes_in_order():
    text = HEADER + row(5, 5, 1, "certifi") + row(4, 4, 1, "certifi") + row(10, 19, 0, "requests") + row(3, 3, 0, "x")
    rep = report_from_logs([parse_importtime(text)], machine={}, python=None, python_version=None, target=None, source="log")
    marked = mark_failed(rep.modules, [("requests", False), ("certifi", True), ("certifi", False)])
    assert [(m.name, m.extra["failed"]) for m in marked] == [("requests", False), ("certifi", True), ("certifi", False), ("x", False)]
    marked = mark_failed(rep.modules, [("certifi", True)])  # fewer outcomes than rows: all of them failed
    assert [m.extra["failed"] for m in marked if m.name == "certifi"] == [True, True]
