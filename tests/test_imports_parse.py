"""The -X importtime parser and tree building, on real logs captured here (see
tests/fixtures/importtime/README.md) and their derived variants."""

from __future__ import annotations

import gzip
import importlib.util
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiler.analysis.imports_aggregate import build_run_tree
from profiler.analysis.imports_views import parent_indices
from profiler.errors import BadInput
from profiler.parse.importtime import parse_importtime
from profiler.render.console_imports import ImportsView, render_imports_table
from profiler.render.folded import render_folded
from profiler.workflows.imports import report_from_logs
from conftest import examples

RAW_ROW = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")
REAL_LOGS = ["boto3", "cryptography_fernet", "requests_noise", "command_subprocesses"]
GOLDEN_FOLDED = REAL_LOGS + ["py314_cached", "repeated_headers", "boto3_truncated"]


def text(fixtures, name: str) -> str:
    p = fixtures / "importtime" / name
    return gzip.decompress(p.read_bytes()).decode() if name.endswith(".gz") else p.read_bytes().decode()


def report_of(log_text: str, source="log"):
    return report_from_logs([parse_importtime(log_text, source)], machine={}, python=None, python_version=None, target=None, source="log")


def modules_dicts(report):
    return [m.to_dict() for m in report.modules]


@pytest.mark.parametrize("name", GOLDEN_FOLDED)
def test_folded_golden(fixtures, name):
    report = report_of(text(fixtures, f"{name}.log"))
    golden = (fixtures / "importtime" / "golden" / f"{name}.folded").read_text()
    assert render_folded(report) == golden


@pytest.mark.parametrize("name", REAL_LOGS)
def test_real_log_rows_and_self_times_match_the_raw_text(fixtures, name):
    raw = text(fixtures, f"{name}.log")
    rows = [RAW_ROW.search(ln) for ln in raw.splitlines()]
    rows = [m for m in rows if m]
    log = parse_importtime(raw)
    assert log.row_count == len(rows)
    report = report_of(raw)
    assert sum(m.self_us for m in report.modules) == sum(int(m.group(1)) for m in rows)
    roots_cum = sum(int(m.group(2)) for m in rows if m.group(3) == "")
    assert report.total_us == roots_cum
    # every name in the log is a module of the report, in the right process count
    assert {m.group(4) for m in rows} == {m.name for m in report.modules}
    assert report.processes == raw.count("import time: self [us] | cumulative | imported package")


def test_tree_and_top_views_golden(fixtures):
    report = report_of(text(fixtures, "boto3.log"))
    tree = render_imports_table(report, False, ImportsView(view="tree", min_ms=5))
    top = render_imports_table(report, False, ImportsView(view="top", top=10))
    assert tree == (fixtures / "importtime" / "golden" / "boto3.tree.txt").read_text()
    assert top == (fixtures / "importtime" / "golden" / "boto3.top.txt").read_text()


def test_real_tree_shape(fixtures):
    report = report_of(text(fixtures, "boto3.log"))
    by = {m.name: m for m in report.modules}
    assert by["boto3"].parent is None and by["boto3"].depth == 0
    assert by["boto3.session"].parent == "boto3" and by["boto3.session"].depth == 1
    assert by["certifi"].parent == "site"
    # pre-order: a parent comes before its children
    seen = set()
    for m in report.modules:
        assert m.parent is None or m.parent in seen
        seen.add(m.name)
    # a module imported twice (dropped from sys.modules in between) is two records
    twice = [m for m in report.modules if m.name == "botocore.vendored.requests.packages.urllib3"]
    assert [m.cumulative_us for m in twice] == [1840, 1290]  # pre-order: the outer one first


@pytest.mark.parametrize("variant", ["boto3_crlf", "boto3_noise"])
def test_crlf_and_program_output_change_nothing(fixtures, variant):
    clean = report_of(text(fixtures, "boto3.log"))
    log = parse_importtime(text(fixtures, f"{variant}.log"))
    assert not log.warnings
    assert modules_dicts(report_of(text(fixtures, f"{variant}.log"))) == modules_dicts(clean)
    if variant == "boto3_noise":
        assert "no newline here>" in log.other_lines
        assert any(ln.startswith("program output line 25") for ln in log.other_lines)


def test_program_stderr_kept_apart(fixtures):
    log = parse_importtime(text(fixtures, "requests_noise.log"))
    assert log.other_lines == ("noise on stderr",)


