"""The runner seam: every process `capture/process.py: run()` starts goes through one `Runner`,
the one of the invocation's session (`Session.runner`; None: `REAL`), as the timing
engine's runs go through its `Executor` (capture/timing.py: `measure(executor=)`).

- `RealRunner` (`REAL`) starts the process: no shell, its own session, stdout and stderr
  captured, the run's limit (--timeout), what it left running stopped (the code `run()` had).
- `RecordingRunner(folder)` runs through another runner (the real one) and writes each run to
  `folder/NNNN.json`: its argv, the environment variables importprof set, cwd, the return code,
  stdout, stderr, and the bytes of the files the run wrote that importprof reads back (those
  named in `writes`, folders included, the tracer's log, and every temporary file the argv, the
  launcher's options or the environment name that the run created or changed). A run that raised (a missing
  tool, a timeout) is written with its error.
- `ReplayRunner(folder)` answers each run from such a recording, without a process: the first
  unused recorded run with the same argv, temporary paths normalised (`<T1>`, `<T2>`… in order
  of appearance; the launcher's marshal-encoded options decoded), one that importprof gave the
  same environment first; writes the recorded files back
  where this run asks for them and returns the recorded `Completed` (or raises the recorded
  error). A run the recording does not hold is `NotRecorded`, naming the argv.

The timed runs (`workflows/measure.py: measure()`, without its own `executor=`) take their
executor from the same runner (`executor_of(session)`): `REAL` gives capture/timing.py's
`ProcessExecutor`; a `RecordingRunner` wraps it and writes each measurement to the same folder,
numbered with the other runs, as one `NNNN.json` holding `{"timed": ...}`: each command's argv
and extra environment (normalised as above), the run plan, every run's sample (wall, user and
system time, peak RSS, exit code) and the last lines of its stderr in the order they ran,
whether peak RSS was measured, and the machine facts measure() read; a `ReplayRunner` answers a
measurement from the first unused one with the same commands and plan, each command's runs in
their recorded order, without a process (`NotRecorded` when it holds none, or fewer runs).

Workflows are tested on recorded runs this way (tests/test_runner_seam.py): record once for
real, edit the recording (a failing run, other times), replay.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import threading
import time
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, cast

from profiler.capture.process import (
    _LIVE_GROUPS,
    Completed,
    _after_run,
    _children_of,
    _note_left_behind,
    become_subreaper,
    exec_problem,
    kill_group,
    run_timeout,
    stop_orphans,
    subreaping,
    timed_out,
    wait_limit,
)
from profiler.errors import ToolMissing
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.capture.timing import ExecutorFactory, RunPlan
    from profiler.model.measurement import CommandSpec, RunSample


class Runner(Protocol):
    """Runs argv once to completion and returns what it did. `timeout`: None = one run's limit
    (--timeout), math.inf = none; `input`: what stdin reads (None: /dev/null); `text`: str or
    bytes out; `missing`: the error when argv[0] cannot run, naming `what`; `tracer_log`: argv is
    a tracer writing that log (strace -o LOG); `writes`: other files (or folders) the run is
    expected to write that importprof reads back (a recorder keeps their bytes)."""

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None,
        cwd: str | None,
        timeout: float | None,
        input: str | None,
        text: bool,
        missing: type,
        what: str | None,
        tracer_log: str | None,
        writes: Sequence[str],
        session: Session,
    ) -> Completed: ...

    def executor(self) -> ExecutorFactory:
        """What runs the timed runs of one measurement (measure() without `executor=`)."""
        ...


class RealRunner:
    """Starts the process (see `run` in capture/process.py for the contract)."""

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float | None = None,
        input: str | None = None,
        text: bool = True,
        missing: type = ToolMissing,
        what: str | None = None,
        tracer_log: str | None = None,
        writes: Sequence[str] = (),
        session: Session,
    ) -> Completed:
        limit = run_timeout(session) if timeout is None else wait_limit(timeout)
        become_subreaper()
        try:
            proc = subprocess.Popen(
                list(argv),
                env=dict(env) if env is not None else None,
                cwd=cwd,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=text,
                errors="replace" if text else None,
                start_new_session=True,
            )
        except OSError as exc:  # ENOENT, EACCES, ENOEXEC, EISDIR, a broken symlink...
            raise missing(f"cannot run {what or argv[0]} ({argv[0]}): {exec_problem(argv[0]) or exc.strerror}") from None
        _LIVE_GROUPS.add(proc.pid)
        try:
            try:
                out, err = _communicate(proc, input, limit, tracer_log, session)
            except subprocess.TimeoutExpired:
                _drain(proc)
                raise timed_out(what or argv[0], limit) from None
            except BaseException:  # Ctrl-C, SIGTERM: the child and its children go too
                _drain(proc)
                raise
        finally:
            kill_group(proc.pid)  # what it left running in its group (a daemonized child...)
            _LIVE_GROUPS.discard(proc.pid)
            _after_run(session, proc.pid)  # and what left the group (setsid): it came back to us as an orphan
        return Completed(tuple(argv), proc.returncode, out, err)

    def executor(self) -> ExecutorFactory:
        from profiler.capture.timing import ProcessExecutor

        return ProcessExecutor


REAL = RealRunner()


def runner_of(session: Session) -> Runner:
    """The invocation's runner: its run context's, else the real one."""
    return cast(Runner, session.runner) if session.runner is not None else REAL


def executor_of(session: Session) -> ExecutorFactory:
    """The executor of one measurement of the invocation (measure() without `executor=`): its
    runner's (the real process; recorded or replayed under a RecordingRunner or ReplayRunner)."""
    return runner_of(session).executor()


