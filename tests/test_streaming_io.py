"""Writers and readers that stream (imports exports, saved reports read back): the very bytes
the code wrote before they streamed (tests/fixtures/exports/golden.json, see
tests/export_cases.py), on real logs and generated ones; the pieces written as they come, a
file still replaced atomically."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from _inproc import run_main
from conftest import examples
from export_cases import CASES, DIFFS, EXPORTS, FORMATS, digest, report_of

GOLDEN = json.loads((EXPORTS / "golden.json").read_text())


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    return {case: report_of(case, folder) for case in CASES}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exports_write_the_same_bytes_in_pieces(case, reports):
    from profiler.render import get_renderer

    report = reports[case]
    for fmt in FORMATS:
        pieces = list(get_renderer(fmt, chunks=True)(report))
        assert all(isinstance(p, str) for p in pieces)
        assert digest("".join(pieces)) == GOLDEN[case][fmt], (case, fmt)
        assert digest(get_renderer(fmt)(report)) == GOLDEN[case][fmt], (case, fmt)


def test_a_thousand_processes_are_written_a_process_at_a_time(reports):
    """Every export of a report of many processes comes in many pieces (one per process, for
    json a few thousand records), none of them the whole."""
    from profiler.render import get_renderer

    report = reports["pip_10"]
    for fmt in FORMATS:
        pieces = list(get_renderer(fmt, chunks=True)(report))
        whole = sum(map(len, pieces))
        assert len(pieces) >= (3 if fmt == "json" else 10), fmt
        assert max(map(len, pieces)) < whole / 2, fmt


def test_export_to_a_file_is_atomic_and_streamed_to_stdout(cli, tmp_path):
    """`-o` writes the pieces to a temp file renamed over the old one (a failed run leaves the
    old file); without -o the same bytes go to stdout."""
    from export_cases import write_log

    log = write_log("command_subprocesses_x5", tmp_path)
    out = tmp_path / "out.speedscope"
    res = cli("imports", "--from-log", str(log), "--format", "speedscope", "-o", str(out))
    assert res.returncode == 0, res.stderr
    piped = cli("imports", "--from-log", str(log), "--format", "speedscope")
    assert piped.returncode == 0 and piped.stdout == out.read_text()
    assert json.loads(out.read_text())["profiles"][14]["name"] == "import log (process 14)"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".importprof-")]


def test_pieces_that_fail_half_way_leave_the_old_file(tmp_path):
    from profiler import sinks

    out = tmp_path / "report.json"
    out.write_text("the old report\n")

    def pieces():
        yield "{\n"
        yield "  \"half\": "
        raise RuntimeError("the renderer failed")

    with pytest.raises(RuntimeError):
        sinks.emit(pieces(), str(out))
    assert out.read_text() == "the old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    sinks.emit(iter(["{", "}\n"]), str(out))
    assert out.read_text() == "{}\n"


@pytest.fixture(scope="module")
def saved(reports, tmp_path_factory):
    """Each case's report as `imports -o` writes it."""
    from profiler.render import get_renderer

    folder = tmp_path_factory.mktemp("saved")
    out = {}
    for case, report in reports.items():
        out[case] = folder / f"{case}.json"
        out[case].write_text(get_renderer("json")(report))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_saved_report_read_back_a_line_at_a_time(case, saved):
    """Read back into the column form, a saved report is the report the whole-file reader made
    of it, shows and exports the same bytes as before, and is written again byte for byte."""
    from profiler.inputs.documents import read_document
    from profiler.model.import_columns import ModuleColumns
    from profiler.model.imports_report import ImportsReport
    from profiler.render import get_renderer
    from profiler.render.console_imports import ImportsView, render_imports_table
    from profiler.workflows.imports import load_report

    path = saved[case]
    back = load_report(str(path))
    assert back == ImportsReport.from_dict(read_document(str(path), ["imports"]))
    if back.processes > 1 and case.endswith(("_x5", "_x4", "pip_10")):
        assert isinstance(back.modules, ModuleColumns)
    g = GOLDEN[case]
    assert digest(get_renderer("json")(back)) == g["show_json"] == g["json"]
    assert path.read_text() == get_renderer("json")(back)
    for fmt in ("speedscope", "chrome", "folded"):
        assert digest(get_renderer(fmt)(back)) == g[f"show_{fmt}"], fmt
    assert digest(render_imports_table(back, False, ImportsView())) == g["show_tree"]
    assert digest(render_imports_table(back, False, ImportsView(min_ms=0.0))) == g["show_tree_min0"]
    assert digest(render_imports_table(back, False, ImportsView(view="top", top=15))) == g["show_top"]
    assert digest(render_imports_table(back, False, ImportsView(filter="email", min_ms=0.0))) == g["show_filter"]


