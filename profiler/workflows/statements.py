"""Import-time work inside module bodies: which top-level statements of a module cost its
self time (httpie.ssl_ builds an SSL context at import), sampled in runs of the target under
the `statements` hook (profiler/bootstrap/hook_statements.py).

  statement_costs(target, python, flags, runs=3, ignore_failure=False) -> list[StatementCost]
(analysis/statements.py: annotate_statements puts each module's costliest in its record)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from profiler.model.statements import MIN_SAMPLES, StatementCost
from profiler.model.target import Target
from profiler.session import Session


def statement_costs(target: Target, python: str | None, flags: Sequence[str] = (), runs: int = 3,
                    ignore_failure: bool = False, *, session: Session) -> list[StatementCost]:
    from profiler.analysis.statements import merge_statement_runs
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.phases import run_instrumented
    from profiler.parse.statements import parse_statements

    interp = interpreter_for(python, "hooks", for_what="--statements", session=session)
    sampled = []
    for _ in range(max(1, runs)):
        run = run_instrumented(interp.path, flags, target, ("statements",), ignore_failure=ignore_failure, session=session)
        sampled.append(parse_statements(run.statements)[0])
    return [replace(r, statement=_source_line(r.file, r.line)) if r.samples >= MIN_SAMPLES else r
            for r in merge_statement_runs(sampled)]


def _source_line(path: str, line: int) -> str | None:
    """The statement's first line, stripped (None when the file cannot be read: frozen, zip)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    return text.strip()[:200] or None
    except OSError:
        return None
    return None
