"""importprof from Python: one function per measuring command, taking what a library caller
has (strings, lists of strings, paths, numbers) and returning the report the command's
workflow returns (the command's `--format json` is its `to_dict()`).

    from profiler import api

    report = api.startup("-c 'import json'", python="pyenv:3.11", variants=["default", "no-site"])
    report.to_dict()

The target is written as on the command line, as one string split as a shell would
(`"-m json.tool --help"`, `"app.py arg"`) or as its words (`["-c", "import json"]`,
`["--", "make", "test"]`); None is the command's default (`-c pass`). `python` is what
`--python` takes (a path, a name on PATH, `pyenv:3.12`; None: python3 on PATH); words
(`engine="builtin"`, `metrics=["instructions"]`, `variants=[...]`) are the command's words;
`from_log` is a path, or "-" for standard input.

Every value goes through the constructors the commands use (the target grammar of
profiler/target_grammar.py, the interpreter resolution of capture/interpreter.py,
model/words.py's `Word.parse`, the workflows' Options with their defaults), so a bad value
raises the UsageError or BadInput the command line prints (`e.message` is its stderr line
without the `importprof: error: ` prefix). `session`: a profiler.session.Session for the time
limit (`Session(timeout_s=...)`), where warnings and notes go and the interpreter cache shared
by several calls; None: a fresh `Session()` (its defaults; warnings on stderr).

This module imports nothing heavy at import time (no typer, no rich): each function imports
what it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, Union

if TYPE_CHECKING:
    from profiler.compose.compare import CompareReport
    from profiler.compose.doctor import DoctorReport
    from profiler.compose.lazy import LazyReport
    from profiler.model.diff_report import DiffReport
    from profiler.model.lazy_apply import LazyApplyReport
    from profiler.compose.startup import StartupReport
    from profiler.compose.why import WhyReport
    from profiler.model.interpreter import Interpreter
    from profiler.model.target import Target
    from profiler.session import Session
    from profiler.workflows.imports import ImportsReport
    from profiler.workflows.site import SiteReport
    from profiler.workflows.trace import TraceReport

TargetWords = Union[str, Sequence[str], None]

__all__ = ["startup", "imports", "imports_diff", "trace", "lazy", "lazy_apply", "doctor", "site", "why", "compare"]


# -- the edge, as the commands have it ------------------------------------------------------

def _fresh_session() -> Session:
    """A fresh Session for a call given none (the functions below default theirs to None)."""
    from profiler.session import Session

    return Session()


def _target(words: TargetWords, command: str, *, command_targets: bool = True) -> Target:
    """The command line's target grammar (profiler/target_grammar.py), None → `-c pass`, then the
    check every command makes before it runs one (commands/_target.py: target_of)."""
    from profiler.model.target import DEFAULT_TARGET
    from profiler.target_grammar import target_from_words
    from profiler.workflows.targets import check_target

    target = target_from_words(words, f"importprof {command}", command_targets=command_targets) or DEFAULT_TARGET
    check_target(target, f"importprof {command}")
    return target


def _python_word(python: str | None) -> str | None:
    """`--python`'s value checks (commands/_options.py: python_value)."""
    from profiler.target_grammar import check_python_word

    return check_python_word(python)


def _shebang(target: Target, python: str | None, session: Session) -> str | None:
    """A SCRIPT with no `python` runs where its `#!` line says, as on the command line
    (commands/_target.py: _python_from_shebang), the note said through the session."""
    from profiler.model.words import TargetKind

    if python or target.kind != TargetKind.SCRIPT:
        return python
    from profiler.workflows.targets import script_python

    found = script_python(target)
    if found is None:
        return python
    path, why = found
    session.info(why)
    return path if path is not None else python


def _interpreter(python: str | None, session: Session) -> Interpreter:
    """One `--python` (None: python3 on PATH), resolved as the commands resolve it
    (commands/_options.py: interpreter_given)."""
    from profiler.capture.interpreter import interpreter_for

    return interpreter_for(python, session=session)


def _python_for(python: str | None, target: Target, session: Session, *, runs: bool = True) -> Interpreter | None:
    """commands/_options.py: python_for — an interpreter when one was given or a Python target runs."""
    if python or (runs and target.is_python):
        return _interpreter(python, session)
    return None


def _log(from_log: str | None, *, pieces: bool = False):
    """`--from-log`'s value as the commands take it (model/log_source.py: LogSource.of)."""
    from profiler.model.log_source import LogSource

    return LogSource.of(from_log, pieces)


def _words(items: Sequence[str] | str | None) -> list[str]:
    """A repeatable option's values: one string is one value."""
    if items is None:
        return []
    return [items] if isinstance(items, str) else [str(i) for i in items]