@pytest.mark.parametrize("pair", DIFFS, ids=["..".join(p) for p in DIFFS])
def test_diff_of_reports_read_back(pair, saved):
    from profiler.analysis.diff import diff_reports
    from profiler.render import get_renderer
    from profiler.render.console_imports import render_diff_table
    from profiler.workflows.imports import load_report

    a, b = pair
    rep = replace(diff_reports(load_report(str(saved[a])), load_report(str(saved[b])), "old.json", "new.json"), machine={})
    g = GOLDEN["diffs"]["..".join(pair)]
    assert digest(get_renderer("json")(rep)) == g["json"]
    assert digest(render_diff_table(rep, False)) == g["table"]
    # as `importprof diff` makes it: the new report paired a process at a time as it is read
    from profiler.compose.diff import DiffOptions, diff

    import shutil

    old, new = saved[a].parent / "old.json", saved[b].parent / "new.json"
    shutil.copy(saved[a], old)
    shutil.copy(saved[b], new)
    streamed = diff(DiffOptions(str(old), str(new)))
    streamed = replace(streamed, machine={}, old={**streamed.old, "path": "old.json"}, new={**streamed.new, "path": "new.json"})
    assert digest(get_renderer("json")(streamed)) == g["json"]
    assert digest("".join(get_renderer("json", chunks=True)(streamed))) == g["json"]
    assert digest(render_diff_table(streamed, False)) == g["table"]


# ------------------------------------------------------------------ the line reader vs the whole-file reader
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

VALUES = (-1, 0, 1, 7, 5.0, "x", None, True, [1], [None], 2**32 + 5, 2**53 + 1, 10**15, "")
KEYS = ("name", "self_us", "cumulative_us", "parent", "depth", "process", "runs_seen", "self_us_runs", "cumulative_us_runs",
        "self_us_spread", "in_all_runs", "exec_us", "extra_key")
HEADER = (("runs", "x"), ("runs", 3), ("processes", -1), ("processes", None), ("total_us", None), ("warnings", [1]), ("target", "t"))


def _written(doc: dict) -> str:
    """`doc` laid out as importprof writes it (a record a line)."""
    from profiler.model.document import document_json

    keys = {k: ([] if k == "modules" else v) for k, v in doc.items() if v is not None or k not in ("processes", "total_us")}
    return document_json(keys, {"modules": [json.dumps(m, ensure_ascii=False) for m in doc.get("modules", [])]})


def _outcome(read, path):
    from profiler.errors import BadInput

    try:
        return read(str(path))
    except BadInput as exc:
        return f"error: {exc}"


_BASE: dict = {}


def _base_doc(tmp_path_factory) -> dict:
    if not _BASE:
        from profiler.render import get_renderer

        report = report_of("command_subprocesses_x5", tmp_path_factory.mktemp("base"))
        doc = json.loads(get_renderer("json")(report))
        doc["modules"] = [m for m in doc["modules"] if m["process"] < 4]
        _BASE.update(doc)
    return json.loads(json.dumps(_BASE))


@settings(max_examples=examples(int(os.environ.get("H6_EXAMPLES", "150"))), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(("set", "drop", "copy", "remove", "header", "rename")), st.integers(0, 10**6),
                          st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(HEADER)), max_size=3))
