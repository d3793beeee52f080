"""profiler/api.py, the library facade: each function's report is, in substance, what its
command writes with `--format json` for the same input, and a bad value is the command line's
error (same class, same message)."""

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

import pytest

from profiler import api
from profiler.errors import BadInput, ImportprofError, UsageError
from profiler.model.target import Target
from profiler.model.words import TargetKind
from profiler.target_grammar import target_from_words

PY = "/root/.pyenv/versions/3.11.7/bin/python"
needs_py = pytest.mark.skipif(not os.path.exists(PY), reason=f"{PY} is not installed")

# What differs between two runs of the same input, and only that (named per command: a
# timing, a figure derived from timings, a machine fact, a warning whose text quotes them).
MACHINE = {"cpu_percent", "load_average", "memory_available_bytes"}
TIMES = {"times", "mean", "median", "stddev", "min", "max", "user", "system", "user_times", "system_times",
         "memory_usage_byte", "ratio", "ratio_stddev"}
IMPORT_US = {"self_us", "cumulative_us", "self_us_runs", "cumulative_us_runs", "self_us_spread", "cumulative_us_spread",
             "total_us", "total_us_runs"}
CASES = {
    "startup": (["startup", "--python", PY, "--runs", "2", "--warmup", "0", "-c", "import json"],
                lambda: api.startup(["-c", "import json"], python=PY, runs=2, warmup=0),
                MACHINE | TIMES | {"warnings", "notes"}),  # a note quotes a cost it shows when the cost passes a threshold
    "imports": (["imports", "--python", PY, "--runs", "2", "--warmup", "0", "-c", "import json"],
                lambda: api.imports("-c 'import json'", python=PY, runs=2, warmup=0),
                MACHINE | IMPORT_US | {"warnings"}),
    "why": (["why", "--python", PY, "json.decoder", "-c", "import json"],
            lambda: api.why("json.decoder", ["-c", "import json"], python=PY),
            MACHINE | {"self_us", "cumulative_us"}),
    "site": (["site", "--python", PY, "--runs", "1"],
             lambda: api.site(python=PY, runs=1),
             MACHINE | {"seconds", "cumulative_us", "modules_us"}),
    # strace's: the pid and the process's name (`python[PID]`), durations, and the counts
    # attributed to each module (syscalls, files opened, failed lookups, bytes read: which module
    # a call lands in shifts by one or two between two runs, e.g. an allocator's brk/mmap falls
    # where the heap happens to grow; the modules themselves are compared)
    "trace": (["trace", "--python", PY, "-c", "import json"],
              lambda: api.trace(["-c", "import json"], python=PY),
              MACHINE | {"pid", "/processes/#/name", "seconds", "wall_s", "python_wall_s", "python_busy_s",
                         "untraced_wall_s", "syscalls", "cumulative_syscalls", "opened", "failed", "bytes_read",
                         "warnings"}),
    "lazy": (["lazy", "--python", PY, "--runs", "2", "--warmup", "0", "--profile-runs", "1", "-c", "import json"],
             lambda: api.lazy(["-c", "import json"], python=PY, runs=2, warmup=0, profile_runs=1),
             MACHINE | TIMES | {"self_us", "cumulative_us", "avoided_us", "total_self_us", "saving_us", "warnings",
                                # the prediction: figures from the timed runs, and its sentence quoting them
                                "prediction"}),
    # the findings are chosen by their measured cost (one is shown when it passes a threshold);
    # a check's note quotes the measured saving and its spread when the one is within the other
    "doctor": (["doctor", "--python", PY, "--runs", "1", "--timing-runs", "2", "--no-trace", "-c", "import json"],
               lambda: api.doctor(["-c", "import json"], python=PY, runs=1, timing_runs=2, trace=False),
               MACHINE | {"findings", "startup_s", "measured_us", "measured_spread_us", "/checks/#/note", "warnings"}),
    "compare": (["compare", "--python", PY, "--runs", "2", "--warmup", "0", "--variant", "traditional,no-site",
                 "--syscalls", "off", "-c", "import json"],
                lambda: api.compare(["-c", "import json"], python=PY, runs=2, warmup=0,
                                    variants=["traditional,no-site"], syscalls="off"),
                MACHINE | TIMES | {"cpu_s", "cpu_stddev_s", "delta_cpu_s", "pct_of_traditional", "peak_rss_bytes",
                                   "speedup_vs_no_site", "speedup_vs_no_site_cpu", "wall_s", "wall_stddev_s", "warnings"}),
}


