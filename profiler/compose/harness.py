"""The harness view of a `-- COMMAND` for `startup`: one run of what `importprof imports --
COMMAND` does (the harness capture under strace, each Python process's own import time lines),
so both commands say the same thing about the same command."""

from __future__ import annotations

from profiler.model.target import Target
from profiler.model.warnings import first_clause
from profiler.model.words import Said, WarningKind
from profiler.session import Session


def harness_view(target: Target, session: Session):
    """(HarnessView or None, warnings). None when the command started no Python process that
    wrote import times, or strace cannot run here (a warning says so: timing needs no strace)."""
    from profiler.errors import BadInput, TargetFailed, ToolFailed, ToolMissing
    from profiler.model.harness import HarnessView
    from profiler.workflows.imports import ImportsOptions, add_processes, capture_harness_logs, report_from_logs

    try:
        with session.quiet(warnings=False, notes=False):  # one run, no progress of its own
            logs, facts, walls, unreached = capture_harness_logs(ImportsOptions(target=target, runs=1, warmup=0), session=session)
    except (ToolMissing, ToolFailed, TargetFailed) as exc:
        return None, [Said(f"no per-process summary: {exc.message}", WarningKind.NO_PROCESS_SUMMARY,
                           first_clause(exc.message), "no per-process summary")]
    except BadInput:  # no Python process wrote import time lines: nothing to summarize
        return None, []
    report = add_processes(report_from_logs(logs, machine={}, python=None, python_version=None,
                                            target=target.label(), source="harness"), facts, walls, unreached)
    if not report.per_process or not report.harness:
        return None, []
    return HarnessView(report.harness, tuple(report.per_process), tuple(report.summed)), list(report.warnings)