def timed_machine(executor: object, session: Session) -> dict:
    """The machine facts measure() reads after its runs: the executor's when it answers them (a
    recorded measurement's, replayed), else read from the machine (capture/machine.py)."""
    read = getattr(executor, "read_machine", None)
    if read is not None:
        return cast(dict, read(session))
    from profiler.capture.machine import read_machine

    return read_machine(session=session)


_POLL_S = 0.1  # how often a run is looked at while its output is read
_GRACE_S = 0.5  # how long the program may be gone while its output stays open, before what holds it is stopped


def _communicate(proc, input, limit: float | None, tracer_log: str | None, session: Session):
    """proc.communicate(), ended when the program ends (see run) or the limit passes."""
    deadline = None if limit is None else time.monotonic() + limit
    ended_at = None
    data = input
    while True:
        step = _POLL_S
        if deadline is not None:
            step = min(step, deadline - time.monotonic())
            if step <= 0:
                raise subprocess.TimeoutExpired(proc.args, limit if limit is not None else 10.0)
        try:
            return proc.communicate(data, timeout=step)
        except subprocess.TimeoutExpired:
            data = None  # sent already: communicate() resumes where it was
        if not _program_ended(proc, tracer_log):
            ended_at = None
            continue
        ended_at = ended_at or time.monotonic()
        if time.monotonic() - ended_at < _GRACE_S:
            continue
        # What is left came back to us as orphans (their parent, the program, is gone): stopped,
        # a tracer sees its last tracee end and exits as it would have, with the program's status.
        # Without a subreaper they are out of reach: the tracer's group is stopped instead.
        if tracer_log is None or not subreaping():
            kill_group(proc.pid)
        stopped, stubborn = stop_orphans(proc.pid)
        if stopped or stubborn:
            _note_left_behind(stubborn, session)
        ended_at = None
        if deadline is None:
            deadline = time.monotonic() + 10  # nothing of ours holds the pipes any more: EOF follows


def _drain(proc) -> None:
    """Stop the run and everything it started, then read its pipes to their end: a detached
    descendant holding them comes back to us once its parent is killed, and is stopped too."""
    for _ in range(50):
        kill_group(proc.pid)
        stop_orphans()
        try:
            proc.communicate(timeout=0.2)
            return
        except subprocess.TimeoutExpired:
            continue
        except ValueError:  # communicate() had not started reading: nothing to drain
            break
    for stream in (proc.stdin, proc.stdout, proc.stderr):  # held by something out of reach
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    proc.wait()


def _program_ended(proc, tracer_log: str | None) -> bool:
    if tracer_log is None:
        return proc.poll() is not None
    if proc.poll() is not None:
        return True
    try:  # the tracer has started the program (its first log line) and has no child left
        started = os.path.getsize(tracer_log) > 0
    except OSError:
        return False
    return started and not _children_of(proc.pid)


