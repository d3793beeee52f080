"""What a `-- COMMAND` that starts many Python processes (a test harness) cost in start-up:
the summary `imports`, `trace` and `startup` print above their tables. Built by
`analysis/harness.py` from the harness capture (`model/process.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HarnessProcess:
    """One Python process of the command (JSON: the `per_process` records)."""

    index: int  # the ProcessRecord index (exec order)
    argv: tuple[str, ...]  # whole
    python: str  # the executable run
    parent: int | None  # index of the process that started it (None: the command itself)
    wall_s: float | None  # exec to exit
    imports_us: int | None  # Σ of its top-level imports' cumulative times (-X importtime); None: not reachable
    note: str | None = None  # why imports_us is None

    def to_dict(self) -> dict:
        return {"index": self.index, "argv": list(self.argv), "python": self.python, "parent": self.parent,
                "wall_s": self.wall_s, "imports_us": self.imports_us, "note": self.note}

    @classmethod
    def from_dict(cls, d: dict) -> "HarnessProcess":
        return cls(int(d["index"]), tuple(d["argv"]), d["python"], d.get("parent"), d.get("wall_s"),
                   d.get("imports_us"), d.get("note"))


@dataclass(frozen=True)
class HarnessSummary:
    """The headline: N Python processes, Σ their import time, its share of the command's wall."""

    processes: int  # every process the command started (Python or not)
    python_processes: int
    imports_us: int  # Σ imports_us over the Python processes that could be reached
    python_wall_s: float  # Σ exec-to-exit wall of the Python processes
    command_wall_s: float | None  # the whole command, start to finish
    unreached: int  # Python processes whose import times could not be read (-E/-I...)
    per_process: tuple[HarnessProcess, ...]

    @property
    def share(self) -> float | None:
        """Σ import time / the command's wall time (processes that overlap can exceed 1)."""
        if not self.command_wall_s:
            return None
        return self.imports_us / 1e6 / self.command_wall_s

    def to_dict(self) -> dict:
        return {"processes": self.processes, "python_processes": self.python_processes,
                "imports_us": self.imports_us, "python_wall_s": self.python_wall_s,
                "command_wall_s": self.command_wall_s, "share": self.share, "unreached": self.unreached,
                "per_process": [p.to_dict() for p in self.per_process]}

    @classmethod
    def from_dict(cls, d: dict) -> "HarnessSummary":
        return cls(int(d["processes"]), int(d["python_processes"]), int(d["imports_us"]), float(d["python_wall_s"]),
                   d.get("command_wall_s"), int(d.get("unreached", 0)),
                   tuple(HarnessProcess.from_dict(p) for p in d.get("per_process") or ()))
