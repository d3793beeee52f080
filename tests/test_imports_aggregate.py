"""Aggregation over runs, views, and the exports checked by real readers."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from profiler.analysis.imports_chains import import_chains
from profiler.analysis.imports_views import (
    collapse_tree,
    filter_modules,
    group_modules,
    lay_out_timeline,
    package_of,
    parent_indices,
    top_modules,
)
from profiler.model.imports_report import ImportsReport
from profiler.parse.importtime import parse_importtime
from profiler.render import get_renderer
from profiler.workflows.imports import report_from_logs
from conftest import examples

HEADER = "import time: self [us] | cumulative | imported package\n"
SCHEMA = Path(__file__).resolve().parent / "js" / "node_modules" / "speedscope" / "dist" / "release" / "file-format-schema.json"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def report_of(*texts):
    return report_from_logs([parse_importtime(t) for t in texts], machine={}, python=None, python_version=None, target="t", source="log")


def real(fixtures, name):
    p = fixtures / "importtime" / name
    return gzip.decompress(p.read_bytes()).decode() if name.endswith(".gz") else p.read_text()


RUN_A = HEADER + row(10, 10, 1, "b") + row(5, 15, 0, "a") + row(7, 7, 0, "c")
RUN_B = HEADER + row(20, 20, 1, "b") + row(6, 26, 0, "a")
RUN_C = HEADER + row(30, 30, 1, "b") + row(4, 34, 0, "a") + row(9, 9, 0, "c")


def test_medians_spread_and_partial_modules():
    r = report_of(RUN_A, RUN_B, RUN_C)
    by = {m.name: m for m in r.modules}
    assert r.runs == 3
    assert by["b"].self_us == 20 and by["b"].self_us_runs == (10, 20, 30)
    assert by["b"].self_us_spread == 10
    assert by["a"].cumulative_us == 26 and by["a"].cumulative_us_runs == (15, 26, 34)
    assert by["c"].runs_seen == 2 and by["c"].self_us_runs == (7, None, 9)
    assert not by["c"].in_all_runs and by["a"].in_all_runs
    assert by["c"].self_us == 8  # median of the runs that saw it
    assert r.total_us_runs == (22, 26, 43) and r.total_us == 26
    assert [m.name for m in r.modules] == ["a", "b", "c"]  # pre-order
    assert by["b"].parent == "a" and by["b"].depth == 1


def test_json_items_have_the_contract_keys():
    doc = json.loads(get_renderer("json")(report_of(RUN_A, RUN_B)))
    assert doc["schema"] == "importprof.imports/1"
    for k in ("machine", "python", "python_version", "runs", "modules", "cached"):
        assert k in doc
    need = {"name", "self_us", "cumulative_us", "parent", "depth", "process", "runs_seen", "self_us_runs", "cumulative_us_runs"}
    for item in doc["modules"]:
        assert need <= set(item)
    # and it round-trips (show, diff, why --report read it back)
    again = ImportsReport.from_dict(doc)
    assert json.loads(get_renderer("json")(again)) == doc


def test_extra_keys_round_trip_and_reach_why_hops():
    from dataclasses import replace

    r = report_of(RUN_A)
    mods = tuple(replace(m, extra={"exec_us": 3, "site": "x.py:1"}) if m.name == "b" else m for m in r.modules)
    r = replace(r, modules=mods)
    doc = r.to_dict()
    b = next(m for m in doc["modules"] if m["name"] == "b")
    assert b["exec_us"] == 3 and b["site"] == "x.py:1"
    back = ImportsReport.from_dict(json.loads(json.dumps(doc)))
    assert next(m for m in back.modules if m.name == "b").extra == {"exec_us": 3, "site": "x.py:1"}
    (chain,) = import_chains(back, "b")
    assert [h.name for h in chain.hops] == ["a", "b"]
    assert chain.hops[-1].to_dict()["site"] == "x.py:1"


def test_views_on_a_real_log(fixtures):
    r = report_of(real(fixtures, "boto3.log"))
    top = top_modules(r.modules, 5, "self_us")
    assert [m.self_us for m in top] == sorted((m.self_us for m in r.modules), reverse=True)[:5]
    only = filter_modules(r.modules, "botocore", keep_ancestors=False)
    assert only and all(m.name.startswith("botocore") for m in only)
    with_anc = filter_modules(r.modules, "botocore")
    assert {m.name for m in with_anc} >= {"boto3"} | {m.name for m in only}
    lines = collapse_tree(r.modules, 1000)
    shown = [ln.module for ln in lines if ln.module is not None]
    assert all(m.cumulative_us >= 1000 for m in shown)
    # folded lines account for every module exactly once
    assert sum(ln.hidden_modules for ln in lines) + len(shown) == len(r.modules)
    groups = group_modules(r.modules, package_of)
    assert sum(g.self_us for g in groups) == sum(m.self_us for m in r.modules)
    g = {x.name: x for x in groups}
    assert g["boto3"].cumulative_us == next(m for m in r.modules if m.name == "boto3").cumulative_us
    assert g["botocore"].modules == sum(1 for m in r.modules if package_of(m) == "botocore")


def test_why_chain_on_a_real_log(fixtures):
    r = report_of(real(fixtures, "boto3.log"))
    (chain,) = import_chains(r, "urllib3.util.url")
    names = [h.name for h in chain.hops]
    assert names[0] == "boto3" and names[-1] == "urllib3.util.url"
    assert [h.depth for h in chain.hops] == list(range(len(names)))
    cums = [h.cumulative_us for h in chain.hops]
    assert cums == sorted(cums, reverse=True)
    assert import_chains(r, "no.such.module") == ()
    # a package never a row itself: chains to its first submodules
    assert import_chains(r, "botocore.vendored")


def test_timeline_nests(fixtures):
    r = report_of(real(fixtures, "cryptography_fernet.log"), real(fixtures, "cryptography_fernet.log"))
    spans = lay_out_timeline(r.modules)
    parents = parent_indices(r.modules)
    assert len(spans) == len(r.modules)
    for i, s in enumerate(spans):
        p = parents[i]
        assert s.dur_us >= r.modules[i].cumulative_us
        if p is not None:
            ps = spans[p]
            assert ps.start_us <= s.start_us and s.start_us + s.dur_us <= ps.start_us + ps.dur_us


@pytest.mark.parametrize("log", ["boto3.log", "command_subprocesses.log", "py314_cached.log"])
def test_speedscope_validates_against_the_published_schema(fixtures, log):
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMA.exists():
        pytest.skip("speedscope's schema is not installed (make setup runs scripts/setup.d/20-speedscope-schema.sh)")
    r = report_of(real(fixtures, log))
    doc = json.loads(get_renderer("speedscope")(r))
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert len(doc["profiles"]) == r.processes
    for prof in doc["profiles"]:
        ats = [e["at"] for e in prof["events"]]
        assert ats == sorted(ats)
        depth = 0
        for e in prof["events"]:
            depth += 1 if e["type"] == "O" else -1
            assert depth >= 0
        assert depth == 0
    roots = sum(m.cumulative_us for m in r.modules if m.parent is None)
    assert sum(p["endValue"] for p in doc["profiles"]) >= roots


def test_chrome_trace_events(fixtures):
    r = report_of(real(fixtures, "command_subprocesses.log"))
    doc = json.loads(get_renderer("chrome")(r))
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == len(r.modules)
    assert {e["pid"] for e in xs} == {1, 2, 3}
    for e in xs:
        assert isinstance(e["ts"], int) and isinstance(e["dur"], int) and e["dur"] >= 0
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    assert len(names) == 3


def test_folded_is_read_by_flamegraph_tools(fixtures, tmp_path):
    r = report_of(real(fixtures, "boto3.log"))
    text = get_renderer("folded")(r)
    total = 0
    for line in text.splitlines():
        stack, _, weight = line.rpartition(" ")
        assert stack and " " not in stack and int(weight) > 0
        total += int(weight)
    assert total == sum(m.self_us for m in r.modules)
    flamegraph = shutil.which("flamegraph.pl") or shutil.which("inferno-flamegraph")
    if flamegraph:  # a real reader when one is installed
        (tmp_path / "in.folded").write_text(text)
        svg = subprocess.run([flamegraph, str(tmp_path / "in.folded")], capture_output=True, text=True, check=True).stdout
        assert "<svg" in svg


def test_py314_cached_in_json(fixtures):
    r = report_of(real(fixtures, "py314_cached.log"))
    doc = r.to_dict()
    assert doc["cached"] and all({"name", "process"} <= set(c) for c in doc["cached"])
    assert all(c["name"] for c in doc["cached"])


# ---------------------------------------------------------------------------- fast paths == careful paths
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from profiler.analysis.imports_aggregate import aggregate_logs, aggregate_logs_by_trees  # noqa: E402
from profiler.parse.importtime import parse_importtime_lines  # noqa: E402


def _texts(fixtures):
    d = fixtures / "importtime"
    out = [p.read_text() for p in sorted(d.glob("*.log"))]
    out += [gzip.decompress(p.read_bytes()).decode() for p in sorted(d.glob("big_*.log.gz"))]
    return out + [t.replace("\n", "\r\n") for t in out]


def test_whole_text_parse_equals_line_by_line_on_every_fixture(fixtures):
    for text in _texts(fixtures):
        try:
            slow = parse_importtime_lines(text, "x")
        except Exception as exc:  # the same error either way
            with pytest.raises(type(exc)):
                parse_importtime(text, "x")
            continue
        assert parse_importtime(text, "x") == slow


def test_column_aggregation_equals_tree_aggregation_on_every_fixture(fixtures):
    for text in _texts(fixtures):
        log = parse_importtime(text)
        for runs in (1, 3):
            assert aggregate_logs([log] * runs) == aggregate_logs_by_trees([log] * runs)


_NAMES = st.sampled_from(["a", "a.b", "a.b.c", "b", "c", "d.e"])


@st.composite
def _preorder(draw):
    n = draw(st.integers(1, 20))
    out, depth = [], 0
    for i in range(n):
        depth = 0 if i == 0 else draw(st.integers(0, depth + 1))
        out.append((depth, draw(_NAMES)))
    return out


def _log(preorder, values, slack):
    """A log of that shape; `slack` < 0 makes some cumulatives smaller than self + children."""
    rows: list[str] = []
    n = len(preorder)

    def emit(i):
        depth, name = preorder[i]
        self_us = values[i]
        j, cum = i + 1, self_us
        while j < n and preorder[j][0] > depth:
            j, c = emit(j)
            cum += c
        rows.append(row(self_us, max(0, cum + slack), depth, name))
        return j, cum

    i = 0
    while i < n:
        i, _ = emit(i)
    return HEADER + "".join(rows)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_preorder(), min_size=1, max_size=3), st.data())
def test_column_aggregation_equals_tree_aggregation_property(shapes, data):
    runs = data.draw(st.integers(1, 5))
    logs = []
    for _ in range(runs):
        text = ""
        for shape in shapes:
            values = data.draw(st.lists(st.integers(0, 9999), min_size=len(shape), max_size=len(shape)))
            text += _log(shape, values, data.draw(st.sampled_from([0, 0, 5, -3])))
        cut = data.draw(st.integers(0, 3))  # a run cut short: its last process never finished
        if cut:
            lines = text.splitlines(keepends=True)
            text = "".join(lines[: max(2, len(lines) - cut)])
        logs.append(parse_importtime(text))
    assert parse_importtime(text) == parse_importtime_lines(text)
    assert aggregate_logs(logs) == aggregate_logs_by_trees(logs)


_LINE = st.sampled_from([
    "import time: self [us] | cumulative | imported package",
    "import time: self [us] | cumulative | imported package\r",
    "import time:       100 |        200 | a",
    "import time:        50 |         50 |   b",
    "import time:        50 |         50 |   b\r",
    "import time: 1 | 2 | c",
    "import time:  1 |  2 |    d.e",
    "import time: 1 | 2 |",
    "import time: x | 2 | a",
    "import time: \u00b23 | 2 | a",
    "import time: cached    | cached     |   c",
    "noise from the program | with | bars",
    "glued import time:        12 |         12 | g",
    " import time:        12 |         12 | g",
    "",
    "\r",
])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_LINE, max_size=14), st.booleans())
def test_whole_text_parse_equals_line_by_line_on_any_mix(lines, newline_at_end):
    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    try:
        slow = parse_importtime_lines(text, "x")
    except Exception as exc:
        with pytest.raises(type(exc)):
            parse_importtime(text, "x")
        return
    assert parse_importtime(text, "x") == slow


# ---------------------------------------------------------------- imports --from-log, streamed
from profiler.analysis.imports_aggregate import aggregate_process_stream  # noqa: E402
from profiler.parse.importtime import NotClean, iter_clean_processes, iter_log_processes  # noqa: E402
from profiler.model.log_source import LogSource  # noqa: E402
from profiler.workflows.imports import aggregate_log  # noqa: E402


def _careful_log(text: str, source: str):
    """The reference: the log read whole, parsed (whole-text or line by line), aggregated as one run."""
    return aggregate_logs([parse_importtime(text, source)])


def _streamed(text: str):
    try:
        return aggregate_process_stream(iter_clean_processes((text,)))
    except NotClean:
        return None


@pytest.mark.slow  # every fixture, in make test; the quick lane keeps the pieces test
def test_streamed_log_equals_the_whole_log_on_every_fixture(fixtures, tmp_path):
    """aggregate_log (a clean log read a piece at a time and folded process by process; any
    other read whole) gives exactly the careful path's aggregation: records, totals, notes
    with their line numbers, warnings; a log of many runs of several programs too."""
    texts = _texts(fixtures)
    d = fixtures / "importtime"
    many = (d / "overlap.log").read_text() + (d / "command_subprocesses.log").read_text() + (d / "boto3.log").read_text()
    texts.append(many * 40)  # different programs and an interleaved pair, repeated: 200 processes
    noisy = (d / "requests_noise.log").read_text() + (d / "py314_cached.log").read_text() + many
    texts.append(noisy * 20 + (d / "boto3_truncated.log").read_text())  # the careful way: noise, cached rows, a cut end
    streamed = 0
    for i, text in enumerate(texts):
        path = tmp_path / f"log{i}.log"
        path.write_text(text, newline="")
        assert aggregate_log(LogSource(str(path))) == _careful_log(text, str(path))
        streamed += _streamed(text) is not None
    assert streamed >= len(texts) // 2  # most fixtures are clean: the streamed path was tested


@pytest.mark.slow  # many real runs: in `make test`, not the quick lane (5-10 s of CPU)
def test_streamed_log_of_many_real_runs(fixtures, tmp_path):
    """A log of 60 real runs of a 1,535-module program (6.6 MB: read in 4 MiB pieces, a process
    cut by a piece's end): the same aggregation as the whole log's."""
    d = fixtures / "importtime"
    runs = [gzip.decompress(p.read_bytes()).decode() for p in sorted(d.glob("big_*.log.gz"))]
    text = "".join(runs[i % 2] for i in range(60))
    path = tmp_path / "many.log"
    path.write_text(text)
    got = aggregate_log(LogSource(str(path)))
    assert got == _careful_log(text, str(path))
    assert got.processes == 60 and len(got.modules) == 60 * 1535


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_LINE, max_size=14), st.booleans(), st.integers(1, 80))
def test_streamed_processes_equal_the_whole_text_parse_in_any_pieces(lines, newline_at_end, size):
    """iter_clean_processes over the text cut in pieces of any size: the whole-text parse's
    processes, or NotClean exactly when that parse goes the careful way."""
    from profiler.parse.importtime import _parse_clean

    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    whole = _parse_clean(text)
    try:
        got = list(iter_clean_processes([text[i : i + size] for i in range(0, len(text), size)]))
    except NotClean:
        got = None
    if whole is None:
        assert got is None
        return
    assert got is not None
    assert [(h, n, s, c, tuple(len(i) // 2 for i in ind)) for h, n, s, c, ind in got] == [
        (p.header_line, p.columns[0], list(p.columns[1]), list(p.columns[2]), p.columns[3]) for p in whole.processes
    ]


def test_streamed_log_from_a_pipe_and_stdin_text(fixtures, tmp_path):
    """A log that cannot be read twice (a pipe, as `<(zcat log.gz)` gives; `-`, already read) is
    read once: clean or not. (A named FIFO is refused before any wait: tests/test_contract_battery.py.)"""
    import os
    import threading

    for name in ("repeated_headers.log", "boto3_noise.log"):
        text = (fixtures / "importtime" / name).read_text()
        assert aggregate_log(LogSource(text=text)) == _careful_log(text, "stdin")
        read, write = os.pipe()
        pipe = f"/proc/self/fd/{read}"

        def feed(fd=write, data=text.encode()):
            with open(fd, "wb") as fh:
                fh.write(data)

        writer = threading.Thread(target=feed)
        writer.start()
        try:
            assert aggregate_log(LogSource(pipe)) == _careful_log(text, pipe)
        finally:
            writer.join()
            os.close(read)


def test_streamed_log_in_pieces_of_any_size_equals_the_whole_log(fixtures):
    """Both streamed readers (clean and careful) fed pieces of a few sizes, folded: the careful
    path's aggregation of the whole text, on every fixture and a mix of them."""
    d = fixtures / "importtime"
    texts = [p.read_text() for p in sorted(d.glob("*.log"))]
    texts.append("".join(texts[:-1]) + texts[-1])
    for text in texts:
        want = _careful_log(text, "x")
        for size in (1, 97, 4096, len(text)):
            if size == 1 and len(text) > 50_000:
                continue
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            warnings: list[str] = []
            assert aggregate_process_stream(iter_log_processes(pieces, "x", warnings), warnings) == want
            try:
                clean = aggregate_process_stream(iter_clean_processes(pieces))
            except NotClean:
                continue
            assert clean == want


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_LINE, max_size=14), st.booleans(), st.integers(1, 40))
def test_careful_reader_in_pieces_equals_the_whole_text(lines, newline_at_end, size):
    """iter_log_processes over the text cut in pieces of any size: parse_importtime_lines'
    processes, other lines and warnings, or the same error."""
    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    warnings: list[str] = []
    other: list[str] = []
    try:
        whole = parse_importtime_lines(text, "x")
    except Exception as exc:
        with pytest.raises(type(exc)):
            list(iter_log_processes(pieces, "x", warnings, other))
        return
    got = tuple(iter_log_processes(pieces, "x", warnings, other))
    assert (got, tuple(other), tuple(warnings)) == (whole.processes, whole.other_lines, whole.warnings)


