"""`importprof bisect`: the first commit that makes a start-up check fail, and what it added
(`importprof.bisect/1`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from profiler.model.document import Document, Record, derived

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
class BisectReport(Document):
    """`importprof.bisect/1`. `added` (what first_bad adds over last_good, per figure) is a
    method taking the figure's name; the document writes the three as an object."""

    SCHEMA = BISECT_SCHEMA
    DERIVED = (derived("added_figures", key="added", after="last_good"),)

    machine: dict[str, Any]
    check: str
    good: str
    bad: str
    commits: int  # commits after --good up to --bad
    install: tuple[tuple[str, ...], ...]
    first_bad: BisectStep
    last_good: BisectStep
    appeared: tuple[Mapping[str, Any], ...]  # modules imported at start-up by first_bad and not by last_good
    steps: tuple[BisectStep, ...]  # every commit tested, in the order tested

    def added(self, key: str) -> float | None:
        a, b = getattr(self.last_good, key), getattr(self.first_bad, key)
        return None if a is None or b is None else b - a

    @property
    def added_figures(self) -> dict[str, float | None]:
        return {k: self.added(k) for k in ("wall_ms", "import_ms", "instructions")}
