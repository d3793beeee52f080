"""`importprof check [NAME...]`: the start-up checks a project declares in its pyproject.toml
(`[tool.importprof.checks.NAME]`), each measured and judged; `--update-baseline` writes the
figures measured now as each check's baseline.

  check(opts, session) -> CheckReport
  load_checks(path) -> tuple[CheckSpec, ...]
  exit_code(report) -> int   (0 all pass, 1 a check failed, 2/3 a check could not run)

Targets run in the current directory, as with every command; a check's `baseline` path is
relative to the folder of the file that declares it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from profiler.errors import EXIT_FAILED, EXIT_GATE, EXIT_OK, BadInput, ImportprofError, UsageError
from profiler.model.check import CheckReport, CheckResult, CheckSpec
from profiler.model.words import Said, WarningKind
from profiler.session import Phase, Session

DEFAULT_CONFIG = "pyproject.toml"


@dataclass(frozen=True)
class CheckOptions:
    names: Sequence[str] = ()
    config: str | None = None  # default: ./pyproject.toml
    update_baseline: bool = False
    min_ms: float | None = None  # new imports of at least this (ms) against the baseline fail


def config_path(config: str | None) -> str:
    path = config or os.path.join(os.getcwd(), DEFAULT_CONFIG)
    if config is None and not os.path.exists(path):
        raise BadInput(f"no {DEFAULT_CONFIG} in {os.getcwd()} (run in the project's folder, or give --config FILE)")
    return path


def load_checks(path: str) -> tuple[CheckSpec, ...]:
    from profiler.inputs.bounded import read_text
    from profiler.parse.checks import parse_checks

    return parse_checks(read_text(path, "config"), path)


def select(specs: Sequence[CheckSpec], names: Sequence[str], path: str) -> list[CheckSpec]:
    if not specs:
        raise BadInput(f"{path} declares no check ([tool.importprof.checks.NAME] tables)")
    by_name = {s.name: s for s in specs}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UsageError(f"no check named {unknown[0]!r} in {path} (declared: {', '.join(by_name)})")
    return [by_name[n] for n in dict.fromkeys(names)] if names else list(specs)


def baseline_path(spec: CheckSpec) -> str | None:
    if spec.baseline is None:
        return None
    return os.path.join(os.path.dirname(os.path.abspath(spec.source)), spec.baseline)


def load_baseline(spec: CheckSpec) -> CheckResult | None:
    """The check's saved result, or None when the file does not exist yet."""
    path = baseline_path(spec)
    if path is None or not os.path.exists(path):
        return None
    from profiler.inputs.documents import read_document

    doc = read_document(path, ["check"], "baseline")
    try:
        report = CheckReport.from_dict(doc)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"{path}: not a valid importprof.check/1 baseline ({exc})") from None
    for r in report.results:
        if r.name == spec.name:
            return r
    if len(report.results) == 1:
        return report.results[0]
    raise BadInput(f"{path}: holds no result of the check {spec.name!r}")


def declared_lazy_of(spec: CheckSpec) -> tuple[str, ...]:
    """Every module the check's lazy_sources declare lazy (`__lazy_modules__`, `lazy import`)."""
    from profiler.analysis.checks import declared_lazy
    from profiler.analysis.lazy_edit import SourceError

    root = os.path.dirname(os.path.abspath(spec.source))
    files: list[str] = []
    for rel in spec.lazy_sources:
        path = os.path.join(root, rel)
        if os.path.isdir(path):
            # regular files only: a FIFO named *.py would make the read below wait forever
            files += sorted(p for d, _, fs in os.walk(path) for f in fs
                            if f.endswith(".py") and os.path.isfile(p := os.path.join(d, f)))
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise BadInput(f"{spec.source}: [tool.importprof.checks.{spec.name}] lazy_sources: no such file or folder: {rel}")
    out: list[str] = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                source = fh.read()
        except OSError as exc:
            raise BadInput(f"{f}: cannot read ({exc.strerror})") from None
        package = _package_of(f)
        try:
            out += declared_lazy(source, f, package)
        except SourceError as exc:
            raise BadInput(f"{f}: {exc}") from None
    return tuple(dict.fromkeys(out))