def test_streamed_log_keeps_the_input_limit_and_the_error_lines(cli, fixtures, tmp_path):
    """Streaming keeps the reading rules: a clean log past the input limit, a malformed row deep
    in a big log (its line number) and binary garbage are each one line and exit 2, with nothing
    written to -o."""
    from conftest import assert_one_line_error

    big = gzip.decompress((fixtures / "importtime" / "big_1.log.gz").read_bytes()).decode()
    clean = tmp_path / "clean.log"
    clean.write_text(big * 12)  # about 1.4 MB: past a 1 MiB limit after some processes were folded
    out = tmp_path / "out.json"
    res = cli("imports", "--from-log", clean, "--format", "json", "-o", out, env={"IMPORTPROF_MAX_INPUT_MB": "1"})
    assert_one_line_error(res, 2, "IMPORTPROF_MAX_INPUT_MB")
    assert not out.exists()
    lines = (big * 3).splitlines(keepends=True)
    at = len(lines) - 10
    lines[at] = "import time:      12x |        12 | broken\n"
    bad = tmp_path / "bad.log"
    bad.write_text("".join(lines))
    assert_one_line_error(cli("imports", "--from-log", bad, "-o", out), 2, f"line {at + 1}: malformed")
    assert not out.exists()
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(bytes(range(256)) * 20_000)
    assert_one_line_error(cli("imports", "--from-log", garbage, "-o", out), 2, "no import time rows")
    assert not out.exists()


