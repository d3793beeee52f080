"""The closed sets of words (model/words.py): a member is its string (JSON, f-strings, equality,
documents read back), a command parses the word at its edge, and a warning given its kind where
it is said is summed up under the same words the text would give (commands/_common.py)."""

from __future__ import annotations

import json

import pytest

from profiler.analysis.machine import busy_warnings
from profiler.analysis.statistics import result_warnings, summarize
from profiler.commands._common import flush_warnings
from profiler.errors import UsageError
from profiler.model.measurement import CommandSpec, RunSample, TimingResult
from profiler.model.target import Target
from profiler.model.warnings import RunWarning
from profiler.model.words import Engine, Metric, Role, Said, TargetKind, WarningKind
from profiler.session import Session
from profiler.workflows.measure import pick_reference


@pytest.mark.parametrize("member, word", [
    (Engine.HYPERFINE, "hyperfine"), (Role.IMPORT, "import"), (TargetKind.SCRIPT, "script"),
    (Metric.INSTRUCTIONS, "instructions"),
])
def test_a_member_is_its_word(member, word):
    assert member == word and hash(member) == hash(word)
    assert f"{member}" == str(member) == "%s" % member == f"{member:>0}" == word
    assert json.dumps({"k": member}) == json.dumps({"k": word})
    assert type(member).parse(word) is member


def test_an_unknown_word_is_one_usage_line_naming_the_known_ones():
    with pytest.raises(UsageError, match=r"^unknown engine 'hyperfin' \(builtin, hyperfine\)$"):
        Engine.parse("hyperfin")
    with pytest.raises(UsageError, match=r"^unknown --metric 'cycles' \(known: instructions\)$"):
        Metric.parse("cycles", "--metric")


def test_documents_keep_the_word_and_read_back_equal():
    spec = CommandSpec(argv=("py", "-c", "pass"), variant="default", key="default", role=Role.BASELINE,
                       target_kind=TargetKind.CODE)
    r = summarize(spec, [RunSample(0.01, None, None, None, 0)], engine=Engine.HYPERFINE)
    d = r.to_dict()
    assert (d["engine"], d["role"]) == ("hyperfine", "baseline")
    assert TimingResult.from_dict(json.loads(json.dumps(d))) == r
    t = Target(TargetKind.SCRIPT, "x.py")
    assert Target.from_dict(json.loads(json.dumps(t.to_dict()))) == t


def test_options_default_to_members_and_the_cli_spells_the_same_words():
    import typing

    from profiler.commands._options import ViewOpt
    from profiler.compose.lazy import LazyOptions
    from profiler.model.log_source import LogSource
    from profiler.model.words import Group, Headers, View
    from profiler.workflows.imports import ImportsOptions

    t = Target(TargetKind.CODE, "pass")
    imp, lz = ImportsOptions(target=t), LazyOptions(target=t)
    assert imp.headers is Headers.PROCESSES and imp.group is None and lz.engine is Engine.BUILTIN
    assert TimingResult.failure(CommandSpec(argv=("py",), variant="v", key="v"), (1,), "x").engine is Engine.BUILTIN
    # a library caller's plain word still compares equal to the member the command would give
    log = LogSource("saved.log")  # (--headers reads a saved log: the options refuse it without one)
    assert (ImportsOptions(target=t, headers="runs", group="package", log=log)
            == ImportsOptions(target=t, headers=Headers.RUNS, group=Group.PACKAGE, log=log))
    # --view's parser spells View's words (commands/_options.py cannot import model/ for --help)
    assert typing.get_args(ViewOpt)[1].parser.choices == tuple(v.value for v in View)


def _said_examples() -> list[Said]:
    def result(key, times, codes=None):
        spec = CommandSpec(argv=("py",), variant=key.split(" ")[0], key=key)
        return summarize(spec, [RunSample(t, 0.001, 0.001, None, c) for t, c in zip(times, codes or [0] * len(times))])

    out: list[Said] = []
    for key in ("default", "no-site @ 3.12.1", "default @ 3.13.0 · import json", "isolated @ /py/bin/python3"):
        out += result_warnings(result(key, [0.05, 0.01, 0.0101, 0.0099, 0.01]))  # first run slower
        out += result_warnings(result(key, [0.01, 0.0101, 0.0099, 0.01, 0.0102, 0.01, 0.04, 0.0101]))  # an outlier
        out += result_warnings(result(key, [0.01, 0.03, 0.012, 0.05]))  # a wide spread
        out += result_warnings(result(key, [0.01, 0.01, 0.01], [1, 0, 2]))  # non-zero exits
        failed = TimingResult.failure(CommandSpec(argv=("py",), variant="v", key=key), (1,), "exited with code 1: x")
        ok = result("other", [0.01, 0.01])
        out += pick_reference([failed, ok], key)[1]
    out += busy_warnings({"cpu_percent": 70.0, "memory_available_bytes": 2**30, "memory_total_bytes": 16 * 2**30},
                         [result("a", [0.01, 0.01])])
    return out


