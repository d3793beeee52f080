"""A warning as one value: what it says (its kind), whose it is (its subject), its words as
stderr and the documents show them (text) and its own figures (what the summary line shows for a
kind said once). The session (profiler/session.py) says each once and the commands sum the held
ones up by kind after the output (commands/_common.flush_warnings).

Each warning importprof says is given its kind, whose it is and its figures where it is said
(model/words.py: Said, WarningKind; `RunWarning.said`): nothing here reads them back from its
words. A plain string (the imports log's notes, tests/conftest.py STILL_PLAIN, or a library
caller's own `session.warn("...")`) is read from its words once, as every warning was before
(`of`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from profiler.model.words import WarningKind


@dataclass(frozen=True)
class RunWarning:
    """`kind`: a WarningKind (None: the kind is `label`, read from the text); `subject`: whose
    it is (`default @ 3.12.1`, "" when the warning is about the run as a whole); `text`: the
    whole line; `figures`: its first clause with its own figures (`3 statistical outlier(s)
    among 10 runs`); `label`: the words the summary line counts it under (figures as N)."""

    kind: WarningKind | None
    subject: str
    text: str
    figures: str
    label: str

    @classmethod
    def of(cls, message: RunWarning | str) -> RunWarning:
        """The warning a message is: itself, a Said's fields, or a plain string of no kind."""
        if isinstance(message, RunWarning):
            return message
        kind = getattr(message, "kind", None)
        if kind is not None:
            return cls.said(str.__str__(message), kind, getattr(message, "gist", ""), getattr(message, "who", ""))
        text = str.__str__(message) if isinstance(message, str) else str(message)
        return _read_untyped(cls, text)

    @classmethod
    def said(cls, text: str, kind: WarningKind, figures: str, subject: str = "") -> RunWarning:
        """A warning of a known kind, counted under its figures with their numbers as N (a kind
        said once is shown with its figures as they are: commands/_common.flush_warnings)."""
        return cls(kind, subject, text, figures, _as_n(figures) or text)

    def __str__(self) -> str:
        return self.text


_CLAUSE_END = re.compile(r" \(|: |; ")  # where a warning's first clause ends (first_clause, _gist)


def first_clause(message: str) -> str:
    """The figures of a warning that quotes an error's message (`no per-process summary: strace
    not found (apt install strace)`): the message up to its first parenthesis, colon or
    semicolon (`strace not found`). Given by the place that says the warning, for the error it
    quotes; never applied to a warning's own words."""
    return _CLAUSE_END.split(message)[0].strip() or message


def _read_untyped(cls: type[RunWarning], text: str) -> RunWarning:
    """A plain string read as the text heuristics read one before every warning was typed: kept
    while the modules in tests/conftest.py STILL_PLAIN say plain words (issue 43 item 2); a
    library caller's string reads the same way. tests/test_warnings_typed.py CASES hold what it
    reads from each place's words."""
    gist = _gist(text)
    label = _as_n(gist) or text
    subject, kind = _subject(text), _KINDS.get(label)
    if kind is None and subject and gist == f"{subject} failed":
        kind = WarningKind.FAILED
    elif kind is None and gist.startswith("the reference ") and gist.endswith(" failed"):
        kind, subject = WarningKind.REFERENCE_FAILED, gist[len("the reference "):-len(" failed")]
    return cls(kind, subject, text, gist, label)


_KINDS = {k.value: k for k in WarningKind if "{" not in k.value}  # (_read_untyped) words of a kind


def _as_n(text: str) -> str:
    return re.sub(r"\d+(\.\d+)?", "N", text).strip()


def _who(message: str) -> tuple[str, str, bool]:
    head, sep, rest = message.partition(": ")
    # `default @ 3.12.1: ...`, `isolated: ...`, `run 2: ...` name whose it is; `these documents
    # measure different targets: ...` is the warning itself
    who = bool(sep and len(head) <= 60 and "(" not in head and not head.startswith(("the ", "a ", "an "))
               and (len(head.split()) <= 3 or " @ " in head or " · " in head))
    return head, rest, who


def _subject(message: str) -> str:
    head, _rest, who = _who(message)
    return head if who else ""


def _gist(message: str) -> str:
    """A warning's first clause, without whose it is: `default @ 3.12.1: the spread is too wide
    to trust (stddev 63% ...)` → `the spread is too wide to trust`."""
    head, rest, who = _who(message)
    text = rest if who else message
    text = _CLAUSE_END.split(text)[0]
    if who and text.startswith("failed"):
        text = f"{head} failed"  # which one failed is the news
    return text.strip() or message
