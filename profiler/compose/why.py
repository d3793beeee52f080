"""`importprof why MODULE`: the import chain(s) from the entry point to MODULE, each hop with
its cost, from a fresh capture or a saved report.

  why(opts, session) -> WhyReport
  why_from_report(report, module) -> WhyReport     (pure)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from profiler.errors import GateFailed, UsageError
from profiler.model.imports_report import ImportsReport
from profiler.model.why_report import WhyReport
from profiler.model.run_options import REQUIRED, RunOptions
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.model.log_source import LogSource


@dataclass(frozen=True)
class WhyOptions(RunOptions):
    DEFAULTS = {"target": REQUIRED, "runs": 1, "warmup": 0, "module": REQUIRED}  # RunOptions' fields (model/run_options.py)
    NOT_TAKEN = ("flags", "timeout")
    module: str | None = None  # the module asked about (REQUIRED)
    report: str | None = None  # a saved importprof.imports/1 JSON
    log: LogSource | None = None  # --from-log (model/log_source.py)
    all: bool = False  # every importer's chain (an instrumented run sees imports of loaded modules)
    statements: bool = False  # MODULE's costliest top-level statements (sampled runs)


def why_from_report(report: ImportsReport, module: str, importers: Sequence[str] | None = None,
                    chains: tuple | None = None) -> WhyReport:
    """`importers` (why --all): every module with an import statement of MODULE. `chains`: the
    report's import_chains of MODULE when they were found as it was read (its modules not kept)."""
    from profiler.analysis.imports_chains import every_import_chain, import_chains

    if chains is None:
        chains = import_chains(report, module) if importers is None else every_import_chain(report, module, importers)
    return WhyReport(
        module=module,
        chains=chains,
        importers=None if importers is None else tuple(dict.fromkeys(importers)),
        machine=report.machine,
        python=report.python,
        python_version=report.python_version,
        runs=report.runs,
        target=report.target,
        cached_in=tuple(sorted({c.process for c in report.cached if c.name == module})),
    )


def why(opts: WhyOptions, *, session: Session) -> WhyReport:
    from profiler.workflows.imports import ImportsOptions, imports

    if not opts.module or any(c.isspace() for c in opts.module):
        raise UsageError(f"not a module name: {opts.module!r}")
    if opts.all and (opts.report is not None or opts.log is not None or not opts.target.is_python):
        raise UsageError("--all needs a run of a Python target: a log or a report holds only the import that loaded the module")
    chains = None
    if opts.report is not None:
        report, chains = _saved_report_chains(opts.report, opts.module)
    else:
        report = imports(
            ImportsOptions(
                target=opts.target,
                python=opts.python,
                runs=opts.runs,
                warmup=opts.warmup,
                log=opts.log,
                sites=opts.log is None and opts.target.is_python,  # the import sites: file:line of each hop's import
                ignore_failure=opts.ignore_failure,
                statements=opts.statements,
            ),
            session=session,
        )
    importers = None
    if opts.all:
        importers = importers_of(opts, opts.module, session=session)
    answer = why_from_report(report, opts.module, importers, chains)
    if not answer.chains:
        where = report.target or "the log"
        raise GateFailed(f"{opts.module} is not imported by {where}")
    if opts.statements:
        from dataclasses import replace

        record = next((m for m in report.modules if m.name == opts.module and m.statements_sampled_us), None)
        rows = record.statements if record is not None else ()
        body = record.statements_sampled_us if record is not None else 0
        # the share of the body's sampled time, and that share of the module's measured self
        answer = replace(answer, statements=tuple({**s, "of_body_pct": round(100 * s["self_us"] / body, 1),
                                                   "estimated_us": round(s["self_us"] / body * record.self_us)}
                                                  for s in rows) if rows else ())
    return answer


def _saved_report_chains(path: str, module: str) -> tuple[ImportsReport, tuple | None]:
    """`why --report FILE`: the saved report, and MODULE's import chains found a process at a
    time as it is read (analysis.imports_chains.ChainsByProcess: its rows never all held, so the
    memory of a thousand processes is about that of one); (the report read whole, None) when the
    file is not laid out as importprof writes it or a process comes in more than one place."""
    from profiler.analysis.imports_chains import ChainsByProcess
    from profiler.inputs.saved_imports import stream_imports_report
    from profiler.workflows.imports import load_report

    by_process = ChainsByProcess(module)
    report = stream_imports_report(path, by_process.add, "report")
    if report is None or by_process.repeated:
        return load_report(path), None
    return report, by_process.chains()


def importers_of(opts: WhyOptions, module: str, session: Session) -> list[str]:
    """Every module of the target with an import statement of MODULE (in the order first seen),
    from one run under the phases hook recording builtins.__import__ (cached imports too)."""
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.phases import run_instrumented

    interp = interpreter_for(opts.python, "why", session=session)
    run = run_instrumented(interp.path, (), opts.target, ("phases",), importers=True, ignore_failure=opts.ignore_failure, session=session)
    out = []
    for line in run.importers.splitlines():
        importer, _, name = line.partition(" ")
        if name == module and importer:
            out.append(importer)
    return out
