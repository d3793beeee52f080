"""`importprof site`: what `site` costs and why (the only place chaining capture → analysis for
this command), and the note `importprof startup` adds when site is expensive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from profiler.errors import UsageError
from profiler.model.run_options import RunOptions
from profiler.model.site import SiteReport
from profiler.session import Session


@dataclass(frozen=True)
class SiteOptions(RunOptions):
    # RunOptions' fields (model/run_options.py): no target (the bare interpreter starts); flags:
    # extra interpreter flags (e.g. -I), -S makes no sense here
    DEFAULTS = {"runs": 3}
    NOT_TAKEN = ("target", "warmup", "ignore_failure", "timeout")


def site(opts: SiteOptions, session: Session) -> SiteReport:
    from profiler.analysis.site import build_site_report
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.machine import read_machine, start_sample
    from profiler.capture.site import run_site
    from profiler.parse.phases import parse_phase_records
    from profiler.parse.site import parse_site_record

    if opts.runs < 1:
        raise UsageError("--runs must be at least 1")
    if "-S" in opts.flags:
        raise UsageError("-S skips site: nothing to measure")
    interp = interpreter_for(opts.python, "site", session=session)
    start_sample(session)  # the machine's load is read over the runs, not waited for after them
    raw = run_site(interp.path, opts.flags, opts.runs, session=session)
    runs = [(parse_site_record(r.site), parse_phase_records(r.phases)) for r in raw]
    machine = read_machine(session=session)
    return build_site_report(runs, machine, interp.path, interp.version)


def startup_site_notes(results: Sequence, session: Session) -> list[str]:
    """For each interpreter where both `default` and `no-site` were measured (same Python
    target), a note when site costs more than 2x a bare start, naming the costliest .pth
    (one instrumented run of site on that interpreter). Never fails the startup command."""
    from profiler.analysis.site import site_startup_note
    from profiler.errors import ImportprofError
    from profiler.model.words import Role

    by_python: dict[str, dict[str, object]] = {}
    for r in results:
        # the target itself, not the baseline / `import X` runs of --import, and measured
        side = r.way.site_side if r.way else None  # default: with site, no-site: without
        if r.python and side and r.role == Role.TARGET and not r.failed:
            by_python.setdefault(r.python, {})[side] = r
    notes = []
    for python, pair in by_python.items():
        if "with" not in pair or "without" not in pair:
            continue
        d, n = pair["with"], pair["without"]
        if site_startup_note(d.mean, n.mean, None) is None:
            continue
        try:
            report = site(SiteOptions(python=python, runs=1), session=session)
        except ImportprofError:
            report = None
        note = site_startup_note(d.mean, n.mean, report)
        if note:
            notes.append(note if len(by_python) == 1 else f"{python}: {note}")
    return notes