def test_truncated_last_line_is_dropped_with_a_warning(fixtures):
    log = parse_importtime(text(fixtures, "boto3_truncated.log"), "cut.log")
    assert any("line 301" in w and "truncated" in w for w in log.warnings)
    assert log.row_count == 299
    _, notes = build_run_tree(log)
    assert any("never finished" in n for n in notes)


def test_repeated_headers_split_into_processes(fixtures):
    both = report_of(text(fixtures, "repeated_headers.log"))
    fernet = report_of(text(fixtures, "cryptography_fernet.log"))
    boto3 = report_of(text(fixtures, "boto3.log"))
    assert both.processes == 2
    p0 = [m.to_dict() for m in both.modules if m.process == 0]
    assert p0 == modules_dicts(fernet)
    p1 = [{**m.to_dict(), "process": 0} for m in both.modules if m.process == 1]
    assert p1 == modules_dicts(boto3)
    assert both.total_us == fernet.total_us + boto3.total_us


def test_overlapping_processes_warn(fixtures):
    log = parse_importtime(text(fixtures, "overlap.log"))
    _, notes = build_run_tree(log)
    assert any("overlap" in n for n in notes)


def test_real_subprocess_log_has_one_process_each(fixtures):
    report = report_of(text(fixtures, "command_subprocesses.log"))
    assert report.processes == 3
    names = {p: {m.name for m in report.modules if m.process == p} for p in range(3)}
    assert "subprocess" in names[0]
    assert "json" in names[1] and "csv" in names[2]


# --------------------------------------------------------------------------- Python 3.14
def _make_variants(fixtures):
    spec = importlib.util.spec_from_file_location("make_variants", fixtures / "importtime" / "make_variants.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cpython_format_strings_reproduce_the_real_log(fixtures):
    """The 3.14 fixture is built with import.c's format strings: they must give back the real
    3.11 log byte for byte (same row format), which vouches for the fixture."""
    mv = _make_variants(fixtures)
    raw = text(fixtures, "boto3.log")
    rebuilt = "".join(mv.c_row(*r) for r in mv.rows_of(raw))
    assert rebuilt == "".join(ln for ln in raw.splitlines(keepends=True) if "self [us]" not in ln)
    assert mv.c_cached(3, "os") == "import time: cached    | cached     |     os\n"
    assert mv.c_cached(1, "sys") == "import time: cached    | cached     | sys\n"


def test_py314_cached_rows(fixtures):
    raw = text(fixtures, "py314_cached.log")
    log = parse_importtime(raw)
    cached = [r for p in log.processes for r in p.rows if r.cached]
    assert len(cached) == raw.count("| cached     |")
    assert all(r.self_us is None for r in cached)
    # right-aligned names: depth known only when the field was wider than the name
    padded = [r for r in cached if r.depth is not None]
    assert padded and all(r.depth >= 1 for r in padded)
    assert any(r.name == "sys" and r.depth is None for r in cached)
    # timed rows are exactly the real log's
    report = report_of(raw)
    assert modules_dicts(report) == modules_dicts(report_of(text(fixtures, "cryptography_fernet.log")))
    doc = report.to_dict()
    assert {"name": "sys", "process": 0}.items() <= next(c for c in doc["cached"] if c["name"] == "sys").items()
    golden = json.loads((fixtures / "importtime" / "golden" / "py314_cached.json").read_text())
    doc.pop("machine")
    assert doc == golden


# --------------------------------------------------------------------------- strict about meaning
def test_malformed_number_names_the_line():
    bad = "import time: self [us] | cumulative | imported package\nimport time:       12x |         40 | json\n"
    with pytest.raises(BadInput, match="line 2"):
        parse_importtime(bad, "x.log")


@pytest.mark.parametrize("number", ["\u00b23", "1\u00b2", "\u0663", "\uff11\uff12", "\u0661\u0662\u0663"])
@pytest.mark.parametrize("column", ["self", "cumulative"])
def test_only_ascii_digits_are_numbers(number, column):
    """'²3' passes str.isdigit() but int() refuses it; '٣' (Arabic-Indic) is a digit int()
    reads as 3: both are malformed numbers that name the line."""
    a, b = (number, "40") if column == "self" else ("12", number)
    bad = f"import time: self [us] | cumulative | imported package\nimport time: {a:>9} | {b:>10} | json\nimport time:         1 |          1 | csv\n"
    with pytest.raises(BadInput, match=r"x\.log: line 2: malformed import time row"):
        parse_importtime(bad, "x.log")


def test_superscript_digit_in_a_log_is_one_error_line_exit_2(cli, tmp_path):
    from conftest import assert_one_line_error

    log = tmp_path / "sup.log"
    log.write_text("import time: self [us] | cumulative | imported package\nimport time: \u00b23 | 5 | json\n", encoding="utf-8")
    assert_one_line_error(cli("imports", "--from-log", log), 2, "line 2")
    assert_one_line_error(cli("why", "json", "--from-log", log), 2, "line 2")


def test_no_rows_is_an_error():
    with pytest.raises(BadInput, match="no import time rows"):
        parse_importtime("hello\nworld\n", "x.log")
    with pytest.raises(BadInput, match="no import time rows"):
        parse_importtime("import time: self [us] | cumulative | imported package\n", "x.log")


def test_binary_without_rows_is_an_error():
    with pytest.raises(BadInput, match="no import time rows"):
        parse_importtime("\x00\x01\xff import time\n\x00", "x.bin")


# --------------------------------------------------------------------------- properties
noise_line = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=60).filter(
    lambda s: "import time:" not in s
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_noise_lines_never_change_the_result(fixtures, data):
    lines = text(fixtures, "cryptography_fernet.log").splitlines(keepends=True)
    clean = modules_dicts(report_of("".join(lines)))
    noisy = list(lines)
    for _ in range(data.draw(st.integers(0, 8))):
        at = data.draw(st.integers(0, len(noisy)))
        noisy.insert(at, data.draw(noise_line) + "\n")
    assert modules_dicts(report_of("".join(noisy))) == clean


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=300) | st.lists(st.sampled_from([
    "import time: self [us] | cumulative | imported package",
    "import time:       100 |        200 | a",
    "import time:        50 |         50 |   b",
    "import time: cached    | cached     |   c",
    "import time: 1 | 2 |",
    "import time: | |",
    "garbage | | |",
    "\r",
]), max_size=12).map("\n".join))
def test_any_text_parses_or_fails_cleanly(s):
    try:
        log = parse_importtime(s)
    except BadInput:
        return
    tree, _ = build_run_tree(log)
    assert log.row_count >= 1
    assert all(r.cumulative_us >= 0 for p in tree.processes for r in p.roots)


