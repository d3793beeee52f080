"""`importprof pythons`: every interpreter found (or the ones `--python` names) and what
importprof can do with each; and the commands' edge for `--python` (`given_interpreter`,
`given_interpreters`): each command resolves its `--python` here once, before its workflow
runs, and hands the workflow the Interpreter(s)."""

from __future__ import annotations

from typing import Callable, Sequence

from profiler.model.interpreter import FoundInterpreter, Interpreter, PythonsReport
from profiler.runcontext import RunContext


def given_interpreter(python: str | Interpreter | None, context: RunContext | None = None,
                      feature: str | None = None, *, for_what: str | None = None) -> Interpreter:
    """One `--python` (None: the default python3) → its Interpreter, refused in one line (exit 2)
    when it is missing or lacks `feature`."""
    from profiler.capture.interpreter import interpreter_for

    return interpreter_for(python, feature, for_what=for_what, context=context)


def given_interpreters(pythons: Sequence[str | Interpreter | None] | None, context: RunContext | None = None, *,
                       warn: Callable[[str], None] | None = None) -> tuple[Interpreter, ...]:
    """A repeatable `--python` (none given: the default python3) → its Interpreters, each once."""
    from profiler.capture.interpreter import resolve_pythons

    return tuple(resolve_pythons(list(pythons or []) or [None], warn=warn, context=context))


def pythons(specs: Sequence[str | Interpreter] | None = None, *,
            warn: Callable[[str], None] | None = None, context: RunContext | None = None) -> PythonsReport:
    from profiler.capture.interpreter import discover_all, resolve_pythons

    warnings: list[str] = []

    def note(msg: str) -> None:
        warnings.append(msg)
        if warn:
            warn(msg)

    found = resolve_pythons(specs, warn=note, context=context) if specs else discover_all(warn=note, context=context)
    from profiler.capture.machine import read_machine

    machine = read_machine(0.0, context=context)
    return PythonsReport(tuple(FoundInterpreter.of(i) for i in found), tuple(warnings), machine)
