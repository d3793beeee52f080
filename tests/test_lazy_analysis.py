"""The pure steps of `importprof lazy` (analysis/lazy.py) and its JSON round trip."""

from __future__ import annotations

import pytest

from profiler.analysis.lazy import (
    avoided_modules,
    bisect_candidates,
    comparison_for,
    describe_difference,
    only_durations_differ,
    is_own_file,
    masked,
    emulation_overhead_s,
    event_cost_text,
    event_cost_us,
    predict_lazy,
    run_saving,
    statement_savings,
    suggestion_for,
    total_self_us,
    stayed_eager,
)
from profiler.model.import_records import ModuleRecord
from profiler.model.lazy import (
    AvoidedModule,
    EagerImport,
    LazyLoad,
    LazyReport,
    LazyRun,
    MustStayEager,
    ProgramOutput,
    StatementSaving,
)


def rec(name, cum, parent=None, site=None, depth=0, self_us=None):
    own = cum if self_us is None else self_us
    return ModuleRecord(name, own, cum, parent, depth, 0, 1, (own,), (cum,), extra={"site": site} if site else {})


def run(executed, startup=(), eager=(), loads=(), pending=()):
    return LazyRun(True, "3.11.7", tuple(startup), tuple((n, k, None) for n, k in executed), tuple(pending), tuple(eager), tuple(loads))


def test_describe_difference_names_the_first_differing_line_or_the_exception():
    ok = ProgramOutput("a\nb\n", "", 0)
    assert describe_difference(ok, ProgramOutput("a\nb\n", "", 0)) is None
    assert describe_difference(ok, ProgramOutput("a\nc\n", "", 0)) == "stdout line 2: 'c' instead of 'b'"
    assert describe_difference(ok, ProgramOutput("a\n", "", 0)) == "stdout line 2: (no line) instead of 'b'"
    assert describe_difference(ok, ProgramOutput("a\nb\n", "", 3)) == "exit code 3 instead of 0"
    tb = "Traceback (most recent call last):\n  File \"x\", line 1, in <module>\nKeyError: 'hello'\n"
    assert describe_difference(ok, ProgramOutput("a\n", tb, 1)) == "raised KeyError: 'hello' (exit code 1)"
    assert describe_difference(ok, ProgramOutput("a\nb", "", 0)) == "stdout differs in line endings or a final newline"
    assert describe_difference(ok, ProgramOutput("a\nb\n", "warn\n", 0)) == "stderr line 1: 'warn' instead of (no line)"


def test_two_long_lines_are_shown_where_they_differ():
    """Clipped at the same 80 characters, two long lines that differ past them looked alike in
    the message (a transparency test's own failure); they are shown from a little before their
    first differing character."""
    line = "('hello from tinyedit', 'resource text', '0.1', 'SourceFileLoader', ['DistutilsMetaFinder'], {}, True)"
    said = describe_difference(ProgramOutput(line.format("None") + "\n", "", 0),
                               ProgramOutput(line.format("'set'") + "\n", "", 0))
    assert said == "stdout line 1: …\"tutilsMetaFinder'], 'set', True)\" instead of …\"tutilsMetaFinder'], None, True)\""


def test_bisect_candidates_skip_startup_main_and_kept_modules_in_import_order():
    # an extension module's import statement is deferred too (3.15 binds the name, looks nothing up)
    eager = run([("sys", "builtin"), ("encodings", "source"), ("b", "source"), ("_json", "extension"), ("a", "bytecode"),
                 ("k", "source"), ("__main__", "main")], startup=["sys", "encodings"])
    assert bisect_candidates(eager, keep=["k"]) == ["b", "_json", "a"]


