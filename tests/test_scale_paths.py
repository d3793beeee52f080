"""The fast paths of a big log (many processes of one program) against the careful ways, on
real logs: the per-shape plan of the column aggregation, the one-pass Σ over processes and the
one-pass tree folding give what the per-module parent walks gave."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from profiler.analysis.imports import TreeLine, aggregate_logs_by_trees, collapse_tree, parent_indices, sum_modules
from profiler.model.import_tree import SummedModule
from profiler.parse.importtime import parse_importtime, parse_importtime_lines
from profiler.workflows.imports import report_from_logs

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importtime"
REAL = ("boto3.log", "command_subprocesses.log", "repeated_headers.log", "overlap.log", "requests_noise.log", "big_1.log.gz")


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


@pytest.mark.parametrize("name", REAL)
def test_many_processes_fast_equals_careful(name):
    text = _many(name)
    report = _report(text)
    modules = report.modules
    assert report.processes >= 5
    # the column aggregation (one plan per shape) against per-process trees of the careful parser
    by_trees = aggregate_logs_by_trees([parse_importtime_lines(text)])
    assert modules == by_trees[0] and report.total_us == by_trees[2]
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
