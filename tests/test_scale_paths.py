"""The fast paths of a big log (many processes of one program) against the careful ways, on
real logs: the per-shape plan of the column aggregation, the one-pass Σ over processes and the
one-pass tree folding give what the per-module parent walks gave."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from profiler.analysis.imports_aggregate import aggregate_logs_by_trees
from profiler.analysis.imports_processes import sum_modules
from profiler.analysis.imports_views import TreeLine, collapse_tree, parent_indices
from profiler.model.import_records import SummedModule
from profiler.parse.importtime import parse_importtime, parse_importtime_lines
from profiler.workflows.imports import report_from_logs

from conftest import lane

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importtime"
REAL = ("boto3.log", "command_subprocesses.log", "repeated_headers.log", "overlap.log", "requests_noise.log", "big_1.log.gz")
QUICK = lane(REAL, REAL[:-1])  # the 1,000-process log in make test, not the quick lane


def _text(name: str) -> str:
    p = FIXTURES / name
    return gzip.decompress(p.read_bytes()).decode() if name.endswith(".gz") else p.read_text()


def _many(name: str, copies: int = 5) -> str:
    """The log's processes again and again, as a log of many runs of one program reads."""
    text = _text(name)
    return text * copies if text.endswith("\n") else text


def _report(text: str):
    return report_from_logs([parse_importtime(text)], machine={}, python=None, python_version=None, target=None, source="log")


def careful_sum_modules(modules):
    """sum_modules as the parent walk of each row did it."""
    parents = parent_indices(modules)
    acc: dict = {}
    for i, m in enumerate(modules):
        a = acc.setdefault(m.name, [set(), 0, 0])
        a[0].add(m.process)
        a[1] += m.self_us
        j = parents[i]
        while j is not None and modules[j].name != m.name:
            j = parents[j]
        if j is None:
            a[2] += m.cumulative_us
    out = [SummedModule(name, len(a[0]), a[1], a[2]) for name, a in acc.items()]
    out.sort(key=lambda m: (-m.cumulative_us, -m.self_us, m.name))
    return tuple(out)


def careful_folding(modules, min_us):
    """collapse_tree's first part (who is shown, what is folded where) through parent_indices."""
    parents = parent_indices(modules)
    visible, owner_of, summaries, shown = set(), {}, {}, []
    for i, m in enumerate(modules):
        p = parents[i]
        if p is not None and p in owner_of:
            owner_of[i] = owner_of[p]
            summaries[owner_of[p]][0] += 1
            continue
        if m.cumulative_us >= min_us and (p is None or p in visible):
            visible.add(i)
            shown.append(i)
            continue
        owner = ("m", p) if p in visible else ("root", m.process)
        owner_of[i] = owner
        s = summaries.setdefault(owner, [0, 0])
        s[0] += 1
        s[1] += m.cumulative_us
    return shown, summaries


@pytest.mark.parametrize("name", QUICK)
def test_many_processes_fast_equals_careful(name):
    text = _many(name)
    report = _report(text)
    modules = report.modules
    assert report.processes >= 5
    # the column aggregation (one plan per shape) against per-process trees of the careful parser
    by_trees = aggregate_logs_by_trees([parse_importtime_lines(text)])
    assert modules == by_trees.modules and report.total_us == by_trees.total_us
    assert sum_modules(modules) == careful_sum_modules(modules)
    for min_us in (0, 1000, 10**9):
        lines = collapse_tree(modules, min_us)
        shown, summaries = careful_folding(modules, min_us)
        assert [ln.module for ln in lines if ln.module is not None] == [modules[i] for i in shown]
        folded = Counter((ln.process, ln.hidden_modules, ln.hidden_us) for ln in lines if ln.module is None)
        want = Counter((modules[k[1]].process if k[0] == "m" else k[1], s[0], s[1]) for k, s in summaries.items() if s[0])
        assert folded == want
        assert all(isinstance(ln, TreeLine) for ln in lines)
        # made as read: the length before any line is made, a prefix, an index, all of them
        whole = list(lines)
        fresh = collapse_tree(modules, min_us)
        assert len(fresh) == len(whole) and fresh[:7] == whole[:7] and fresh[len(whole) - 1] == whole[-1]
        assert list(fresh) == whole and fresh[-1] == whole[-1]


