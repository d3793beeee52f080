"""Writers and readers that stream (imports exports, saved reports read back): the very bytes
the code wrote before they streamed (tests/fixtures/exports/golden.json, see
tests/export_cases.py), on real logs and generated ones; the pieces written as they come, a
file still replaced atomically."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

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
