"""Run `site.main()` under the `site` and `phases` hooks (target `-c pass`)."""

from __future__ import annotations

from typing import Sequence

from profiler.capture.phases import InstrumentedRun, run_instrumented
from profiler.model.target import Target
from profiler.session import Session
from profiler.model.words import TargetKind


def run_site(python: str, flags: Sequence[str] = (), runs: int = 1, *, session: Session) -> list[InstrumentedRun]:
    """`runs` instrumented starts of `python [flags] -c pass` with site; flags must not hold -S."""
    return [
        run_instrumented(python, flags, Target(TargetKind.CODE, "pass"), ("phases", "import_sites", "site"), session=session)
        for _ in range(runs)
    ]
