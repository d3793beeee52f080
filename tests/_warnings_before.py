"""How model/warnings.py read a warning said as plain words before every warning importprof says
was typed where it is said (issue 43 item 2), kept frozen here as the tests' reference: the
typed warnings must give the fields (subject, figures, summary label; the kind where the text
named one) this reading gave their text, so the summary line stays byte for byte."""

from __future__ import annotations

import re

from profiler.model.words import WarningKind

_KINDS = {"the first run was much slower than the rest": WarningKind.FIRST_RUN_SLOWER,
          "N statistical outlier(s) among N runs": WarningKind.OUTLIERS,
          "the spread is too wide to trust": WarningKind.WIDE_SPREAD,
          "N of N runs exited non-zero": WarningKind.NON_ZERO_EXITS,
          "the machine is busy": WarningKind.BUSY,
          "N GiB of N GiB available": WarningKind.LOW_MEMORY,
          "no C compiler to build the measuring spawner": WarningKind.NO_SPAWNER}


def read_as_before(text: str) -> tuple[WarningKind | None, str, str, str]:
    """(kind, subject, figures, label) as the text heuristics read `text`."""
    gist = _gist(text)
    label = _as_n(gist) or text
    subject, kind = _subject(text), _KINDS.get(label)
    if kind is None and subject and gist == f"{subject} failed":
        kind = WarningKind.FAILED
    elif kind is None and gist.startswith("the reference ") and gist.endswith(" failed"):
        kind, subject = WarningKind.REFERENCE_FAILED, gist[len("the reference "):-len(" failed")]
    return kind, subject, gist, label


def _as_n(text: str) -> str:
    return re.sub(r"\d+(\.\d+)?", "N", text).strip()


def _who(message: str) -> tuple[str, str, bool]:
    head, sep, rest = message.partition(": ")
    who = bool(sep and len(head) <= 60 and "(" not in head and not head.startswith(("the ", "a ", "an "))
               and (len(head.split()) <= 3 or " @ " in head or " · " in head))
    return head, rest, who


def _subject(message: str) -> str:
    head, _rest, who = _who(message)
    return head if who else ""


def _gist(message: str) -> str:
    head, rest, who = _who(message)
    text = rest if who else message
    text = re.split(r" \(|: |; ", text)[0]
    if who and text.startswith("failed"):
        text = f"{head} failed"
    return text.strip() or message
