"""Every warning importprof says is typed where it is said (issue 43 item 2): its kind, whose it
is and its own figures are given by the code that says it, never read back from its words.

CASES holds one warning of each place that says one, with the fields the text heuristics read
from its words before the change (the reference, frozen here as data; the heuristics themselves
still read a plain string: model/warnings.py _read_untyped): the summary line after the output
shows a label and a kind said once shows its figures, so those are what a user sees, byte for
byte."""

from __future__ import annotations

import ast

import pytest

from profiler.commands._common import flush_warnings
from profiler.model.warnings import RunWarning
from profiler.model.words import WarningKind as K
from profiler.session import Session

# (where it is said, its text, kind, subject, figures, label): as the text heuristics read them
CASES = [
    ('check: no baseline', "smoke: no 'baseline' file declared, nothing to update",
     None, 'smoke', "no 'baseline' file declared, nothing to update", "no 'baseline' file declared, nothing to update"),
    ('check: could not run', 'smoke: could not run, its baseline is left as it was',
     None, 'smoke', 'could not run, its baseline is left as it was', 'could not run, its baseline is left as it was'),
    ('report: part skipped', 'report: lazy skipped: lazy imports need Python 3.8 or later (this is 3.7.17)',
     None, 'report', 'lazy skipped', 'lazy skipped'),
    ('report: mixed documents', 'these documents measure different targets: -c pass (a.json); -m json (b.json); compare their figures with care',
     None, '', 'these documents measure different targets', 'these documents measure different targets'),
    ('history: no git', '/tmp/work/project is not in a git repository: the check runs are recorded without a commit',
     None, '', '/tmp/work/project is not in a git repository', '/tmp/work/project is not in a git repository'),
    ('history: dirty', 'the working tree differs from 0123456789: recorded as that commit, marked dirty',
     None, '', 'the working tree differs from 0123456789', 'the working tree differs from N'),
    ('history: not measured', '0123456789: could not be measured: the target exited with code 1',
     None, '0123456789', 'could not be measured', 'could not be measured'),
    ('history: bisect not measured', '0123456789: could not be measured (pip install failed): counted as after the step',
     None, '0123456789', 'could not be measured', 'could not be measured'),
    ('compare: syscalls skipped', 'syscall counts skipped: strace not found (apt install strace)',
     None, 'syscall counts skipped', 'strace not found', 'strace not found'),
    ('compare: variant failed', "variant filesystem failed: the program's output differs from traditional's",
     None, 'variant filesystem failed', "the program's output differs from traditional's", "the program's output differs from traditional's"),
    ('compare: mostly disk', 'variant in-memory: 30 of 40 modules came from the filesystem through the fallback path finder, not from its pack (e.g. a, b): this row mostly measures the ordinary importer',
     None, 'variant in-memory', '30 of 40 modules came from the filesystem through the fallback path finder, not from its pack', 'N of N modules came from the filesystem through the fallback path finder, not from its pack'),
    ('compare: origins not recorded', 'variant filesystem: where its modules came from in the harness not recorded: no record written',
     None, 'variant filesystem', 'where its modules came from in the harness not recorded', 'where its modules came from in the harness not recorded'),
    ('compare: harness exit', "variant filesystem: the harness exited 1 in its recording run (traditional's 0): its row is not comparable",
     None, 'variant filesystem', 'the harness exited 1 in its recording run', 'the harness exited N in its recording run'),
    ('build: variant unavailable', 'variants oxidized, filesystem, in-memory unavailable on 3.12: python-oxidized-importer 0.9 works with 3.8-3.11',
     None, '', 'variants oxidized, filesystem, in-memory unavailable on 3.12', 'variants oxidized, filesystem, in-memory unavailable on N'),
    ('startup: harness no summary', 'no per-process summary: strace not found (apt install strace)',
     None, 'no per-process summary', 'strace not found', 'strace not found'),
    ('lazy: exit ignored', 'the target exited with code 3 (measured anyway: --ignore-failure)',
     None, '', 'the target exited with code 3', 'the target exited with code N'),
    ('lazy: unstable', "the program's output changes from run to run (stdout): lazy vs eager cannot be judged; make it deterministic",
     None, '', "the program's output changes from run to run", "the program's output changes from run to run"),
    ('lazy: eager runs differ', 'two eager runs executed different modules (40 vs 41): the program is not deterministic',
     None, '', 'two eager runs executed different modules', 'two eager runs executed different modules'),
    ('lazy: differs all eager', "the lazy run differs even with every module eager (stdout): the difference is not an import's",
     None, '', 'the lazy run differs even with every module eager', 'the lazy run differs even with every module eager'),
    ('lazy: bisection stopped', 'bisection stopped after 40 runs: the keep-eager set (3 modules) may be larger than needed',
     None, '', 'bisection stopped after 40 runs', 'bisection stopped after N runs'),
    ('lazy: verification differs', 'the verification lazy run differs from the eager run: stdout',
     None, '', 'the verification lazy run differs from the eager run', 'the verification lazy run differs from the eager run'),
    ('lazy: no exit handlers', "the lazy run ended without running exit handlers: its module counts are the eager run's",
     None, '', 'the lazy run ended without running exit handlers', 'the lazy run ended without running exit handlers'),
    ('lazy plain: bare differs', "the program run bare differs from its run under importprof's launcher (stdout): the launcher changes it",
     None, '', "the program run bare differs from its run under importprof's launcher", "the program run bare differs from its run under importprof's launcher"),
    ('lazy plain: bare all eager', 'the bare interpreter with -X lazy_imports=all differs even with every module eager (stdout)',
     None, '', 'the bare interpreter with -X lazy_imports=all differs even with every module eager', 'the bare interpreter with -X lazy_imports=all differs even with every module eager'),
    ('lazy plain: filter differs', 'with a, b kept eager by a plain filter, /usr/bin/python3.15 -X lazy_imports=all differs (stdout)',
     None, '', 'with a, b kept eager by a plain filter, /usr/bin/python3.15 -X lazy_imports=all differs', 'with a, b kept eager by a plain filter, /usr/bin/pythonN -X lazy_imports=all differs'),
    ('apply: bisection stopped', 'bisection stopped after 40 runs: more statements than needed may have been taken back',
     None, '', 'bisection stopped after 40 runs', 'bisection stopped after N runs'),
    ('apply: differs unedited', 'the program differs even with no statement made lazy (stdout): nothing applied',
     None, '', 'the program differs even with no statement made lazy', 'the program differs even with no statement made lazy'),
    ('apply: still differs', '-m app on 3.15.0 still differs after the edit: stdout',
     None, '', '-m app on 3.15.0 still differs after the edit', '-m app on N.N still differs after the edit'),
    ('apply: ranges overlap', 'Python 3.15.0: the start-up ranges before and after overlap (mean ± stddev): 30.1 ± 2.0 ms vs 29.0 ± 1.5 ms',
     None, 'Python 3.15.0', 'the start-up ranges before and after overlap', 'the start-up ranges before and after overlap'),
    ('apply: no 3.15', 'no Python 3.15 here to compile `lazy import`: the edited files are checked by parsing only',
     None, '', 'no Python 3.15 here to compile `lazy import`', 'no Python N here to compile `lazy import`'),
    ('apply: does not compile', 'app/main.py: the edited file does not compile (line 3): left as it is',
     None, 'app/main.py', 'the edited file does not compile', 'the edited file does not compile'),
    ('apply: left alone', 'app/main.py: a star import: left as it is',
     None, 'app/main.py', 'a star import', 'a star import'),
    ('doctor: not checked', 'pth-import, site not checked: no -X importtime (3.6)',
     None, '', 'pth-import, site not checked', 'pth-import, site not checked'),
    ('trace: no python process', 'the log shows no Python process importing modules: no per-module attribution',
     None, '', 'the log shows no Python process importing modules', 'the log shows no Python process importing modules'),
    ('trace: truncated log', 'the log ends with a truncated line (ignored)',
     None, '', 'the log ends with a truncated line', 'the log ends with a truncated line'),
    ('trace: command no python', 'the command started no Python process that imported anything: no per-module attribution',
     None, '', 'the command started no Python process that imported anything', 'the command started no Python process that imported anything'),
    ('trace: variant failed', 'isolated: failed (exited with code 1): ModuleNotFoundError',
     K.FAILED, 'isolated', 'isolated failed', 'isolated failed'),
    ('trace: untraced failed', 'the untraced runs failed (the target exited with code 1): no untraced wall time beside the traced one',
     None, '', 'the untraced runs failed', 'the untraced runs failed'),
    ('exits: one run', 'the target exited with code 3 (measured anyway: --ignore-failure)',
     None, '', 'the target exited with code 3', 'the target exited with code N'),
    ('exits: runs', '3 of 10 runs exited with code 1, 2 (measured anyway: --ignore-failure)',
     None, '', '3 of 10 runs exited with code 1, 2', 'N of N runs exited with code N, N'),
    ('exits: variant', 'default: 3 of 10 runs exited with code 1 (measured anyway: --ignore-failure)',
     None, 'default', '3 of 10 runs exited with code 1', 'N of N runs exited with code N'),
    ('pythons: skipped', '--python all: skipped /usr/bin/python3.9: /usr/bin/python3.9 does not start (exit code 1)',
     None, '--python all', 'skipped /usr/bin/python3.9', 'skipped /usr/bin/pythonN'),
    ('plan: left out', 'variant isolated left out for /usr/bin/python2.7 (2.7.18): -I needs Python 3.4 or later',
     None, '', 'variant isolated left out for /usr/bin/python2.7', 'variant isolated left out for /usr/bin/pythonN'),
    ('phases: not seen', '3 modules were not seen by the instrumented run (phases null): a, b, c',
     None, '', '3 modules were not seen by the instrumented run', 'N modules were not seen by the instrumented run'),
    ('imports: no strace', "strace not found (apt install strace); reading the command's stderr instead (no argv, parent or wall time per process, and children whose stderr is captured or discarded are missed)",
     None, '', 'strace not found', 'strace not found'),
    ('parse: truncated', 'run 2: importtime.log: line 12 is truncated (no newline at the end); ignored it',
     None, 'run 2', 'importtime.log', 'importtime.log'),
    ('parse: no newline', 'importtime.log: line 12 has no newline at the end (truncated log?)',
     None, 'importtime.log', 'line 12 has no newline at the end', 'line N has no newline at the end'),
    ('parse: rows before header', 'importtime.log: import rows before the first header (log cut at the start?)',
     None, 'importtime.log', 'import rows before the first header', 'import rows before the first header'),
    ('aggregate: overlap', "run 2: process 1: processes overlap: line 4: json's cumulative is less than its self + children (+2 more)",
     None, 'run 2', 'process 1', 'process N'),
    ('aggregate: cut', 'process 0: the log is cut: json never finished',
     None, 'process 0', 'the log is cut', 'the log is cut'),
    ('aggregate: processes differ', 'runs started different numbers of Python processes: {1: 2, 2: 1}',
     None, '', 'runs started different numbers of Python processes', 'runs started different numbers of Python processes'),
    ('process: left running', 'left running (could not be stopped): processes 12, 13 started by the target',
     None, '', 'left running', 'left running'),
    ('process: orphans', 'the target ended but left processes running (a daemon, a background job): importprof stopped them instead of waiting for them',
     None, '', 'the target ended but left processes running', 'the target ended but left processes running'),
]

