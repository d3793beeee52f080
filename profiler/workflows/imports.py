"""`importprof imports`: run a target with -X importtime N times (or read a saved log), parse,
aggregate over runs, optionally group: the only place chaining capture → parse → analysis.

Entry points (also for other features):
  imports(opts, session) -> ImportsReport
  capture_logs(opts, interp, session) -> list[ParsedLog]       (warm-up + runs, parsed)
  report_from_logs(logs, machine=, python=, ...) -> ImportsReport (pure aggregation)
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

from profiler.errors import BadInput, GateFailed, UsageError
from profiler.model.import_tree import ParsedLog
from profiler.model.imports_report import Aggregation, ImportsReport
from profiler.model.run_options import REQUIRED, RunOptions
from profiler.model.words import Group, Headers, TargetKind
from profiler.workflows.targets import check_exit
from profiler.session import Phase, Session

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter
    from profiler.model.log_source import LogSource
    from profiler.model.words import Metric



@dataclass(frozen=True)
class ImportsOptions(RunOptions):
    DEFAULTS = {"target": REQUIRED, "runs": 5, "warmup": 1}  # RunOptions' fields (model/run_options.py)
    NOT_TAKEN = ("timeout",)
    log: LogSource | None = None  # --from-log: a saved log (a file, or stdin's text read by the command)
    headers: Headers = Headers.PROCESSES  # what each header of a --from-log log starts: processes of one run, or runs
    group: Group | None = None  # --group (parsed at the command's edge)
    level: int = 1  # -X importtime=LEVEL (2: 3.14's cached rows)
    # the instrumented runs (profiler/workflows/phases.py) merged into the records
    phases: bool = False  # find_us/read_us/unmarshal_us/exec_us/compiled
    lazy_candidates: bool = False  # lazy_candidate
    sites: bool = False  # site: file:line of the import statement
    statements: bool = False  # statements: each module body's costliest top-level statements (sampled)
    metrics: Sequence[Metric] = ()  # instructions: also count instructions retired (target and bare interpreter)
    instruction_runs: int = 3

    def __post_init__(self) -> None:
        """An ImportsOptions that exists is valid (the command's and the library's alike): each check is one usage error, in this order."""
        super().__post_init__()
        if self.runs < 1:
            raise UsageError("--runs must be at least 1")
        if self.metrics and self.log is not None:
            raise UsageError("--metric instructions runs the target: not with --from-log")
        if self.warmup < 0:
            raise UsageError("--warmup cannot be negative")
        if self.headers != Headers.PROCESSES and self.log is None:
            raise UsageError("--headers reads a saved log: it needs --from-log")
        if self.log is not None and self.group in (Group.KIND, Group.DISTRIBUTION) and not self.python:
            raise UsageError(f"--group {self.group} with --from-log needs --python (to know where modules come from)")
        asked = [name for name, on in (("--phases", self.phases), ("--lazy-candidates", self.lazy_candidates),
                                       ("--statements", self.statements)) if on] or (["import sites"] if self.sites else [])
        if asked and (self.log is not None or not self.target.is_python):
            raise UsageError(f"{' / '.join(asked)} run{'s' if len(asked) == 1 else ''} a Python target (not --from-log, not `-- COMMAND`)")


# what each header line of a --from-log log starts (model/words.py: Headers): a process of the
# one run the log is (a harness's log: its processes may be different programs), or a run of one
# program (a loop's runs saved to one file: medians over them)


def _runs_phase(runs: int, warmup: int) -> str:
    """The measuring phase in words: `10 runs after 1 warm-up`."""
    return f"{runs} run{'s' if runs != 1 else ''}" + (f" after {warmup} warm-up" if warmup else "")


def _counts_instructions(metrics) -> bool:
    from profiler.model.words import Metric

    return Metric.INSTRUCTIONS in metrics


def read_log(source: LogSource) -> str:
    """The whole text of a saved log: stdin's as the command read it, or the file's."""
    if source.path is None:
        if source.text is None:
            raise BadInput("--from-log -: nothing on stdin")
        return source.text
    from profiler.inputs.bounded import read_text

    return read_text(source.path, "log")


def capture_logs(
    opts: ImportsOptions,
    interp: Interpreter | None,
    exits: list[int] | None = None, *, session: Session,
) -> list[ParsedLog]:
    """Warm-up + measured runs of the target, each parsed; a failing target raises
    TargetFailed with the program's own stderr (import rows removed) as detail."""
    from profiler.capture.importtime import capture_importtime
    from profiler.capture.machine import read_machine
    from profiler.parse.importtime import parse_importtime

    total = opts.warmup + opts.runs
    logs: list[ParsedLog] = []
    session.progress(Phase(_runs_phase(opts.runs, opts.warmup)))
    for i in range(total):
        session.progress(Phase("warm-up" if i < opts.warmup else f"run {i - opts.warmup + 1}", done=i, total=total))
        cap = capture_importtime(opts.target, interp, flags=opts.flags, level=opts.level, session=session)
        check_exit(cap.returncode, _program_stderr(cap.stderr), opts.target.label(), ignore_failure=opts.ignore_failure)
        if i + 1 == max(opts.warmup, 1):  # the machine's load, read over the warm-up (no wait)
            read_machine(session=session)
        if i < opts.warmup:
            continue
        if exits is not None:
            exits.append(cap.returncode)
        logs.append(parse_importtime(cap.stderr, source=f"run {len(logs) + 1}"))
    session.progress(Phase(done=total, total=total))
    return logs