def _package_of(path: str) -> str | None:
    """The dotted package a file belongs to (its folders up to the first without __init__.py),
    for relative imports; an __init__.py is its package itself."""
    parts: list[str] = []
    d = os.path.dirname(os.path.abspath(path))
    while os.path.exists(os.path.join(d, "__init__.py")):
        parts.insert(0, os.path.basename(d))
        d = os.path.dirname(d)
    return ".".join(parts) or None


def measure_check(spec: CheckSpec, progress: Callable[[str], None] | None = None, *, session: Session):
    """(Figures, ImportsReport, wall runs in ms, instruction counts, method, interpreter) of one check."""
    from profiler.analysis.checks import Figures
    from profiler.analysis.statistics import median
    from profiler.model.target import Target
    from profiler.parse.checks import target_parts
    from profiler.workflows.imports import ImportsOptions, imports
    from profiler.workflows.plan import plan_runs
    from profiler.compose.startup import StartupOptions, startup

    target = Target(*target_parts(spec.target))
    from profiler.workflows.targets import check_target

    check_target(target)  # a SCRIPT that is no regular file (a FIFO would be waited on until --timeout): one line
    interp = None
    if target.is_python or spec.python:
        from profiler.capture.interpreter import interpreter_for

        interp = interpreter_for(spec.python, session=session)
    if progress:
        progress("imports")
    with session.quiet():  # the check's own steps are its progress; its findings say the rest
        report = imports(ImportsOptions(target=target, python=interp, runs=spec.runs, warmup=1), session=session)
    if progress:
        progress("wall time")
    with session.quiet():
        timed = startup(StartupOptions(target=target, pythons=[interp], variants=["default"] if target.is_python else [],
                                       runs=spec.runs, warmup=1), session=session)
    result = timed.results[0]
    wall_runs = tuple(t * 1000 for t in result.times)
    counts: tuple[int, ...] = ()
    method = None
    if spec.wants_instructions:
        from profiler.capture.instructions import measure_instructions, pick_method

        method = pick_method(session=session)
        cmd = plan_runs(target, [interp] if interp else [], ["default"]).specs[0]
        if progress:
            progress("instructions")
        counts = tuple(measure_instructions([cmd], spec.instruction_runs, session=session)[cmd.key])
    figures = Figures(
        wall_ms=median(wall_runs) if wall_runs else None,
        import_ms=report.total_us / 1000 if report is not None else None,
        instructions=int(median(counts)) if counts else None,
        python_version=interp.version if interp else None,
    )
    return figures, report, wall_runs, counts, method, interp


def with_script_python(spec: CheckSpec, note: Callable[[str], None] | None = None) -> CheckSpec:
    """A check whose target is a SCRIPT and that names no `python` runs where the script's `#!`
    line says (a venv's console script on that venv's python), as every command does with a
    SCRIPT and no --python; `note` is told which and why."""
    if spec.python:
        return spec
    from profiler.model.target import Target
    from profiler.parse.checks import target_parts
    from profiler.workflows.targets import script_python

    try:
        target = Target(*target_parts(spec.target))
    except ImportprofError:
        return spec  # a malformed target: measuring it says how
    # a check has no --python or --flags: its `python` key names the interpreter
    found = script_python(target, overrides="the check's `python` key", flags_by=None)
    if found is None:
        return spec
    path, why = found
    if note:
        note(f"{spec.name}: {why}")
    return replace(spec, python=path) if path is not None else spec