# the kind each place gives its warning
PLACES = {
    "check: no baseline": K.NO_BASELINE_FILE, "check: could not run": K.BASELINE_NOT_RUN,
    "report: part skipped": K.PART_SKIPPED, "report: mixed documents": K.MIXED_DOCUMENTS,
    "history: no git": K.NOT_IN_GIT, "history: dirty": K.DIRTY_TREE, "history: not measured": K.NOT_MEASURED,
    "history: bisect not measured": K.NOT_MEASURED, "compare: syscalls skipped": K.SYSCALLS_SKIPPED,
    "compare: variant failed": K.VARIANT_FAILED, "compare: mostly disk": K.MOSTLY_FALLBACK,
    "compare: origins not recorded": K.ORIGINS_NOT_RECORDED, "compare: harness exit": K.HARNESS_EXIT,
    "build: variant unavailable": K.VARIANTS_UNAVAILABLE, "startup: harness no summary": K.NO_PROCESS_SUMMARY,
    "lazy: exit ignored": K.EXITS_IGNORED, "lazy: unstable": K.OUTPUT_UNSTABLE, "lazy: eager runs differ": K.EAGER_RUNS_DIFFER,
    "lazy: differs all eager": K.DIFFERS_ALL_EAGER, "lazy: bisection stopped": K.BISECTION_STOPPED,
    "lazy: verification differs": K.VERIFICATION_DIFFERS, "lazy: no exit handlers": K.NO_EXIT_HANDLERS,
    "lazy plain: bare differs": K.BARE_DIFFERS, "lazy plain: bare all eager": K.BARE_DIFFERS_ALL_EAGER,
    "lazy plain: filter differs": K.FILTER_DIFFERS, "apply: bisection stopped": K.BISECTION_STOPPED,
    "apply: differs unedited": K.DIFFERS_UNEDITED, "apply: still differs": K.STILL_DIFFERS,
    "apply: ranges overlap": K.RANGES_OVERLAP, "apply: no 3.15": K.NO_COMPILER_315,
    "apply: does not compile": K.EDIT_DOES_NOT_COMPILE, "apply: left alone": K.LEFT_ALONE,
    "doctor: not checked": K.NOT_CHECKED, "trace: no python process": K.NO_PYTHON_IN_LOG,
    "trace: truncated log": K.LOG_LAST_LINE_CUT, "trace: command no python": K.COMMAND_NO_PYTHON,
    "trace: variant failed": K.FAILED, "trace: untraced failed": K.UNTRACED_FAILED,
    "exits: one run": K.EXITS_IGNORED, "exits: runs": K.EXITS_IGNORED, "exits: variant": K.EXITS_IGNORED,
    "pythons: skipped": K.PYTHON_SKIPPED, "plan: left out": K.VARIANT_LEFT_OUT, "phases: not seen": K.PHASES_UNSEEN,
    "imports: no strace": K.STDERR_INSTEAD,
    # not typed yet: the imports log's notes (parse/importtime.py, analysis/imports_aggregate.py,
    # prefixed `run N: ` per run), said by workflows/imports.py, commands/_imports_run.py and
    # startup's harness view (compose/harness.py)
    "parse: truncated": None, "parse: no newline": None, "parse: rows before header": None,
    "aggregate: overlap": None, "aggregate: cut": None, "aggregate: processes differ": None,
    "process: left running": K.LEFT_RUNNING, "process: orphans": K.ORPHANS_STOPPED,
}