def _python_parent(rec, number: dict, by_index: dict) -> int | None:
    """The number (among the kept processes) of `rec`'s nearest ancestor that wrote import
    time lines, None when no ancestor did."""
    j = rec.parent
    while j is not None:
        if j in number:
            return number[j]
        j = by_index[j].parent if j in by_index else None
    return None


def capture_harness_logs(
    opts: ImportsOptions,
    exits: list[int] | None = None, *, session: Session,
) -> tuple[list[ParsedLog], list[list], list[float], list[dict]]:
    """`-- COMMAND`: warm-up + runs under the harness capture (strace -f,
    capture/harness.py), which knows every process the command started and the `import time:`
    lines each Python process wrote itself (even when a harness captures or discards the child's
    stderr). Returns per run: the parsed log (one process per Python process with import rows,
    in exec order), the facts on those processes (analysis.imports_processes.ProcessRun) and the
    command's wall time; and the Python processes of the last run that wrote no import time
    lines, with why (`-E`/`-I`, an environment without PYTHONPROFILEIMPORTTIME...): they are
    counted and named, never silently dropped. A command that exits non-zero raises TargetFailed."""
    from profiler.analysis.imports_processes import ProcessRun
    from profiler.capture.harness import capture_processes
    from profiler.capture.importtime import importtime_argv
    from profiler.capture.machine import read_machine
    from profiler.model.import_tree import ParsedLog as Log
    from profiler.parse.importtime import parse_importtime

    argv = importtime_argv(opts.target, None)
    total = opts.warmup + opts.runs
    logs: list[ParsedLog] = []
    facts: list[list] = []
    walls: list[float] = []
    unreached: list[dict] = []
    session.progress(Phase(_runs_phase(opts.runs, opts.warmup)))
    for i in range(total):
        session.progress(Phase("warm-up" if i < opts.warmup else f"run {i - opts.warmup + 1}", done=i, total=total))
        cap = capture_processes(argv, importtime=True, session=session)
        check_exit(cap.returncode, _program_stderr(cap.stderr), opts.target.label(), ignore_failure=opts.ignore_failure)
        if i + 1 == max(opts.warmup, 1):  # the machine's load, read over the warm-up (no wait)
            read_machine(session=session)
        if i < opts.warmup:
            continue
        if exits is not None:
            exits.append(cap.returncode)
        run_no = len(logs) + 1
        procs, kept, warnings = [], [], []
        unreached = [{"index": rec.index, "argv": list(rec.argv), "reason": rec.importtime_note or "wrote no import time lines"}
                     for rec in cap.processes if rec.is_python and not rec.importtime]
        for rec in cap.processes:
            if not rec.is_python or not rec.importtime:
                continue
            try:
                one = parse_importtime(rec.importtime_text, source=f"run {run_no}: process {rec.index}")
            except BadInput as exc:  # unreadable lines (or a header and no rows): named, never dropped silently
                unreached.append({"index": rec.index, "argv": list(rec.argv), "reason": f"its import time lines: {exc.message}"})
                continue
            procs.extend(one.processes)
            warnings.extend(one.warnings)
            kept.extend([rec] * len(one.processes))
        if not procs:
            why = "; ".join(sorted({u["reason"] for u in unreached}))
            raise BadInput(f"no Python process of `{opts.target.label()}` wrote import time lines" + (f" ({why})" if why else ""))
        number = {rec.index: k for k, rec in enumerate(kept)}
        by_index = {rec.index: rec for rec in cap.processes}
        facts.append([ProcessRun(rec.argv, rec.executable, _python_parent(rec, number, by_index), rec.wall_s) for rec in kept])
        logs.append(Log(tuple(procs), (), tuple(warnings)))
        walls.append(cap.wall_s)
    session.progress(Phase(done=total, total=total))
    return logs, facts, walls, unreached