def _leaves(x, path, ignore):
    """(path, JSON value) of every leaf outside the ignored keys (a key name, or a path with
    `#` for a list's items); a list's items are counted, not ordered (tables sort by time)."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in ignore and f"{path}/{k}" not in ignore:
                yield from _leaves(v, f"{path}/{k}", ignore)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v, f"{path}/#", ignore)
    else:
        yield path, json.dumps(x)


def _substance(document, ignore) -> Counter:
    return Counter(_leaves(json.loads(json.dumps(document)), "", ignore))


def _command(argv, cwd):
    """`importprof CMD --format json ...` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "profiler", argv[0], "--format", "json", *argv[1:]],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def _library_call(call, tmp_path, monkeypatch) -> dict:
    """The api call's document; the call leaves no temporary behind (a library call has no
    invocation folder to remove them: what it makes, it removes)."""
    scratch = tmp_path.parent / f"{tmp_path.name}-tempdir"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    document = call().to_dict()
    assert not list(scratch.iterdir()), f"the library call left temporaries: {sorted(p.name for p in scratch.iterdir())}"
    return document


@needs_py
@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_the_report_is_the_commands(name, tmp_path, monkeypatch):
    argv, call, ignore = CASES[name]
    monkeypatch.chdir(tmp_path)  # both run their target in the same folder
    proc = _command(argv, tmp_path)
    assert proc.returncode == 0, proc.stderr
    from_command = json.loads(proc.stdout)
    from_api = _library_call(call, tmp_path, monkeypatch)
    assert set(from_api) == set(from_command)
    a, b = _substance(from_api, ignore), _substance(from_command, ignore)
    assert a == b, (sorted((a - b).items())[:20], sorted((b - a).items())[:20])
    assert len(a) > 3  # something of substance was compared


PY315 = "/root/.pyenv/versions/3.15.2/bin/python"
needs_py315 = pytest.mark.skipif(not os.path.exists(PY315), reason=f"{PY315} is not installed")
# the forms that build more than one options object (compose/options_edge.py), run in a folder
# holding a small project (proj/app.py), a program (prog.py) and a harness starting it twice
APP = "import json\nimport email.parser\n\n\ndef main():\n    return json.dumps({'a': 1})\n\n\nprint(main())\n"
HARNESS = "import subprocess, sys\nfor i in range(2):\n    subprocess.run([sys.argv[1], str(i)], check=True)\n"
# a diff's figures are timings, and so is which modules it lists as changed (a row whose times
# moved: a module imported on both sides may be listed or not): the sides, the modules added
# and removed, their counts and the notes are compared
DIFF_FIGURES = IMPORT_US | {"/changed", "delta_self_us", "delta_cumulative_us", "delta_us", "delta_pct", "old_us", "new_us", "old_self_us",
                            "new_self_us", "old_cumulative_us", "new_cumulative_us", "significant"}