# ------------------------------------------------------------------ --headers runs: each header a run
from profiler.analysis.imports_aggregate import aggregate_run_stream  # noqa: E402
from profiler.model.import_tree import ParsedLog  # noqa: E402


def _careful_runs(text: str, source: str):
    """The reference: the log read whole and split at its headers, each process a run of its
    own (aggregate_logs through per-run trees), the log's own warnings first."""
    from dataclasses import replace

    log = parse_importtime(text, source)
    runs = aggregate_logs_by_trees([ParsedLog((p,), (), ()) for p in log.processes])
    return replace(runs, warnings=(*log.warnings, *runs.warnings))


def test_each_header_a_run_equals_the_careful_runs_on_every_fixture(fixtures, tmp_path):
    """aggregate_log(headers="runs"): a log's processes folded one at a time as runs of one
    program (per-module samples, layouts worked out once) give exactly aggregate_logs of one
    single-process log per run: medians, spreads, per-run values (None where a run did not see
    a module), parents, order, cached rows, notes; on every fixture, on runs of different
    programs and shapes mixed, and on noisy/cut/cached logs read the careful way."""
    texts = _texts(fixtures)
    d = fixtures / "importtime"
    mixed = (d / "boto3.log").read_text() + (d / "cryptography_fernet.log").read_text() + (d / "overlap.log").read_text()
    texts.append(mixed * 7)
    texts.append(((d / "requests_noise.log").read_text() + (d / "py314_cached.log").read_text()) * 5 + (d / "boto3_truncated.log").read_text())
    for i, text in enumerate(texts):
        path = tmp_path / f"runs{i}.log"
        path.write_text(text, newline="")
        try:
            want = _careful_runs(text, str(path))
        except Exception as exc:
            with pytest.raises(type(exc)):
                aggregate_log(LogSource(str(path)), headers="runs")
            continue
        got = aggregate_log(LogSource(str(path)), headers="runs")
        assert got == want, path
        assert all(m.self_us_runs == tuple(m.self_us_runs) and len(m.self_us_runs) == got.runs for m in got.modules)