def add_processes(report: ImportsReport, facts: Sequence[Sequence] = (), walls: Sequence[float] = (),
                  unreached: Sequence[dict] = ()) -> ImportsReport:
    """per_process and summed for a report of several Python processes (and the harness
    headline when the command's wall times are known; it counts the Python processes that
    wrote no import times too, with why, and a warning says so)."""
    from collections import Counter

    from profiler.analysis.imports_processes import harness_headline, sum_modules, summarize_processes
    from profiler.analysis.statistics import median

    per = summarize_processes(report.modules, report.runs, report.processes, facts)
    wall = None
    if walls:
        wall = median(walls)
    headline = None
    warnings = report.warnings
    if facts:
        headline = replace(harness_headline(per, wall), capture="strace", python_processes_total=len(per) + len(unreached),
                           unreached=tuple(dict(u) for u in unreached))
        if unreached:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(Counter(u["reason"] for u in unreached).items()))
            warnings = (*warnings, f"{len(unreached)} of {len(per) + len(unreached)} Python processes wrote no import "
                                   f"times and are not in the figures: {reasons}")
    return replace(report, per_process=per, summed=sum_modules(report.modules), harness=headline, warnings=warnings)


def import_outcomes(opts: ImportsOptions, interp: Interpreter | None, session: Session) -> list[tuple[str, bool]]:
    """(name, failed) per import of one run of a Python target under the `phases` hook, in
    start order. `-X importtime` prints a failed import (`nt`, `winreg`, a module not
    installed, a module whose body raised) exactly like a loaded one, so failures are read from
    importlib itself: the hook sees `_find_and_load` raise. Used as the first warm-up run (one
    extra run when --warmup 0). Empty when the hook wrote nothing."""
    from profiler.capture.phases import run_instrumented
    from profiler.parse.phases import parse_phase_records

    assert interp is not None
    run = run_instrumented(interp.path, opts.flags, opts.target, ("phases",), ignore_failure=True, split=False, session=session)
    return [(m.name, m.failed) for m in sorted(parse_phase_records(run.phases), key=lambda m: m.index)]


def _program_stderr(stderr: str, lines: int = 10) -> str:
    from profiler.parse.importtime import MARK

    own = [ln for ln in stderr.splitlines() if MARK not in ln]
    return "\n".join(own[-lines:])


def report_from_logs(logs: Sequence[ParsedLog], **envelope) -> ImportsReport:
    """The report of parsed logs (one per run); `envelope`: _report's keywords (machine,
    python, python_version, target, source)."""
    from profiler.analysis.imports_aggregate import aggregate_logs

    return _report(aggregate_logs(logs), **envelope)


def aggregate_log(source: LogSource, headers: Headers = Headers.PROCESSES) -> Aggregation:
    """A saved log (a file, or the text read from stdin) aggregated as one run (`headers`
    "processes": each header starts a process of it) or as a run per header ("runs": a loop's
    runs of one program, aggregate_run_stream): the Aggregation aggregate_logs would give,
    folded process by process as the log is read
    (aggregate_process_stream): a file is read 256 KiB at a time and its text is never held
    whole. A clean log (header lines and rows only: what -X importtime writes when the program
    prints nothing to stderr) is read the fast way; any other (the program's own output in it,
    a cut last line, 3.14 cached rows) is read again, the careful way. A pipe is read once,
    whole (it cannot be read again)."""
    from profiler.analysis.imports_aggregate import aggregate_process_stream, aggregate_run_stream
    from profiler.inputs.bounded import is_regular_file, read_text_chunks
    from profiler.parse.importtime import NotClean, iter_clean_processes, iter_log_processes

    name, path = source.name, source.path
    text = None
    if path is None or not is_regular_file(path):
        text = read_log(source)

    def pieces():
        return (text,) if text is not None else read_text_chunks(path, "log")

    def fold(processes, warnings=()):
        if headers == Headers.RUNS:
            return aggregate_run_stream(processes, warnings)
        return aggregate_process_stream(processes, warnings)

    with _collector_paused():
        clean = pieces()
        try:
            return fold(iter_clean_processes(clean))
        except NotClean:
            if text is None:
                clean.close()  # the file, read again below
        warnings: list[str] = []
        return fold(iter_log_processes(pieces(), name, warnings), warnings)


