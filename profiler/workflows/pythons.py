"""`importprof pythons`: every interpreter found (or the ones `--python` names) and what
importprof can do with each."""

from __future__ import annotations

from typing import Callable, Sequence

from profiler.model.interpreter import FoundInterpreter, PythonsReport


def pythons(specs: Sequence[str] | None = None, *,
            warn: Callable[[str], None] | None = None) -> PythonsReport:
    from profiler.capture.interpreter import discover_all, resolve_pythons

    warnings: list[str] = []

    def note(msg: str) -> None:
        warnings.append(msg)
        if warn:
            warn(msg)

    found = resolve_pythons(specs, warn=note) if specs else discover_all(warn=note)
    from profiler.capture.machine import read_machine

    machine = read_machine(0.0)
    return PythonsReport(tuple(FoundInterpreter.of(i) for i in found), tuple(warnings), machine)
