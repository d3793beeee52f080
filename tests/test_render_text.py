"""The human renderers' shared text: one ratio convention, failed rows, targets
as typed and long paths. Real documents from tests/fixtures/report, no process run."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from profiler.model.measurement import StartupReport, TimingResult
from profiler.render.units import RATIO_CONVENTION, fmt_ratio

REPORT_FIXTURES = FIXTURES / "report"


def load(kind: str) -> dict:
    return json.loads((REPORT_FIXTURES / f"{kind}.json").read_text())


# One table of display strings for the console and the page (tests/js/page.test.js reads it too),
# so the page's formatting cannot drift from render/units.py and render/text.py.
FORMATTING_CASES = json.loads((FIXTURES / "formatting" / "cases.json").read_text())["functions"]


def _python_formatter(name: str):
    from profiler.render.text import short_path
    from profiler.render.units import fmt_bytes, fmt_count

    return {
        "fmt_ratio": lambda ratio, sd, ref: fmt_ratio(ratio, sd, reference=ref),
        "short_path": short_path,
        "fmt_bytes": fmt_bytes,
        "fmt_count": fmt_count,
    }[name]


@pytest.mark.parametrize(
    "name, args, text",
    [(name, args, text) for name, spec in FORMATTING_CASES.items() for args, text in spec["cases"]],
)
def test_shared_formatting_cases(name, args, text):
    assert _python_formatter(name)(*args) == text


def test_one_ratio_convention_is_in_the_shared_cases():
    shown = {text for _, text in FORMATTING_CASES["fmt_ratio"]["cases"]}
    assert {"1.00x (reference)", "4.8x slower", "4.8x faster"} <= shown
    assert "1.00x = the reference" in RATIO_CONVENTION


def test_startup_table_says_slower_or_faster_against_the_reference():
    from profiler.render.console_startup import render_startup_table

    doc = load("startup")
    text = render_startup_table(StartupReport.from_dict(doc), tty=False)
    header = next(ln for ln in text.splitlines() if "Mean" in ln)
    assert "vs default" in header and "×" not in header
    row = {ln.split("|")[1].strip(): ln for ln in text.splitlines() if ln.startswith("|")}
    assert "1.00x (reference)" in row["default"]
    ratio = next(x["ratio"] for x in doc["relative"] if x["key"] == "no-site")
    assert ratio < 1 and f"{1 / ratio:.1f}x" in row["no-site"] and "faster" in row["no-site"]
    assert RATIO_CONVENTION in text


def _compare_report(doc):
    from profiler.analysis.compare import compare_rows
    from profiler.model.compare import CompareReport

    results = tuple(TimingResult.from_dict(r) for r in doc["results"])
    return CompareReport(doc["workload"], doc["target"], doc["python"], doc["python_version"], "/b", results, tuple(compare_rows(results)))


def test_compare_table_uses_time_ratios_against_no_site():
    from profiler.render.console_compare import render_compare_table

    doc = load("compare")
    text = render_compare_table(_compare_report(doc), tty=False)
    lines = {ln.split("|")[1].strip(): ln for ln in text.splitlines() if ln.startswith("|")}
    assert "1.00x (reference)" in lines["no-site"]
    for row in doc["rows"]:
        if row["variant"] == "no-site":
            continue
        word = "faster" if row["speedup_vs_no_site"] > 1 else "slower"  # speed > 1: less time
        assert word in lines[row["variant"]], lines[row["variant"]]
    assert "time ratios" in text


def test_markdown_relative_column_and_its_meaning():
    from profiler.render.markdown import render_markdown

    text = render_markdown(StartupReport.from_dict(load("startup")))
    assert "| 1.00x (reference) |" in text
    assert "faster |" in text or "slower |" in text
    assert RATIO_CONVENTION in text


# ------------------------------------------------------------------ 11.7 targets and paths
def test_targets_show_as_typed_not_shell_quoted():
    import shlex

    from profiler.model.target import Target
    from profiler.render.text import shown_target

    cases = {
        Target("code", "print('hi')"): "-c \"print('hi')\"",
        Target("code", "import json"): '-c "import json"',
        Target("code", "pass"): "-c pass",
        Target("script", "my app.py", ("--x",)): '"my app.py" --x',
        Target("code", 'print("it\'s $HOME")'): '-c "print(\\"it\'s \\$HOME\\")"',
    }
    for target, typed in cases.items():
        assert shown_target(target.label()) == typed
        assert "'\"'\"'" not in shown_target(target.label())
    assert shlex.split(shown_target(Target("code", "print('hi')").label())) == ["-c", "print('hi')"]
    assert shown_target("not 'a label") == "not 'a label"  # free text stays as it is


def test_startup_table_target_column_as_typed():
    from profiler.render.console_startup import render_startup_table

    doc = load("startup")
    label = "-c 'print('\"'\"'hi'\"'\"')'"  # what shlex.join makes of -c "print('hi')"
    for r in doc["results"]:
        r["target"] = label
    text = render_startup_table(StartupReport.from_dict(doc), tty=False)
    assert "-c \"print('hi')\"" in text and "'\"'\"'" not in text


def test_long_paths_abbreviated_in_the_middle_on_a_terminal_only():
    from profiler.model.site import PthFile, SiteReport
    from profiler.render.console_site import render_site_table
    from profiler.render.text import short_path

    long = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/certifi/core.py"
    assert short_path(long, 40) == "…/site-packages/certifi/core.py"
    assert short_path("/short/path.py", 40) == "/short/path.py"
    assert short_path("/a/" + "x" * 80, 20) == "…" + "x" * 19
    path = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/distutils-precedence.pth"
    report = SiteReport({}, "/usr/bin/python3", "3.11.7", 1, 0.004, (PthFile(path, 0.001),), None, None, None, 1)
    plain = render_site_table(report, tty=False)
    assert path in plain  # a pipe or a file: never cut (ARCHITECTURE.md)
    term = render_site_table(report, tty=True)
    assert path not in term and "…/lib/python3.11/site-packages/distutils-precedence.pth" in term


# ------------------------------------------------------------------ 11.3 figures from different runs
def test_site_note_says_the_pth_figure_is_from_another_run_and_why_it_exceeds():
    """startup said "site costs 36.8 ms" and then "costliest .pth (46.0 ms)" with no word."""
    from profiler.analysis.site import site_startup_note
    from profiler.model.site import PthFile, SiteReport

    pth = PthFile("/venv/lib/python3.11/site-packages/_ca.pth", 0.046, modules=("certifi",))
    report = SiteReport({}, "/usr/bin/python3", "3.11.7", 1, 0.052, (pth,), None, None, None, 1)
    note = site_startup_note(0.0478, 0.011, report)  # site costs 36.8 ms by the timed means
    assert "site costs 36.8 ms" in note and "(46.0 ms" in note
    assert "separate instrumented run" in note and "site.main() took 52.0 ms" in note
    assert "15.2 ms more than the timed difference" in note
    assert "can exceed the site cost above" in note


def test_phase_columns_say_they_come_from_another_run_and_by_how_much():
    from profiler.model.imports_report import ImportsReport
    from profiler.render.console_imports import render_imports_table

    report = ImportsReport.from_dict(load("imports"))  # made with --phases
    text = render_imports_table(report, tty=False)
    assert "ONE separate instrumented run" in text
    site = next(m for m in report.modules if m.name == "site")
    total = sum(site.extra[k] for k in ("find_us", "read_us", "unmarshal_us", "exec_us"))
    assert f"site {total / 1000:.2f} vs {site.self_us / 1000:.2f} ms" in text  # 0.06 vs 1.34: said, not hidden


# ------------------------------------------------------------------ failed rows
def _with_a_failure(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    bad = doc["results"][-1]
    for k in ("mean", "stddev", "median", "min", "max", "user", "system"):
        bad[k] = None
    bad.update(times=[], user_times=None, system_times=None, memory_usage_byte=None, exit_codes=[1],
               failed=True, error="exited with code 1: ModuleNotFoundError: No module named 'nope'")
    doc["relative"] = [x for x in doc.get("relative", []) if x["key"] != bad["key"]]
    return doc


def test_failed_rows_show_their_error_and_no_timing_figure():
    from profiler.render.console_startup import render_startup_table
    from profiler.render.markdown import render_markdown

    doc = _with_a_failure(load("startup"))
    bad = doc["results"][-1]
    report = StartupReport.from_dict(doc)
    assert report.results[-1].failed
    for text in (render_startup_table(report, tty=False), render_markdown(report)):
        line = next(ln for ln in text.splitlines() if "failed:" in ln)
        assert "failed: exited with code 1: ModuleNotFoundError" in line
        assert " ms" not in line and "n/a" not in line and "x slower" not in line and "x faster" not in line
        assert bad["variant"] in line or bad["key"] in line


def test_failed_variant_in_compare_table():
    from profiler.render.console_compare import render_compare_table

    doc = _with_a_failure(load("compare"))
    text = render_compare_table(_compare_report(doc), tty=False)
    line = next(ln for ln in text.splitlines() if "failed:" in ln)
    assert doc["results"][-1]["variant"] in line and " ms" not in line


def test_reference_column_names_the_row_when_a_variant_repeats():
    """--import: `default -c pass` and `default -c "import json"` - the column says which is 1.00x."""
    from profiler.render.console_startup import render_startup_table

    doc = load("startup")
    extra = json.loads(json.dumps(doc["results"][0]))
    extra.update(key="default · import json", target="-c 'import json'", role="import", module="json")
    doc["results"].append(extra)
    text = render_startup_table(StartupReport.from_dict(doc), tty=False)
    header = next(ln for ln in text.splitlines() if "Mean" in ln)
    assert "vs default -c pass" in header


def test_an_import_cost_smaller_than_its_uncertainty_says_noise():
    """Issue 11.6 in the startup table: `-8.5 ms ± 27.9 ms` is not a cost, it is noise."""
    from profiler.render.console_startup import render_startup_table

    doc = load("startup")
    doc["import_costs"] = [
        {"module": "json", "variant": "default", "python": None, "mean": -0.0085, "stddev": 0.0279},
        {"module": "json", "variant": "no-site", "python": None, "mean": 0.0071, "stddev": 0.0012},
    ]
    text = render_startup_table(StartupReport.from_dict(doc), tty=False)
    rows = {ln.split("|")[2].strip(): ln for ln in text.splitlines() if ln.startswith("| json")}
    assert "noise (-8.5 ms ± 27.9 ms)" in rows["default"]
    assert "noise" not in rows["no-site"] and "7.1 ms ± 1.2 ms" in rows["no-site"]
    assert "not measurable at these runs" in text and "raise --runs" in text


def test_doctor_findings_show_target_as_typed_and_short_paths_on_a_terminal():
    from profiler.model.doctor import DoctorReport
    from profiler.render.console_doctor import render_doctor_table

    doc = load("doctor")
    report = DoctorReport.from_dict(doc)
    plain = render_doctor_table(report, tty=False)
    assert plain.splitlines()[0].startswith('target: -c "import json, csv, argparse";')
    longest = max((f["where"] for f in doc["findings"]), key=len)
    assert longest in plain  # whole in a pipe
    if len(longest) > 72:
        assert longest not in render_doctor_table(report, tty=True)