@st.composite
def trees(draw, depth=0):
    n = draw(st.integers(0, 3 if depth < 3 else 0))
    kids = [draw(trees(depth=depth + 1)) for _ in range(n)]
    self_us = draw(st.integers(0, 5000))
    return (self_us, kids)


def _emit(node, name, level, out):
    self_us, kids = node
    cum = self_us
    for i, k in enumerate(kids):
        cum += _emit(k, f"{name}.m{i}", level + 1, out)
    out.append("import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, level * 2, "", name))
    return cum


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(trees(), min_size=1, max_size=4))
def test_tree_invariants(forest):
    out = ["import time: self [us] | cumulative | imported package\n"]
    for i, t in enumerate(forest):
        _emit(t, f"r{i}", 0, out)
    log = parse_importtime("".join(out))
    run, notes = build_run_tree(log)
    assert not notes
    report = report_of("".join(out))
    by = {m.name: m for m in report.modules}
    for m in report.modules:
        if m.parent is not None:
            assert m.cumulative_us <= by[m.parent].cumulative_us
            assert m.depth == by[m.parent].depth + 1
    roots = sum(m.cumulative_us for m in report.modules if m.parent is None)
    assert abs(sum(m.self_us for m in report.modules) - roots) <= len(report.modules)
    assert report.total_us == roots


@pytest.mark.parametrize("name", REAL_LOGS)
def test_tree_invariants_on_real_logs(fixtures, name):
    report = report_of(text(fixtures, f"{name}.log"))
    parents = parent_indices(report.modules)
    kids: dict = {}
    for m, pi in zip(report.modules, parents):
        if m.parent is not None:
            p = report.modules[pi]
            assert p.name == m.parent and p.depth == m.depth - 1
            assert m.cumulative_us <= p.cumulative_us
            kids.setdefault(pi, []).append(m)
    for pi, ks in kids.items():
        p = report.modules[pi]
        # values are truncated to whole µs: about 1 µs per child
        assert abs(p.cumulative_us - p.self_us - sum(k.cumulative_us for k in ks)) <= len(ks) + 1
    assert abs(sum(m.self_us for m in report.modules) - report.total_us) <= len(report.modules)
