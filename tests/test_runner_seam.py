"""The runner seam (capture/runner.py): each workflow (imports, trace, site, lazy, and a build:
pack) run once for real through a RecordingRunner on a small program, then again from that
recording through a ReplayRunner, no process started (the replay refuses them): the report is
the same, byte for byte in its JSON but for the machine's load, which is read from the machine,
not from a run. doctor too, its timed runs with them (measure()'s executor, recorded in the same
folder), byte for byte, its machine facts included (the timing's). A recording edited to a
failing run (exit 1 with a traceback) gives the error a real failing program gives; one edited
to other times, doctor's report of those times. The replay-only checks at the end start no
process (make test-fast runs them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from profiler.capture.runner import NotRecorded, RecordingRunner, ReplayRunner, normalised_argv, read_recording
from profiler.errors import ImportprofError, TargetFailed
from profiler.model.target import Target
from profiler.model.words import TargetKind
from profiler.session import Session

PY311 = "/root/.pyenv/versions/3.11.7/bin/python"
PY315 = "/root/.pyenv/versions/3.15.2/bin/python"
PROGRAM = "import json\nimport email.parser\nprint('ok')\n"
FAILING = "import json\nimport nonexistent_mod_xyz\n"
# read from the machine while the workflow runs (its load, the CPU share), not from a run
TIMING_DEPENDENT = ("machine",)


def _context(runner) -> Session:
    ctx = Session()
    ctx.runner = runner
    return ctx


def _no_process(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a replay started a process")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)
    monkeypatch.setattr(os, "fork", refuse)


def _document(report) -> str:
    data = {k: v for k, v in report.to_dict().items() if k not in TIMING_DEPENDENT}
    return json.dumps(data, sort_keys=True, indent=1)


def _imports(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.workflows.imports import ImportsOptions, imports

        interp = interpreter_for(python, "imports", session=ctx)
        return imports(ImportsOptions(target=Target(TargetKind.SCRIPT, script), python=interp, runs=2, warmup=1), session=ctx)
    return go


def _trace(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.workflows.trace import TraceOptions, trace

        interp = interpreter_for(python, "trace", session=ctx)
        return trace(TraceOptions(target=Target(TargetKind.SCRIPT, script), python=interp, untraced_runs=0), session=ctx)
    return go


def _site(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.workflows.site import SiteOptions, site

        interp = interpreter_for(python, "site", session=ctx)
        return site(SiteOptions(python=interp, runs=2), session=ctx)
    return go


def _lazy(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.compose.lazy import LazyOptions, lazy

        interp = interpreter_for(python, "lazy", session=ctx)
        # measure=False: correctness and what is avoided (the timing is measure()'s executor seam)
        return lazy(LazyOptions(target=Target(TargetKind.SCRIPT, script), python=interp, measure=False, profile_runs=2), session=ctx)
    return go


def _doctor(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.compose.doctor import DoctorOptions, doctor

        interp = interpreter_for(python, "doctor", session=ctx)
        return doctor(DoctorOptions(target=Target(TargetKind.SCRIPT, script), python=interp, runs=1, timing_runs=2), session=ctx)
    return go


def _pack(python: str, script: str):
    def go(ctx: Session):
        from profiler.capture.interpreter import interpreter_for
        from profiler.workflows.pack import PackOptions, pack

        interp = interpreter_for(python, "pack", session=ctx)
        out = os.path.join(os.path.dirname(script), "packed")  # the report, not the packed files (importprof never reads them back)
        return pack(PackOptions(out_dir=out, target=Target(TargetKind.SCRIPT, script), python=interp), session=ctx)
    return go


WORKFLOWS = {"imports": (_imports, PY311), "trace": (_trace, PY311), "site": (_site, PY311), "lazy": (_lazy, PY315),
             "pack": (_pack, PY311)}
@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def _record(workflow: str, program: Path, folder: Path):
    make, python = WORKFLOWS[workflow]
    return make(python, str(program))(_context(RecordingRunner(str(folder))))


def _replay(workflow: str, program: Path, folder: Path, monkeypatch, runs=None):
    make, python = WORKFLOWS[workflow]
    runner = ReplayRunner(str(folder), runs=runs)
    with monkeypatch.context() as m:
        _no_process(m)
        return make(python, str(program))(_context(runner)), runner


@pytest.mark.slow
@pytest.mark.parametrize("workflow", sorted(WORKFLOWS))
def test_a_replay_of_a_recorded_run_gives_the_same_report(workflow, program, tmp_path, monkeypatch):
    folder = tmp_path / "recording"
    real = _record(workflow, program, folder)
    recorded = read_recording(str(folder))
    assert recorded and all("normalised_argv" in r and "files" in r for r in recorded)
    replayed, runner = _replay(workflow, program, folder, monkeypatch)
    assert _document(replayed) == _document(real)
    assert len(runner.used) == len(recorded)  # every recorded run answered a run of the replay


def _failing_recording(folder: Path, program: Path) -> list[dict]:
    """The recording with the program's runs made to fail as FAILING fails: exit 1, the
    traceback after what it wrote before (its -X importtime rows)."""
    traceback = ("Traceback (most recent call last):\n"
                 f'  File "{program}", line 2, in <module>\n'
                 "    import nonexistent_mod_xyz\n"
                 "ModuleNotFoundError: No module named 'nonexistent_mod_xyz'\n")
    runs = read_recording(str(folder))
    edited = 0
    for r in runs:
        if str(program) in r["argv"] and r.get("returncode") == 0:
            r["returncode"] = 1
            r["stderr"] = r["stderr"] + traceback
            edited += 1
    assert edited
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("workflow", ["imports", "lazy"])
def test_a_recording_edited_to_fail_gives_the_error_of_a_real_failing_program(workflow, program, tmp_path, monkeypatch):
    folder = tmp_path / "recording"
    _record(workflow, program, folder)
    runs = _failing_recording(folder, program)
    with pytest.raises(ImportprofError) as replayed:
        _replay(workflow, program, folder, monkeypatch, runs=runs)
    program.write_text(FAILING)  # the real failing program, at the same path
    make, python = WORKFLOWS[workflow]
    with pytest.raises(ImportprofError) as real:
        make(python, str(program))(Session())
    assert type(replayed.value) is type(real.value) and isinstance(real.value, TargetFailed)
    assert replayed.value.message == real.value.message  # the `importprof: error:` line
    assert replayed.value.exit_code == real.value.exit_code
    assert (replayed.value.detail or "").splitlines()[-1:] == (real.value.detail or "").splitlines()[-1:]


def _record_doctor(program: Path, folder: Path):
    from profiler.capture.spawner import spawner_path

    spawner_path(session=Session())  # built before the recording (a first build would be a run the replay never asks for)
    return _doctor(PY311, str(program))(_context(RecordingRunner(str(folder))))


def _replay_doctor(program: Path, folder: Path, monkeypatch, runs=None):
    runner = ReplayRunner(str(folder), runs=runs)
    with monkeypatch.context() as m:
        _no_process(m)
        return _doctor(PY311, str(program))(_context(runner)), runner


def _full_document(report) -> str:
    return json.dumps(report.to_dict(), sort_keys=True, indent=1)


@pytest.mark.slow
def test_doctor_replayed_with_its_timed_runs_gives_the_same_report_without_a_process(program, tmp_path, monkeypatch):
    folder = tmp_path / "recording"
    real = _record_doctor(program, folder)
    recorded = read_recording(str(folder))
    timed = [r["timed"] for r in recorded if "timed" in r]
    assert len(timed) >= 2  # doctor's timing (the target as is, a bare start) and lazy's eager vs lazy
    assert all(t["runs"] and t["measures_rss"] is not None for t in timed)
    replayed, runner = _replay_doctor(program, folder, monkeypatch)
    assert _full_document(replayed) == _full_document(real)
    assert [c["ran"] for c in real.to_dict()["checks"]] == [True] * len(real.to_dict()["checks"])
    assert len(runner.used) == len(recorded)  # every recorded run and measurement answered one of the replay


@pytest.mark.slow
def test_doctor_replayed_from_a_recording_edited_to_other_times_reports_those_times(program, tmp_path, monkeypatch):
    folder = tmp_path / "recording"
    real = _record_doctor(program, folder)
    runs = read_recording(str(folder))
    # doctor's timing: the program as is beside a bare `python -S -c pass`
    (timing,) = [r["timed"] for r in runs if "timed" in r and any(s["normalised_argv"][-3:] == ["-S", "-c", "pass"]
                                                                  for s in r["timed"]["specs"])]
    as_is = next(i for i, s in enumerate(timing["specs"]) if s["normalised_argv"][-1].endswith(os.sep + program.name))
    bare = next(i for i, s in enumerate(timing["specs"]) if s["normalised_argv"][-3:] == ["-S", "-c", "pass"])
    for run in timing["runs"]:
        if run["spec"] == as_is:
            run.update(wall_s=0.75, user_s=0.5, system_s=0.125)
        elif run["spec"] == bare:
            run.update(exit_code=1, stderr="Fatal Python error: boom")
    edited, _ = _replay_doctor(program, folder, monkeypatch, runs=runs)
    assert real.startup_s != 0.75
    assert edited.startup_s == 0.75  # the mean of the edited runs
    assert any("failed (exited with code 1: Fatal Python error: boom)" in w for w in edited.to_dict()["warnings"])
    assert not any("boom" in w for w in real.to_dict()["warnings"])


@pytest.mark.slow
def test_the_files_a_run_is_expected_to_write_are_recorded_and_written_back(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    out = tmp_path / "out"  # not temporary: named in writes=, a folder
    hooks = tmp_path / "tmp" / "importprof-hooks-1"  # temporary: found in argv
    hooks.mkdir()
    write = ("import os, sys; os.makedirs(sys.argv[1], exist_ok=True); open(os.path.join(sys.argv[1], 'a'), 'w').write('A');"
             " open(sys.argv[2], 'w').write('B'); print('done')")
    argv = [PY311, "-c", write, str(out), str(hooks / "phases.out")]
    done = _run(RecordingRunner(str(tmp_path / "rec")), argv, writes=[str(out)])
    (recorded,) = read_recording(str(tmp_path / "rec"))
    assert sorted(recorded["files"]) == sorted([str(out / "a"), "<T1>/phases.out"])
    (out / "a").unlink()
    hooks2 = tmp_path / "tmp" / "importprof-hooks-2"
    hooks2.mkdir()
    with monkeypatch.context() as m:
        _no_process(m)
        again = _run(ReplayRunner(str(tmp_path / "rec")), [*argv[:-1], str(hooks2 / "phases.out")], writes=[str(out)])
    assert (again.returncode, again.stdout, again.stderr) == (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")
    assert (out / "a").read_text() == "A" and (hooks2 / "phases.out").read_text() == "B"


# ------------------------------------------------------------------ replay only: no process
def _run(runner, argv, **kw):
    from profiler.capture.process import run

    return run(argv, session=_context(runner), **kw)


def _recorded(argv, returncode=0, stdout="", stderr="", files=None, raised=None, tmp_root="/tmp"):
    words, _temps, _ = normalised_argv(argv, root=tmp_root)
    rec = {"argv": list(argv), "normalised_argv": words, "env": {}, "cwd": None, "text": True,
           "returncode": returncode, "stdout": stdout, "stderr": stderr, "files": files or {}}
    if raised:
        rec["raised"] = raised
    return rec


def test_replay_matches_argv_with_temporary_paths_normalised_and_writes_the_files_back(tmp_path, monkeypatch):
    import base64
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    recorded_log = str(tmp_path / "importprof-trace-aaaa" / "log")
    rec = _recorded(["strace", "-o", recorded_log, "--", "python", "x.py"], stdout="first", tmp_root=str(tmp_path),
                    files={"<T1>/log": base64.b64encode(b"123 execve(...)\n").decode()})
    second = dict(rec, stdout="second")
    runner = ReplayRunner(runs=[rec, second])
    (tmp_path / "importprof-trace-bbbb").mkdir()
    this_log = str(tmp_path / "importprof-trace-bbbb" / "log")
    done = _run(runner, ["strace", "-o", this_log, "--", "python", "x.py"], tracer_log=this_log)
    assert (done.argv, done.returncode, done.stdout) == (("strace", "-o", this_log, "--", "python", "x.py"), 0, "first")
    assert Path(this_log).read_bytes() == b"123 execve(...)\n"
    assert _run(runner, ["strace", "-o", this_log, "--", "python", "x.py"]).stdout == "second"  # in order


def test_a_run_not_in_the_recording_is_an_error_naming_its_argv():
    runner = ReplayRunner(runs=[_recorded(["python", "-c", "pass"])])
    with pytest.raises(NotRecorded, match=r"no recorded run of python -c 'import x'|no recorded run of python -c import x"):
        _run(runner, ["python", "-c", "import x"])
    _run(runner, ["python", "-c", "pass"])
    with pytest.raises(NotRecorded, match="no recorded run of python -c pass"):  # recorded once, asked twice
        _run(runner, ["python", "-c", "pass"])


def test_a_recorded_error_is_raised_again():
    from profiler.errors import ToolMissing

    runner = ReplayRunner(runs=[_recorded(["hyperfine", "--version"], raised={
        "error": "ToolMissing", "message": "cannot run hyperfine (hyperfine): not found on PATH", "detail": None})])
    with pytest.raises(ToolMissing, match=r"^cannot run hyperfine \(hyperfine\): not found on PATH$"):
        _run(runner, ["hyperfine", "--version"])


def test_the_launchers_options_are_matched_decoded():
    import marshal
    import tempfile

    root = tempfile.gettempdir()

    def argv(tmp: str) -> list[str]:
        options = {"phases_path": os.path.join(root, tmp, "phases.out"), "hooks": ["phases"], "site": True}
        return ["python", "-S", "/x/profiler/bootstrap/launch.py", marshal.dumps(options, 4).hex(), "-c", "pass"]

    a, _, paths = normalised_argv(argv("importprof-hooks-1"))
    b, temps, _ = normalised_argv(argv("importprof-hooks-2"))
    assert a == b and "<T1>/phases.out" in a[3]
    assert os.path.join(root, "importprof-hooks-1", "phases.out") in paths  # a file the run may write
    assert temps.path("<T1>/phases.out") == os.path.join(root, "importprof-hooks-2", "phases.out")


# ------------------------------------------------------------------ timed runs, replay only: no process
def _spec(key: str, code: str):
    from profiler.model.measurement import CommandSpec

    return CommandSpec(argv=("python3", "-c", code), variant=key, target=f"-c {code}", key=key)


class _Timed:
    """A recorded executor factory (as tests/test_measure_seam.py's): `walls[key]`, one wall time
    per run, the last repeated; exit 0."""

    def __init__(self, walls: dict):
        self.walls = walls
        self.calls: list[str] = []

    def __call__(self, specs, plan, session):
        return self

    def measures_rss(self, session) -> bool:
        return True

    def read_machine(self, session) -> dict:
        return {"hostname": "recorded", "cpu_percent": 1.0}

    def run(self, spec):
        from profiler.model.measurement import RunSample

        n = self.calls.count(spec.key)
        self.calls.append(spec.key)
        wall = self.walls[spec.key][min(n, len(self.walls[spec.key]) - 1)]
        return RunSample(wall_s=wall, user_s=wall / 2, system_s=wall / 4, max_rss_bytes=1000 + n, exit_code=0)

    def stderr(self, lines: int) -> str:
        return ""

    def close(self, kill: bool) -> None:
        pass


class _TimedOnly:
    """A runner whose timed runs are `_Timed`'s (no untimed run is asked of it here)."""

    def __init__(self, timed: _Timed):
        self.timed = timed

    def executor(self):
        return self.timed

    def run(self, *args, **kwargs):
        raise AssertionError("no untimed run expected")


def _timed(runner, specs, runs=3):
    from profiler.capture.timing import RunPlan
    from profiler.workflows.measure import measure

    return measure(specs, RunPlan(runs=runs, warmup=1), session=_context(runner))


def test_a_measurement_is_recorded_beside_the_runs_and_replayed_the_same(tmp_path):
    specs = [_spec("A", "pass"), _spec("B", "import json")]
    source = _Timed({"A": [0.05, 0.010, 0.012, 0.011], "B": [0.07, 0.020, 0.024, 0.022]})
    real = _timed(RecordingRunner(str(tmp_path), inner=_TimedOnly(source)), specs)
    (record,) = read_recording(str(tmp_path))
    timed = record["timed"]
    assert [s["normalised_argv"] for s in timed["specs"]] == [["python3", "-c", "pass"], ["python3", "-c", "import json"]]
    assert [(r["spec"], r["wall_s"]) for r in timed["runs"]][:4] == [(0, 0.05), (1, 0.07), (0, 0.010), (1, 0.020)]
    assert timed["measures_rss"] is True and timed["machine"] == {"hostname": "recorded", "cpu_percent": 1.0}
    runner = ReplayRunner(str(tmp_path))
    replayed = _timed(runner, specs)
    assert replayed == real
    assert replayed.machine == {"hostname": "recorded", "cpu_percent": 1.0}
    assert [r.times for r in replayed.results] == [(0.010, 0.012, 0.011), (0.020, 0.024, 0.022)]
    assert runner.used == [record]


def test_an_edited_measurement_is_replayed_as_edited(tmp_path):
    specs = [_spec("A", "pass"), _spec("B", "import json")]
    _timed(RecordingRunner(str(tmp_path), inner=_TimedOnly(_Timed({"A": [0.01], "B": [0.02]}))), specs)
    (record,) = read_recording(str(tmp_path))
    for run in record["timed"]["runs"]:
        if run["spec"] == 1:
            run.update(exit_code=1, stderr="Traceback (most recent call last):\nImportError: boom")
    m = _timed(ReplayRunner(runs=[record]), specs)
    a, b = m.results
    assert a.times == (0.01, 0.01, 0.01) and b.failed
    assert b.error == "exited with code 1: ImportError: boom"


def test_a_measurement_the_recording_does_not_hold_is_an_error_naming_its_commands(tmp_path):
    _timed(RecordingRunner(str(tmp_path), inner=_TimedOnly(_Timed({"A": [0.01]}))), [_spec("A", "pass")])
    with pytest.raises(NotRecorded, match=r"no recorded measurement of python3 -c 'import os'|no recorded measurement of python3 -c import os"):
        _timed(ReplayRunner(str(tmp_path)), [_spec("A", "import os")])
    with pytest.raises(NotRecorded, match=r"no recorded measurement of python3 -c pass with the plan \{'runs': 4,"):
        _timed(ReplayRunner(str(tmp_path)), [_spec("A", "pass")], runs=4)
    (record,) = read_recording(str(tmp_path))
    del record["timed"]["runs"][-1]  # the third measuring run
    with pytest.raises(NotRecorded, match="no more runs of python3 -c pass"):
        _timed(ReplayRunner(runs=[record]), [_spec("A", "pass")])