# -- the commands ---------------------------------------------------------------------------

def startup(target: TargetWords = None, *, python: str | Sequence[str] | None = None, variants: Sequence[str] | None = None,
            flags: Sequence[str] | None = None, engine: str = "builtin", runs: int | None = None, warmup: int = 3,
            imports: Sequence[str] | None = None, metrics: Sequence[str] | None = None, instruction_runs: int = 3,
            reference: str | None = None, ignore_failure: bool = False, versus: Sequence[TargetWords] | None = None,
            session: Session | None = None) -> StartupReport:
    """`importprof startup`: `python` one spec or several (`--python` repeated); `versus` the
    `--vs` targets."""
    from profiler.capture.interpreter import resolve_pythons
    from profiler.compose.startup import StartupOptions, startup as run_startup
    from profiler.model.words import Engine, Metric

    s = session if session is not None else _fresh_session()
    engine_word, metric_words = Engine.parse(engine), Metric.parse_all(_words(metrics))
    pythons = [_python_word(p) for p in _words(python)]
    main = _target(target, "startup")
    if not pythons:
        shebang = _shebang(main, None, s)
        pythons = [shebang] if shebang else []
    given = bool(_words(python))
    others = []
    for words in versus or ():
        t = _target(words, "startup")  # checked as the main target is (commands/_target.py: versus_of)
        others.append((t, None if given else _shebang(t, None, s)))
    resolved: Sequence[Interpreter | None] = [None]
    if main.is_python or any(t.is_python and not p for t, p in others):
        resolved = tuple(resolve_pythons(pythons or [None], warn=s.warn, session=s))
    opts = StartupOptions(
        target=main, pythons=resolved, variants=_words(variants), flags=_words(flags), engine=engine_word,
        runs=runs, warmup=warmup, imports=_words(imports), metrics=metric_words, instruction_runs=instruction_runs,
        reference=reference, ignore_failure=ignore_failure,
        versus=[(t, _interpreter(p, s) if p else None) for t, p in others],
    )
    return run_startup(opts, session=s)


def imports(target: TargetWords = None, *, python: str | None = None, runs: int = 5, warmup: int = 1,
            from_log: str | None = None, headers: str = "processes", group: str | None = None, phases: bool = False,
            lazy_candidates: bool = False, metrics: Sequence[str] | None = None, instruction_runs: int = 3,
            statements: bool = False, ignore_failure: bool = False, session: Session | None = None) -> ImportsReport:
    """`importprof imports` (one capture, or one saved log with `from_log`; two captures:
    imports_diff); the report's `warnings` are the ones the command prints after its output."""
    from profiler.errors import UsageError
    from profiler.model.words import Group, Headers, Metric
    from profiler.workflows.imports import ImportsOptions, imports as run_imports

    s = session if session is not None else _fresh_session()
    if from_log is not None and target is not None:
        raise UsageError("give either a target or --from-log, not both")
    main = _target(target, "imports")
    header_word = Headers.parse(headers, "--headers")
    group_word = Group.parse(group, "--group") if group is not None else None
    log = _log(from_log)
    python = _shebang(main, _python_word(python), s)
    opts = ImportsOptions(
        target=main, python=_python_for(python, main, s, runs=from_log is None), runs=runs, warmup=warmup, log=log,
        headers=header_word, group=group_word, phases=phases, lazy_candidates=lazy_candidates,
        ignore_failure=ignore_failure, statements=statements, metrics=Metric.parse_all(_words(metrics)),
        instruction_runs=instruction_runs,
    )
    return run_imports(opts, session=s)


def imports_diff(target: TargetWords = None, *, python: str | Sequence[str] | None = None, versus: TargetWords = None,
                 runs: int = 5, warmup: int = 1, group: str | None = None, ignore_failure: bool = False,
                 session: Session | None = None) -> DiffReport:
    """`importprof imports` with two captures, diffed as `importprof diff` diffs two saved
    reports (the command's `--format json` is the diff document): the target on two
    interpreters (`python=[A, B]`, `--python` twice), or the target and `versus` (`--vs
    TARGET`, on `python` or on its own #! interpreter when none is given)."""
    from profiler.compose.diff import diff_live
    from profiler.compose.options_edge import two_captures
    from profiler.model.words import Group

    s = session if session is not None else _fresh_session()
    main = _target(target, "imports")
    group_word = Group.parse(group, "--group") if group is not None else None
    pythons: list[str | None] = [_python_word(p) for p in _words(python)]
    given = bool(pythons)
    if not pythons:
        shebang = _shebang(main, None, s)
        pythons = [shebang] if shebang else []
    others = []
    if versus is not None:
        other = _target(versus, "imports")  # checked as the main target is (commands/_target.py: versus_of)
        others.append((other, None if given else _shebang(other, None, s)))
    a, b = two_captures(main, pythons, others, lambda p, t: _python_for(p, t, s), runs=runs, warmup=warmup,
                        ignore_failure=ignore_failure, group=group_word)
    return diff_live(a, b, session=s)


