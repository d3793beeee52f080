"""`why --report FILE` reads the saved report a process at a time (compose.why._saved_report_chains:
inputs.stream_imports_report handing each process to analysis.imports_chains.ChainsByProcess,
the rows not kept): its chains, its JSON and its table are the very ones the whole-document
path makes (the file json.load-ed, checked, made an ImportsReport, import_chains over all its
rows), on real saved reports and for every kind of answer: a module imported in every process,
in some, only as a package of its submodules, nowhere; a file not laid out as importprof writes
it and a process in two places are read whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import lane
from export_cases import SavedReports

CASES = ("pip_10", "command_subprocesses_x5", "repeated_headers_x4", "overlap_x3", "py314_cached_x3", "boto3", "boto3_x3_runs")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return SavedReports(tmp_path_factory.mktemp("saved"))


def _whole(path: Path, module: str):
    """The WhyReport of the whole-document path: the file read whole, then import_chains."""
    from profiler.compose.why import why_from_report
    from profiler.inputs.documents import read_document
    from profiler.model.imports_report import ImportsReport

    return why_from_report(ImportsReport.from_dict(read_document(str(path), ["imports"], "report")), module)


def _streamed(path: Path, module: str):
    from profiler.compose.why import _saved_report_chains, why_from_report

    report, chains = _saved_report_chains(str(path), module)
    return why_from_report(report, module, None, chains), chains


def _modules_asked(path: Path) -> list[str]:
    """Modules of every kind of answer: the first and a deep row, a row of one process only, a
    package seen only through its submodules, and a name no process imported."""
    doc = json.loads(path.read_text())
    rows = doc["modules"]
    names = [m["name"] for m in rows]
    by_name: dict[str, set] = {}
    for m in rows:
        by_name.setdefault(m["name"], set()).add(m.get("process", 0))
    deepest = max(rows, key=lambda m: m["depth"])["name"]
    some = sorted(n for n, ps in by_name.items() if len(ps) < len({m.get("process", 0) for m in rows}))[:2]
    packages = sorted({n.rsplit(".", 1)[0] for n in names if "." in n} - set(names))[:2]
    asked = [names[0], deepest, *some, *packages, "no_such_module_here"]
    return list(dict.fromkeys(asked))


def _same(path: Path, streamed_expected: bool = True) -> int:
    from profiler.render import get_renderer
    from profiler.render.console_imports import render_why_table, why_table_pieces

    asked = 0
    for module in _modules_asked(path):
        want = _whole(path, module)
        got, chains = _streamed(path, module)
        assert (chains is not None) == streamed_expected, module
        assert got == want, module
        assert get_renderer("json")(got) == get_renderer("json")(want)
        assert render_why_table(got, False) == render_why_table(want, False)
        pieces = list(why_table_pieces(got, False))  # what `why` writes: a chain's table at a time
        assert "".join(pieces) == render_why_table(want, False) and len(pieces) >= len(want.chains)
        asked += bool(want.chains)
    return asked


@pytest.mark.parametrize("case", lane(CASES, CASES[1:2]))  # every case in make test
def test_why_of_a_saved_report_read_a_process_at_a_time_is_the_whole_documents(case, saved):
    assert _same(saved[case]) >= 2  # answers with chains among the modules asked, not only "not imported"


@pytest.mark.slow  # in make test
def test_a_report_not_laid_out_as_importprof_writes_it_is_read_whole(saved, tmp_path):
    doc = json.loads(saved["command_subprocesses_x5"].read_text())
    other = tmp_path / "indented.json"
    other.write_text(json.dumps(doc, indent=4))
    assert _same(other, streamed_expected=False) >= 2


@pytest.mark.slow  # in make test (the quick lane keeps the streamed equivalence)
def test_a_process_in_two_places_is_read_whole(saved, tmp_path):
    """The last process's rows numbered as the first's: process 0 comes twice, apart (the
    chains are then found over all the rows, as import_chains finds them)."""
    from profiler.model.document import document_json

    doc = json.loads(saved["command_subprocesses_x5"].read_text())
    last = max(m["process"] for m in doc["modules"])
    rows = [{**m, "process": 0} if m["process"] == last else m for m in doc["modules"]]
    path = tmp_path / "twice.json"
    path.write_text(document_json({**doc, "modules": []}, {"modules": [json.dumps(m, ensure_ascii=False) for m in rows]}))
    assert _same(path, streamed_expected=False) >= 2


def test_a_package_seen_only_through_its_submodules(saved, tmp_path):
    """MODULE never a row, its submodules rows in some processes: each such process's chain to
    its first submodule row (the package's rows renamed away, their children's parents too)."""
    from profiler.model.document import document_json

    doc = json.loads(saved["command_subprocesses_x5"].read_text())

    def renamed(name):
        return "json_was_here" if name == "json" else name

    rows = [{**m, "name": renamed(m["name"]), "parent": renamed(m["parent"])} for m in doc["modules"]]
    assert not any(m["name"] == "json" for m in rows) and any(m["name"].startswith("json.") for m in rows)
    path = tmp_path / "no_json_row.json"
    path.write_text(document_json({**doc, "modules": []}, {"modules": [json.dumps(m, ensure_ascii=False) for m in rows]}))
    want = _whole(path, "json")
    got, chains = _streamed(path, "json")
    assert chains is not None and got == want
    assert len(want.chains) >= 2 and all(c.hops[-1].name.startswith("json.") for c in want.chains)


def test_why_pieces_join_to_the_table_when_rich_draws_some(saved, tmp_path):
    """A chain whose hop names rich must draw (a wide character: not the plain renderer's) and
    chains it need not, a piece each: joined, the text render_why_table draws for them all."""
    from profiler.render.console_imports import render_why_table, why_table_pieces

    report, _ = _streamed(saved["command_subprocesses_x5"], "json")
    assert len(report.chains) >= 2
    first = report.chains[0]
    wide = type(first)(**{**first.__dict__, "hops": (type(first.hops[0])(**{**first.hops[0].__dict__, "name": "模块"}), *first.hops[1:])})
    from dataclasses import replace

    mixed = replace(report, chains=(wide, *report.chains[1:]))
    assert "".join(why_table_pieces(mixed, False)) == render_why_table(mixed, False)
    assert "模块" in render_why_table(mixed, False)
