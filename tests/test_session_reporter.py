"""The session's reporter: typed warnings (model/warnings.py RunWarning) said once, held and
summed up by kind after the output exactly as the text-read summary was; typed progress phases
(profiler/session.py Phase) drawn as the `progress(done, total, LABEL)` protocol was."""

from __future__ import annotations

import pytest

from profiler.commands._common import flush_warnings
from profiler.model.warnings import RunWarning
from profiler.model.words import Said, WarningKind as K
from profiler.session import Phase, Session

# one warning of each kind, as its source says it (analysis/statistics.py, analysis/machine.py,
# workflows/measure.py), and a second of five of them with other figures and subjects
EACH_KIND = [
    Said("default @ 3.12.1: the first run was much slower than the rest (80.1 ms vs median 20.3 ms): caches were "
         "cold; use --warmup or more runs", K.FIRST_RUN_SLOWER, K.FIRST_RUN_SLOWER.value, "default @ 3.12.1"),
    Said("no-site: 2 statistical outlier(s) among 10 runs (modified Z-score > 14.8): other programs or I/O may have "
         "interfered", K.OUTLIERS, "2 statistical outlier(s) among 10 runs", "no-site"),
    Said("isolated: the spread is too wide to trust (stddev 63% of the mean, over 10%): quiet the machine or raise "
         "--runs", K.WIDE_SPREAD, K.WIDE_SPREAD.value, "isolated"),
    Said("default: 3 of 10 runs exited non-zero (ignored)", K.NON_ZERO_EXITS, "3 of 10 runs exited non-zero", "default"),
    Said("the machine is busy: the runs were on a CPU for 41% of their wall time while other work used 77% of the "
         "machine, so the times include waiting for a core; quiet the machine", K.BUSY, K.BUSY.value),
    Said("low free memory: 1.2 GiB of 15.5 GiB available", K.LOW_MEMORY, "1.2 GiB of 15.5 GiB available", "low free memory"),
    Said("the reference default failed: ratios are against no-site instead", K.REFERENCE_FAILED,
         "the reference default failed", "default"),
    Said("no-site: failed (exited with code 1): ModuleNotFoundError", K.FAILED, "no-site failed", "no-site"),
    Said("no C compiler to build the measuring spawner: peak RSS is not measured (null)", K.NO_SPAWNER, K.NO_SPAWNER.value),
]
AGAIN = [
    Said("default @ 3.13.0: the first run was much slower than the rest (70.0 ms vs median 21.0 ms): caches were "
         "cold; use --warmup or more runs", K.FIRST_RUN_SLOWER, K.FIRST_RUN_SLOWER.value, "default @ 3.13.0"),
    Said("default: 3 statistical outlier(s) among 12 runs (modified Z-score > 14.8): other programs or I/O may have "
         "interfered", K.OUTLIERS, "3 statistical outlier(s) among 12 runs", "default"),
    Said("no-site: the spread is too wide to trust (stddev 20% of the mean, over 10%): quiet the machine or raise "
         "--runs", K.WIDE_SPREAD, K.WIDE_SPREAD.value, "no-site"),
    Said("no-site: 1 of 10 runs exited non-zero (ignored)", K.NON_ZERO_EXITS, "1 of 10 runs exited non-zero", "no-site"),
    Said("isolated: failed (exited with code 2)", K.FAILED, "isolated failed", "isolated"),
]
UNKINDED = ["variants oxidized, filesystem, in-memory unavailable on 3.12: python-oxidized-importer 0.9 works with 3.8-3.11",
            "these documents measure different targets: -c pass vs -m json",
            "run 2: the import log was cut short (12 lines)"]

# the line the text-read summary printed for EACH_KIND + AGAIN + UNKINDED (held in one invocation)
SUMMARY = ("importprof: warning: 17 warnings: 2 × the first run was much slower than the rest; 2 × N statistical "
           "outlier(s) among N runs; 2 × the spread is too wide to trust; 2 × N of N runs exited non-zero; the machine "
           "is busy; 1.2 GiB of 15.5 GiB available; the reference default failed; no-site failed; no C compiler to "
           "build the measuring spawner; isolated failed; variants oxidized, filesystem, in-memory unavailable on "
           "3.12; these documents measure different targets; the import log was cut short (--verbose shows each)\n")


