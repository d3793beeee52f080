"""The harness summary of a `-- COMMAND`: one traced run (capture/harness.py) → each Python
process's import time lines parsed → the summary (analysis/harness.py). Shared by `startup`
(`imports` and `trace` build theirs from the captures they already make)."""

from __future__ import annotations

from typing import Sequence


def logs_of(capture) -> tuple[dict, list[str]]:
    """Each Python process's parsed `import time:` lines by process index; warnings for the
    processes whose lines could not be read."""
    from profiler.errors import BadInput
    from profiler.parse.importtime import parse_importtime

    logs, warnings = {}, []
    for rec in capture.processes:
        if rec.is_python and rec.importtime:
            try:
                logs[rec.index] = parse_importtime(rec.importtime_text, source=f"process {rec.index}")
            except BadInput as exc:
                warnings.append(f"process {rec.index} ({rec.executable}): its import times are unreadable: {exc}")
    return logs, warnings


def harness_summary(argv: Sequence[str]):
    """(HarnessSummary or None, warnings). None when the command started no Python process or
    strace cannot run here (a warning says so: the timing itself does not need it)."""
    from profiler.analysis.harness import summarize_harness
    from profiler.capture.harness import capture_processes
    from profiler.errors import ToolFailed, ToolMissing

    try:
        capture = capture_processes(list(argv))
    except (ToolMissing, ToolFailed) as exc:
        return None, [f"no per-process summary: {exc}"]
    logs, warnings = logs_of(capture)
    summary = summarize_harness(capture, logs)
    if summary.python_processes == 0:
        return None, warnings
    if summary.unreached:
        warnings.append(f"{summary.unreached} Python process(es) ignore PYTHON* variables (-E/-I): their import times are not counted")
    return summary, warnings