FORMS = {
    "imports two --python": (["imports", "--python", PY, "--python", PY315, "--runs", "2", "--warmup", "0", "-c", "import json"],
                             lambda: api.imports_diff(["-c", "import json"], python=[PY, PY315], runs=2, warmup=0),
                             MACHINE | DIFF_FIGURES),
    "imports --vs": (["imports", "--python", PY, "--vs", "-c 'import csv'", "--runs", "2", "--warmup", "0", "-c", "import json"],
                     lambda: api.imports_diff("-c 'import json'", python=PY, versus="-c 'import csv'", runs=2, warmup=0),
                     MACHINE | DIFF_FIGURES),
    # the statements chosen and the edit's diff are compared; their measured savings are timings
    "lazy --apply --diff": (["lazy", "--python", PY, "--apply", "proj", "--diff", "--runs", "2", "--warmup", "0",
                             "--profile-runs", "1", "proj/app.py"],
                            lambda: api.lazy_apply("proj/app.py", python=PY, apply="proj", diff=True, runs=2, warmup=0,
                                                   profile_runs=1),
                            MACHINE | {"predicted_us", "saving_us", "warnings"}),
    "lazy --filter-out": (["lazy", "--python", PY315, "--filter-out", "filter.py", "--runs", "2", "--warmup", "0",
                           "--profile-runs", "1", "proj/app.py"],
                          lambda: api.lazy_apply("proj/app.py", python=PY315, filter_out="filter.py", runs=2, warmup=0,
                                                 profile_runs=1),
                          MACHINE | {"predicted_us", "saving_us", "warnings"}),
    # the variants' commands name the build's temporary folder (the command's is inside its invocation's)
    "compare --harness": (["compare", "--python", PY, "--variant", "traditional,no-site", "--runs", "2",
                           "--harness", f"{PY} harness.py {{program}}", "prog.py"],
                          lambda: api.compare("prog.py", python=PY, variants=["traditional,no-site"], runs=2,
                                              harness=f"{PY} harness.py {{program}}"),
                          CASES["compare"][2] | {"command", "record_command"}),
}


@needs_py
@needs_py315
@pytest.mark.slow
@pytest.mark.parametrize("name", list(FORMS))
def test_the_two_options_forms_report_is_the_commands(name, tmp_path, monkeypatch):
    argv, call, ignore = FORMS[name]
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "app.py").write_text(APP)
    (tmp_path / "prog.py").write_text("import sys\nprint(sys.argv[1:])\n")
    (tmp_path / "harness.py").write_text(HARNESS)
    monkeypatch.chdir(tmp_path)
    proc = _command(argv, tmp_path)
    assert proc.returncode == 0, proc.stderr
    from_command = json.loads(proc.stdout)
    written = {p: p.read_bytes() for p in tmp_path.rglob("*.py")}  # what the command wrote (--filter-out's module)
    from_api = _library_call(call, tmp_path, monkeypatch)
    assert from_api["schema"] == from_command["schema"]
    assert set(from_api) == set(from_command)
    a, b = _substance(from_api, ignore), _substance(from_command, ignore)
    assert a == b, (sorted((a - b).items())[:20], sorted((b - a).items())[:20])
    assert len(a) > 10  # something of substance was compared
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.py")} == written  # the library wrote what the command wrote


def _command_error(argv, cwd) -> str:
    proc = subprocess.run([sys.executable, "-m", "profiler", *argv], capture_output=True, text=True, cwd=cwd, timeout=300)
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("importprof: error: ")]
    assert len(errors) == 1, proc.stderr
    return errors[0].removeprefix("importprof: error: ")


