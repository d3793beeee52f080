"""Before anything runs: a target that cannot run at all is one line, the same in every
command — a SCRIPT that is no file (often a program name: say how to run it), a `-- COMMAND`
the kernel would refuse (missing, a directory, not executable, not a program)."""

from __future__ import annotations

import os
import shlex

from profiler.errors import TargetFailed, UsageError
from profiler.model.target import Target


def check_target(target: Target, command_path: str = "importprof") -> None:
    if target.kind == "script" and not os.path.isfile(target.value):
        import shutil

        what = "is a folder, not a script" if os.path.isdir(target.value) else "no such script"
        hints = []
        if shutil.which(target.value):
            hints.append(f"a program on PATH: `{command_path} -- {shlex.join([target.value, *target.args])}`")
        if target.value.replace(".", "").replace("_", "").isalnum() and not target.value.endswith(".py"):
            hints.append(f"a module: `{command_path} -m {shlex.join([target.value, *target.args])}`")
        raise UsageError(f"{what}: {target.value}" + (f" (to run {' ; '.join(hints)})" if hints else ""))
    if target.kind == "command":
        from profiler.capture.process import exec_problem

        problem = exec_problem(target.value)
        if problem is not None:
            raise TargetFailed(f"cannot run {target.value}: {problem}")
