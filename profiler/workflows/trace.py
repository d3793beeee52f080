"""`importprof trace`: the syscalls behind start-up and imports, attributed to the module whose
import made them (the only place chaining capture → parse → analysis for this command).

For other commands (compare...):
    trace_argv(argv, variant="command", keep_log=None, env=None) -> TraceResult
        traces ANY argv under strace (a launcher binary, a shell script...); its Python
        processes' modules are attributed from their `import time:` writes when they make
        them, else inferred from their lookups.
    trace_python(python, variant, target, keep_log=None) -> TraceResult
        one Python variant run as it runs bare, plus -X importtime (the import boundaries).
    trace(TraceOptions) -> TraceReport   (what the command runs)
"""

from __future__ import annotations

import os
import shlex
import tempfile
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from profiler.errors import BadInput, TargetFailed, UsageError
from profiler.model.log_source import LogSource
from profiler.model.run_options import RunOptions
from profiler.model.syscall_trace import TraceReport, TraceResult
from profiler.model.target import DEFAULT_TARGET, Target
from profiler.model.variant import Variant
from profiler.model.words import Said, WarningKind
from profiler.session import Phase, Session


@dataclass(frozen=True)
class TraceOptions(RunOptions):
    # RunOptions' fields (model/run_options.py); runs and warm-up: untraced_runs below
    DEFAULTS = {"target": DEFAULT_TARGET}
    NOT_TAKEN = ("runs", "warmup", "timeout")
    variants: Sequence[str] = ()
    keep_log: str | None = None
    from_log: LogSource | None = None  # a saved strace log (a file, or stdin: either read a piece at a time)
    untraced_runs: int = 3  # runs without strace after one warm-up: the wall time beside the traced figures (0: none)
    call_args: bool = True  # keep every call's arguments in result.log (chrome shows them); False: only those the summary reads


IMPORTTIME_FLAGS = ("-X", "importtime")  # the import boundaries: the interpreter's own `import time:` lines


def read_log(path: str) -> str:
    from profiler.inputs.bounded import read_text

    return read_text(path, "strace log")


def summarize_log_text(text: str, variant: str, source: str = "log") -> TraceResult:
    from profiler.parse.strace import parse_strace

    return _summarize(parse_strace(text), variant, source)


def summarize_log_file(path: str, variant: str, source: str = "log", call_args: bool = True) -> TraceResult:
    """summarize_log_text of the log in FILE, read 256 KiB at a time: the log's text is never
    held whole (a log whose line breaks are not all \\n or \\r\\n is read whole).
    `call_args=False`: the records keep only the arguments the summary reads (the same
    summary in less memory; result.log's other calls have () for arguments)."""
    from profiler.analysis.attribution import ARGS_READ
    from profiler.inputs.bounded import read_text_chunks
    from profiler.parse.strace import OddLineBreaks, parse_strace, parse_strace_pieces

    try:
        log = parse_strace_pieces(read_text_chunks(path, "strace log"), keep_args=None if call_args else ARGS_READ)
    except OddLineBreaks:
        log = parse_strace(read_log(path))
    return _summarize(log, variant, source)


def summarize_log_source(source: LogSource, call_args: bool = True) -> TraceResult:
    """summarize_log_file of `--from-log`'s log: a file (its name the variant), or standard
    input (variant `stdin`), read a piece at a time too; its bytes are copied to a temporary
    file as they are read, for a log that has to be read whole after all (odd line breaks)."""
    if source.path is not None:
        return summarize_log_file(source.path, os.path.basename(source.path), source=source.path, call_args=call_args)
    if source.text is not None:
        return summarize_log_text(source.text, source.name, source=source.name)
    from profiler.analysis.attribution import ARGS_READ
    from profiler.inputs.bounded import read_text, stdin_text_chunks
    from profiler.parse.strace import OddLineBreaks, parse_strace, parse_strace_pieces

    with tempfile.TemporaryDirectory(prefix="importprof-stdin-") as tmp:
        copy = os.path.join(tmp, "stdin.strace")
        pieces = stdin_text_chunks("strace log", copy_to=copy)
        try:
            log = parse_strace_pieces(pieces, keep_args=None if call_args else ARGS_READ)
        except OddLineBreaks:
            for _ in pieces:  # the rest of stdin into the copy, then the copy read whole
                pass
            log = parse_strace(read_text(copy, "strace log"))
        finally:
            pieces.close()
    return _summarize(log, source.name, source.name)