BAD = [
    # an unknown variant word
    (["startup", "--python", PY, "--variant", "bogus", "-c", "pass"],
     lambda: api.startup(["-c", "pass"], python=PY, variants=["bogus"]), UsageError),
    (["trace", "--python", PY, "--variant", "bogus", "-c", "pass"],
     lambda: api.trace("-c pass", python=PY, variants=["bogus"]), UsageError),
    (["startup", "--python", PY, "--engine", "bogus", "-c", "pass"],
     lambda: api.startup("-c pass", python=PY, engine="bogus"), UsageError),
    (["imports", "--python", PY, "--group", "bogus", "-c", "pass"],
     lambda: api.imports("-c pass", python=PY, group="bogus"), UsageError),
    # a missing interpreter
    (["startup", "--python", "/nonexistent/python", "-c", "pass"],
     lambda: api.startup("-c pass", python="/nonexistent/python"), BadInput),
    (["imports", "--python", "/nonexistent/python", "-c", "pass"],
     lambda: api.imports("-c pass", python="/nonexistent/python"), BadInput),
    (["doctor", "--python", "/nonexistent/python"],
     lambda: api.doctor(python="/nonexistent/python"), BadInput),
    (["site", "--python", "/nonexistent/python"],
     lambda: api.site(python="/nonexistent/python"), BadInput),
    (["lazy", "--python", "/nonexistent/python", "-c", "pass"],
     lambda: api.lazy(["-c", "pass"], python="/nonexistent/python"), BadInput),
    (["why", "--python", "/nonexistent/python", "json", "-c", "pass"],
     lambda: api.why("json", "-c pass", python="/nonexistent/python"), BadInput),
    # an empty target: the empty SCRIPT, and `--` with no COMMAND
    (["startup", "--python", PY, ""], lambda: api.startup("", python=PY), ImportprofError),
    (["imports", "--python", PY, ""], lambda: api.imports([""], python=PY), ImportprofError),
    (["startup", "--python", PY, "--"], lambda: api.startup(["--"], python=PY), UsageError),
    (["lazy", "--python", PY, "--", "true"], lambda: api.lazy(["--", "true"], python=PY), UsageError),
    (["compare", "--python", PY, "--", "true"], lambda: api.compare(["--", "true"], python=PY), UsageError),
    (["startup", "--python", PY, "-c"], lambda: api.startup(["-c"], python=PY), UsageError),
    (["startup", "--python", PY, "no_such_script.py"], lambda: api.startup("no_such_script.py", python=PY), ImportprofError),
    # the forms of two options objects: three captures, --diff without --apply, --record-with alone
    (["imports", "--python", PY, "--python", PY, "--python", PY, "-c", "pass"],
     lambda: api.imports_diff("-c pass", python=[PY, PY, PY]), UsageError),
    (["imports", "--python", PY, "--vs", "-c 'import os'", "--vs", "-c 'import csv'", "-c", "pass"],
     lambda: api.imports_diff("-c pass", python=[PY, PY], versus="-c 'import os'"), UsageError),
    (["lazy", "--python", PY, "--diff", "-c", "pass"], lambda: api.lazy_apply("-c pass", python=PY, diff=True), UsageError),
    (["lazy", "--python", PY, "--apply", "no_such_folder", "-c", "pass"],
     lambda: api.lazy_apply("-c pass", python=PY, apply="no_such_folder"), BadInput),
    (["compare", "--python", PY, "--record-with", "x {program}", "-c", "pass"],
     lambda: api.compare("-c pass", python=PY, record_with="x {program}"), UsageError),
    (["compare", "--python", PY, "--harness", "echo hello", "-c", "pass"],
     lambda: api.compare("-c pass", python=PY, harness="echo hello"), UsageError),
    # a --vs target is checked as the main one is
    (["startup", "--python", PY, "--vs", "no_such_script.py", "-c", "pass"],
     lambda: api.startup("-c pass", python=PY, versus=["no_such_script.py"]), ImportprofError),
    (["imports", "--python", PY, "--vs", "no_such_script.py", "-c", "pass"],
     lambda: api.imports_diff("-c pass", python=PY, versus="no_such_script.py"), ImportprofError),
]


@needs_py
@pytest.mark.slow
@pytest.mark.parametrize("argv, call, kind", BAD, ids=[" ".join(a).replace(PY, "PY") for a, _, _ in BAD])
def test_a_bad_value_is_the_command_lines_error(argv, call, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    said = _command_error(argv, tmp_path)
    with pytest.raises(kind) as raised:
        call()
    assert raised.value.message == said


@pytest.mark.parametrize("option, path", [("--apply", ""), ("--filter-out", ""), ("--filter-out", " ")])
def test_an_empty_apply_path_is_a_usage_error_at_the_shared_edge(option, path):
    # the command line's parser refuses it first ("needs a path"); a library caller's
    # filter_out="" was taken for no --filter-out and ended in a TypeError
    from profiler.compose.lazy import LazyOptions
    from profiler.compose.options_edge import apply_options

    given = {"apply": path if option == "--apply" else None, "filter_out": path if option == "--filter-out" else None}
    with pytest.raises(UsageError, match=f"^{option} needs a path, not an empty string$"):
        apply_options(LazyOptions(target=Target(TargetKind.CODE, "pass")), style="lazy-modules", diff=False,
                      verify_with=None, min_ms=1.0, oldest_python=None, runs=None, profile_runs=1, max_bisect_runs=1,
                      **given)


@needs_py
@pytest.mark.slow
def test_an_empty_filter_out_through_the_facade_is_that_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="^--filter-out needs a path"):
        api.lazy_apply("-c pass", python=PY, filter_out="")


