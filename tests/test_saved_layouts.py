"""A saved imports report in any layout (issue 43: every reader at json.load's pace whatever the
document's layout): as saved, as importprof writes it, compact (json.dump(separators=(",", ":")), as `jq -c` writes it)
and on one line (json.dump). Every command that reads one (show, its formats, why --report,
report --from, diff) prints the same bytes for each layout, a bad one is the same one line, and
the readers take the other layouts a value at a time (profiler/inputs/layout.py), never the
file as one line: the streaming readers answer for them. The real command line, in this
process; no timing here (benchmarks/ measure the pace)."""

from __future__ import annotations

import json
import re

import pytest

from _inproc import run_main
from conftest import FIXTURES

SAVED = FIXTURES / "report" / "imports.json"
LAYOUTS = {
    "as saved": lambda doc: SAVED.read_text(),
    "as importprof writes it": lambda doc: run_main("show", SAVED, "--format", "json").stdout,
    "compact": lambda doc: json.dumps(doc, separators=(",", ":")),
    "one line": lambda doc: json.dumps(doc),
    "indented by 1": lambda doc: json.dumps(doc, indent=1),
}


def _outputs(folder, text: str) -> dict[str, str]:
    """What each reading command prints of the report written as `text` (the same paths for
    every layout, so the outputs compare byte for byte)."""
    a, b = folder / "a" / "imports.json", folder / "b" / "imports.json"
    for p in (a, b):
        p.parent.mkdir(exist_ok=True)
        p.write_text(text)
    module = json.loads(SAVED.read_text())["modules"][5]["name"]
    runs = {
        "show": ("show", a),
        "show top": ("show", a, "--view", "top", "--top", "7"),
        "show json": ("show", a, "--format", "json"),
        "show folded": ("show", a, "--format", "folded"),
        "why": ("why", module, "--report", a),
        "why json": ("why", module, "--report", a, "--format", "json"),
        "diff": ("diff", a, b),
        "diff json": ("diff", a, b, "--format", "json"),
        "report json": ("report", "--from", a, "--format", "json"),
    }
    out = {}
    for name, args in runs.items():
        res = run_main(*args, cwd=folder)
        assert res.returncode == 0 and "Traceback" not in res.stderr, (name, res)
        out[name] = re.sub(r'"generated_at": "[^"]*"', '"generated_at": "(the time)"', res.stdout)  # report: when it was made
    return out


@pytest.mark.parametrize("layout", [k for k in LAYOUTS if k != "as saved"])
def test_every_reader_prints_the_same_bytes_whatever_the_layout(layout, tmp_path):
    doc = json.loads(SAVED.read_text())
    text = LAYOUTS[layout](doc)
    assert json.loads(text) == doc
    if layout in ("compact", "one line"):
        assert "\n" not in text
    saved = _outputs(tmp_path, LAYOUTS["as saved"](doc))
    other = _outputs(tmp_path, text)
    assert other == saved
    assert all(saved.values())


def _saved(folder, doc: dict):
    path = folder / "saved.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


@pytest.mark.parametrize("layout", ["compact", "one line"])
def test_the_streaming_readers_take_the_other_layouts(layout, tmp_path):
    """show, diff and why --report read through stream_imports_report: for a compact or one-line
    file it answers (None would mean the file was read whole instead), the report the saved
    file gives; report --from's gate takes it, and its reader answers as for the saved file
    (this one's records hold phases, which it leaves to the whole-file reader in any layout; a
    copy without them it reads in every layout, the page of the file as importprof writes it)."""
    from profiler.inputs.saved_imports import is_saved_imports, read_imports_document, stream_imports_report

    path = tmp_path / "imports.json"
    path.write_text(LAYOUTS[layout](json.loads(SAVED.read_text())))
    from profiler.workflows.imports import load_report

    streamed = stream_imports_report(str(path), None)
    assert streamed is not None and streamed == load_report(str(SAVED))
    assert is_saved_imports(str(path)) and is_saved_imports(str(SAVED))
    page, saved_page = read_imports_document(str(path)), read_imports_document(str(SAVED))
    assert (page is None) == (saved_page is None)
    # without its phases, report --from's reader answers for it, with the page of the file as
    # importprof writes it
    doc = json.loads(SAVED.read_text())
    for m in doc["modules"]:
        for key in ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled"):
            m.pop(key, None)
    written, other = tmp_path / "written.json", tmp_path / "other.json"
    written.write_text(run_main("show", _saved(tmp_path, doc), "--format", "json").stdout)
    other.write_text(LAYOUTS[layout](json.loads(written.read_text())))
    page, saved_page = read_imports_document(str(other)), read_imports_document(str(written))
    assert page is not None and saved_page is not None
    assert page.header() == saved_page.header() and list(page["modules"]) == list(saved_page["modules"])


