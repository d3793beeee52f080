"""`importprof why MODULE`: the import chain(s) from the entry point to MODULE, each hop with
its cost, from a fresh capture or a saved report.

  why(opts, progress=, warn=) -> WhyReport
  why_from_report(report, module) -> WhyReport     (pure)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from profiler.errors import GateFailed, UsageError
from profiler.model.import_tree import ImportsReport, WhyReport
from profiler.model.target import Target


@dataclass
class WhyOptions:
    module: str
    target: Target
    python: str | None = None
    report: str | None = None  # a saved importprof.imports/1 JSON
    from_log: str | None = None
    log_text: str | None = None
    runs: int = 1
    warmup: int = 0
    read_machine: bool = True


def why_from_report(report: ImportsReport, module: str) -> WhyReport:
    from profiler.analysis.imports import import_chains

    return WhyReport(
        module=module,
        chains=import_chains(report, module),
        machine=report.machine,
        python=report.python,
        python_version=report.python_version,
        runs=report.runs,
        target=report.target,
        cached_in=tuple(sorted({c.process for c in report.cached if c.name == module})),
    )


def why(
    opts: WhyOptions,
    progress: Callable[[int, int, str], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> WhyReport:
    from profiler.workflows.imports import ImportsOptions, imports, load_report

    if not opts.module or any(c.isspace() for c in opts.module):
        raise UsageError(f"not a module name: {opts.module!r}")
    if opts.report is not None:
        report = load_report(opts.report)
    else:
        report = imports(
            ImportsOptions(
                target=opts.target,
                python=opts.python,
                runs=opts.runs,
                warmup=opts.warmup,
                from_log=opts.from_log,
                log_text=opts.log_text,
                read_machine=opts.read_machine,
                sites=opts.from_log is None and opts.target.is_python,  # issue 6: file:line of each hop's import
            ),
            progress=progress,
            warn=warn,
        )
    answer = why_from_report(report, opts.module)
    if not answer.chains:
        where = report.target or "the log"
        raise GateFailed(f"{opts.module} is not imported by {where}")
    return answer