def test_avoided_modules_count_their_own_time_only():
    """A saving is what the program stops doing: a module the lazy run does not import, at its
    own cost; a cumulative whose parts the lazy run still imports is never counted."""
    mods = [rec("app_dep", 500, site="app.py:1", self_us=50), rec("heavy", 300, "app_dep", "dep.py:3", 1, self_us=120),
            rec("leaf", 100, "heavy", "h.py:1", 2), rec("shared", 80, "heavy", "h.py:2", 2),
            rec("used", 50, site="app.py:2")]
    eager = run([(m.name, "source") for m in mods])
    lazy = run([("app_dep", "source"), ("used", "source"), ("shared", "source")])  # shared: still imported (by used)
    avoided, total = avoided_modules(eager, lazy, mods)
    assert [(a.name, a.self_us, a.cumulative_us) for a in avoided] == [("heavy", 120, 300), ("leaf", 100, 100)]
    assert total == 220  # not heavy's cumulative 300: shared (80) is still imported
    assert total <= total_self_us(mods) == 50 + 120 + 100 + 80 + 50


def test_run_saving_and_prediction():
    mods = [rec("a", 300, self_us=100), rec("b", 200, "a", self_us=200), rec("c", 10)]
    eager = run([("a", "source"), ("b", "source"), ("c", "source")])
    names, us = run_saving(eager, run([("c", "source")]), mods)
    assert (names, us) == (["a", "b"], 300)
    p = predict_lazy(0.2, 0.12, 0.003, {"bindings": 1000, "resolutions": 100, "rewritten_loads": 10},
                     {"binding_us": 2.0, "resolution_us": 10.0, "load_us": -1.0})
    # a per-event cost timed below zero (load_us -1.0) is noise: it counts as 0, not as a saving
    assert abs(p.overhead_s - (0.003 + 0.002 + 0.001)) < 1e-12
    assert abs(p.lazy_mean - (0.12 - p.overhead_s)) < 1e-12 and abs(p.ratio - p.lazy_mean / 0.2) < 1e-12
    assert "1000 lazy bindings × 2.00 µs" in p.how
    assert "10 module loads × 0 µs (timed -1.00 µs: within noise)" in p.how and "× -" not in p.how
    assert p.calibration["load_us"] == -1.0  # the hook's timing is kept as it was measured


def test_a_per_event_cost_below_zero_is_noise_and_counts_as_zero():
    """H10 saw "241 module loads × -18.76 µs" in a prediction: a cost below zero lowered the
    emulation's overhead and raised the predicted 3.15 time."""
    cal = {"binding_us": 0.5, "resolution_us": 0.0, "load_us": -18.76}
    assert [event_cost_us(cal, k) for k in ("binding_us", "resolution_us", "load_us", "absent_us")] == [0.5, 0.0, 0.0, 0.0]
    assert event_cost_text(cal, "load_us") == "0 µs (timed -18.76 µs: within noise)"
    assert event_cost_text(cal, "binding_us") == "0.50 µs"
    assert emulation_overhead_s({"bindings": 100, "resolutions": 7, "rewritten_loads": 241}, cal) == 100 * 0.5 / 1e6
    p = predict_lazy(0.3, 0.2, 0.0, {"bindings": 0, "resolutions": 0, "rewritten_loads": 241}, cal)
    assert p.lazy_mean == 0.2 and p.overhead_s == 0.0
    assert suggestion_for("from x import y  # why", "m", ("x",)) == "lazy from x import y"
    assert suggestion_for("from x import (", "m", ("x",)) == "__lazy_modules__ = ['x']  # in m"


def test_statement_savings_charge_the_nearest_statement_of_the_targets_own_code():
    mods = [
        rec("mylib", 900, site="/app/app.py:1"),
        rec("json", 400, "mylib", "/app/mylib/__init__.py:2", 1),
        rec("json.decoder", 200, "json", "/usr/lib/json/__init__.py:5", 2),
        rec("argparse", 300, site="/app/app.py:3"),
        rec("gettext", 100, "argparse", "/usr/lib/argparse.py:9", 1),
        rec("certifi", 700, site="/site-packages/x.pth:1"),
    ]
    avoided = [AvoidedModule(n, c) for n, c in (("json", 400), ("json.decoder", 200), ("argparse", 300), ("gettext", 100), ("certifi", 700))]
    got = statement_savings(avoided, mods, ["/app/"])
    assert got == [
        StatementSaving("/app/mylib/__init__.py:2", ("json", "json.decoder"), 400, self_us=600, imports=("json",)),
        StatementSaving("/app/app.py:3", ("argparse", "gettext"), 300, self_us=400, imports=("argparse",)),
    ]  # certifi: imported by a .pth, not by the target's code; self_us: Σ self below (rec's self = cum here)
    assert is_own_file("<string>", ["<string>"]) and not is_own_file("/apple/x.py", ["/app/"])


