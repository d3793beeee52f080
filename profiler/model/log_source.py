"""A saved log a user hands over (`--from-log FILE`, `--from-log -`), decided once where the
command reads its options: a file, named by its path (read by the workflow, a piece at a time),
or standard input, whose text the command has read. No `LogSource`: the command runs its target
and captures its own log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class LogSource:
    path: str | None = None  # a file (or a pipe, `<(cmd)`), never "-"
    text: str | None = None  # standard input's text, read by the command

    @classmethod
    def of(cls, spec: str | None, read_stdin: Callable[[], str]) -> LogSource | None:
        """`--from-log`'s value: None → None, `-` → stdin's text (read now, by `read_stdin`),
        anything else → that path."""
        if spec is None:
            return None
        return cls(text=read_stdin()) if spec == "-" else cls(path=spec)

    @property
    def name(self) -> str:
        """What messages and the report's source call it: `stdin` or the path."""
        return "stdin" if self.path is None else self.path