@contextmanager
def _collector_paused():
    """The cyclic garbage collector paused while a log's records are made: they hold no cycles,
    and the collections their numbers trigger (each walking every record made so far) cost a
    third of the fold of a 1,000-process log."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _report(
    aggregated: Aggregation,
    *,
    machine: dict,
    python: str | None,
    python_version: str | None,
    target: str | None,
    source: str,
) -> ImportsReport:
    return ImportsReport(
        machine=machine,
        python=python,
        python_version=python_version,
        runs=aggregated.runs,
        modules=aggregated.modules,
        cached=aggregated.cached,
        total_us=aggregated.total_us,
        total_us_runs=aggregated.total_us_runs,
        processes=aggregated.processes,
        target=target,
        source=source,
        warnings=aggregated.warnings,
    )


def add_groups(report: ImportsReport, group: str, interp: Interpreter | None, cwd: str | None = None, extra_path: str | None = None, *, session: Session) -> ImportsReport:
    from profiler.analysis.imports_marks import annotate_modules
    from profiler.analysis.imports_views import extra_of, group_modules, package_of, unless_failed

    if group == Group.PACKAGE:
        return replace(report, group_by=group, groups=group_modules(report.modules, unless_failed(package_of)))
    if interp is None:
        raise UsageError(f"--group {group} needs --python (to know where modules come from)")
    from profiler.capture.importtime import probe_module_origins

    facts = probe_module_origins(interp, [m.name for m in report.modules], extra_path=extra_path, cwd=cwd, session=session)
    modules = annotate_modules(report.modules, facts)
    return replace(report, modules=modules, group_by=group, groups=group_modules(modules, unless_failed(extra_of(group))))


def imports(opts: ImportsOptions, *, session: Session) -> ImportsReport:
    from profiler.capture.machine import read_machine, start_sample

    interp: Interpreter | None = None
    outcomes: list[tuple[str, bool]] | None = None
    facts: list[list] = []
    walls: list[float] = []
    unreached: list[dict] = []
    exits: list[int] = []  # the measured runs' exit codes (non-zero only with --ignore-failure)
    if opts.log is not None:
        if opts.python:  # (a saved log read alone resolves no interpreter, nor imports the resolver)
            from profiler.capture.interpreter import interpreter_for

            interp = interpreter_for(opts.python, session=session)
        aggregated = aggregate_log(opts.log, opts.headers)
        source, target = "log", None
    else:
        start_sample(session)  # the CPU share other work used, read over the warm-up
        if opts.target.is_python or opts.python:
            from profiler.capture.interpreter import interpreter_for

            # one line for an interpreter without -X importtime (2.7, 3.6)
            interp = interpreter_for(opts.python, "imports" if opts.target.is_python else None, session=session)
        outcomes = None
        if opts.target.is_python and opts.warmup >= 1:  # the first warm-up run tells failed imports
            outcomes = import_outcomes(opts, interp, session=session)
            logs = capture_logs(replace(opts, warmup=opts.warmup - 1), interp, exits, session=session)
        elif opts.target.is_python:
            logs = capture_logs(opts, interp, exits, session=session)
            outcomes = import_outcomes(opts, interp, session=session)
        else:
            from profiler.errors import ToolFailed, ToolMissing

            try:
                logs, facts, walls, unreached = capture_harness_logs(opts, exits, session=session)
            except (ToolMissing, ToolFailed) as exc:  # no strace, or ptrace denied: stderr only
                from profiler.model.warnings import first_clause
                from profiler.model.words import Said, WarningKind

                session.warn(Said(f"{exc}; reading the command's stderr instead (no argv, parent or wall time per process, "
                                  "and children whose stderr is captured or discarded are missed)", WarningKind.STDERR_INSTEAD,
                                  first_clause(str(exc))))
                exits.clear()
                logs = capture_logs(opts, interp, exits, session=session)
        source, target = "capture", opts.target.label()
    machine = read_machine(0.0, session=session) if opts.log is not None else read_machine(session=session)  # a saved log times nothing
    if opts.log is None:
        from profiler.analysis.imports_aggregate import aggregate_logs

        aggregated = aggregate_logs(logs)
        del logs  # the parsed rows: the report holds what is kept
    report = _report(
        aggregated,
        machine=machine,
        python=interp.path if interp else None,
        python_version=interp.version if interp else None,
        target=target,
        source=source,
    )
    del aggregated
    if report.processes > 1 or facts:
        report = add_processes(report, facts, walls, unreached)
    if any(exits):
        from profiler.workflows.targets import exits_note

        report = replace(report, warnings=(*report.warnings, exits_note(exits)))
        session.warn(exits_note(exits))
    if outcomes:
        from profiler.analysis.imports_marks import mark_failed

        report = replace(report, modules=mark_failed(report.modules, outcomes))
    if opts.group:
        extra_path = opts.target.first_path(os.getcwd()) if opts.target.kind == TargetKind.SCRIPT else None
        report = add_groups(report, opts.group, interp, extra_path=extra_path, session=session)
    if opts.metrics and _counts_instructions(opts.metrics):
        report = replace(report, instructions=count_instructions_of(opts, interp, session=session))
    if opts.phases or opts.lazy_candidates or opts.sites:  # the instrumented runs
        from profiler.workflows.phases import annotate_report

        report = annotate_report(
            report, opts.target, opts.python, opts.flags, phases=opts.phases, lazy=opts.lazy_candidates,
            sites=opts.sites, runs=min(opts.runs, 3), ignore_failure=opts.ignore_failure, session=session,
        )
    if opts.statements:  # sampled runs: the top-level statements that cost each module's self time
        from profiler.analysis.statements import annotate_statements
        from profiler.workflows.statements import statement_costs

        session.progress(Phase("sampling module bodies"))
        costs = statement_costs(opts.target, opts.python, opts.flags, runs=min(opts.runs, 3), ignore_failure=opts.ignore_failure, session=session)
        report = annotate_statements(report, costs)
    return report


def count_instructions_of(opts: ImportsOptions, interp: Interpreter | None, session: Session) -> dict:
    """--metric instructions: the target and the bare interpreter with the same flags
    (`python [flags] -c pass`), each counted `instruction_runs` times, interleaved; the
    difference is what the program adds to a bare start (its imports first)."""
    from profiler.analysis.statistics import median
    from profiler.capture.instructions import measure_instructions, pick_method
    from profiler.model.check import variation_pct
    from profiler.model.measurement import CommandSpec

    method = pick_method(session=session)
    if opts.target.is_python:
        assert interp is not None
        specs = [CommandSpec(argv=(interp.path, *opts.flags, *opts.target.python_argv()), variant="default", key="target"),
                 CommandSpec(argv=(interp.path, *opts.flags, "-c", "pass"), variant="default", key="bare")]
    else:
        from profiler.capture.importtime import importtime_argv

        specs = [CommandSpec(argv=tuple(importtime_argv(opts.target, None)), variant="command", key="target")]
    counts = measure_instructions(specs, max(1, opts.instruction_runs), session=session)
    target = int(median(counts["target"]))
    bare = int(median(counts["bare"])) if "bare" in counts else None
    return {
        "method": method,
        "target": target,
        "target_runs": counts["target"],
        "variation_pct": variation_pct(counts["target"]),
        "bare": bare,
        "bare_runs": counts.get("bare", []),
        "bare_variation_pct": variation_pct(counts.get("bare", [])),
        "difference": None if bare is None else target - bare,
    }


def check_budget(report: ImportsReport, budget_ms: float | None) -> None:
    """--budget MS: exit 1 when the total import time (Σ roots' cumulative, median) is over."""
    if budget_ms is None:
        return
    if report.total_us > budget_ms * 1000:
        raise GateFailed(f"total import time {report.total_us / 1000:.1f} ms is over the budget of {budget_ms:g} ms")


def load_report(path: str) -> ImportsReport:
    """A saved `importprof.imports/1` JSON (for show, diff, why --report), validated against
    schemas/imports.json as it is read a line at a time (inputs.read_imports_report)."""
    from profiler.inputs.saved_imports import read_imports_report

    return read_imports_report(path, "report")
