"""What the strace parser's test modules share (test_strace_parse.py, test_strace_native.py,
test_strace_pieces.py): the real logs captured here (tests/fixtures/strace/README.md), the
quick lane's two of them, and a log's clock moved (past midnight)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import lane

LOGS = ("multiproc", "truncated", "markers-json-csv", "parallel", "importtime-json-csv", "parallel-importtime")
# the quick lane (make test-fast) reads two of them: one with markers' truncation, one of -X importtime
QUICK_LOGS = lane(LOGS, ("truncated", "importtime-json-csv"))


def read_logs(fixtures: Path) -> dict[str, str]:
    """{name: text} of every log in LOGS (each test module's `logs` fixture, read once a module)."""
    return {name: (fixtures / "strace" / f"{name}.log").read_text() for name in LOGS}


def shift_clock(text: str, seconds: float) -> str:
    """The same log with every -tt time moved by `seconds` (wrapping at midnight)."""

    def move(m) -> str:
        t = (int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4)) + seconds) % 86400
        return "%s%02d:%02d:%09.6f" % (m.group(1), t // 3600, t % 3600 // 60, t % 60)

    return re.sub(r"(?m)^(\d+ +)(\d+):(\d\d):(\d\d\.\d+)", move, text)