# ------------------------------------------------------------------ recording and replaying
class NotRecorded(LookupError):
    """A replayed run the recording does not hold (or holds fewer times)."""


_LAUNCHER = os.path.join("bootstrap", "launch.py")


def _launch_options(argv: Sequence[str], i: int) -> dict | None:
    """The launcher's options when argv[i] is them (the hex word after bootstrap/launch.py)."""
    if i == 0 or not argv[i - 1].endswith(_LAUNCHER):
        return None
    try:
        import marshal

        value = marshal.loads(bytes.fromhex(argv[i]))
    except (ValueError, EOFError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k in sorted(value, key=str) for s in (*_strings(k), *_strings(value[k]))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


class _Temps:
    """A run's temporary paths as placeholders: the first folder or file below the temporary
    root each path names becomes `<T1>`, `<T2>`… in order of appearance."""

    def __init__(self, root: str | None = None):
        self.root = (root or tempfile.gettempdir()).rstrip(os.sep) + os.sep
        self.names: dict[str, str] = {}  # placeholder -> the entry below the root
        self._by_entry: dict[str, str] = {}

    def see(self, text: str) -> str:
        out, rest = [], text
        while True:
            at = rest.find(self.root)
            if at < 0:
                out.append(rest)
                return "".join(out)
            out.append(rest[:at])
            tail = rest[at + len(self.root):]
            cut = len(tail)
            for stop in (os.sep, " ", "\t", "\n", ":", '"', "'", ",", "=", ";"):
                j = tail.find(stop)
                if 0 <= j < cut:
                    cut = j
            entry = tail[:cut]
            if not entry:
                out.append(self.root)
                rest = tail
                continue
            name = self._by_entry.get(entry)
            if name is None:
                name = self._by_entry[entry] = f"<T{len(self.names) + 1}>"
                self.names[name] = entry
            out.append(name)
            rest = tail[cut:]

    def path(self, normalised: str) -> str:
        """A normalised path back to this run's (one outside the temporary root is as it was)."""
        if not normalised.startswith("<T"):
            return normalised
        for name, entry in self.names.items():
            if normalised.startswith(name):
                return self.root + entry + normalised[len(name):]
        raise NotRecorded(f"the recorded file {normalised} names no temporary path of this run")


def normalised_argv(argv: Sequence[str], env: Mapping[str, str] | None = None, writes: Sequence[str] = (),
                    root: str | None = None) -> tuple[list[str], _Temps, list[str]]:
    """(argv with temporary paths as placeholders and the launcher's options decoded, the
    placeholders, the paths the run may write: `writes`, and the temporary ones argv, the
    launcher's options and the set environment name)."""
    temps = _Temps(root)
    words: list[str] = []
    candidates: list[str] = [*writes]
    for i, word in enumerate(argv):
        options = _launch_options(argv, i)
        if options is not None:
            strings = _strings(options)
            candidates += strings
            words.append("<launch options> " + temps.see(json.dumps(options, sort_keys=True, default=repr)))
            continue
        candidates.append(word)
        words.append(temps.see(word))
    candidates += [v for v in _set_env(env).values()]
    for c in candidates:
        temps.see(c)
    paths = [*writes]  # expected wherever they are; the others when temporary
    for c in candidates:
        for part in (c, c.partition("=")[2]):
            if part.startswith(temps.root) and part not in paths:
                paths.append(part)
    return words, temps, paths


def _set_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """The variables importprof set for the run: those not as in its own environment."""
    if env is None:
        return {}
    return {k: v for k, v in env.items() if os.environ.get(k) != v}


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _files_under(path: str) -> list[str]:
    if not os.path.isdir(path):
        return [path]
    found = []
    for folder, _dirs, files in os.walk(path):
        found += [os.path.join(folder, f) for f in sorted(files)]
    return found


def _encode(data: str | bytes) -> object:
    return data if isinstance(data, str) else {"base64": base64.b64encode(data).decode("ascii")}


def _decode(data: object) -> str | bytes:
    if isinstance(data, dict):
        return base64.b64decode(data["base64"])
    return cast(str, data)


class RecordingRunner:
    """Runs through `inner` (the real runner) and writes each run to `folder` (see the module
    doc); `folder` is made when missing. The runs are numbered in the order they started."""

    def __init__(self, folder: str, inner: Runner | None = None):
        self.folder = folder
        self.inner = inner or REAL
        self._lock = threading.Lock()
        self._count = 0
        os.makedirs(folder, exist_ok=True)

    def number(self) -> int:
        """The next run's number (runs and measurements share the count)."""
        with self._lock:
            self._count += 1
            return self._count

    def executor(self) -> ExecutorFactory:
        """One measurement's executor: the inner runner's, each run written (see the module doc)."""
        return _TimedRecorder(self, self.inner.executor())

    def run(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
            timeout: float | None = None, input: str | None = None, text: bool = True, missing: type = ToolMissing,
            what: str | None = None, tracer_log: str | None = None, writes: Sequence[str] = (),
            session: Session) -> Completed:
        number = self.number()
        expected = [*writes, *([tracer_log] if tracer_log else [])]
        words, temps, paths = normalised_argv(argv, env, expected)
        before: dict[str, tuple[int, int] | None] = {}
        for p in paths:
            for f in _files_under(p) if p in expected else [p]:
                before[f] = _stamp(f)
        record: dict[str, object] = {
            "argv": list(argv), "normalised_argv": words,
            "env": {k: temps.see(v) for k, v in sorted(_set_env(env).items())},
            "cwd": temps.see(cwd) if cwd is not None else None, "text": text,
        }
        try:
            done = self.inner.run(argv, env=env, cwd=cwd, timeout=timeout, input=input, text=text, missing=missing,
                                  what=what, tracer_log=tracer_log, writes=writes, session=session)
        except Exception as exc:
            record["raised"] = _recorded_error(exc)
            self._write(number, record, temps, paths, expected, before)
            raise
        record.update(returncode=done.returncode, stdout=_encode(done.stdout), stderr=_encode(done.stderr))
        self._write(number, record, temps, paths, expected, before)
        return done

    def _write(self, number: int, record: dict, temps: _Temps, paths: list[str], expected: list[str], before: dict) -> None:
        files = {}
        for p in paths:
            for f in _files_under(p) if p in expected else [p]:  # a folder's files: only when expected
                if os.path.isfile(f) and _stamp(f) != before.get(f):
                    with open(f, "rb") as fh:
                        files[temps.see(f)] = base64.b64encode(fh.read()).decode("ascii")
        record["files"] = files
        self.write(number, record)

    def write(self, number: int, record: dict) -> None:
        with open(os.path.join(self.folder, f"{number:04d}.json"), "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1, sort_keys=True)


def read_recording(folder: str) -> list[dict]:
    """The runs of a recording, in the order they ran."""
    runs = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                runs.append(json.load(fh))
    return runs


class ReplayRunner:
    """Answers each run from a recording (see the module doc); `runs`: the recorded runs (by
    default read from `folder`). `used`: the recorded runs and measurements answered, in order."""

    def __init__(self, folder: str | None = None, runs: Sequence[dict] | None = None):
        self.runs = list(runs) if runs is not None else read_recording(cast(str, folder))
        self.used: list[dict] = []
        self._left = [i for i, r in enumerate(self.runs) if "timed" not in r]
        self._timed_left = [i for i, r in enumerate(self.runs) if "timed" in r]
        self._lock = threading.Lock()

    def executor(self) -> ExecutorFactory:
        """One measurement's executor: answered from a recorded measurement (see the module doc)."""
        return _TimedReplay(self)

    def next_measurement(self) -> dict | None:
        """The first recorded measurement not answered yet (in the order they were recorded)."""
        with self._lock:
            return self.runs[self._timed_left[0]]["timed"] if self._timed_left else None

    def measurement(self, specs: list[dict], plan: dict) -> dict:
        """The first unused recorded measurement of these commands (`_timed_spec`) with this plan."""
        with self._lock:
            i = next((i for i in self._timed_left
                      if _same_commands(self.runs[i]["timed"]["specs"], specs) and self.runs[i]["timed"]["plan"] == plan), None)
            if i is None:
                raise NotRecorded("no recorded measurement of " + "; ".join(" ".join(s["normalised_argv"]) for s in specs)
                                  + f" with the plan {plan}")
            self._timed_left.remove(i)
            self.used.append(self.runs[i])
        return cast(dict, self.runs[i]["timed"])

    def run(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
            timeout: float | None = None, input: str | None = None, text: bool = True, missing: type = ToolMissing,
            what: str | None = None, tracer_log: str | None = None, writes: Sequence[str] = (),
            session: Session) -> Completed:
        expected = [*writes, *([tracer_log] if tracer_log else [])]
        words, temps, _paths = normalised_argv(argv, env, expected)
        set_env = {k: temps.see(v) for k, v in sorted(_set_env(env).items())}
        with self._lock:
            same = [i for i in self._left if self.runs[i]["normalised_argv"] == words]
            # the same environment first (a run repeated with another PYTHONPYCACHEPREFIX...)
            i = next((i for i in same if self.runs[i].get("env") == set_env), same[0] if same else None)
            if i is None:
                raise NotRecorded(f"no recorded run of {' '.join(words)}")
            self._left.remove(i)
        rec = self.runs[i]
        self.used.append(rec)
        for name, data in rec.get("files", {}).items():
            path = temps.path(name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(base64.b64decode(data))
        raised = rec.get("raised")
        if raised is not None:
            _raise_recorded(raised, words)
        out, err = _decode(rec["stdout"]), _decode(rec["stderr"])
        if text != isinstance(out, str):
            raise NotRecorded(f"the recorded run of {' '.join(words)} was read as {'text' if rec['text'] else 'bytes'}")
        return Completed(tuple(argv), int(rec["returncode"]), out, err)  # type: ignore[arg-type]


def _raise_recorded(raised: dict, words: Sequence[str]) -> None:
    """A recorded error raised again (importprof's own errors only)."""
    from profiler import errors

    cls = getattr(errors, raised["error"], None)
    if not (isinstance(cls, type) and issubclass(cls, errors.ImportprofError)):
        raise NotRecorded(f"the recorded run of {' '.join(words)} raised {raised['error']}: {raised['message']}")
    raise cls(raised["message"], detail=raised.get("detail"))


def _recorded_error(exc: Exception) -> dict:
    return {"error": type(exc).__name__, "message": getattr(exc, "message", str(exc)), "detail": getattr(exc, "detail", None)}


# ------------------------------------------------------------------ timed runs: measure()'s executor
_TAIL_LINES = 20  # a timed run's stderr kept: the lines a failed run's error is read from (capture/timing.py: _failure)
_SAMPLE = ("wall_s", "user_s", "system_s", "max_rss_bytes", "exit_code")


def _timed_spec(spec: CommandSpec) -> dict:
    """A timed command as recorded and matched: its argv and extra environment, normalised."""
    words, temps, _ = normalised_argv(spec.argv, dict(spec.env or ()))
    return {"key": spec.key, "normalised_argv": words, "env": {k: temps.see(v) for k, v in sorted(spec.env or ())}}


def _same_commands(recorded: list[dict], specs: list[dict]) -> bool:
    return [(r["normalised_argv"], r["env"]) for r in recorded] == [(s["normalised_argv"], s["env"]) for s in specs]


def _plan(plan: RunPlan) -> dict:
    from dataclasses import asdict

    return asdict(plan)


class _TimedRecorder:
    """measure()'s executor factory under a RecordingRunner: each executor made (one per
    measurement; hyperfine's check run is one too) is the inner one, its runs written as one
    `{"timed": ...}` record of the runner's folder when it closes (again when measure() reads
    the machine facts through it)."""

    def __init__(self, recorder: RecordingRunner, inner: ExecutorFactory):
        self.recorder = recorder
        self.inner: Any = inner  # a factory that also answers measures_rss (capture/timing.py: Executor)
        self.rss: bool | None = None
        self.machine: dict | None = None
        self.records: list[tuple[int, dict]] = []

    def measures_rss(self, session: Session) -> bool:
        self.rss = bool(self.inner.measures_rss(session))
        self._write()
        return self.rss

    def read_machine(self, session: Session) -> dict:
        self.machine = timed_machine(self.inner, session)
        self._write()
        return self.machine

    def __call__(self, specs: Sequence[CommandSpec], plan: RunPlan, session: Session) -> _RecordingExecutor:
        executor = self.inner(specs, plan, session)
        timed = {"specs": [_timed_spec(s) for s in specs], "plan": _plan(plan), "runs": []}
        self.records.append((self.recorder.number(), timed))
        return _RecordingExecutor(self, executor, {s.key: i for i, s in enumerate(specs)}, timed)

    def _write(self) -> None:
        for number, timed in self.records:
            timed.update(measures_rss=self.rss, machine=self.machine)
            self.recorder.write(number, {"timed": timed})


class _RecordingExecutor:
    def __init__(self, factory: _TimedRecorder, inner, index: dict[str, int], timed: dict):
        self.factory, self.inner, self.index, self.timed = factory, inner, index, timed

    def run(self, spec: CommandSpec) -> RunSample:
        try:
            sample = self.inner.run(spec)
        except Exception as exc:  # a timeout: raised again in the replay
            self.timed["runs"].append({"spec": self.index[spec.key], "raised": _recorded_error(exc)})
            raise
        run: dict[str, object] = {"spec": self.index[spec.key], **{k: getattr(sample, k) for k in _SAMPLE}}
        run["stderr"] = self.inner.stderr(_TAIL_LINES)
        self.timed["runs"].append(run)
        return sample

    def stderr(self, lines: int) -> str:
        return cast(str, self.inner.stderr(lines))

    def close(self, kill: bool) -> None:
        try:
            self.inner.close(kill)
        finally:
            self.factory._write()


class _TimedReplay:
    """measure()'s executor factory under a ReplayRunner: the measurement answered from the
    first unused recorded one of the same commands and plan."""

    def __init__(self, replay: ReplayRunner):
        self.replay = replay
        self.timed: dict | None = None

    def measures_rss(self, session: Session) -> bool:
        # asked before the commands are known: the next recorded measurement's answer (one
        # invocation's measurements all have the same spawner)
        nxt = self.replay.next_measurement()
        if nxt is None or nxt.get("measures_rss") is None:
            raise NotRecorded("no recorded measurement says whether peak RSS was measured")
        return bool(nxt["measures_rss"])

    def read_machine(self, session: Session) -> dict:
        if self.timed is None or self.timed.get("machine") is None:
            raise NotRecorded("no machine facts recorded for this measurement")
        return dict(self.timed["machine"])

    def __call__(self, specs: Sequence[CommandSpec], plan: RunPlan, session: Session) -> _ReplayExecutor:
        wanted = [_timed_spec(s) for s in specs]
        self.timed = self.replay.measurement(wanted, _plan(plan))
        return _ReplayExecutor(self.timed, wanted, {s.key: i for i, s in enumerate(specs)})


class _ReplayExecutor:
    def __init__(self, timed: dict, specs: list[dict], index: dict[str, int]):
        self.specs = specs
        self.index = index
        self.left: dict[int, list[dict]] = {i: [] for i in range(len(specs))}
        for run in timed["runs"]:
            self.left[int(run["spec"])].append(run)
        self._stderr = ""

    def run(self, spec: CommandSpec) -> RunSample:
        from profiler.model.measurement import RunSample

        i = self.index[spec.key]
        words = self.specs[i]["normalised_argv"]
        if not self.left[i]:
            raise NotRecorded(f"the recorded measurement holds no more runs of {' '.join(words)}")
        run = self.left[i].pop(0)
        if run.get("raised") is not None:
            _raise_recorded(run["raised"], words)
        self._stderr = run.get("stderr") or ""
        return RunSample(**{k: run[k] for k in _SAMPLE})

    def stderr(self, lines: int) -> str:
        return "\n".join(self._stderr.splitlines()[-lines:])

    def close(self, kill: bool) -> None:
        pass


__all__ = ["REAL", "NotRecorded", "RealRunner", "RecordingRunner", "ReplayRunner", "Runner", "executor_of",
           "normalised_argv", "read_recording", "runner_of", "timed_machine"]
