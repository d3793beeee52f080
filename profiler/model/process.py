"""The processes a `-- COMMAND` started, as the harness capture saw them (capture/harness.py).

One `ProcessRecord` per program image: every successful `execve` starts one, and a child that
was forked and never called `execve` (a shell's subshell, `multiprocessing`'s fork) is one too,
running its parent's program (`forked=True`). Threads are not processes: what a thread writes
belongs to its process.

ProcessRecord fields (JSON keys are the same names):
  index        int    position in `ProcessCapture.processes` (exec order); `parent` refers to it
  pid          int    the kernel's pid (several records share a pid when a program execs another:
                      a pyenv shim → bash → python)
  argv         [str]  the whole argv given to execve (a forked child: its parent's)
  executable   str    the path given to execve (as the caller spelled it: relative paths stay so)
  is_python    bool   a Python interpreter: an ELF executable named python*/pypy* (not a `#!`
                      script such as a pyenv shim), or any program that wrote `import time:` lines
  parent       int|None  index of the record that forked this pid (the image current at the fork);
                      None for the command itself
  replaced     int|None  index of the earlier image of the same pid this exec replaced (an exec
                      chain: shim → python); None for a pid's first image
  forked       bool   True for a child that never exec'd (it runs its parent's program)
  start_s      float|None  wall clock (epoch seconds, strace -ttt) of the exec (or, for a forked
                      child, of its first traced event)
  end_s        float|None  wall clock of the exit (or of the exec that replaced this image)
  wall_s       float|None  end_s - start_s: exec to exit
  exit_code    int|None the exit status (None: replaced by another exec, or killed)
  signal       str|None the signal that killed it (`SIGKILL`...)
  importtime   [str]|None  for Python processes: the `import time:` lines this process itself
                      wrote to its fd 2, in order (header line included), whatever became of
                      its stderr (captured by the harness, sent to /dev/null...); None when there
                      are none, with the reason in `importtime_note`; always None for non-Python
  importtime_note str|None  why `importtime` is None for a Python process: "-E/-I: ignores
                      PYTHONPROFILEIMPORTTIME" (such children cannot be reached through the
                      environment) or "wrote no import time lines (...)"

ProcessCapture: the whole run — `argv`, `returncode`, the command's captured `stdout`/`stderr`,
`wall_s` (the traced command, start to finish, as seen from importprof: strace's own start and
end included), `span_s` (first exec to last exit, from the trace: the command alone) and
`processes`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Sequence

from profiler.model.document import Record, derived, saved

_PYTHON_NAME = re.compile(r"^(?:python|pypy)[0-9.]*[a-z]*$")
IGNORES_ENV = "-E/-I: ignores PYTHONPROFILEIMPORTTIME"


def looks_like_python(executable: str) -> bool:
    """A name python's and pypy's executables have (python3, python3.11, python3.13t, pypy3)."""
    return bool(_PYTHON_NAME.match(posixpath.basename(executable)))


def ignores_environment(argv: Sequence[str]) -> bool:
    """Whether a Python argv holds -E or -I (then PYTHON* variables are ignored) before the
    program (`-c`, `-m`, a script, `-`)."""
    args = list(argv[1:])
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--" or not a.startswith("-") or a == "-":
            return False
        if a.startswith("--"):
            if a == "--check-hash-based-pycs":
                i += 1
            continue
        letters = a[1:]
        for j, ch in enumerate(letters):
            if ch in "EI":
                return True
            if ch in "cm":
                return False
            if ch in "XW":
                if j == len(letters) - 1:
                    i += 1  # the option's value is the next argument
                break
    return False


@dataclass(frozen=True)
class ProcessRecord(Record):
    DERIVED = (derived("wall_s", round=6),)  # a difference of two epoch clocks: to the microsecond

    index: int
    pid: int
    argv: tuple[str, ...]
    executable: str
    is_python: bool
    parent: int | None
    replaced: int | None = None
    forked: bool = False
    start_s: float | None = None
    end_s: float | None = None
    exit_code: int | None = None
    signal: str | None = None
    importtime: tuple[str, ...] | None = None
    importtime_note: str | None = None

    @property
    def wall_s(self) -> float | None:
        if self.start_s is None or self.end_s is None:
            return None
        return max(0.0, self.end_s - self.start_s)

    @property
    def importtime_text(self) -> str:
        """The import time lines as one text (what parse/importtime.py reads)."""
        return "".join(ln + "\n" for ln in self.importtime or ())


@dataclass(frozen=True)
class ProcessCapture(Record):
    NOT_SAVED = ("stdout", "stderr")  # the command's own output: for this run's messages only
    # times written to the microsecond (the clocks' differences carry float noise below it)
    DERIVED = (derived("span_s", round=6),)

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float = saved(round=6)
    processes: tuple[ProcessRecord, ...] = field(default_factory=tuple)

    @property
    def span_s(self) -> float | None:
        """The command's own wall time as the trace shows it: from its first exec to the last
        exit (without strace's start and end, which `wall_s` includes)."""
        starts = [p.start_s for p in self.processes if p.start_s is not None]
        ends = [p.end_s for p in self.processes if p.end_s is not None]
        if not starts or not ends:
            return None
        return max(0.0, max(ends) - min(starts))

    @property
    def python_processes(self) -> tuple[ProcessRecord, ...]:
        return tuple(p for p in self.processes if p.is_python)