@pytest.mark.parametrize("words, target", [
    ("-m json.tool --help", Target(TargetKind.MODULE, "json.tool", ("--help",))),
    (["-c", "import json"], Target(TargetKind.CODE, "import json")),
    ("-c 'import json' a b", Target(TargetKind.CODE, "import json", ("a", "b"))),
    (["-cpass"], Target(TargetKind.CODE, "pass")),
    (["--module=json.tool"], Target(TargetKind.MODULE, "json.tool")),
    ("app.py arg", Target(TargetKind.SCRIPT, "app.py", ("arg",))),
    ("app.py -- --runs 3", Target(TargetKind.SCRIPT, "app.py", ("--runs", "3"))),
    (["--", "make", "test"], Target(TargetKind.COMMAND, "make", ("test",))),
    ("", Target(TargetKind.SCRIPT, "")),
])
def test_the_target_is_read_by_the_command_lines_grammar(words, target):
    got = target_from_words(words, "importprof startup")
    assert got == target
    assert got.kind is target.kind  # the member, not its word


def test_a_target_that_is_an_option_is_refused():
    with pytest.raises(UsageError, match="starts with --runs"):
        target_from_words(["--runs", "3"], "importprof startup")
    with pytest.raises(UsageError, match="needs a Python target"):
        target_from_words(["--", "make"], "importprof lazy", command_targets=False)


def test_none_is_no_target():
    assert target_from_words(None, "importprof startup") is None


@pytest.mark.slow
def test_importing_the_facade_loads_nothing_heavy():
    code = ("import sys; before = set(sys.modules); import profiler.api\n"
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    loaded = set(out.split())
    assert {m for m in loaded if m.split(".")[0] == "profiler"} == {"profiler", "profiler.api"}
    assert not {m.split(".")[0] for m in loaded} & {"typer", "click", "rich"}


@needs_py
@pytest.mark.slow
def test_a_harness_run_through_the_facade_is_limited_to_an_hour_unless_the_session_says(monkeypatch, tmp_path):
    # as `compare --harness` without and with --timeout (test_compare_harness.py); the caller's
    # session keeps its own limit after the call
    from profiler.compose import compare as compose_compare
    from profiler.compose.compare_harness import HARNESS_TIMEOUT_S
    from profiler.session import DEFAULT_TIMEOUT_S, Session

    seen = []

    def stop(opts, *, session):
        seen.append((opts.harness, session.timeout_s))
        raise UsageError("stopped here")

    monkeypatch.setattr(compose_compare, "compare", stop)
    (tmp_path / "prog.py").write_text("pass\n")
    sessions = [Session(), Session(timeout_s=5)]
    for session in sessions:
        with pytest.raises(UsageError, match="stopped here"):
            api.compare(str(tmp_path / "prog.py"), python=PY, harness="run {program}", session=session)
    with pytest.raises(UsageError, match="stopped here"):
        api.compare(str(tmp_path / "prog.py"), python=PY, session=sessions[0])  # no harness: one program run's limit
    assert seen == [("run {program}", HARNESS_TIMEOUT_S), ("run {program}", 5), (None, DEFAULT_TIMEOUT_S)]
    assert [s.timeout_s for s in sessions] == [DEFAULT_TIMEOUT_S, 5]
