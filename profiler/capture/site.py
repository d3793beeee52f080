"""Run `site.main()` under the `site` and `phases` hooks (target `-c pass`)."""

from __future__ import annotations

from typing import Sequence

from profiler.capture.phases import InstrumentedRun, run_instrumented
from profiler.model.target import Target


def run_site(python: str, flags: Sequence[str] = (), runs: int = 1) -> list[InstrumentedRun]:
    """`runs` instrumented starts of `python [flags] -c pass` with site; flags must not hold -S."""
    return [
        run_instrumented(python, flags, Target("code", "pass"), ("phases", "import_sites", "site"))
        for _ in range(runs)
    ]