def test_line_reader_reads_what_the_whole_file_reader_reads(tmp_path_factory, edits):
    """Any saved report in importprof's layout, edited (a value of any type, a key dropped or
    added, a record copied, removed or moved to another process, a header key changed): the
    line reader gives the whole-file reader's report, or its very error line."""
    doc = _edited(_base_doc(tmp_path_factory), edits)
    path = tmp_path_factory.getbasetemp() / "edited.json"
    path.write_text(_written(doc))
    _same_outcome(path)


@settings(max_examples=examples(int(os.environ.get("H6_EXAMPLES", "150"))), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(("set", "drop", "copy", "remove", "header", "rename")), st.integers(0, 10**6),
                          st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(HEADER)), max_size=3),
       st.sampled_from(("compact", "one line")))
def test_a_report_in_another_layout_reads_as_the_whole_file_reader_reads_it(tmp_path_factory, edits, layout):
    """The same edited reports written compact (`json.dump(separators=(",", ":"))`, as `jq -c`
    writes it) or on one line (json.dump's own separators): read a value at a time
    (inputs.relaid), they give the whole-file reader's report, or its very error line."""
    doc = _edited(_base_doc(tmp_path_factory), edits)
    path = tmp_path_factory.getbasetemp() / "edited.json"
    path.write_text(json.dumps(doc, separators=(",", ":")) if layout == "compact" else json.dumps(doc))
    _same_outcome(path)


def _edited(doc: dict, edits) -> dict:
    mods = doc["modules"]
    for op, at, key, value, (hkey, hvalue) in edits:
        i = at % len(mods) if mods else 0
        if op == "set" and mods:
            mods[i][key] = value
        elif op == "drop" and mods:
            mods[i].pop(key, None)
        elif op == "copy" and mods:
            mods.insert(at % (len(mods) + 1), dict(mods[i]))
        elif op == "remove" and mods:
            del mods[i]
        elif op == "rename" and mods:
            mods[i]["name"] = mods[(i * 7 + 3) % len(mods)]["name"] if key != "parent" else "nope"
        elif op == "header":
            doc[hkey] = hvalue
    return doc


def _same_outcome(path) -> None:
    from profiler.inputs.documents import read_document
    from profiler.model.imports_report import ImportsReport
    from profiler.workflows.imports import load_report

    def whole(p):
        return ImportsReport.from_dict(read_document(p, ["imports"], "report"))

    streamed, full = _outcome(load_report, path), _outcome(whole, path)
    if isinstance(full, str) and full.startswith("error: ") and "not a valid importprof.imports/1 report (bad or missing" in full:
        assert isinstance(streamed, str) and "bad or missing" in streamed
    else:
        assert streamed == full


