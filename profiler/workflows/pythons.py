"""`importprof pythons`: every interpreter found (or the ones `--python` names: the specs as
given, each resolved here, a failure said beside the others) and what importprof can do with
each. The other commands resolve their `--python` at their edge (commands/_options.py:
interpreter_given, interpreters_given) and hand their workflow the Interpreter(s)."""

from __future__ import annotations

from typing import Callable, Sequence

from profiler.model.interpreter import FoundInterpreter, PythonsReport
from profiler.runcontext import RunContext


def pythons(specs: Sequence[str] | None = None, *,
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