@pytest.mark.slow  # many real runs: in `make test`, not the quick lane (5-10 s of CPU)
def test_each_header_a_run_of_many_real_runs(fixtures, tmp_path):
    """60 real runs of a 1,535-module program, two different runs alternating: one record per
    module (not per run), its 60 samples, the medians of the careful path."""
    d = fixtures / "importtime"
    runs = [gzip.decompress(p.read_bytes()).decode() for p in sorted(d.glob("big_*.log.gz"))]
    text = "".join(runs[i % 2] for i in range(60))
    path = tmp_path / "many.log"
    path.write_text(text)
    got = aggregate_log(LogSource(str(path)), headers="runs")
    assert got == _careful_runs(text, str(path))
    assert got.runs == 60 and got.processes == 1 and len(got.modules) == 1535
    assert all(len(m.self_us_runs) == 60 for m in got.modules)


def test_runs_stream_directly_from_columns_and_trees_agree():
    """The fold by columns (regular nesting) and by trees (the rest) make the same records for
    the same runs: a run whose nesting is irregular among regular ones is folded by its tree."""
    regular = "import time: self [us] | cumulative | imported package\n" + "".join(
        row(s, c, dep, n) for s, c, dep, n in ((10, 10, 1, "b"), (5, 15, 0, "a"), (7, 7, 0, "c")))
    other = "import time: self [us] | cumulative | imported package\n" + "".join(
        row(s, c, dep, n) for s, c, dep, n in ((11, 11, 2, "b"), (6, 17, 0, "a")))  # b two levels deeper
    text = regular + other + regular
    procs = list(parse_importtime(text).processes)
    got = aggregate_run_stream(procs)
    want = aggregate_logs_by_trees([ParsedLog((p,), (), ()) for p in procs])
    assert got == want and got.runs == 3
    c = next(m for m in got.modules if m.name == "c")
    assert c.self_us_runs == (7, None, 7) and c.runs_seen == 2