def test_stayed_eager_lists_decisions_then_import_statement_loads_once():
    r = run([], eager=[EagerImport("_json", "extension module (...)", "a.py:1")],
            loads=[LazyLoad("json", "from", "__path__", "a.py:2"), LazyLoad("json", "use", "dumps", "a.py:9"),
                   LazyLoad("pkg", "submodule", "__path__", "a.py:3"), LazyLoad("m", "use", "f", "a.py:4")])
    got = stayed_eager(r)
    assert [(e.name, e.site) for e in got] == [("_json", "a.py:1"), ("json", "a.py:2"), ("pkg", "a.py:3")]
    assert "from json import" in got[1].reason


def test_report_round_trips_through_json():
    report = LazyReport(
        results=(), must_stay_eager=(MustStayEager("p", "stdout line 1: ..."),), avoided=(AvoidedModule("x", 5),),
        identical_output=True, modules_eager=10, modules_lazy=8, statements=(StatementSaving("a.py:1", ("x",), 5),),
        stayed_eager=(EagerImport("_json", "extension", None),), avoided_us=5, bisect_runs=3,
    )
    d = report.to_dict()
    assert d["schema"] == "importprof.lazy/1"
    assert LazyReport.from_dict(d) == report


def test_durations_the_program_prints_are_never_a_difference():
    # pytest -q on 3.15 (CI, 2026-12-03): "0.01s" in every eager run, "0.00s" in every lazy one
    eager, lazy = ProgramOutput(".\n1 passed in 0.01s\n", "", 0), ProgramOutput(".\n1 passed in 0.00s\n", "", 0)
    assert describe_difference(eager, lazy) is None and only_durations_differ(eager, lazy)
    assert not only_durations_differ(eager, eager)
    for x, y in [("Ran 5 tests in 0.120s", "Ran 5 tests in 0.031s"), ("took 103 ms", "took 97 ms"),
                 ("1 passed in 65.43s (0:01:05)", "1 passed in 61.02s (0:01:01)"), ("done in 2 seconds", "done in 1 seconds")]:
        assert describe_difference(ProgramOutput(x + "\n", "", 0), ProgramOutput("", y + "\n", 0)) is not None  # other stream
        assert describe_difference(ProgramOutput(x + "\n", "", 0), ProgramOutput(y + "\n", "", 0)) is None, (x, y)
    # a count, a number that is not a duration, a missing line, an exit code: still differences
    for x, y in [("3 passed in 0.10s", "2 passed in 0.10s"), ("value 0.5", "value 0.6"), ("v1.2s", "v1.3s"), ("x3s", "x4s")]:
        assert describe_difference(ProgramOutput(x, "", 0), ProgramOutput(y, "", 0)) is not None, (x, y)
    assert describe_difference(eager, ProgramOutput(".\n", "", 0)) == "stdout line 2: (no line) instead of '1 passed in 0.01s'"
    assert describe_difference(eager, ProgramOutput(lazy.stdout, "", 1)) == "exit code 1 instead of 0"