# the line the summary printed for every case held in one invocation (the two identical texts:
# said once)
SUMMARY = ('importprof: warning: 52 warnings: 3 × strace not found; 2 × could not be measured; 2 × bisection '
           "stopped after N runs; no 'baseline' file declared, nothing to update; could not run, its baseline is"
           ' left as it was; lazy skipped; these documents measure different targets; /tmp/work/project is not '
           "in a git repository; the working tree differs from 0123456789; the program's output differs from "
           "traditional's; 30 of 40 modules came from the filesystem through the fallback path finder, not from "
           'its pack; where its modules came from in the harness not recorded; the harness exited 1 in its '
           'recording run; variants oxidized, filesystem, in-memory unavailable on 3.12; the target exited with '
           "code 3; the program's output changes from run to run; two eager runs executed different modules; the"
           ' lazy run differs even with every module eager; the verification lazy run differs from the eager '
           'run; the lazy run ended without running exit handlers; the program run bare differs from its run '
           "under importprof's launcher; the bare interpreter with -X lazy_imports=all differs even with every "
           'module eager; with a, b kept eager by a plain filter, /usr/bin/python3.15 -X lazy_imports=all '
           'differs; the program differs even with no statement made lazy; -m app on 3.15.0 still differs after '
           'the edit; the start-up ranges before and after overlap; no Python 3.15 here to compile `lazy '
           'import`; the edited file does not compile; a star import; pth-import, site not checked; the log '
           'shows no Python process importing modules; the log ends with a truncated line; the command started '
           'no Python process that imported anything; isolated failed; the untraced runs failed; 3 of 10 runs '
           'exited with code 1, 2; 3 of 10 runs exited with code 1; skipped /usr/bin/python3.9; variant isolated'
           ' left out for /usr/bin/python2.7; 3 modules were not seen by the instrumented run; importtime.log; '
           'line 12 has no newline at the end; import rows before the first header; process 1; the log is cut; '
           'runs started different numbers of Python processes; left running; the target ended but left '
           'processes running (--verbose shows each)\n')


