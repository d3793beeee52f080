"""What a command runs: ARCHITECTURE.md's target grammar, as data.

  -c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND...     (default: -c pass)

A Python target becomes `python [variant flags] <target argv>`; a COMMAND target runs as is
(its Python processes are reached through environment variables).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from profiler.model.document import Record
from profiler.model.words import TargetKind


@dataclass(frozen=True)
class Target(Record):
    kind: str  # a TargetKind: code | module | script | command (its word in JSON)
    value: str = "pass"  # the code, module name, script path, or command[0]
    args: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_python(self) -> bool:
        return self.kind != TargetKind.COMMAND

    def python_argv(self) -> list[str]:
        """The arguments after `python [flags]` (only for Python targets)."""
        if self.kind == TargetKind.CODE:
            return ["-c", self.value, *self.args]
        if self.kind == TargetKind.MODULE:
            return ["-m", self.value, *self.args]
        if self.kind == TargetKind.SCRIPT:
            return [self.value, *self.args]
        raise ValueError("a command target has no python argv")

    def command_argv(self) -> list[str]:
        if self.kind != TargetKind.COMMAND:
            raise ValueError("not a command target")
        return [self.value, *self.args]

    def first_path(self, cwd: str) -> str | None:
        """sys.path[0] as python gives this target when run in `cwd`: a script's folder (made
        absolute, symlinks kept), the current directory for -c and -m; None for a command. The
        one place importprof decides it."""
        import os

        if self.kind == TargetKind.SCRIPT:
            return os.path.dirname(os.path.normpath(os.path.join(cwd, self.value)))
        return cwd if self.is_python else None

    def label(self) -> str:
        if self.kind == TargetKind.COMMAND:
            return shlex.join(self.command_argv())
        return shlex.join(self.python_argv())


DEFAULT_TARGET = Target(TargetKind.CODE, "pass")
