"""The target grammar's words, shared by the command line (commands/_target.py, which splits
argv before click sees it) and the library facade (profiler/api.py, which takes the target as
a string or a list of words):

    -c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND...     (default: -c pass)

Light on purpose (shlex and profiler.errors): the command modules import it for `--help`.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Sequence

from profiler.errors import UsageError

if TYPE_CHECKING:
    from profiler.model.target import Target

# TargetKind's words (model/words.py; a Target made of them holds the member)
TARGET_OPTS = {"-c": "code", "--code": "code", "-m": "module", "--module": "module"}


def option_name(token: str) -> tuple[str, bool]:
    """`--runs=3` → ("--runs", True); `-r3` → ("-r", True); `-r` → ("-r", False)."""
    if token.startswith("--"):
        name, eq, _ = token.partition("=")
        return name, bool(eq)
    return token[:2], len(token) > 2


def target_option(token: str, after: Sequence[str]) -> tuple[str | None, str | None, int]:
    """`-c CODE` / `-cCODE` / `--code=CODE` (and -m) → (kind, value, tokens used after it)."""
    name, glued = option_name(token)
    kind = TARGET_OPTS.get(name)
    if kind is None:
        return None, None, 0
    if glued:
        return kind, token.split("=", 1)[1] if token.startswith("--") else token[2:], 0
    if not after:
        raise UsageError(f"{token} needs a value ({'CODE' if kind == 'code' else 'MODULE'})")
    return kind, after[0], 1


def target_from_words(words: str | Sequence[str] | None, command_path: str, *, command_targets: bool = True) -> Target | None:
    """A target as a library caller gives it — one command line (`"-m json.tool --help"`, split
    as a shell would) or its words (`["-c", "import json"]`, `["--", "make", "test"]`) — read
    by the command line's grammar with its messages; None: no target (the command's default).
    `--` right after the target passes the rest on as the command line does (`app.py -- --runs`);
    an empty string or list is the empty SCRIPT the command line gets from `''`."""
    from profiler.model.target import Target
    from profiler.model.words import TargetKind

    if words is None:
        return None
    if isinstance(words, str):
        try:
            argv = shlex.split(words)
        except ValueError as exc:
            raise UsageError(f"cannot parse the target {words!r}: {exc}") from None
    else:
        argv = [str(w) for w in words]
    if not argv:
        argv = [""]
    first = argv[0]
    if first == "--":
        rest = argv[1:]
        if not rest:
            raise UsageError("`--` must be followed by the COMMAND to run")
        if not command_targets:
            raise UsageError(f"{command_path} needs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
        return Target(TargetKind.COMMAND, rest[0], tuple(rest[1:]))
    kind, value, used = target_option(first, argv[1:])
    if kind and value is not None:
        args = argv[1 + used:]
    elif first.startswith("-") and first != "-":
        raise UsageError(f"the target {shlex.join(argv)!r} starts with {first}: a target starts with -c, -m, -- or a SCRIPT")
    else:
        kind, value, args = TargetKind.SCRIPT, first, argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    return Target(TargetKind(kind), value, tuple(args))


PYTHON_SPECS = ("pyenv", "asdf", "uv", "system", "venv")


def check_python_word(text: str | None) -> str | None:
    """`--python`'s value before it is resolved: a path, a name or a spec; an empty one (or a
    spec with nothing after its colon, `pyenv:`) is refused instead of meaning the default
    python3 (commands/_options.py: python_value says it as click's bad parameter)."""
    if text is None:
        return text
    word = str(text)
    if not word.strip():
        raise UsageError("needs an interpreter (a path, a name or a spec such as pyenv:3.12), not an empty string")
    kind, colon, rest = word.partition(":")
    if colon and kind in PYTHON_SPECS and not rest.strip():
        raise UsageError(f"{word!r} names no version after the colon (e.g. {kind}:3.12)")
    return word
