"""The runner seam (capture/runner.py): each workflow (imports, trace, site, lazy, and a build:
pack) run once for real through a RecordingRunner on a small program, then again from that
recording through a ReplayRunner, no process started (the replay refuses them): the report is
the same, byte for byte in its JSON but for the machine's load, which is read from the machine,
not from a run. doctor too, but for what its timed runs (measure()'s executor, real in the
replay) price. A recording edited to a failing run (exit 1 with a traceback) gives the error a
real failing program gives. The replay-only checks at the end start no process (make test-fast
runs them)."""

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
# doctor's timed runs go through measure()'s executor (capture/timing.py), not the runner: they
# run for real in the replay too, and what they price differs run to run: the start-up and its
# warnings, the lazy finding (its measured saving) and the site finding (against a bare start)
DOCTOR_TIMED = ("machine", "startup_s", "verify_startup_s", "warnings")
DOCTOR_TIMED_KINDS = ("lazy", "site")


def _doctor_document(report) -> str:
    data = {k: v for k, v in report.to_dict().items() if k not in DOCTOR_TIMED}
    data["findings"] = [f for f in data["findings"] if f["kind"] not in DOCTOR_TIMED_KINDS]
    data["checks"] = [c if c["kind"] not in DOCTOR_TIMED_KINDS else dict(c, note="") for c in data["checks"]]
    return json.dumps(data, sort_keys=True, indent=1)


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


@pytest.mark.slow
def test_doctor_replayed_finds_what_it_found_for_real_but_what_the_timing_prices(program, tmp_path):
    folder = tmp_path / "recording"
    real = _doctor(PY311, str(program))(_context(RecordingRunner(str(folder))))
    runner = ReplayRunner(str(folder))
    replayed = _doctor(PY311, str(program))(_context(runner))
    assert _doctor_document(replayed) == _doctor_document(real)
    assert [c["ran"] for c in real.to_dict()["checks"]] == [True] * len(real.to_dict()["checks"])
    assert len(runner.used) == len(read_recording(str(folder)))


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