@pytest.mark.parametrize("name", QUICK)
def test_processes_kept_as_columns_read_as_their_records(name):
    # a log of several processes keeps each regular one as columns (ModuleColumns): every view
    # of it is the view of the same records held whole
    from dataclasses import replace

    from profiler.analysis.imports_processes import summarize_processes
    from profiler.model.import_columns import ColumnBlock, ModuleColumns, records_with

    report = _report(_many(name))
    modules = report.modules
    assert isinstance(modules, ModuleColumns)
    records = tuple(modules)
    assert any(isinstance(b, ColumnBlock) for b in modules.blocks) == (name != "overlap.log")  # its processes overlap: trees
    assert len(modules) == len(records) and modules == records and records == modules
    assert [modules[i] for i in range(len(records))] == list(records)
    assert modules[-1] == records[-1] and modules[-len(records)] == records[0] and modules[3:40:3] == records[3:40:3]
    with pytest.raises(IndexError):
        modules[len(records)]
    assert sum_modules(modules) == sum_modules(records)
    assert summarize_processes(modules, 1, report.processes) == summarize_processes(records, 1, report.processes)
    for min_us in (0, 300, 1000, 5000, 10**9):
        assert list(collapse_tree(modules, min_us)) == list(collapse_tree(records, min_us))
    assert list(records_with(modules, "failed")) == [m for m in records if "failed" in m.extra]
    assert replace(report, modules=records).to_json() == report.to_json()
    from profiler.render.folded import render_folded

    assert render_folded(report) == render_folded(replace(report, modules=records))
    from profiler.analysis.imports_views import top_modules

    for by in ("self_us", "cumulative_us"):
        for n in (0, 1, 7, len(records) + 3):
            assert top_modules(modules, n, by) == top_modules(records, n, by)


def test_processes_of_mixed_kinds_keep_their_order():
    # processes read through their trees (overlap.log's interleaved rows, 3.14 cached rows)
    # among regular ones (boto3.log): both kinds of block, in the log's order
    from profiler.model.import_columns import ColumnBlock, ModuleColumns

    text = "".join(_text(n) for n in ("boto3.log", "overlap.log", "boto3.log", "py314_cached.log", "boto3.log"))
    modules = _report(text).modules
    assert isinstance(modules, ModuleColumns)
    kinds = {isinstance(b, ColumnBlock) for b in modules.blocks}
    assert kinds == {True, False}
    assert [m.process for m in modules] == sorted(m.process for m in modules)
    assert modules == aggregate_logs_by_trees([parse_importtime_lines(text)]).modules
    records = tuple(modules)
    assert sum_modules(modules) == sum_modules(records) == careful_sum_modules(records)
    for min_us in (0, 1000, 10**9):
        assert list(collapse_tree(modules, min_us)) == list(collapse_tree(records, min_us))


def test_times_past_four_byte_integers_are_kept_whole():
    # columns hold µs as 4-byte integers up to 71 minutes, 8-byte ones past that: a real log
    # (boto3.log, twice) with one row's times raised past 2**32 µs reads the same both ways
    from profiler.model.import_columns import ColumnBlock

    lines = _text("boto3.log").splitlines(keepends=True)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("import time:") and "|" in ln and ln.split("|")[0].split(":")[1].strip().isdigit())
    big = 5_000_000_000
    head, _, rest = lines[i].partition(":")
    selfs, cum, name = rest.split("|")
    lines[i] = f"{head}: {big:>9} | {big + int(cum):>10} |{name}"
    text = "".join(lines) * 2
    modules = _report(text).modules
    assert any(m.self_us == big for m in modules)
    assert any(isinstance(b, ColumnBlock) and b.self_us.typecode == "q" for b in modules.blocks)
    assert modules == aggregate_logs_by_trees([parse_importtime_lines(text)]).modules


@pytest.mark.parametrize("odd", ["pkg.mod%d%%s", "pkg.v-7000000000000001"])
def test_json_of_processes_kept_as_columns_is_their_records_json(odd):
    # ModuleColumns writes its rows through per-layout templates made from a record's own
    # to_dict(): a real log (boto3.log, three times) with one module renamed to hold a
    # format character, or a template's stand-in number (then its rows go through their records)
    from dataclasses import replace

    from profiler.model.import_columns import ColumnBlock, json_templates

    lines = _text("boto3.log").splitlines(keepends=True)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("import time:") and ln.rstrip().endswith("| zipimport"))
    lines[i] = lines[i].replace("zipimport", odd)
    text = "".join(lines) * 3
    report = _report(text)
    blocks = [b for b in report.modules.blocks if isinstance(b, ColumnBlock)]
    assert blocks and any(m.name == odd for m in report.modules)
    assert (json_templates(blocks[0].layout) is None) == ("7000000000000001" in odd)
    assert report.to_json() == replace(report, modules=tuple(report.modules)).to_json()
    assert any(m["name"] == odd for m in __import__("json").loads(report.to_json())["modules"])