def trace(target: TargetWords = None, *, python: str | None = None, variants: Sequence[str] | None = None,
          flags: Sequence[str] | None = None, keep_log: str | None = None, from_log: str | None = None,
          ignore_failure: bool = False, call_args: bool = False, session: Session | None = None) -> TraceReport:
    """`importprof trace` (strace); `call_args`: keep every call's arguments (what
    `--format chrome` shows)."""
    from profiler import sinks
    from profiler.workflows.trace import TraceOptions, trace as run_trace

    s = session if session is not None else _fresh_session()
    main = _target(target, "trace")
    sinks.check_writable(keep_log)
    python = _shebang(main, _python_word(python), s)
    # resolved when a Python target runs, or when one is given (the command hands a given one on
    # unresolved with a saved log or a `-- COMMAND`: the facade passes only typed values)
    interp = _interpreter(python, s) if (from_log is None and main.is_python) or python else None
    opts = TraceOptions(target=main, python=interp, variants=_words(variants), flags=_words(flags), keep_log=keep_log,
                        from_log=_log(from_log, pieces=True), ignore_failure=ignore_failure, call_args=call_args)
    return run_trace(opts, session=s)


def lazy(target: TargetWords = None, *, python: str | None = None, keep_eager: Sequence[str] | None = None,
         runs: int | None = None, warmup: int = 3, profile_runs: int = 3, max_bisect_runs: int = 60,
         engine: str = "builtin", ignore_failure: bool = False, session: Session | None = None) -> LazyReport:
    """`importprof lazy` (the measurement; `--apply`/`--filter-out`/`--diff`: lazy_apply)."""
    from profiler.compose.lazy import lazy as run_lazy

    s = session if session is not None else _fresh_session()
    opts = _lazy_options(target, python, keep_eager, runs, warmup, profile_runs, max_bisect_runs, engine, ignore_failure, s)
    return run_lazy(opts, session=s)


def _lazy_options(target, python, keep_eager, runs, warmup, profile_runs, max_bisect_runs, engine, ignore_failure, s):
    from profiler.compose.lazy import LazyOptions
    from profiler.compose.options_edge import keep_eager_words
    from profiler.model.words import Engine

    main = _target(target, "lazy", command_targets=False)
    python = _shebang(main, _python_word(python), s)
    return LazyOptions(target=main, python=_interpreter(python, s), keep_eager=keep_eager_words(_words(keep_eager)),
                       runs=runs, warmup=warmup, profile_runs=profile_runs, max_bisect_runs=max_bisect_runs,
                       engine=Engine.parse(engine), ignore_failure=ignore_failure)


def lazy_apply(target: TargetWords = None, *, python: str | None = None, apply: str | None = None,
               filter_out: str | None = None, style: str = "lazy-modules", diff: bool = False,
               verify_with: Sequence[str] | None = None, min_ms: float = 1.0, oldest_python: str | None = None,
               keep_eager: Sequence[str] | None = None, runs: int | None = None, warmup: int = 3, profile_runs: int = 3,
               max_bisect_runs: int = 60, engine: str = "builtin", ignore_failure: bool = False,
               session: Session | None = None) -> LazyApplyReport:
    """`importprof lazy --apply DIR` (`apply`: write the lazy imports the measurement justifies
    into the files under DIR, verified; with `diff=True` only the diff, nothing written) or
    `--filter-out FILE` (`filter_out`: write a sys.set_lazy_imports_filter module instead);
    `verify_with` the `--verify-with` command lines, `oldest_python` as `--oldest-python`."""
    from profiler.compose.lazy_apply import lazy_apply as run_lazy_apply
    from profiler.compose.options_edge import apply_options

    s = session if session is not None else _fresh_session()
    opts = _lazy_options(target, python, keep_eager, runs, warmup, profile_runs, max_bisect_runs, engine, ignore_failure, s)
    aopts = apply_options(opts, apply=apply, style=style, diff=diff, filter_out=filter_out, verify_with=_words(verify_with),
                          min_ms=min_ms, oldest_python=_interpreter(_python_word(oldest_python), s) if oldest_python else None,
                          runs=runs, profile_runs=profile_runs, max_bisect_runs=max_bisect_runs)
    return run_lazy_apply(aopts, session=s)


