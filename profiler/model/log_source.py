"""A saved log a user hands over (`--from-log FILE`, `--from-log -`), decided once where the
command reads its options: a file, named by its path (read by the workflow, a piece at a time),
or standard input: its text read by the command, or (`stdin`, for a reader that takes a log a
piece at a time: `trace`) left for the workflow to read a piece at a time. No `LogSource`: the
command runs its target and captures its own log."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LogSource:
    path: str | None = None  # a file (or a pipe, `<(cmd)`), never "-"
    text: str | None = None  # standard input's text, read by the command
    stdin: bool = False  # standard input, not read yet: the workflow reads it a piece at a time

    @classmethod
    def of(cls, spec: str | None, pieces: bool = False) -> LogSource | None:
        """`--from-log`'s value, for the commands and the library facade alike: None → None, `-`
        → stdin's text, read now (within the input limit: inputs/bounded.py), or with `pieces`
        left unread for the workflow to read a piece at a time; anything else → that path."""
        if spec is None:
            return None
        if spec != "-":
            return cls(path=spec)
        if pieces:
            return cls(stdin=True)
        from profiler.inputs.bounded import read_stdin

        return cls(text=read_stdin("log"))

    @property
    def name(self) -> str:
        """What messages and the report's source call it: `stdin` or the path."""
        return "stdin" if self.path is None else self.path
