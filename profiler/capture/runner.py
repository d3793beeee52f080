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

Workflows are tested on recorded runs this way (tests/test_runner_seam.py): record once for
real, edit the recording (a failing run), replay.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import threading
import time
from typing import Mapping, Protocol, Sequence, cast

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


REAL = RealRunner()


def runner_of(session: Session) -> Runner:
    """The invocation's runner: its run context's, else the real one."""
    return cast(Runner, session.runner) if session.runner is not None else REAL


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

    def run(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
            timeout: float | None = None, input: str | None = None, text: bool = True, missing: type = ToolMissing,
            what: str | None = None, tracer_log: str | None = None, writes: Sequence[str] = (),
            session: Session) -> Completed:
        with self._lock:
            self._count += 1
            number = self._count
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
            record["raised"] = {"error": type(exc).__name__, "message": getattr(exc, "message", str(exc)),
                                "detail": getattr(exc, "detail", None)}
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
    default read from `folder`). `used`: the recorded runs answered, in order."""

    def __init__(self, folder: str | None = None, runs: Sequence[dict] | None = None):
        self.runs = list(runs) if runs is not None else read_recording(cast(str, folder))
        self.used: list[dict] = []
        self._left = list(range(len(self.runs)))
        self._lock = threading.Lock()

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
            from profiler import errors

            cls = getattr(errors, raised["error"], None)
            if not (isinstance(cls, type) and issubclass(cls, errors.ImportprofError)):
                raise NotRecorded(f"the recorded run of {' '.join(words)} raised {raised['error']}: {raised['message']}")
            raise cls(raised["message"], detail=raised.get("detail"))
        out, err = _decode(rec["stdout"]), _decode(rec["stderr"])
        if text != isinstance(out, str):
            raise NotRecorded(f"the recorded run of {' '.join(words)} was read as {'text' if rec['text'] else 'bytes'}")
        return Completed(tuple(argv), int(rec["returncode"]), out, err)  # type: ignore[arg-type]


__all__ = ["REAL", "NotRecorded", "RealRunner", "RecordingRunner", "ReplayRunner", "Runner", "normalised_argv",
           "read_recording", "runner_of"]
