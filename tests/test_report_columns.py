"""`report --from` of saved imports reports read a line at a time into columns
(inputs.read_imports_document, compose.report._column_tree, render/page_json.py): the page, its
JSON bundle and the summary are the very bytes the whole-file reading wrote, on real logs and
generated ones (many processes, names that need escaping, a file not laid out as importprof
writes it), alone and beside other documents; a bad report is the same one line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_one_line_error, lane
from export_cases import report_of

CASES = ("pip_10", "command_subprocesses_x5", "repeated_headers_x4", "overlap_x3", "py314_cached_x3", "boto3", "boto3_x3_runs")


class _Saved(dict):
    """Each case's saved report, written when a test first asks for it (the quick lane never
    asks for pip_10's)."""

    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def __missing__(self, case):
        from profiler.render import get_renderer

        report = report_of(case, self.folder)
        if case == "overlap_x3":  # a module name the page must escape, in a process kept as columns
            from profiler.model.import_columns import ModuleColumns

            assert isinstance(report.modules, ModuleColumns)
        path = self[case] = self.folder / f"{case}.json"
        path.write_text(get_renderer("json")(report))
        return path


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return _Saved(tmp_path_factory.mktemp("saved"))


def _whole(paths):
    """The page as the whole-file reader made it (each document json.load-ed and checked)."""
    from profiler.inputs.documents import check_document
    from profiler.inputs.strict_json import read_json

    docs = []
    for p in paths:
        doc = read_json(str(p), "document")
        check_document(doc, str(p))
        docs.append((Path(p).name, doc))
    return docs


def _pages(paths):
    from profiler.analysis.page import page_data
    from profiler.compose.report import report_from_files

    streamed = report_from_files([str(p) for p in paths])
    whole = replace(streamed, documents=tuple(_whole(paths)), derived=page_data(_whole(paths), {}))
    return streamed, whole


def _outputs(page):
    from profiler.render import get_renderer
    from profiler.render.console_report import render_report_summary

    return {
        "html": get_renderer("html")(page),
        "html_pieces": "".join(get_renderer("html", chunks=True)(page)),
        "json": get_renderer("json")(page),
        "json_pieces": "".join(get_renderer("json", chunks=True)(page)),
        "summary": render_report_summary(page),
    }


@pytest.mark.parametrize("case", lane(CASES, CASES[1:]))  # pip_10 (10 runs of pip) in make test
def test_a_saved_report_on_the_page_is_the_whole_file_s(case, saved):
    from profiler.model.report import SavedColumns

    streamed, whole = _pages([saved[case]])
    assert isinstance(streamed.documents[0][1], SavedColumns)
    got, want = _outputs(streamed), _outputs(whole)
    assert got["html"] == want["html"] == got["html_pieces"]
    assert got["json"] == want["json"] == got["json_pieces"]
    assert got["summary"] == want["summary"]
    assert json.loads(got["json"])["derived"]["documents"][0]["tree"] == json.loads(want["json"])["derived"]["documents"][0]["tree"]


@pytest.mark.slow  # two of pip_10: in make test
def test_many_documents_and_kinds_on_one_page(saved):
    """Saved reports beside the other kinds' documents (the report fixtures), a report twice."""
    paths = [saved["pip_10"], *sorted((FIXTURES / "report").glob("*.json")), saved["overlap_x3"], saved["pip_10"]]
    streamed, whole = _pages(paths)
    got, want = _outputs(streamed), _outputs(whole)
    assert got["html"] == want["html"] == got["html_pieces"]
    assert got["json"] == want["json"] == got["json_pieces"]
    pieces = list(__import__("profiler.render", fromlist=["get_renderer"]).get_renderer("html", chunks=True)(streamed))
    assert len(pieces) > 10 and max(map(len, pieces)) < sum(map(len, pieces)) / 2


def test_a_report_not_laid_out_as_importprof_writes_it_is_read_whole(saved, tmp_path):
    """Indented by json.dump, or a record without the keys importprof writes: read whole, the
    page as before."""
    from profiler.model.report import SavedColumns

    doc = json.loads(saved["command_subprocesses_x5"].read_text())
    other = tmp_path / "indented.json"
    other.write_text(json.dumps(doc, indent=4))
    from profiler.model.document import document_json

    doc["modules"][3] = {k: doc["modules"][3][k] for k in ("name", "self_us", "cumulative_us", "process", "depth")}
    short = tmp_path / "short.json"
    short.write_text(document_json({**doc, "modules": []}, {"modules": [json.dumps(m) for m in doc["modules"]]}))
    for path in (other, short):
        streamed, whole = _pages([path])
        assert not isinstance(streamed.documents[0][1], SavedColumns)
        assert _outputs(streamed)["json"] == _outputs(whole)["json"]


def test_a_bad_saved_report_is_one_line(cli, saved, tmp_path):
    """A record that breaks the schema, a parent that is not a module of its process: the line
    the whole-file reader said, exit 2, no page."""
    text = saved["pip_10"].read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(text) if '"process": 3' in line)
    for edit, says in ((text[at].replace('"self_us": ', '"self_us": "x", "was": '), "self_us: expected integer"),
                       (text[at].replace('"parent": null', '"parent": "nope"') if '"parent": null' in text[at] else
                        text[at].replace('"parent": "', '"parent": "nope'), "is not a module of process 3")):
        bad = tmp_path / "bad.json"
        bad.write_text("".join(text[:at] + [edit] + text[at + 1:]))
        out = tmp_path / "page.html"
        res = cli("report", "--from", str(bad), "-o", str(out))
        assert_one_line_error(res, 2, says)
        assert not out.exists()
        from profiler.errors import BadInput
        from profiler.inputs.documents import check_document
        from profiler.inputs.strict_json import read_json

        with pytest.raises(BadInput) as whole:
            check_document(read_json(str(bad), "document"), str(bad))
        assert str(whole.value) in res.stderr