def doctor(target: TargetWords = None, *, python: str | None = None, runs: int = 3, timing_runs: int = 10,
           trace: bool = True, verify: bool = False, ignore_failure: bool = False,
           session: Session | None = None) -> DoctorReport:
    """`importprof doctor`; `trace=False` is `--no-trace`."""
    from profiler.compose.doctor import DoctorOptions, doctor as run_doctor

    s = session if session is not None else _fresh_session()
    main = _target(target, "doctor", command_targets=False)
    python = _shebang(main, _python_word(python), s)
    opts = DoctorOptions(target=main, python=_interpreter(python, s), runs=runs, timing_runs=timing_runs, trace=trace,
                         ignore_failure=ignore_failure, verify=verify)
    return run_doctor(opts, session=s)


def site(*, python: str | None = None, runs: int = 3, flags: Sequence[str] | None = None,
         session: Session | None = None) -> SiteReport:
    """`importprof site`: each `flags` string split as the shell would (`"-X dev"`)."""
    import shlex

    from profiler.errors import UsageError
    from profiler.workflows.site import SiteOptions, site as run_site

    s = session if session is not None else _fresh_session()
    extra: list[str] = []
    for text in _words(flags):
        try:
            extra.extend(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"cannot parse --flags {text!r}: {exc}") from None
    return run_site(SiteOptions(python=_interpreter(_python_word(python), s), runs=runs, flags=extra), session=s)


def why(module: str, target: TargetWords = None, *, python: str | None = None, report: str | None = None,
        from_log: str | None = None, runs: int = 1, all: bool = False, statements: bool = False,
        ignore_failure: bool = False, session: Session | None = None) -> WhyReport:
    """`importprof why MODULE`: runs the target, or reads `report` (a saved imports JSON) or
    `from_log` (a saved -X importtime log)."""
    from profiler.compose.why import WhyOptions, why as run_why
    from profiler.errors import UsageError

    s = session if session is not None else _fresh_session()
    if sum([target is not None, report is not None, from_log is not None]) > 1:
        raise UsageError("give one of: a target, --report FILE, --from-log FILE")
    log = _log(from_log)
    main = _target(target, "why")
    python = _shebang(main, _python_word(python), s)
    interp = _python_for(python, main, s, runs=from_log is None) if report is None else None
    opts = WhyOptions(module=module, target=main, python=interp, report=report, log=log, runs=runs, all=all,
                      ignore_failure=ignore_failure, statements=statements)
    if statements and (report is not None or from_log is not None):
        raise UsageError("--statements runs the target: not with --report or --from-log")
    return run_why(opts, session=s)


def compare(target: TargetWords = None, *, workload: str | None = None, python: str | None = None,
            runs: int | None = None, warmup: int | None = None, launches: int = 10, build_dir: str | None = None,
            force: bool = False, syscalls: str = "auto", variants: Sequence[str] | None = None,
            harness: str | None = None, harness_shell: bool = False, record_with: str | None = None,
            ignore_failure: bool = False, session: Session | None = None) -> CompareReport:
    """`importprof compare` (a target, or `workload`); `harness` is `--harness CMD` (with
    `{program}`: each variant's program), `harness_shell` `--harness-shell`, `record_with`
    `--record-with CMD`. With `harness`, one run of CMD may take an hour (`HARNESS_TIMEOUT_S`)
    unless the session's limit is not the default (as `--timeout` on the command line); the
    session's limit is as it was after the call."""
    from profiler.compose.build import BUILD_ENTRIES
    from profiler.compose.compare import CompareOptions, compare as run_compare
    from profiler.compose.options_edge import compare_python, harness_limit, syscalls_word
    from profiler.session import DEFAULT_TIMEOUT_S
    from profiler.sinks import check_output_dir, check_output_folder

    s = session if session is not None else _fresh_session()
    main = _target(target, "compare", command_targets=False) if target is not None else None
    check_output_dir(build_dir, "--build-dir")
    check_output_folder(build_dir, "--build-dir", force=force, entries=BUILD_ENTRIES)
    python = _python_word(python)
    if main is not None:
        python = _shebang(main, python, s)
    interp = _interpreter(python, s) if compare_python(python, workload, harness) else None
    opts = CompareOptions(target=main, workload=workload, python=interp, runs=runs, warmup=warmup, launches=launches,
                          build_dir=build_dir, syscalls=syscalls_word(syscalls), variants=tuple(_words(variants)) or None, force=force,
                          ignore_failure=ignore_failure, harness=harness, harness_shell=harness_shell,
                          record_with=record_with)
    with harness_limit(s, harness, given=s.timeout_s != DEFAULT_TIMEOUT_S):
        return run_compare(opts, session=s)