def _read(text: str) -> tuple[str, str, str]:
    """(subject, figures, label) of `text` said as plain words (model/warnings.py _read_untyped)."""
    w = RunWarning.of(str.__str__(text))
    return w.subject, w.figures, w.label


def test_the_captured_fields_are_what_the_words_read_as():
    """Plain words (the imports log's notes, a library caller's) are still read as before: each
    case's text gives its captured fields (a kind the text named before is still read; words that
    are now a kind's value are read as that kind too)."""
    for _where, text, kind, subject, figures, label in CASES:
        assert _read(text) == (subject, figures, label), text
        if kind is not None:
            assert RunWarning.of(text).kind is kind, text


def test_each_kind_is_its_own_member():
    """Two kinds spelled alike would be one member, the second an alias of the first (`is` holds
    between them, so no other test tells them apart)."""
    assert len(K) == len(K.__members__), [n for n, k in K.__members__.items() if k.name != n]


def _interpreter(version: str):
    from profiler.model.interpreter import Interpreter

    return Interpreter(path=f"/usr/bin/python{version[:4]}", requested="python3", version=version,
                       implementation="cpython", prefix="/usr", base_prefix="/usr", stdlib="", purelib="")


def _said_by_the_places_that_are_functions() -> dict[str, object]:
    """The warning each place that is a function says, said by it (a place that says its own
    inline in a workflow is checked by tests/conftest.py only when a test says it in its own
    process: most are said in a CLI test's child process, where their figures go unchecked)."""
    from profiler.compose.build import select_variants
    from profiler.compose.report import _part_skipped
    from profiler.model.report import PageReport
    from profiler.workflows.targets import check_exit, exits_note

    mixed = {"what": "target", "values": [{"value": "-c pass", "sources": ["a.json"]},
                                          {"value": "-m json", "sources": ["b.json"]}]}
    _chosen, unavailable = select_variants(_interpreter("3.12.1"), None)
    return {
        "report: part skipped": _part_skipped("lazy", "lazy imports need Python 3.8 or later (this is 3.7.17)"),
        "report: mixed documents": PageReport(derived={"mixed": [mixed]}).warnings()[0],
        "build: variant unavailable": unavailable[0],
        "lazy: exit ignored": check_exit(3, "", "-m app", ignore_failure=True),
        "exits: one run": exits_note([3]),
        "exits: runs": exits_note([1, 2, 1] + [0] * 7),
        "exits: variant": exits_note([1, 1, 1] + [0] * 7, "default"),
    }