def test_each_kind_is_typed_where_it_is_said_and_reads_as_its_text_would():
    # every kind a measurement says has its example (the others: tests/test_warnings_typed.py)
    assert {w.kind for w in EACH_KIND} == {K.FAILED, K.REFERENCE_FAILED, K.FIRST_RUN_SLOWER, K.OUTLIERS, K.WIDE_SPREAD,
                                           K.NON_ZERO_EXITS, K.BUSY, K.LOW_MEMORY, K.NO_SPAWNER}
    for said in EACH_KIND + AGAIN:
        typed, read = RunWarning.of(said), RunWarning.of(str.__str__(said))  # the text alone, as a document keeps it
        assert typed.kind is read.kind is said.kind and typed.text == read.text == str.__str__(said)
        assert (typed.label, typed.figures, typed.subject) == (read.label, read.figures, read.subject), said
        assert typed.subject == said.who
    assert RunWarning.of(EACH_KIND[4]).label == "the machine is busy"
    assert RunWarning.of(EACH_KIND[7]).label == "no-site failed"  # whose it is is the news
    assert RunWarning.of(EACH_KIND[6]).label == "the reference default failed"
    plain = RunWarning.of("the machine is busy")  # plain words of a known kind are of that kind
    assert plain.kind is K.BUSY and plain.subject == ""
    unkinded = RunWarning.of(UNKINDED[2])
    assert unkinded.kind is None and unkinded.subject == "run 2" and unkinded.label == "the import log was cut short"


@pytest.mark.parametrize("plain", [False, True], ids=["typed", "as-text"])
def test_held_warnings_are_counted_by_kind_in_one_line(capsys, monkeypatch, plain):
    monkeypatch.delenv("IMPORTPROF_VERBOSE", raising=False)
    session = Session(hold=True)
    for w in EACH_KIND + AGAIN + UNKINDED:
        session.warn(str.__str__(w) if plain else w)
    session.warn(EACH_KIND[0])  # said once per invocation
    assert capsys.readouterr().err == ""  # held until after the output
    assert [w.kind for w in session.held].count(K.FAILED) == 2
    flush_warnings(session)
    assert capsys.readouterr().err == SUMMARY
    assert session.held == []


def test_one_held_warning_is_said_whole_and_verbose_says_each_at_once(capsys, monkeypatch):
    monkeypatch.delenv("IMPORTPROF_VERBOSE", raising=False)
    one = Session(hold=True)
    one.warn(EACH_KIND[3])
    flush_warnings(one)
    assert capsys.readouterr().err == "importprof: warning: default: 3 of 10 runs exited non-zero (ignored)\n"
    loud = Session(hold=True)
    loud.verbose = True
    loud.warn(EACH_KIND[5])
    assert capsys.readouterr().err == "importprof: warning: low free memory: 1.2 GiB of 15.5 GiB available\n"
    flush_warnings(loud)
    assert capsys.readouterr().err == ""


def test_a_library_callers_session_says_warnings_and_notes_where_it_asks():
    said, told = [], []
    session = Session(say=said.append, tell=told.append)
    session.warn(EACH_KIND[1])
    session.warn(RunWarning.of(EACH_KIND[1]))  # the same warning, typed: once
    session.info("building the variants")
    assert said == [str.__str__(EACH_KIND[1])] and told == ["building the variants"]


def test_a_phase_is_the_label_the_display_splits():
    assert Phase("imports", "run 2", 2, 10).label == "imports: run 2"
    assert Phase.of(2, 10, "imports: run 2") == Phase("imports", "run 2", 2, 10)
    assert Phase.of(1, 4, "default") == Phase("default", "", 1, 4) and Phase("default", done=1, total=4).label == "default"
    assert Phase("startup").announces and not Phase(done=5, total=5).announces


def test_progress_goes_to_the_display_relabelled_inside_a_part():
    drawn = []
    session = Session(bar=drawn.append)
    session.progress(Phase("startup"))
    with session.relabelled(lambda p: Phase("report-part", p.label, p.done, p.total)):
        session.progress(Phase("2 runs", done=1, total=2))
        with session.relabelled(None):  # a measurement whose progress is not shown
            session.progress(Phase("hidden"))
    session.progress(Phase(done=2, total=2))
    assert [p.label for p in drawn] == ["startup", "report-part: 2 runs", ""]
    assert Session().progress(Phase("nobody draws it")) is None  # no display: nothing


def test_quiet_and_collecting_keep_a_callees_warnings_from_being_said_and_alert_passes_both():
    said, collected = [], []
    session = Session(say=said.append, tell=said.append)
    with session.quiet():
        session.warn("the machine is busy")  # a measurement on the way: not said, not counted
        session.info("a note")
        session.alert("a process was left running")  # importprof's own running: said whatever
    assert said == ["a process was left running"]
    session.warn("the machine is busy")  # said when it arises again outside
    assert said[-1] == "the machine is busy"
    with session.collecting(collected.append):
        session.warn("low free memory: 1.2 GiB of 15.5 GiB available")
        session.warn("the machine is busy")  # handed to the collector as given, even when said before
        with session.quiet(warnings=False):  # quiet but for warnings: the collector still has them
            session.warn("run 2: the import log was cut short (12 lines)")
            session.info("another note")
    assert collected == ["low free memory: 1.2 GiB of 15.5 GiB available", "the machine is busy",
                         "run 2: the import log was cut short (12 lines)"]
    assert said == ["a process was left running", "the machine is busy"]
    session.warn("low free memory: 1.2 GiB of 15.5 GiB available")  # the collector's, not yet said here
    assert said[-1] == "low free memory: 1.2 GiB of 15.5 GiB available"
