"""`importprof bisect`: the first commit that makes a start-up check fail, and what it added
(`importprof.bisect/1`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from profiler.model.document import Record

BISECT_SCHEMA = "importprof.bisect/1"


@dataclass(frozen=True)
class BisectStep(Record):
    """One commit tested: the check's status there and its figures (None where not measured)."""

    commit: str
    subject: str
    status: str  # "pass" | "fail" | "error"
    wall_ms: float | None = None
    import_ms: float | None = None
    instructions: int | None = None
    failing: tuple[str, ...] = ()  # the failing rules' messages (or the error)


@dataclass(frozen=True)
class BisectReport:
    """`importprof.bisect/1`. Its own to_dict: `added` (what first_bad adds over last_good,
    per figure) is a method taking the figure's name, written as an object of the three."""

    SCHEMA = BISECT_SCHEMA

    check: str
    good: str
    bad: str
    first_bad: BisectStep
    last_good: BisectStep
    steps: tuple[BisectStep, ...]  # every commit tested, in the order tested
    commits: int  # commits after --good up to --bad
    appeared: tuple[Mapping[str, Any], ...]  # modules imported at start-up by first_bad and not by last_good
    install: tuple[tuple[str, ...], ...]
    machine: dict

    def added(self, key: str) -> float | None:
        a, b = getattr(self.last_good, key), getattr(self.first_bad, key)
        return None if a is None or b is None else b - a

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "check": self.check,
            "good": self.good,
            "bad": self.bad,
            "commits": self.commits,
            "install": [list(c) for c in self.install],
            "first_bad": self.first_bad.to_dict(),
            "last_good": self.last_good.to_dict(),
            "added": {"wall_ms": self.added("wall_ms"), "import_ms": self.added("import_ms"),
                      "instructions": self.added("instructions")},
            "appeared": [dict(m) for m in self.appeared],
            "steps": [s.to_dict() for s in self.steps],
        }