KINDS = {"report: part skipped": K.PART_SKIPPED, "report: mixed documents": K.MIXED_DOCUMENTS,
         "build: variant unavailable": K.VARIANTS_UNAVAILABLE, "lazy: exit ignored": K.EXITS_IGNORED,
         "exits: one run": K.EXITS_IGNORED, "exits: runs": K.EXITS_IGNORED, "exits: variant": K.EXITS_IGNORED}


def test_the_places_that_are_functions_say_their_warning_typed_with_the_fields_its_words_gave():
    cases = {c[0]: c for c in CASES}
    for where, said in _said_by_the_places_that_are_functions().items():
        w = RunWarning.of(said)
        assert w.kind is KINDS[where], where
        assert (w.subject, w.figures, w.label) == _read(w.text), where
        if where != "build: variant unavailable":  # (which variants depends on the interpreter)
            assert w.text == cases[where][1]
            assert (w.figures, w.label) == cases[where][4:], where


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_kind_counts_the_case_under_the_label_its_words_gave(case):
    """Each place's kind, given its figures as the place gives them, is counted under the
    label the summary showed for its words."""
    where, text, kind, subject, figures, label = case
    if PLACES[where] is None:
        pytest.skip("still said as plain words")
    w = RunWarning.said(text, PLACES[where], figures, subject)
    assert (w.figures, w.label) == (figures, label)
    if kind is not None:
        assert w.kind is kind


def test_the_summary_line_of_every_case_is_unchanged(capsys, monkeypatch):
    monkeypatch.delenv("IMPORTPROF_VERBOSE", raising=False)
    session = Session(hold=True)
    for where, text, _kind, subject, figures, _label in CASES:
        session.warn(RunWarning.of(text) if PLACES[where] is None else RunWarning.said(text, PLACES[where], figures, subject))
    flush_warnings(session)
    assert capsys.readouterr().err == SUMMARY


def test_a_plain_string_from_inside_importprof_is_refused_and_a_library_callers_is_not(monkeypatch):
    from profiler.model.words import Said

    monkeypatch.setenv("IMPORTPROF_TYPED_WARNINGS", "1")
    session = Session(say=lambda text: None)
    ns = {"__name__": "profiler.workflows.example", "session": session}
    exec("def say(text):\n    session.warn(text)\n", ns)
    with pytest.raises(TypeError, match="plain-string warning said by profiler.workflows.example"):
        ns["say"]("the machine is busy")
    ns["say"](Said("the machine is busy", K.BUSY, K.BUSY.value))
    session.warn("a library caller's own words")  # this test is the library caller: said


def test_no_warning_inside_importprof_is_said_as_plain_words():
    """No call that says a warning (warn, alert, a state's warning, a warn= callback) in
    profiler/ is given a string literal, an f-string or words joined there; the modules still
    saying plain words are listed in tests/conftest.py STILL_PLAIN."""
    from conftest import REPO, STILL_PLAIN

    said_by = {"warn", "alert", "warning", "note"}
    found = []
    for path in sorted((REPO / "profiler").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        if module in STILL_PLAIN:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            arg = node.args[0]
            plain = (isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
                     or isinstance(arg, ast.BinOp))
            if name in said_by and plain and not _a_note(path, node):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, found


def _a_note(path, node) -> bool:
    """check.py's `note` is told which python a check runs (a note: session.info), not a warning."""
    return path.name == "check.py" and getattr(node.func, "id", "") == "note"