def _summarize(log, variant: str, source: str) -> TraceResult:
    from profiler.analysis.attribution import summarize_trace

    if not log.syscalls:
        raise BadInput(f"{source} holds no strace records ({log.lines} lines)")
    return summarize_trace(log, variant)


def _log_path_for(keep_log: str, variant: str, several: bool) -> str:
    """Where --keep-log FILE puts a variant's log: FILE itself, FILE.<variant>.ext for several."""
    if not several:
        return keep_log
    root, ext = os.path.splitext(keep_log)
    safe = "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in variant)
    return f"{root}.{safe}{ext or '.strace'}"


def trace_argv(
    argv: Sequence[str],
    variant: str = "command",
    keep_log: str | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    ignore_failure: bool = False,
    label: str | None = None,
    *, session: Session,
) -> TraceResult:
    """Trace any argv with `strace -f -tt -T -y`, parse and summarize the log. With
    check=False a target that exits non-zero is summarized all the same and marked failed
    (`failed`, a one-line `error`, `exit_codes`); with check=True it raises TargetFailed.
    With ignore_failure a non-zero exit the program chose (workflows/targets.check_exit) is
    a traced run like any other, its exit code kept in `exit_codes`."""
    import contextlib
    from dataclasses import replace

    from profiler.capture.strace import run_strace
    from profiler.capture.timing import describe_exit, last_line
    from profiler.sinks import replacing

    with tempfile.TemporaryDirectory(prefix="importprof-trace-") as tmp:
        # --keep-log FILE: strace writes beside FILE, which is replaced only by a complete log
        # of a successful run (a failing run or a full disk leaves FILE as it was)
        kept = replacing(keep_log) if keep_log else contextlib.nullcontext(os.path.join(tmp, "trace.strace"))
        special = bool(keep_log) and os.path.exists(keep_log) and not os.path.isfile(keep_log)
        with kept as log_path:
            done = run_strace(list(argv), log_path, env=env, check=False, session=session)
            # strace's own lines ("/usr/bin/strace: ...") and -X importtime's are not the program's
            program = "\n".join(ln for ln in done.stderr.splitlines()
                                if not ((ln.startswith("/") and "strace: " in ln) or ln.startswith("import time:")))
            ignored = False
            if done.returncode != 0 and (check or ignore_failure):
                from profiler.workflows.targets import check_exit

                try:  # raised here, so that --keep-log FILE stays as it was
                    ignored = check_exit(done.returncode, "\n".join(program.splitlines()[-10:]), label or shlex.join(argv),
                                         ignore_failure=ignore_failure, how=" under strace") is not None
                except TargetFailed:
                    if check:
                        raise
            _check_log_complete(done.stderr, log_path, keep_log)
            if special:  # a device or a FIFO gets a copy it cannot give back: read the file strace wrote
                result = summarize_log_file(log_path, variant, source=f"the strace log of {argv[0]}")
        if not special:  # read once FILE holds the log (a log with no record is kept all the same)
            result = summarize_log_file(keep_log or log_path, variant, source=f"the strace log of {argv[0]}")
    if done.returncode != 0:
        line = last_line(program)
        how = describe_exit(done.returncode)
        result = replace(result, failed=not ignored, error=None if ignored else (f"{how}: {line}" if line else how),
                         exit_codes=(done.returncode,))
    return result


