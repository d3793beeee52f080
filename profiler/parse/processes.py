"""An strace log of process life-cycles → the processes it shows (pure).

Reads what capture/harness.py records (`strace -f -ttt --seccomp-bpf -e trace=execve,execveat,
clone,clone3,fork,vfork,write`), or any fuller `strace -f` log: successful execs start program
images, clones give parents (CLONE_THREAD ones are threads, not processes), `+++ exited` /
`+++ killed` end them, and writes to fd 2 carry each Python process's `import time:` lines.
See profiler/model/process.py for the meaning of every field.
"""

from __future__ import annotations

from profiler.model.process import IGNORES_ENV, ProcessRecord, ignores_environment, looks_like_python
from profiler.model.syscall_trace import ProcessEvent
from profiler.parse.strace import decode_string, parse_strace

_FORKS = frozenset({"clone", "clone3", "fork", "vfork"})
_EXECS = frozenset({"execve", "execveat"})
_WRITES = frozenset({"write"})
IMPORT_TIME = "import time:"
NO_LINES = "wrote no import time lines (PYTHONPROFILEIMPORTTIME removed from its environment, or it exited before importing)"


class _Image:
    __slots__ = ("pid", "argv", "executable", "parent", "replaced", "forked", "start_s", "end_s", "exit_code", "signal", "stderr")

    def __init__(self, pid, argv, executable, parent, replaced, forked, start_s):
        self.pid = pid
        self.argv = argv
        self.executable = executable
        self.parent = parent
        self.replaced = replaced
        self.forked = forked
        self.start_s = start_s
        self.end_s = None
        self.exit_code = None
        self.signal = None
        self.stderr: list[str] = []


def parse_processes(text: str) -> list[ProcessRecord]:
    """The program images an `strace -f` log shows, in the order they started."""
    log = parse_strace(text)
    items = sorted([(c.line, 0, c) for c in log.syscalls] + [(e.line, 1, e) for e in log.events], key=lambda x: x[0])
    images: list[_Image] = []
    current: dict[int, int] = {}  # pid -> index of its current image
    tgid: dict[int, int] = {}  # thread id -> its process
    forker: dict[int, int | None] = {}  # child pid -> image current in the parent at the fork
    forked_at: dict[int, float | None] = {}

    def image_of(pid: int, t: float | None) -> int:
        idx = current.get(pid)
        if idx is None:
            parent = forker.get(pid)
            p = images[parent] if parent is not None else None
            idx = len(images)
            start = forked_at.get(pid, t)
            images.append(_Image(pid, p.argv if p else (), p.executable if p else "", parent, None, True, start))
            current[pid] = idx
        return idx

    for _, _kind, item in items:
        if isinstance(item, ProcessEvent):  # (kind 1)
            pid = item.pid
            if pid in tgid:
                continue  # a thread ended
            if item.kind in ("exit", "killed"):
                img = images[image_of(pid, item.time_s)]
                img.end_s = item.time_s
                if item.kind == "exit":
                    img.exit_code = int(item.value)
                else:
                    img.signal = item.value
            continue
        c = item
        pid = tgid.get(c.pid, c.pid)
        name = c.name
        if name in _WRITES:
            if len(c.args) >= 2 and c.args[0].partition("<")[0] == "2":
                dec = decode_string(c.args[1])
                if dec is not None and dec[0]:
                    images[image_of(pid, c.time_s)].stderr.append(dec[0])
        elif name in _FORKS:
            if c.ret is None or c.ret <= 0 or c.errno:
                continue
            child = c.ret
            if any("CLONE_THREAD" in a for a in c.args):
                tgid[child] = pid
            else:
                forker[child] = image_of(pid, c.time_s)
                forked_at[child] = c.time_s
        elif name in _EXECS:
            if c.ret != 0 or c.errno or len(c.args) < 2:
                continue
            pi = 1 if name == "execve" else 2
            path = decode_string(c.args[pi - 1])
            argv = c.argv or ()
            prev = current.get(pid)
            if prev is not None:
                images[prev].end_s = c.time_s
                parent = images[prev].parent
            else:
                parent = forker.get(pid)
            idx = len(images)
            images.append(_Image(pid, argv, path[0] if path else "", parent, prev, False, c.time_s))
            current[pid] = idx
    out = []
    for i, img in enumerate(images):
        lines = tuple(ln for ln in "".join(img.stderr).splitlines() if ln.startswith(IMPORT_TIME))
        is_python = bool(lines) or looks_like_python(img.executable)
        note = None
        if is_python and not lines:
            note = IGNORES_ENV if ignores_environment(img.argv) else NO_LINES
        out.append(
            ProcessRecord(
                index=i,
                pid=img.pid,
                argv=img.argv,
                executable=img.executable,
                is_python=is_python,
                parent=img.parent,
                replaced=img.replaced,
                forked=img.forked,
                start_s=img.start_s,
                end_s=img.end_s,
                exit_code=img.exit_code,
                signal=img.signal,
                importtime=(lines or None) if is_python else None,
                importtime_note=note,
            )
        )
    return out
