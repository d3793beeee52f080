"""`importprof doctor`: every start-up pathology found, priced, costliest first
(`importprof.doctor/1`).

  findings: [{kind, title, where, cost_us, fix}]   (+ `estimate`: true when cost_us is not a
            measured saving but an estimate, `measured_by`: the measurement it comes from)
Additions: per finding `estimated_us` (the saving doctor predicts from its measurements, never more
than the measured whole start-up), `measured_us` (with --verify: the start-up the fix saved,
applied in a scratch overlay and timed side by side with the program as is; null when not
verified), `verify` (how it was verified, or why not), `measured_spread_us` (the spread of that
difference: both timings' standard deviations combined; a saving below it is noise);
`verified` on the report (--verify ran), `verify_startup_s` (the program as is in the
verification's timed run, which the measured savings are differences within).
Kinds: no-pyc, pth-import, failed-lookups, lazy, in-memory, site, frozen-off. Findings may
overlap (site's total includes its .pth files' imports): they are not meant to be summed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from profiler.model.document import Document, Record

SCHEMA = "importprof.doctor/1"
KINDS = ("no-pyc", "pth-import", "failed-lookups", "lazy", "in-memory", "site", "frozen-off", "module-work")


@dataclass(frozen=True)
class Finding(Record):
    DERIVED = ("estimated_us",)

    kind: str
    title: str
    where: str  # file:line, a path, a module list, or the target
    cost_us: int  # µs of start-up it costs (measured, unless `estimate`)
    fix: str
    estimate: bool = False
    measured_by: str = ""  # e.g. "imports --phases", "site", "trace", "lazy"
    measured_us: int | None = None  # --verify: start-up saved by the fix, timed (None: not verified)
    verify: str = ""  # --verify: what was timed (with and without the fix), or why it was not
    # --verify: the spread of measured_us (the two timings' standard deviations combined, µs): a
    # saving smaller than it is noise, not a measured gain or loss (None: not timed here)
    measured_spread_us: int | None = None

    @property
    def measured_noise(self) -> bool:
        """The measured saving is within its spread: the timings cannot tell it from zero."""
        return (self.measured_us is not None and self.measured_spread_us is not None
                and abs(self.measured_us) < self.measured_spread_us)

    @property
    def estimated_us(self) -> int:
        """The saving predicted before anything is changed (cost_us: the same figure)."""
        return self.cost_us


@dataclass(frozen=True)
class Check(Record):
    """One kind of check: ran (with how many findings) or skipped, and why."""

    kind: str
    ran: bool
    note: str = ""


@dataclass(frozen=True)
class DoctorReport(Document):
    SCHEMA = SCHEMA

    findings: tuple[Finding, ...]  # costliest first
    machine: dict[str, Any] = field(default_factory=dict)
    python: str | None = None
    python_version: str | None = None
    target: str = ""
    startup_s: float | None = None  # the target's mean start-up as is (for scale), when measured
    checks: tuple[Check, ...] = ()
    warnings: tuple[str, ...] = ()
    verified: bool = False  # --verify: each fix applied in a scratch overlay and timed
    # --verify: the target's mean start-up as is in the verification's own timed run (the
    # measured savings are differences within that run; startup_s is the first, separate run)
    verify_startup_s: float | None = None