def _check_log_complete(strace_stderr: str, log_path: str, shown: str | None) -> None:
    """strace keeps tracing (and exits 0) when it cannot write its log (a full disk): it only
    says so on stderr, `strace: LOG: No space left on device`. A log cut short is not a trace."""
    from profiler.errors import ToolFailed

    for line in strace_stderr.splitlines():
        _, sep, reason = line.partition(f"{log_path}: ")
        if sep and line.startswith(("strace: ", "/")):
            where = shown or "the temporary folder"
            raise ToolFailed(f"the strace log was cut short ({reason.strip()} in {where}): not summarised")


def trace_python(python: str, variant: Variant, target: Target, keep_log: str | None = None, check: bool = True,
                 ignore_failure: bool = False, env: tuple[tuple[str, str], ...] | None = None, *, session: Session,
                 importtime: bool = True) -> TraceResult:
    """One variant of a Python target, run as it runs bare (`python [flags] TARGET`: no
    launcher, no hook, nothing of importprof's inside the program) plus `-X importtime`
    (`importtime`: the interpreter has it, 3.7+), whose `import time:` writes give each
    import's end and, with its cumulative time, its start (analysis/import_boundaries.py; the
    writes are left out of every count). Without it, modules are inferred from the lookups.
    `env`: what the variant adds to the environment, as the run plan gave it (None: asked of
    the variant here; no-site gets the sys.path entries site would add through PYTHONPATH, as
    in every command)."""
    from profiler.capture.pycache import fresh_pycache

    if env is None:
        from functools import partial

        from profiler.workflows.no_site import no_site_env

        env = variant.env(python, target, partial(no_site_env, session=session, ignore_failure=ignore_failure))
    full = {**os.environ, **dict(env)} if env else None
    with fresh_pycache(variant.fresh_pycache) as extra:
        argv = [python, *variant.flags, *extra, *(IMPORTTIME_FLAGS if importtime else ()), *target.python_argv()]
        return trace_argv(argv, variant=variant.name, keep_log=keep_log, env=full, check=check, ignore_failure=ignore_failure,
                          label=target.label(), session=session)


def with_untraced_walls(results, specs, opts: TraceOptions, *, session: Session,
                        warn: Callable[[str], None] | None = None) -> list:
    """strace stops the program at every syscall: the traced run's times are strace's. Each
    result gets the wall time of the same command run untraced (median of opts.untraced_runs,
    after one warm-up) in harness["untraced_wall_s"], shown beside the traced figures. The
    runs go through the one timing pipeline (workflows/measure.py: its busy-machine and
    failure warnings included, through `warn`); a command that fails untraced gets no figure
    and the trace stands."""
    from dataclasses import replace

    from profiler.capture.timing import RunPlan
    from profiler.errors import TargetFailed
    from profiler.workflows.measure import measure

    wanted = [s for s, r in zip(specs, results) if not r.failed]
    if opts.untraced_runs < 1 or not wanted:
        return list(results)
    session.progress(Phase("untraced runs"))
    try:
        # its warnings join the trace's (said with them); its progress is the phase above
        with session.collecting(warn or (lambda message: None)), session.quiet(warnings=False, notes=False):
            m = measure(wanted, RunPlan(runs=opts.untraced_runs, warmup=1, ignore_failure=opts.ignore_failure, use_spawner=False),
                        session=session)
    except TargetFailed as exc:
        if warn:
            warn(Said(f"the untraced runs failed ({exc}): no untraced wall time beside the traced one",
                      WarningKind.UNTRACED_FAILED, WarningKind.UNTRACED_FAILED.value))
        return list(results)
    timed = {r.key: r for r in m.results if not r.failed and r.times}
    out = []
    for s, r in zip(specs, results):
        t = timed.get(s.key)
        if t is not None and not r.failed:
            r = replace(r, harness={**r.harness, "untraced_wall_s": round(t.median, 6), "untraced_runs": len(t.times)})
        out.append(r)
    return out


