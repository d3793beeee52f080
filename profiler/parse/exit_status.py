"""How a Python program ended, read from its exit code and the tail of its stderr (pure).

`--ignore-failure` measures a program that exits non-zero on purpose (a red test suite, a
linter that found something). It never measures a program whose own code did not run, because
nothing of the program was timed: Python could not open the script, found no such module, could
not compile the code (a SyntaxError has no traceback line), the program died by a signal, or it
ended in an uncaught traceback. `ran_on_purpose` is the one test every command uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Python's own messages when the program never started (2.7 to 3.15), from the last lines
_NOT_STARTED = (
    (re.compile(r"^(SyntaxError|IndentationError|TabError): "), "it does not compile"),
    (re.compile(r": can't open file "), "Python could not open the script"),
    (re.compile(r": No module named |: Error while finding module specification for "), "no such module"),
    (re.compile(r"is a package and cannot be directly executed"), "the package has no __main__"),
    (re.compile(r"^Fatal Python error: "), "Python could not start"),
)


@dataclass(frozen=True)
class Ending:
    exit_code: int
    ran_on_purpose: bool  # exited non-zero by the program's own choice: --ignore-failure applies
    why: str  # when not: what happened instead ("" for a plain non-zero exit)


def read_ending(exit_code: int, stderr_tail: str) -> Ending:
    """`exit_code` (negative: the signal) and the last lines of stderr → an Ending."""
    if exit_code == 0:
        return Ending(0, True, "")
    if exit_code < 0:
        return Ending(exit_code, False, f"killed by signal {-exit_code}")
    lines = [ln.rstrip() for ln in stderr_tail.splitlines() if ln.strip()]
    if any(ln.startswith("Traceback (most recent call last)") for ln in lines):
        return Ending(exit_code, False, "it ended in a traceback")
    for ln in lines[-3:]:
        for pattern, why in _NOT_STARTED:
            if pattern.search(ln):
                return Ending(exit_code, False, why)
    return Ending(exit_code, True, "")
