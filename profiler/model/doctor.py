"""`importprof doctor`: every start-up pathology found, priced, costliest first
(`importprof.doctor/1`).

  findings: [{kind, title, where, cost_us, fix}]   (+ `estimate`: true when cost_us is not a
            measured saving but an estimate, `measured_by`: the measurement it comes from)
Additions: per finding `estimated_us` (the saving doctor predicts from its measurements, never more
than the measured whole start-up), `measured_us` (with --verify: the start-up the fix saved,
applied in a scratch overlay and timed side by side with the program as is; null when not
verified), `verify` (how it was verified, or why not); `verified` on the report (--verify ran).
Kinds: no-pyc, pth-import, failed-lookups, lazy, in-memory, site, frozen-off. Findings may
overlap (site's total includes its .pth files' imports): they are not meant to be summed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SCHEMA = "importprof.doctor/1"
KINDS = ("no-pyc", "pth-import", "failed-lookups", "lazy", "in-memory", "site", "frozen-off", "module-work")


@dataclass(frozen=True)
class Finding:
    kind: str
    title: str
    where: str  # file:line, a path, a module list, or the target
    cost_us: int  # µs of start-up it costs (measured, unless `estimate`)
    fix: str
    estimate: bool = False
    measured_by: str = ""  # e.g. "imports --phases", "site", "trace", "lazy"
    measured_us: int | None = None  # --verify: start-up saved by the fix, timed (None: not verified)
    verify: str = ""  # --verify: what was timed (with and without the fix), or why it was not

    @property
    def estimated_us(self) -> int:
        """The saving predicted before anything is changed (cost_us: the same figure)."""
        return self.cost_us

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "title": self.title,
            "where": self.where,
            "cost_us": self.cost_us,
            "fix": self.fix,
            "estimate": self.estimate,
            "measured_by": self.measured_by,
            "estimated_us": self.estimated_us,
            "measured_us": self.measured_us,
            "verify": self.verify,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Finding":
        return cls(
            kind=str(d["kind"]),
            title=str(d["title"]),
            where=str(d["where"]),
            cost_us=int(d["cost_us"]),
            fix=str(d["fix"]),
            estimate=bool(d.get("estimate", False)),
            measured_by=str(d.get("measured_by") or ""),
            measured_us=None if d.get("measured_us") is None else int(d["measured_us"]),
            verify=str(d.get("verify") or ""),
        )


@dataclass(frozen=True)
class Check:
    """One kind of check: ran (with how many findings) or skipped, and why."""

    kind: str
    ran: bool
    note: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "ran": self.ran, "note": self.note}


@dataclass(frozen=True)
class DoctorReport:
    SCHEMA = SCHEMA

    findings: tuple[Finding, ...]  # costliest first
    machine: dict = field(default_factory=dict)
    python: str | None = None
    python_version: str | None = None
    target: str = ""
    startup_s: float | None = None  # the target's mean start-up as is (for scale), when measured
    checks: tuple[Check, ...] = ()
    warnings: tuple[str, ...] = ()
    verified: bool = False  # --verify: each fix applied in a scratch overlay and timed

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "python": self.python,
            "python_version": self.python_version,
            "target": self.target,
            "startup_s": self.startup_s,
            "findings": [f.to_dict() for f in self.findings],
            "checks": [c.to_dict() for c in self.checks],
            "warnings": list(self.warnings),
            "verified": self.verified,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "DoctorReport":
        if d.get("schema") != SCHEMA:
            raise ValueError(f"not an {SCHEMA} document (schema={d.get('schema')!r})")
        return cls(
            findings=tuple(Finding.from_dict(f) for f in d["findings"]),
            machine=d.get("machine") or {},
            python=d.get("python"),
            python_version=d.get("python_version"),
            target=d.get("target") or "",
            startup_s=d.get("startup_s"),
            checks=tuple(Check(str(c["kind"]), bool(c["ran"]), str(c.get("note") or "")) for c in d.get("checks") or ()),
            warnings=tuple(d.get("warnings") or ()),
            verified=bool(d.get("verified", False)),
        )
