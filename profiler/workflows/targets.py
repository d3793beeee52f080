"""Before anything runs: a target that cannot run at all is one line, the same in every
command — a SCRIPT that is no file (often a program name: say how to run it), a `-- COMMAND`
the kernel would refuse (missing, a directory, not executable, not a program)."""

from __future__ import annotations

import os
import shlex

from profiler.errors import TargetFailed, UsageError
from profiler.model.target import Target
from profiler.model.words import Said, TargetKind, WarningKind


def check_target(target: Target, command_path: str = "importprof") -> None:
    if target.kind == TargetKind.SCRIPT and not os.path.isfile(target.value):
        import shutil

        if os.path.isdir(target.value):
            what = "is a folder, not a script"
        elif os.path.exists(target.value):  # /dev/null, a FIFO: there, but not a file python runs
            what = "not a regular file, so not a script"
        else:
            what = "no such script"
        hints = []
        if shutil.which(target.value):
            hints.append(f"a program on PATH: `{command_path} -- {shlex.join([target.value, *target.args])}`")
        if target.value.replace(".", "").replace("_", "").isalnum() and not target.value.endswith(".py"):
            hints.append(f"a module: `{command_path} -m {shlex.join([target.value, *target.args])}`")
        raise UsageError(f"{what}: {target.value}" + (f" (to run {' ; '.join(hints)})" if hints else ""))
    if target.kind == TargetKind.SCRIPT and target.value.endswith(".json"):
        kind = saved_document_kind(target.value)
        if kind is not None:  # `why decimal report.json`: a saved report taken for the program
            reads = {"why": "why MODULE --report FILE", "report": "report --from FILE"}.get(
                command_path.rsplit(" ", 1)[-1], "show FILE, diff OLD NEW, why MODULE --report FILE, report --from FILE")
            raise UsageError(f"{target.value} is a saved importprof document ({kind}), not a Python script"
                             f" to run (importprof {reads} reads it)")
    if target.kind == TargetKind.COMMAND:
        from profiler.capture.process import exec_problem

        problem = exec_problem(target.value)
        if problem is not None:
            raise TargetFailed(f"cannot run {target.value}: {problem}")


def document_kind_in(head: bytes) -> str | None:
    """The schema a JSON document written by importprof names in its first bytes
    (`{"schema": "importprof.imports/1", ...}`: importprof writes the key first), else None."""
    import re

    found = re.match(rb'\s*\{\s*"schema"\s*:\s*"(importprof\.[a-z_]+/[0-9]+)"', head)
    return found.group(1).decode() if found else None


def saved_document_kind(path: str) -> str | None:
    """document_kind_in of a regular file's first bytes; None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return document_kind_in(f.read(256))
    except OSError:
        return None


def split_command_line(option: str, text: str) -> list[str]:
    """A command line an option gave, split as a shell would split it (no shell runs it); one
    that does not split (an open quote) is a usage error naming the option. May be empty."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"{option} {text!r}: {exc}") from None


def command_lines(option: str, texts) -> list[list[str]]:
    """Each command line an option gave, split_command_line's way; an empty one is a usage
    error naming the option."""
    out = []
    for text in texts:
        argv = split_command_line(option, text)
        if not argv:
            raise UsageError(f"{option}: an empty command")
        out.append(argv)
    return out


_PYTHON_NAME = r"(python|pypy)(\d+(\.\d+)?)?[a-z]?(-dbg)?"


def shebang_python(text: bytes) -> tuple[str, tuple[str, ...]] | None:
    """The interpreter a script's first line names, with the flags it gives, or None when the
    script names no Python. Understands `#!/abs/python3.12 [-flags]`, `#!/usr/bin/env
    [-S] python3.12 [-flags]` (a name looked up on PATH) and pip's launcher for paths too long
    or too odd for a `#!` line (`#!/bin/sh` then `'''exec' "/abs/python" "$0" "$@"`)."""
    import re

    lines = text.split(b"\n", 3)
    first = lines[0].rstrip(b"\r").decode("utf-8", "replace")
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if os.path.basename(words[0]) in ("sh", "bash") and len(lines) > 1:
        m = re.match(r"""'''exec' (?:"([^"]+)"|(\S+)) "\$0" "\$@"$""", lines[1].rstrip(b"\r").decode("utf-8", "replace"))
        path = m and (m.group(1) or m.group(2))
        if path and re.fullmatch(_PYTHON_NAME, os.path.basename(path)):
            return path, ()
        return None
    if os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if w not in ("-S", "--split-string")]
        if not words or words[0].startswith("-"):
            return None
    if not re.fullmatch(_PYTHON_NAME, os.path.basename(words[0])):
        return None
    return words[0], tuple(words[1:])