def run_check(spec: CheckSpec, *, update_baseline: bool = False, min_ms: float | None = None,
              progress: Callable[[str], None] | None = None, session: Session,
              note: Callable[[str], None] | None = None) -> CheckResult:
    """One check, measured and judged; a check that cannot run is a result with status
    "error" (and the exit code it would have had on its own), never an exception."""
    from profiler.analysis.checks import judge_check, startup_modules, status_of

    start = time.monotonic()
    try:
        spec = with_script_python(spec, note)
        if spec.lazy_sources:
            spec = replace(spec, stay_lazy=tuple(dict.fromkeys((*spec.stay_lazy, *declared_lazy_of(spec)))))
        baseline = None if update_baseline else load_baseline(spec)
        figures, report, walls, counts, method, interp = measure_check(spec, progress, session=session)
    except ImportprofError as exc:
        if exc.exit_code == 130:
            raise
        detail = f" | {exc.detail.splitlines()[-1]}" if exc.detail else ""
        return CheckResult(name=spec.name, status="error", target=spec.target, python=spec.python, baseline=spec.baseline,
                           error=exc.message + detail, duration_s=time.monotonic() - start, exit_code=exc.exit_code)
    missing = not update_baseline and baseline is None and spec.baseline is not None
    findings = judge_check(spec, figures, report, baseline, min_ms=min_ms, baseline_missing=missing)
    return CheckResult(
        name=spec.name,
        status=status_of(findings),
        target=spec.target,
        python=interp.path if interp else None,
        python_version=figures.python_version,
        wall_ms=figures.wall_ms,
        wall_ms_runs=walls,
        import_ms=figures.import_ms,
        instructions=figures.instructions,
        instructions_runs=counts,
        instructions_method=method,
        findings=findings,
        modules=startup_modules(report) if report is not None else (),
        baseline=spec.baseline,
        duration_s=time.monotonic() - start,
    )


def check(opts: CheckOptions, *, session: Session) -> CheckReport:
    from profiler.capture.machine import read_machine, start_sample

    path = config_path(opts.config)
    specs = select(load_checks(path), opts.names, path)
    start_sample(session)  # the machine's load is read over the checks' runs, not waited for
    if opts.min_ms is not None and opts.min_ms < 0:
        raise UsageError("--min-ms cannot be negative")
    results = []
    for i, spec in enumerate(specs):
        def step(what: str, i=i, spec=spec) -> None:
            session.progress(Phase(spec.name, what, i, len(specs)))

        results.append(run_check(spec, update_baseline=opts.update_baseline, min_ms=opts.min_ms, progress=step, session=session,
                                 note=session.info))
    session.progress(Phase(done=len(specs), total=len(specs)))
    written: list[str] = []
    if opts.update_baseline:
        written = write_baselines(specs, results, read_machine(session=session), session.warn)
    return CheckReport(results=tuple(results), machine=read_machine(session=session), config=path, updated_baselines=tuple(written))


def write_baselines(specs: Sequence[CheckSpec], results: Sequence[CheckResult], machine: dict,
                    warn: Callable[[str], None] | None) -> list[str]:
    """Each measured check with a `baseline` file gets its result written there (atomically)."""
    import json

    from profiler.sinks import write_atomic

    written = []
    for spec, result in zip(specs, results):
        path = baseline_path(spec)
        if path is None:
            if warn:
                warn(Said(f"{spec.name}: no 'baseline' file declared, nothing to update", WarningKind.NO_BASELINE_FILE,
                          WarningKind.NO_BASELINE_FILE.value, spec.name))
            continue
        if result.status == "error":
            if warn:
                warn(Said(f"{spec.name}: could not run, its baseline is left as it was", WarningKind.BASELINE_NOT_RUN,
                          WarningKind.BASELINE_NOT_RUN.value, spec.name))
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        doc = CheckReport(results=(result,), machine=machine, config=spec.source).to_dict()
        write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        written.append(spec.baseline)
    return written


def exit_code(report: CheckReport) -> int:
    """0 when every check passed; 1 when one failed; a check that could not run gives its own
    code (2 bad input such as a missing interpreter, 3 the target or a tool failed)."""
    errors = [r.exit_code or EXIT_FAILED for r in report.results if r.status == "error"]
    if errors:
        return max(errors)
    if any(r.status == "fail" for r in report.results):
        return EXIT_GATE
    return EXIT_OK


def raise_for(report: CheckReport, code: int) -> None:
    """The one stderr line and exit code after the report was written."""
    from profiler.errors import BadInput, GateFailed, TargetFailed

    if code == EXIT_OK:
        return
    bad = [r for r in report.results if r.status != "pass"]
    names = ", ".join(r.name for r in bad)
    if code == EXIT_GATE:
        raise GateFailed(f"{len(bad)} of {len(report.results)} checks failed: {names}")
    err = next(r for r in bad if r.status == "error" and (r.exit_code or EXIT_FAILED) == code)
    cls = BadInput if code == 2 else TargetFailed
    raise cls(f"check {err.name} could not run: {err.error}")