def _refusals(folder, texts, module: str) -> set[tuple[str, str]]:
    """What show, why --report and report --from say of each of `texts` saved as the report
    (each refuses it: exit 2, no traceback): one (command, stderr) per command when every text
    is refused alike."""
    lines = set()
    for text in texts:
        path = folder / "imports.json"
        path.write_text(text)
        for args in (("show", path), ("why", module, "--report", path), ("report", "--from", path, "--format", "json")):
            res = run_main(*args, cwd=folder)
            assert res.returncode == 2 and "Traceback" not in res.stderr, res
            lines.add((args[0], res.stderr))
    return lines


@pytest.mark.parametrize("layout", ["compact", "one line", "indented by 1"])
def test_a_bad_report_is_the_same_line_whatever_the_layout(layout, tmp_path):
    doc = json.loads(SAVED.read_text())
    doc["modules"][7]["cumulative_us"] = "12"
    lines = _refusals(tmp_path, (json.dumps(doc, indent=2), LAYOUTS[layout](doc)), doc["modules"][5]["name"])
    assert len(lines) == 3, lines
    assert all("modules[7].cumulative_us: expected integer (got string '12')" in err for _, err in lines), lines


@pytest.mark.parametrize("layout", ["compact", "one line", "indented by 1"])
@pytest.mark.parametrize("edit", ["2**60", "-1", "5.5", "[1, true]", "2**60 then 1", "a bad record, then 2**60 then 1"])
def test_a_record_the_fast_decoding_lets_through_is_the_same_line_whatever_the_layout(layout, edit, tmp_path):
    """Records are decoded with their integers read by json's C parser (inputs.strict_json.fast_decoder)
    and judged by their shape (schema_compiler.item_shape_check); an integer past 2**53, a
    negative one, a float or a boolean where an integer goes, or an integer past 2**53 under a
    key the record says again (json keeps the later 1: in no value to bound; also after a record
    refused by the schema, when the rest is only parsed) is the line the strict reader says, as
    saved and in the other layout."""
    doc = json.loads(SAVED.read_text())
    said = {"2**60": "not valid JSON (a number of 19 digits is larger than any importprof document holds)",
            "-1": "modules[9].self_us: expected >= 0 (got -1)", "5.5": "modules[9].self_us: expected integer (got number 5.5)",
            "[1, true]": "modules[9].self_us_runs[1]: expected integer or null (got boolean True)"}
    said["2**60 then 1"] = said["a bad record, then 2**60 then 1"] = said["2**60"]
    if edit.startswith("a bad record"):  # not JSON is said before the schema's problem
        doc["modules"][7]["cumulative_us"] = "12"
    if edit.endswith("2**60 then 1"):  # the key said twice: written in by hand (a dict has each key once)
        doc["modules"][9] = {"DUP": 0, **{k: v for k, v in doc["modules"][9].items() if k != "self_us"}, "self_us": 1}
    else:
        field, value = ("self_us_runs", [1, True]) if edit == "[1, true]" else ("self_us", {"2**60": 2**60, "-1": -1, "5.5": 5.5}[edit])
        doc["modules"][9][field] = value
    # as importprof writes it (a record a line): the good report's lines, the record's line replaced
    written = run_main("show", SAVED, "--format", "json").stdout.split("\n")
    at = written.index('  "modules": [') + 1
    written[at + 7], written[at + 9] = ("    " + json.dumps(doc["modules"][k]) + "," for k in (7, 9))
    texts = [re.sub(r'"DUP":( ?)0', rf'"self_us":\g<1>{2**60}', text) for text in ("\n".join(written), LAYOUTS[layout](doc))]
    lines = _refusals(tmp_path, texts, doc["modules"][5]["name"])
    assert len(lines) == 3, lines
    assert all(said[edit] in err for _, err in lines), lines


@pytest.mark.parametrize("layout", ["compact", "one line"])
def test_a_one_run_report_in_another_layout_is_read_as_columns(layout, tmp_path):
    """A one-run report of several processes (what `imports --from-log` of a harness's log
    writes) read back from a compact or one-line file is kept as columns, each process matched
    by its layout's template in that layout (model.import_columns_reader), as the file as
    importprof writes it is; the report is the same."""
    from profiler.inputs.saved_imports import stream_imports_report
    from profiler.model.import_columns import ColumnBlock

    doc = json.loads(SAVED.read_text())
    plain = [{k: v for k, v in m.items() if k not in ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled", "phase_cumulative_us")}
             for m in doc["modules"]]
    doc["modules"] = [{**m, "process": p, "runs_seen": 1, "self_us_runs": [m["self_us"]], "cumulative_us_runs": [m["cumulative_us"]],
                       "self_us_spread": 0, "cumulative_us_spread": 0} for p in range(3) for m in plain]
    doc.update(processes=3, runs=1, total_us_runs=[doc["total_us"]])
    written = tmp_path / "written.json"
    written.write_text(run_main("show", _saved(tmp_path, doc), "--format", "json").stdout)
    other = tmp_path / "other.json"
    other.write_text(LAYOUTS[layout](json.loads(written.read_text())))
    a, b = stream_imports_report(str(written), None), stream_imports_report(str(other), None)
    assert a is not None and b is not None and a == b
    assert [type(x) for x in b.modules.blocks] == [ColumnBlock] * 3 == [type(x) for x in a.modules.blocks]
