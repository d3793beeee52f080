"""`importprof pythons`: every interpreter found (or the ones `--python` names: the specs as
given, each resolved here, a failure said beside the others) and what importprof can do with
each. The other commands resolve their `--python` at their edge (commands/_options.py:
interpreter_given, interpreters_given) and hand their workflow the Interpreter(s)."""

from __future__ import annotations

from typing import Sequence

from profiler.model.interpreter import FoundInterpreter, PythonsReport
from profiler.session import Session


def pythons(specs: Sequence[str] | None = None, *,
            session: Session) -> PythonsReport:
    from profiler.capture.interpreter import discover_all, resolve_pythons

    warnings: list[str] = []

    def note(msg: str) -> None:
        warnings.append(msg)
        session.warn(msg)

    found = resolve_pythons(specs, warn=note, session=session) if specs else discover_all(warn=note, session=session)
    from profiler.capture.machine import read_machine

    machine = read_machine(0.0, session=session)
    return PythonsReport(tuple(FoundInterpreter.of(i) for i in found), tuple(warnings), machine)