@pytest.mark.parametrize("case", ["command_subprocesses_x5", "repeated_headers_x4", "overlap_x3", "pip_10", "py314_cached_x3"])
def test_why_chains_by_process_are_the_careful_ones(case, reports):
    """import_chains of a report kept as columns (a layout's rows found once) equals the walk over
    every record; for a module that is a row, one that is only a package of rows, and neither."""
    from profiler.analysis.imports_chains import import_chains
    from profiler.model.import_columns import ModuleColumns

    report = reports[case]
    assert isinstance(report.modules, ModuleColumns)
    careful = replace(report, modules=tuple(report.modules))
    names = sorted({m.name for m in report.modules})
    packages = sorted({n.rpartition(".")[0] for n in names if "." in n} - set(names))
    for module in [*names[:: max(1, len(names) // 12)], *packages[:3], "nope"]:
        assert import_chains(report, module) == import_chains(careful, module), module


def test_changes_kept_as_columns_read_as_the_sorted_records():
    """ChangeColumns reads back as the ModuleChange records sorted by impact (|Δ cumulative|,
    |Δ self|, name, then the old order), the first few found without sorting them all; a number
    that is not a machine integer (a saved 5.0) is kept as it is."""
    import random

    from profiler.model.diff_report import ChangeColumns, ModuleChange

    rng = random.Random(7)
    for odd in (False, True):
        cols, records = ChangeColumns(), []
        for k in range(3000):
            name = rng.choice("abcde")
            values = [rng.choice([0, 1, 5, 50, 2**40]) for _ in range(4)]
            if odd and k == 1700:
                values[0] = 5.0
            sig = rng.choice([None, True, False])
            cols.append(name, k % 7, *values, sig, k % 11 == 0)
            records.append(ModuleChange(name, k % 7, *values, sig, wrapper=k % 11 == 0))
        records.sort(key=lambda c: (-abs(c.delta_cumulative_us), -abs(c.delta_self_us), c.name))
        assert cols[:25] == tuple(records[:25])
        assert cols == tuple(records) and list(cols) == records
        assert cols[-1] == records[-1] and len(cols) == 3000


@pytest.mark.parametrize("odd", [False, True])
def test_a_big_diff_is_written_a_batch_of_changes_at_a_time(odd):
    """A diff of two harness reports (every module changed: its changes kept as columns) is
    written as json.dumps(indent=2) writes the whole document, byte for byte, in pieces made
    from the columns (names that need escaping, significance judged or not, wrapper rows, added
    and removed records); a number that is not a machine integer (a saved 5.0) is written
    through the records."""
    import random

    from profiler.model.diff_report import ChangeColumns, DiffReport, DiffTotals
    from profiler.model.import_records import ModuleRecord
    from profiler.render.report_json import render_json, render_json_chunks

    rng = random.Random(11)
    cols = ChangeColumns()
    names = ["a", "b.c", 'q"uote', "back\\slash", "é\u2028x", "tab\tname"]
    for k in range(6000):
        values = [rng.choice([0, 1, 5, 50, 2**40, 2**53]) for _ in range(4)]
        if odd and k == 4321:
            values[2] = 5.0
        cols.append(rng.choice(names), k % 9, *values, rng.choice([None, True, False]), k % 13 == 0)
    added = (ModuleRecord("new.mod", 3, 4, "x", 1, 2, 1, (3,), (4,)),)
    removed = (ModuleRecord("old'mod", 1, 1, None, 0, 0, 1, (1,), (1,), extra={"wrapper": True}),)
    rep = DiffReport(machine={"cpu": "é"}, old={"path": "a.json"}, new={"path": "b.json"}, totals=DiffTotals(1, 2, 1, 100.0),
                     added=added, removed=removed, changed=cols, notes=("a note",))
    pieces = list(render_json_chunks(rep))
    assert "".join(pieces) == render_json(rep)
    assert len(pieces) >= 3 and max(map(len, pieces)) < sum(map(len, pieces)) / 2
    empty = DiffReport(machine={}, old={}, new={}, totals=DiffTotals(0, 0, 0), added=(), removed=(), changed=())
    assert "".join(render_json_chunks(empty)) == render_json(empty)


@pytest.mark.slow
def test_a_reader_that_leaves_early_is_a_closed_stdout(tmp_path):
    """`imports --format folded | head -c 10`: the pieces stop at the closed pipe, exit 0, no
    error line (as a closed stdout)."""
    import subprocess
    import sys

    from export_cases import write_log

    log = write_log("command_subprocesses_x5", tmp_path)
    big = tmp_path / "big.log"
    big.write_text(log.read_text() * 40)  # 600 processes: many pieces, far more than a pipe holds
    for fmt in ("folded", "speedscope", "json"):
        proc = subprocess.Popen([sys.executable, "-m", "profiler", "imports", "--from-log", str(big), "--format", fmt],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert len(proc.stdout.read(10)) == 10
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=300) == 0, (fmt, err)
        assert "error" not in err, (fmt, err)


@pytest.mark.parametrize("layout", ["compact", "one line"])
@pytest.mark.parametrize("case", ["pip_10", "command_subprocesses_x5", "py314_cached_x3"])
def test_a_saved_report_in_another_layout_is_read_a_value_at_a_time(case, layout, saved, tmp_path):
    """A valid saved report made compact (json.dump(separators=(",", ":")), as `jq -c` writes it)
    or put on one line (json.dump): read a value at a time into the column form (the streaming
    reader takes it: never the whole file in memory), the same report as the indented file,
    shown and exported byte for byte as it is; an invalid one refused with the same line."""
    from profiler.inputs.saved_imports import is_saved_imports, read_imports_document, stream_imports_report
    from profiler.model.import_columns import ModuleColumns
    from profiler.render import get_renderer
    from profiler.render.console_imports import ImportsView, render_imports_table
    from profiler.workflows.imports import load_report

    doc = json.loads(saved[case].read_text())
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc, separators=(",", ":")) if layout == "compact" else json.dumps(doc))
    assert "\n" not in path.read_text()
    back = stream_imports_report(str(path), None)
    assert back is not None and back == load_report(str(saved[case]))
    # report --from's reader too (its gate reads the first piece only)
    assert is_saved_imports(str(path))
    page, indented = read_imports_document(str(path)), read_imports_document(str(saved[case]))
    assert page is not None and indented is not None and list(page.records) == list(indented.records)
    assert {k: v for k, v in page.items() if k != "modules"} == {k: v for k, v in indented.items() if k != "modules"}
    if back.processes > 1 and case.endswith(("_x5", "pip_10")):
        assert isinstance(back.modules, ModuleColumns)
    assert get_renderer("json")(back) == saved[case].read_text()
    for view in (ImportsView(), ImportsView(view="top", top=15)):
        assert render_imports_table(back, False, view) == render_imports_table(load_report(str(saved[case])), False, view)
    # refused as the indented file is: the first problem, one line, exit 2
    doc["modules"][len(doc["modules"]) // 2]["self_us"] = -5
    bad_other, bad_indented = tmp_path / "bad.json", tmp_path / "bad-indented.json"
    bad_other.write_text(json.dumps(doc, separators=(",", ":")) if layout == "compact" else json.dumps(doc))
    bad_indented.write_text(_written(doc))
    for p in (bad_other, bad_indented):
        res = run_main("show", p)
        assert res.returncode == 2 and "Traceback" not in res.stderr, res
    assert run_main("show", bad_other).stderr.replace("bad.json", "X") == run_main("show", bad_indented).stderr.replace("bad-indented.json", "X")


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64])
def test_values_cut_anywhere_by_the_pieces_are_read_whole(size):
    """relaid reads a value a piece at a time: wherever a piece ends (inside a number, a
    string, an escape, `true`, `null`, between a key and its colon), the lines it gives hold
    the values json.loads reads (an item of the list as the file writes it); a syntax error or data after the object is not streamed (the
    whole-file reader says what is wrong)."""
    from profiler.inputs.layout import NotStreamable, relaid

    doc = {"schema": "importprof.imports/1", "n": -12345678, "f": 1.5e-3, "t": True, "z": None, "s": 'a"b\\c\u00e9 \U0001F600',
           "modules": [{"name": "a", "x": [1, 2, {"y": False}], "e": []}, {}, {"name": "b\n", "self_us": 0}], "after": {"k": [None]}}
    for text in (json.dumps(doc, separators=(",", ":")), json.dumps(doc), "{ " + json.dumps(doc, indent=1)[1:]):
        pieces = (text[i:i + size] for i in range(0, len(text), size))
        lines = list(relaid((p for p in pieces), "modules"))
        assert lines[0] == "{" and lines[-1] == "}" and lines[6] == '  "s": ' + json.dumps(doc["s"], ensure_ascii=False) + ","
        back = json.loads("\n".join(lines))
        assert back == doc and list(back) == list(doc)
        # an item is its text as the file has it (not written back: its reader judges that text)
        items = [ln for ln in lines if ln.startswith("    ")]
        assert [json.loads(ln[4:].removesuffix(",")) for ln in items] == doc["modules"] and [ln.endswith(",") for ln in items] == [True, True, False]
        assert all(ln[4:].removesuffix(",") in text for ln in items)
    for bad in ('{"a": 1} x', '{"a": 1,}', '{"a" 1}', '{"a": tru}', '{"a": [1, 2}', '[1]', '{"a": NaN}', '{"a": 1e999}'):
        pieces = (bad[i:i + size] for i in range(0, len(bad), size))
        with pytest.raises(NotStreamable):
            list(relaid((p for p in pieces), "modules"))