def trace(opts: TraceOptions, *, session: Session) -> TraceReport:
    from profiler.capture.machine import read_machine, start_sample

    warnings: list[Said] = []
    if opts.from_log is not None:
        if opts.variants or opts.flags or opts.python:
            raise UsageError("--from-log reads a saved log: --variant/--flags/--python do not apply")
        if opts.keep_log:
            raise UsageError("--keep-log and --from-log cannot be combined")
        if opts.target != DEFAULT_TARGET:
            raise UsageError("--from-log reads a saved log: give no target")
        result = summarize_log_source(opts.from_log, call_args=opts.call_args)
        if not result.attributed:
            warnings.append(Said("the log shows no Python process importing modules: no per-module attribution",
                                 WarningKind.NO_PYTHON_IN_LOG, WarningKind.NO_PYTHON_IN_LOG.value))
        if result.log.truncated_last_line:
            warnings.append(Said("the log ends with a truncated line (ignored)", WarningKind.LOG_LAST_LINE_CUT,
                                 WarningKind.LOG_LAST_LINE_CUT.value))
        results = [result]
    else:
        start_sample(session)  # the CPU share other work used while tracing (no wait)
        from profiler.capture.strace import find_strace

        find_strace()
        from profiler.workflows.plan import plan_runs

        if not opts.target.is_python:
            plan = plan_runs(opts.target, [], opts.variants, opts.flags)
            results = [trace_argv(opts.target.command_argv(), variant="command", keep_log=opts.keep_log,
                                  ignore_failure=opts.ignore_failure, session=session)]
            if not results[0].attributed:
                warnings.append(Said("the command started no Python process that imported anything: no per-module attribution",
                                     WarningKind.COMMAND_NO_PYTHON, WarningKind.COMMAND_NO_PYTHON.value))
        else:
            from profiler.capture.interpreter import interpreter_for
            from functools import partial

            from profiler.workflows.no_site import no_site_env

            interp = interpreter_for(opts.python, "trace", session=session)
            plan = plan_runs(opts.target, [interp], opts.variants, opts.flags, site_paths=partial(no_site_env, session=session, ignore_failure=opts.ignore_failure), warn=warnings.append)
            from profiler.analysis.failures import explain_failure
            from profiler.errors import TargetFailed

            n = len(plan.runs)
            several = n > 1
            results = []
            session.progress(Phase(f"{n} variant{'s' if n != 1 else ''} under strace"))
            for i, (v, _, spec) in enumerate(plan.runs):
                session.progress(Phase.of(i, n, v.name))
                keep = _log_path_for(opts.keep_log, v.name, several) if opts.keep_log else None
                # one variant alone fails as the target does (exit 3); among several, a failing
                # variant becomes a failed entry and the others are traced
                r = trace_python(interp.path, v, opts.target, keep_log=keep, check=not several, ignore_failure=opts.ignore_failure,
                                 env=spec.env or (), session=session, importtime=interp.supports("importtime"))
                if r.failed:
                    hint = explain_failure(v, tuple(v.flags), opts.target.kind, r.error or "")
                    warnings.append(Said(f"{v.name}: failed ({r.error})" + (f": {hint}" if hint else ""), WarningKind.FAILED,
                                         f"{v.name} failed", v.name))
                results.append(r)
            session.progress(Phase(done=n, total=n))
            if results and all(r.failed for r in results):
                raise TargetFailed("the target failed in every variant: " + "; ".join(f"{r.variant}: {r.error}" for r in results))
        # the same commands, untraced (without strace or -X importtime)
        results = with_untraced_walls(results, plan.specs, opts, session=session, warn=warnings.append)
    from profiler.workflows.targets import exits_note

    warnings.extend(exits_note(r.exit_codes, r.variant if len(results) > 1 else "")
                    for r in results if r.exit_codes and not r.failed)
    for w in warnings:
        session.warn(w)
    machine = read_machine(0.0, session=session) if opts.from_log is not None else read_machine(session=session)  # a saved log times nothing
    return TraceReport(results=tuple(results), machine=machine, warnings=tuple(warnings))


__all__ = ["TraceOptions", "trace", "trace_argv", "trace_python", "summarize_log_file", "summarize_log_source", "summarize_log_text"]
