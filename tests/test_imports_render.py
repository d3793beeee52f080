"""The imports tables: noise said in words, --top limits every table it can."""

from __future__ import annotations

from profiler.parse.importtime import parse_importtime
from profiler.render.console_imports import NOISE_NOTE, ImportsView, render_imports_table
from profiler.workflows.imports import add_groups, report_from_logs
from profiler.session import Session

HEADER = "import time: self [us] | cumulative | imported package\n"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def rep(*texts):
    return report_from_logs([parse_importtime(t) for t in texts], machine={}, python=None, python_version=None, target=None, source="log")


def test_a_spread_larger_than_the_value_is_printed_as_noise():
    # "flaky": 0, 1500, 3000 µs → median 1500, MAD 1500 (σ ≈ 2224 µs > the value); "steady" is not
    r = rep(*[HEADER + row(v, v, 0, "flaky") + row(5000 + j, 5000 + j, 0, "steady") for j, v in enumerate((0, 1500, 3000))])
    for view in (ImportsView(min_ms=0), ImportsView(view="top", top=5)):
        out = render_imports_table(r, tty=False, view=view)
        flaky = next(ln for ln in out.splitlines() if "flaky" in ln)
        steady = next(ln for ln in out.splitlines() if "steady" in ln)
        assert "noise" in flaky and "±" not in flaky
        assert "noise" not in steady and "±0.0" in steady
        assert NOISE_NOTE in out and "raise --runs" in out
    quiet = rep(*[HEADER + row(5000 + j, 5000 + j, 0, "steady") for j in range(3)])
    assert "noise" not in render_imports_table(quiet, tty=False, view=ImportsView(min_ms=0))


def test_top_limits_the_group_table():
    text = HEADER + "".join(row(100 * (i + 1), 100 * (i + 1), 0, f"pkg{i}") for i in range(12))
    r = add_groups(rep(text), "package", None, session=Session())
    out = render_imports_table(r, tty=False, view=ImportsView(view="top", top=5))
    table = out[out.index("by package") :]
    shown = [ln for ln in table.splitlines() if "| pkg" in ln]
    assert [ln.split("|")[1].strip() for ln in shown] == ["pkg11", "pkg10", "pkg9", "pkg8", "pkg7"]
    assert "… 7 more (--top 5)" in table
    out = render_imports_table(r, tty=False, view=ImportsView(view="top", top=20))
    assert "more (--top" not in out


def test_argv_as_typed_and_cut_paths_cut_on_a_terminal_only():
    from profiler.render.text import path_cell, shown_argv

    assert shown_argv(["python3", "-c", "import json, csv"]) == 'python3 -c "import json, csv"'
    assert shown_argv(["python3", "-c", "print('x')"]) == 'python3 -c "print(\'x\')"'  # never '"'"'
    assert shown_argv(["python3", "-c", 'print("it\'s")']) == 'python3 -c "print(\\"it\'s\\")"'
    long_argv = ["python3", "-c", "import subprocess; " * 10]
    cut = shown_argv(long_argv)
    assert "…" in cut and cut.startswith("python3 -c") and len(cut) == 60  # whole in JSON only
    long = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/certifi/core.py:16"
    assert path_cell(long, tty=True, width=48) == "…/python3.11/site-packages/certifi/core.py:16"
    assert path_cell(long, tty=False) == long  # a pipe or a file gets it whole