@pytest.mark.parametrize("name", ["boto3.log", "overlap.log"])
def test_each_header_a_run_past_four_byte_samples(fixtures, tmp_path, name):
    """Samples are 4-byte integers until a value past 35 minutes comes, then all 8-byte: a real
    log (boto3.log: runs folded by columns; overlap.log: by trees) four times, the third copy with
    one row's times raised past 2**31 µs, gives the careful runs' records."""
    text = (fixtures / "importtime" / name).read_text()
    lines = text.splitlines(keepends=True)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("import time:") and ln.split("|")[0].split(":")[1].strip().isdigit())
    head, _, rest = lines[i].partition(":")
    _, cum, module = rest.split("|")
    big = 3_000_000_000
    lines[i] = f"{head}: {big:>9} | {big + int(cum):>10} |{module}"
    path = tmp_path / "big.log"
    path.write_text(text + text + "".join(lines) + text)
    got = aggregate_log(LogSource(str(path)), headers="runs")
    assert got == _careful_runs(path.read_text(), str(path))
    assert any(big in m.self_us_runs for m in got.modules)
    assert {m.self_us_runs._a.typecode for m in got.modules} == {"q"}  # widened: every sample 8 bytes


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_preorder(), min_size=1, max_size=3), st.data())
def test_processes_kept_as_columns_view_as_their_records_property(shapes, data):
    """A one-run log of several processes (generated shapes repeated, any values, cumulatives
    short of self + children, a cut last process): the ModuleColumns it aggregates to gives
    every view its records give, and the careful trees' records."""
    from dataclasses import replace

    from profiler.analysis.imports_processes import sum_modules, summarize_processes
    from profiler.analysis.imports_views import collapse_tree

    text = ""
    for _ in range(data.draw(st.integers(2, 6))):
        shape = data.draw(st.sampled_from(shapes))
        values = data.draw(st.lists(st.integers(0, 9999), min_size=len(shape), max_size=len(shape)))
        text += _log(shape, values, data.draw(st.sampled_from([0, 0, 5, -3])))
    cut = data.draw(st.integers(0, 2))
    if cut:
        lines = text.splitlines(keepends=True)
        text = "".join(lines[: max(2, len(lines) - cut)])
    log = parse_importtime(text)
    got = aggregate_logs([log])
    assert got == aggregate_logs_by_trees([log])
    modules, records = got.modules, tuple(got.modules)
    assert sum_modules(modules) == sum_modules(records)
    assert summarize_processes(modules, 1, got.processes) == summarize_processes(records, 1, got.processes)
    for min_us in (0, data.draw(st.integers(1, 20000))):
        assert list(collapse_tree(modules, min_us)) == list(collapse_tree(records, min_us))
    report = report_of(text)
    assert report.to_json() == replace(report, modules=tuple(report.modules)).to_json()
    from profiler.render.folded import render_folded

    assert render_folded(report) == render_folded(replace(report, modules=tuple(report.modules)))
    from profiler.analysis.imports_views import top_modules

    for by in ("self_us", "cumulative_us"):
        n = data.draw(st.integers(0, len(records) + 2))
        assert top_modules(modules, n, by) == top_modules(records, n, by)