def test_output_that_changes_only_in_its_numbers_is_compared_with_them_masked():
    # pytest -q's last line, two runs: the counts stay, the timing changes: a duration, never a difference
    t1, t2 = ProgramOutput("...\n3 passed in 0.10s\n", "", 0), ProgramOutput("...\n3 passed in 0.12s\n", "", 0)
    assert comparison_for([t1, t2]) is None
    # a figure that is no duration (a load, a score) and changes: decimals masked, counts still compared
    a = ProgramOutput("...\n3 checks, load 0.10\n", "", 0)
    b = ProgramOutput("...\n3 checks, load 0.12\n", "", 0)
    assert comparison_for([a, a]) is None
    assert comparison_for([a, b]) == "decimals masked"
    assert masked(a, "decimals masked") == masked(b, "decimals masked") == ProgramOutput("...\n3 checks, load #\n", "", 0)
    # a count that changed is still a difference once the decimals are masked
    assert describe_difference(masked(a, "decimals masked"), masked(ProgramOutput("...\n2 checks, load 0.11\n", "", 0),
                                                                     "decimals masked")) == "stdout line 2: '2 checks, load #' instead of '3 checks, load #'"
    # whole numbers that change (a seed, a free-memory figure) need every number masked
    c, d = ProgramOutput("took 103 of 200\n", "", 0), ProgramOutput("took 97 of 200\n", "", 0)
    assert comparison_for([c, d]) == "numbers masked"
    assert masked(c, None) is c
    # output that differs otherwise cannot be compared: the first difference says why
    try:
        comparison_for([c, ProgramOutput("took 97 in all\n", "", 0)])
    except ValueError as exc:
        assert str(exc) == "stdout line 1: 'took 97 in all' instead of 'took 103 of 200'"
    else:
        raise AssertionError("no ValueError")


@pytest.mark.parametrize("ratio, words", [(1.14, "1.14x slower"), (0.39, "2.6x faster")])
def test_the_prediction_says_slower_or_faster_as_every_ratio_does(ratio, words):
    """A lazy run predicted slower than eager (pylint: 1.14x) said '(0.88x faster)'."""
    from profiler.model.lazy import LazyReport, Prediction
    from profiler.render.console_lazy import render_lazy_table

    report = LazyReport(results=(), must_stay_eager=(), avoided=(), identical_output=True, modules_eager=10,
                        modules_lazy=5, statements=(), target="-c pass", python="/usr/bin/python3",
                        python_version="3.11.7", prediction=Prediction(lazy_mean=0.1 * ratio, ratio=ratio, overhead_s=0.001))
    text = render_lazy_table(report)
    assert f"lazy/eager {ratio:.2f}x ({words})" in text, text


def test_statements_that_saved_nothing_alone_are_summarised_in_one_line_never_recommended():
    """pylint's table listed measured rows saving 0 µs / 0 modules above real candidates."""
    from profiler.analysis.lazy import saves_nothing
    from profiler.render.console_lazy import render_lazy_table

    good = StatementSaving("pkg/a.py:3", ("big",), 9000, 9000, saving_us=8000, saving_modules=("big",),
                           suggestion='__lazy_modules__ = ["big"]', identical_output=True)
    zero = StatementSaving("pkg/main.py:1", ("cli",), 50000, 40000, saving_us=0, saving_modules=(), identical_output=True)
    unrun = StatementSaving("pkg/b.py:7", ("mid",), 3000, 3000)
    assert saves_nothing(zero) and not saves_nothing(good) and not saves_nothing(unrun)
    report = LazyReport(results=(), must_stay_eager=(), avoided=(), identical_output=True, modules_eager=10,
                        modules_lazy=5, statements=(good, unrun, zero), target="-c pass", python="/usr/bin/python3",
                        python_version="3.15.2")
    text = render_lazy_table(report)
    assert "pkg/a.py:3" in text.split("saved nothing")[0] and "pkg/b.py:7" in text
    table = text.split("1 statement(s) measured alone saved nothing")[0]
    assert "pkg/main.py:1" not in table  # not a row of the table
    assert "1 statement(s) measured alone saved nothing (no module left out), not recommended: pkg/main.py:1" in text
    # only zero rows: no empty table, the line alone
    alone = render_lazy_table(LazyReport(**{**report.__dict__, "statements": (zero,)}))
    assert "Import statements to make lazy" not in alone and "pkg/main.py:1" in alone
