"""The `statements` hook's records (raw text) → StatementCost rows (pure)."""

from __future__ import annotations

from profiler.errors import BadInput
from profiler.model.statements import StatementCost


def parse_statements(text: str) -> tuple[list[StatementCost], int]:
    """`module<TAB>file<TAB>line<TAB>ns<TAB>samples` lines and a `#total<TAB>ns` line →
    (rows, total sampled µs). A malformed line is an error that names it."""
    rows: list[StatementCost] = []
    total_ns = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        parts = line.split("\t")
        try:
            if parts[0] == "#total":
                total_ns = int(parts[1])
                continue
            module, file, lineno, ns, samples = parts
            rows.append(StatementCost(module, file, int(lineno), int(ns) // 1000, int(samples)))
        except (ValueError, IndexError):
            raise BadInput(f"statements record {n} is malformed: {line[:120]!r}") from None
    return rows, total_ns // 1000