def test_a_kind_given_at_the_source_is_what_the_text_would_have_said():
    said = _said_examples()
    kinds = {w.kind for w in said}
    assert {WarningKind.FIRST_RUN_SLOWER, WarningKind.OUTLIERS, WarningKind.WIDE_SPREAD, WarningKind.NON_ZERO_EXITS,
            WarningKind.REFERENCE_FAILED, WarningKind.BUSY, WarningKind.LOW_MEMORY} <= kinds
    for w in said:
        plain = str.__str__(w)  # the text alone, as a saved document gives it back
        typed, read = RunWarning.of(w), RunWarning.of(plain)
        assert (typed.label, typed.figures) == (read.label, read.figures), w


def test_the_summary_line_groups_by_kind(capsys, monkeypatch):
    monkeypatch.delenv("IMPORTPROF_VERBOSE", raising=False)
    ctx = Session(hold=True)
    for w in ("default: 2 of 10 runs exited non-zero (ignored)", "no-site: 3 of 10 runs exited non-zero (ignored)"):
        ctx.warn(Said(w, WarningKind.NON_ZERO_EXITS, w.split(": ")[1].split(" (")[0], w.split(":")[0]))
    ctx.warn(Said("low free memory: 1.0 GiB of 16.0 GiB available", WarningKind.LOW_MEMORY,
                  "1.0 GiB of 16.0 GiB available", "low free memory"))
    flush_warnings(ctx)
    assert capsys.readouterr().err == ("importprof: warning: 3 warnings: 2 × N of N runs exited non-zero; "
                                       "1.0 GiB of 16.0 GiB available (--verbose shows each)\n")


def test_syscalls_and_the_lazy_style_are_words_made_members_at_the_edge():
    """compare's --syscalls and lazy --apply's --style are closed sets (model/words.py): the edge
    the command and the library share (compose/options_edge.py) makes the word its member or
    refuses it, the options hold members only, the member is still the word (the documents and
    the tables unchanged), and the CLI spells the same words."""
    import pytest

    from profiler.compose.options_edge import apply_options, style_word, syscalls_word
    from profiler.errors import UsageError

    from profiler.analysis.lazy_edit import STYLES
    from profiler.commands import load_command
    from profiler.compose.compare import CompareOptions
    from profiler.compose.lazy import LazyOptions
    from profiler.compose.lazy_apply_state import ApplyOptions
    from profiler.model.words import LazyStyle, Syscalls

    t = Target(TargetKind.CODE, "pass")
    assert CompareOptions(target=t).syscalls is Syscalls.AUTO
    assert CompareOptions(target=t, syscalls=syscalls_word("off")).syscalls is Syscalls.OFF
    with pytest.raises(UsageError, match="^--syscalls: auto, on or off$"):
        syscalls_word("sometimes")
    with pytest.raises(UsageError, match="^--style bogus: one of lazy-modules, keyword$"):
        style_word("bogus")
    applied = apply_options(LazyOptions(target=t), apply="d", style="keyword", diff=False, filter_out=None,
                            verify_with=None, min_ms=0.0, oldest_python=None, runs=None, profile_runs=1,
                            max_bisect_runs=1)
    assert applied.style is LazyStyle.KEYWORD and ApplyOptions(lazy=LazyOptions(target=t), directory="d").style is LazyStyle.LAZY_MODULES
    assert json.dumps({"style": applied.style, "syscalls": Syscalls.ON}) == '{"style": "keyword", "syscalls": "on"}'
    assert f"({applied.style}; at least" == "(keyword; at least"  # the lazy --apply table's title
    assert STYLES == ("lazy-modules", "keyword")
    style = next(p for p in load_command("lazy").params if p.name == "style")
    assert style.type.func.choices == tuple(s.value for s in LazyStyle)
