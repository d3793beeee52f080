"""`report --from` of saved imports reports keeps each process's columns in a temporary file as
it is read (compose.report._SpilledColumns), not in the memory: the page, its JSON bundle and
the summary are the very bytes of the whole-document path (each file json.load-ed and checked)
and of the columns kept in the memory, on real saved reports; with no writable temporary folder
the columns stay in the memory, the page the same; a temporary file that cannot be read back is
one error, no page."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import lane
from export_cases import SavedReports

CASES = ("pip_10", "command_subprocesses_x5", "repeated_headers_x4", "overlap_x3", "py314_cached_x3", "boto3")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return SavedReports(tmp_path_factory.mktemp("saved"))


def _outputs(page) -> dict:
    from profiler.render import get_renderer
    from profiler.render.console_report import render_report_summary

    return {
        "html": "".join(get_renderer("html", chunks=True)(page)),
        "json": "".join(get_renderer("json", chunks=True)(page)),
        "json_whole": get_renderer("json")(page),
        "summary": render_report_summary(page),
    }


def _whole_docs(paths):
    from profiler.inputs.documents import check_document
    from profiler.inputs.strict_json import read_json

    out = []
    for p in paths:
        doc = read_json(str(p), "document")
        check_document(doc, str(p))
        out.append((Path(p).name, doc))
    return out


def _spilled_blocks(page) -> int:
    from profiler.model.import_columns import ModuleColumns
    from profiler.model.report import SavedColumns

    n = 0
    for _, doc in page.documents:
        if isinstance(doc, SavedColumns) and isinstance(doc.records, ModuleColumns):
            n += sum(type(b).__name__ == "SpilledBlock" for b in doc.records.blocks)
    return n


def _three_pages(paths):
    """The page as report --from makes it (columns spilled), with the columns kept in the
    memory, and from the documents read whole."""
    from profiler.analysis.page import page_data
    from profiler.compose.report import _page_data, load_documents, report_from_files

    spilled = report_from_files([str(p) for p in paths])
    in_memory_docs = load_documents([str(p) for p in paths])
    in_memory = replace(spilled, documents=tuple(in_memory_docs), derived=_page_data(in_memory_docs, {}))
    whole = replace(spilled, documents=tuple(_whole_docs(paths)), derived=page_data(_whole_docs(paths), {}))
    return spilled, in_memory, whole


@pytest.mark.parametrize("case", lane(CASES, CASES[1:2]))  # the rest in make test
def test_a_page_of_spilled_columns_is_the_whole_documents(case, saved):
    spilled, in_memory, whole = _three_pages([saved[case]])
    got = _outputs(spilled)
    assert got == _outputs(in_memory) == _outputs(whole)
    assert got["json"] == got["json_whole"]
    from profiler.model.import_columns import ModuleColumns

    records = spilled.documents[0][1].records
    if isinstance(records, ModuleColumns):  # a report of several processes: its blocks in the file
        assert _spilled_blocks(spilled) == sum(type(b).__name__ != "tuple" for b in records.blocks) > 0


@pytest.mark.slow  # two reports on one page: in make test
def test_two_reports_on_one_page_share_the_file(saved):
    paths = [saved["command_subprocesses_x5"], saved["overlap_x3"], saved["command_subprocesses_x5"]]
    spilled, in_memory, whole = _three_pages(paths)
    assert _spilled_blocks(spilled) > 2
    assert _outputs(spilled) == _outputs(in_memory) == _outputs(whole)


def test_no_writable_temporary_folder_keeps_the_columns_in_the_memory(saved, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no_such_folder"))  # as TMPDIR once read
    spilled, in_memory, whole = _three_pages([saved["command_subprocesses_x5"]])
    assert _spilled_blocks(spilled) == 0
    assert _outputs(spilled) == _outputs(whole)


def test_a_temporary_file_cut_short_is_one_error_and_no_page(saved, tmp_path):
    from profiler import sinks
    from profiler.errors import OutputFailed
    from profiler.render import get_renderer

    spilled, _, _ = _three_pages([saved["command_subprocesses_x5"]])
    block = next(b for b in spilled.documents[0][1].records.blocks if type(b).__name__ == "SpilledBlock")
    column = tuple.__getitem__(block, 2)
    column.spill.cache.clear()
    os.ftruncate(column.spill.fd, 0)
    out = tmp_path / "page.html"
    with pytest.raises(OutputFailed, match="cannot read back the saved report's columns .*: cut short"):
        sinks.emit(get_renderer("html", chunks=True)(spilled), str(out))
    assert not out.exists()
