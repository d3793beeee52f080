"""Import-time work inside module bodies: a top-level statement of a module and what it cost
(sampled by the `statements` hook; see profiler/bootstrap/hook_statements.py)."""

from __future__ import annotations

from dataclasses import dataclass

from profiler.model.document import Record


@dataclass(frozen=True)
class StatementCost(Record):
    DERIVED = ("site",)

    module: str  # the module whose body holds the statement (`__main__` for the program)
    file: str
    line: int
    self_us: int  # sampled time with this statement the innermost module-level line running, per run
    samples: int  # samples that saw it (over all runs): below MIN_SAMPLES a figure is noise
    statement: str | None = None  # the source line, when it could be read

    @property
    def site(self) -> str:
        return f"{self.file}:{self.line}"


MIN_SAMPLES = 3
