"""`importprof site`: a real venv whose site-packages holds a .pth that imports a
module; the start-up note; the JSON contract; failures."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import assert_one_line_error
from profiler.analysis.site import build_site_report, site_startup_note
from profiler.parse.phases import parse_phase_records
from profiler.parse.site import parse_site_record

FIX = Path(__file__).parent / "fixtures" / "site"


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def pth_venv(real_python, tmp_path_factory) -> Path:
    """A venv (no pip) whose site-packages has slowpth.pth: a path line, then a line that
    imports `pth_payload` (a module in the same site-packages, which imports `fractions`)."""
    root = tmp_path_factory.mktemp("sitevenv")
    venv = root / "venv"
    subprocess.run([real_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    sp = _site_packages(venv)
    (root / "extra").mkdir()
    (sp / "pth_payload.py").write_text("import time\nimport fractions\ntime.sleep(0.3)\n")
    (sp / "slowpth.pth").write_text(f"# a comment\n{root / 'extra'}\nimport pth_payload\n")
    return venv


def test_pth_found_and_charged(cli, pth_venv):
    res = cli("site", "--python", pth_venv / "bin" / "python", "--runs", "1", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.site/1"
    for key in ("machine", "pth", "sitecustomize", "usercustomize", "user_site", "sys_path_added"):
        assert key in doc
    pths = {Path(p["path"]).name: p for p in doc["pth"]}
    slow = pths["slowpth.pth"]
    assert set(slow) >= {"path", "seconds", "lines", "modules"}
    assert Path(slow["path"]).parent == _site_packages(pth_venv)
    assert [ln["lineno"] for ln in slow["lines"]] == [3]  # only the line that runs code
    assert slow["lines"][0]["text"] == "import pth_payload"
    assert slow["modules"][0] == "pth_payload" and "fractions" in slow["modules"]
    assert slow["lines"][0]["modules"] == slow["modules"]
    # charged: the line's sleep is inside the file's time, the file's time inside site's
    assert slow["seconds"] >= slow["lines"][0]["seconds"] >= 0.3
    assert doc["seconds"] >= slow["seconds"]
    # the venv's site-packages and the .pth's path line were added to sys.path
    assert doc["sys_path_added"] == len(doc["sys_path_entries"]) >= 2
    assert any(e.endswith("extra") for e in doc["sys_path_entries"])
    assert {m["name"] for m in doc["modules"]} >= {"pth_payload"}


def test_table_names_the_pth(cli, pth_venv):
    res = cli("site", "--python", pth_venv / "bin" / "python", "--runs", "1")
    assert res.returncode == 0, res
    assert "slowpth.pth" in res.stdout and "pth_payload" in res.stdout
    assert "slowpth.pth:3" in res.stdout


def test_startup_note_names_costliest_pth(cli, pth_venv):
    res = cli(
        "startup", "--python", pth_venv / "bin" / "python", "--variant", "default,no-site",
        "--runs", "2", "--warmup", "0", "--engine", "hyperfine",
    )
    assert res.returncode == 0, res
    notes = [ln for ln in res.stdout.splitlines() if ln.startswith("note: site costs")]
    assert len(notes) == 1, res
    assert "slowpth.pth" in notes[0] and "pth_payload" in notes[0]


def test_no_note_without_both_variants(cli, pth_venv):
    res = cli("startup", "--python", pth_venv / "bin" / "python", "--variant", "default",
              "--runs", "1", "--warmup", "0", "--engine", "hyperfine", "--format", "json")
    assert res.returncode == 0, res
    assert not [n for n in res.json()["notes"] if n.startswith("site costs")]


def test_sitecustomize_found(cli, debian_python):
    """Debian's python3.11 ships /usr/lib/python3.11/sitecustomize.py."""
    res = cli("site", "--python", debian_python, "--runs", "1", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["sitecustomize"]["path"].endswith("sitecustomize.py")
    assert doc["sitecustomize"]["seconds"] > 0
    assert doc["usercustomize"] is None


def test_bad_python_and_format(cli, tmp_path):
    assert_one_line_error(cli("site", "--python", tmp_path / "nope"), 2, "interpreter")
    assert_one_line_error(cli("site", "--format", "xml"), 2, "format")
    assert_one_line_error(cli("site", "--runs", "0"), 2, "runs")
    out = tmp_path / "out.json"
    assert_one_line_error(cli("site", "--flags=-S", "-o", out), 2, "-S")
    assert not out.exists()


def test_report_from_real_fixture():
    run = parse_site_record((FIX / "base-3.11.7.site.json").read_text())
    mods = parse_phase_records((FIX / "base-3.11.7.phases.jsonl").read_text())
    report = build_site_report([(run, mods)], {}, "python", "3.11.7")
    worst = report.costliest_pth
    assert worst.path.endswith("_sandboxing_egress_ca.pth")
    assert worst.modules[0] == "certifi"
    assert worst.lines[0].lineno == 2
    assert report.sys_path_added == 1
    doc = report.to_dict()
    json.dumps(doc)
    assert doc["pth"][0]["seconds"] == worst.seconds
    # the note: only when site costs more than 2x a bare start
    assert site_startup_note(0.030, 0.011, report) is None
    note = site_startup_note(0.054, 0.011, report)
    assert "_sandboxing_egress_ca.pth" in note and "certifi" in note


def test_parse_site_record_errors():
    from profiler.errors import BadInput

    with pytest.raises(BadInput):
        parse_site_record("{trunc")
    with pytest.raises(BadInput, match="did not run"):
        parse_site_record('{"main_us": null}')


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.12", "3.13"])
def test_site_on_every_supported_version(cli, version, tmp_path):
    """The same venv + .pth on each version (hook_site and the phases hook it builds on run
    inside 3.7 to 3.13); a version this machine lacks is skipped with the reason."""
    from tests._interpreters import pyenv_python

    venv = tmp_path / f"venv{version}"
    subprocess.run([pyenv_python(version), "-m", "venv", "--without-pip", str(venv)], check=True)
    sp = _site_packages(venv)
    (sp / "pth_payload.py").write_text("import fractions\n")
    (sp / "demo.pth").write_text("import pth_payload\n")
    res = cli("site", "--python", venv / "bin" / "python", "--runs", "1", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".")
    pths = {Path(p["path"]).name: p for p in doc["pth"]}
    assert pths["demo.pth"]["modules"][0] == "pth_payload" and "fractions" in pths["demo.pth"]["modules"]
    assert str(sp) in doc["sys_path_entries"]


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_site_refuses_a_python_without_hooks_in_one_line(cli, version):
    from tests._interpreters import pyenv_python

    res = cli("site", "--python", pyenv_python(version), "--runs", "1")
    assert_one_line_error(res, 2, "`site` is unavailable", "needs Python 3.7+")