def script_python(target: Target, overrides: str = "--python",
                  flags_by: str | None = "--flags") -> tuple[str | None, str] | None:
    """For a SCRIPT run with no --python: the interpreter its `#!` line names (a venv's console
    script names the venv's python) and why, as one sentence; None when the script names no
    Python or the default (`env python3`); (None, why) when it names one that is not there
    (the default runs, as the sentence says). `overrides` and `flags_by` name what the calling
    command offers instead (`check` has a `python` key and no --flags)."""
    import shutil

    if target.kind != TargetKind.SCRIPT:
        return None
    import stat

    try:  # O_NONBLOCK: a FIFO must not make open() wait for a writer (check_target refuses it)
        fd = os.open(target.value, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, 1024)
    except OSError:
        return None
    finally:
        os.close(fd)
    found = shebang_python(head)
    if found is None:
        return None
    name, flags = found
    from profiler.capture.interpreter import DEFAULT_PYTHON

    if name == DEFAULT_PYTHON:
        return None  # the default already
    path = name if os.path.isabs(name) else shutil.which(name)
    if path is None or not os.access(path, os.X_OK):
        return None, f"{target.value}'s #! line names {name}, which is not there: running it on the default python3"
    why = f"running {target.value} on {path}, the interpreter its #! line names ({overrides} overrides)"
    if flags:
        why += f"; its flags {' '.join(flags)} are not applied" + (f" (give them with {flags_by})" if flags_by else "")
    return path, why


def check_exit(returncode: int, stderr_tail: str, label: str, *, ignore_failure: bool, how: str = "") -> Said | None:
    """One rule for every command that runs a target: exit 0 passes; a non-zero exit the
    program chose passes with --ignore-failure; a program that never ran its own code (a
    SyntaxError, no such module or script, a traceback, a signal) fails even with it. `label`:
    the target as the user named it (Target.label()).
    TargetFailed says which (`ignorable` when the flag would have measured it). `how`: the
    circumstance, e.g. " under strace". Returns the note a report keeps among its warnings when
    the exit was ignored (the exit code, recorded and shown), else None."""
    from profiler.parse.exit_status import read_ending

    if returncode == 0:
        return None
    ending = read_ending(returncode, stderr_tail)
    if ending.ran_on_purpose and ignore_failure:
        return exits_note([returncode])
    why = ending.why if ending.why and returncode > 0 else ""
    if how:  # "the target failed under strace (exit code 4; it does not compile)"
        what = f"killed by signal {-returncode}" if returncode < 0 else f"exit code {returncode}"
        message = f"the target failed{how} ({what}{'; ' + why if why else ''})"
    else:  # "the target exited with code 1 (no such module)"
        what = f"killed by signal {-returncode}" if returncode < 0 else f"exited with code {returncode}"
        message = f"the target {what}{f' ({why})' if why else ''}"
    raise TargetFailed(f"{message}: {label}", detail=stderr_tail.strip() or None,
                       ignorable=ending.ran_on_purpose)


def exits_note(codes, who: str = "") -> Said:
    """The warning a report keeps when --ignore-failure measured non-zero exits: which codes,
    in how many of the runs (the exit codes, recorded and shown); `who`: the variant, among
    several."""
    failed = [c for c in codes if c]
    shown = ", ".join(str(c) for c in sorted(set(failed)))
    where = "the target" if len(codes) == 1 else f"{len(failed)} of {len(codes)} runs"
    gist = f"{where} exited with code {shown}"
    return Said(f"{who + ': ' if who else ''}{gist} (measured anyway: --ignore-failure)", WarningKind.EXITS_IGNORED, gist, who)


def watched_files(target: Target) -> list[str]:
    """The existing files a target names in its arguments: what a program like black rewrites.
    Each variant's run starts from their original contents, and what it leaves in them is
    compared with what traditional left."""
    out = []
    for arg in target.args:
        if arg.startswith("-") or "\0" in arg:
            continue
        path = os.path.abspath(arg)
        if os.path.isfile(path) and path not in out:
            out.append(path)
    return out
