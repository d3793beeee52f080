"""`importprof lazy`: what lazy imports would change for this program, measured.

  lazy(opts, session) -> LazyReport

1. The eager reference: the target under the bootstrap launcher with the `lazy` hook recording
   only (nothing deferred): its stdout, stderr, exit code and executed modules, after one
   warm-up run (a first run may fill caches: .pyc files, the program's own). Run twice: a
   program whose output changes from run to run cannot be judged.
2. The lazy run (keep-eager set: --keep-eager): 3.15's `-X lazy_imports=all`, or before 3.15
   the hook's emulation of it (bootstrap/hook_lazy.py). Same output: done. Otherwise delta
   debugging (analysis/bisect.py) over the modules the eager run executed finds the smallest
   set that must stay eager (3.15: through sys.set_lazy_imports_filter); the lazy run is
   repeated with that set and must give identical output. Each module of the set is reported
   with the difference seen when it alone is lazy.
3. The eager `-X importtime` profile (workflows/imports.py, with import sites) prices what the
   lazy run avoided: each module at its own (self) time, per import statement of the target's
   own code; the costliest statements (opts.statement_runs) are each measured alone (a run
   with only that statement lazy).
4. Before 3.15, a calibration run of the hook times its per-event costs (binding, resolution,
   module load) in this interpreter.
5. Timing through the one timing pipeline (workflows/measure.py): `eager` is the target as is,
   `lazy` the lazy run (the bare flag on 3.15 when nothing is kept eager), beside them the
   launcher's `-c pass` and python's when the lazy run goes through the launcher; ratios are
   time ratios against eager, and `prediction` is 3.15's lazy time: the lazy mean with the
   launcher's and the emulation's own costs taken out (analysis.lazy.predict_lazy).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Sequence

from profiler.errors import Interrupted, TargetFailed, UsageError
from profiler.model.lazy import LazyReport, LazyRun, MustStayEager, PlainCheck, ProgramOutput
from profiler.model.run_options import REQUIRED, RunOptions
from profiler.model.target import Target
from profiler.model.words import Engine, Said, WarningKind
from profiler.session import Session
from profiler.model.words import TargetKind
from profiler.compose.lazy_plain import filter_env, plain_check

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter


@dataclass(frozen=True)
class LazyOptions(RunOptions):
    # RunOptions' fields (model/run_options.py); runs: timing runs (None: adaptive, as startup);
    # timeout None: one run's limit (--timeout); ignore_failure: lazy must exit the same way
    DEFAULTS = {"target": REQUIRED, "warmup": 3}
    keep_eager: Sequence[str] = ()  # kept eager from the start (module names)
    min_time_s: float = 3.0
    profile_runs: int = 3  # eager -X importtime runs (medians price `avoided`)
    max_bisect_runs: int = 60
    statement_runs: int = 8  # the costliest statements each measured alone (one recorded run each)
    engine: Engine = Engine.BUILTIN  # the command parsed --engine at its edge (measure parses a library caller's word)
    measure: bool = True  # False: correctness and avoided only (doctor's estimate)

    def __post_init__(self) -> None:
        """A LazyOptions that exists is valid (the command's and the library's alike)."""
        super().__post_init__()
        if not self.target.is_python:
            raise UsageError("lazy runs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
        if self.runs is not None and self.runs < 1:
            raise UsageError("--runs must be at least 1")
        if self.warmup < 0:
            raise UsageError("--warmup cannot be negative")
        if self.profile_runs < 1:
            raise UsageError("the profile needs at least 1 run")


def own_roots(target: Target, eager: LazyRun) -> list[str]:
    """Where the target's own code lives: `<string>` for -c, the script's folder, the -m
    module's package (from the eager run's module files)."""
    if target.kind == TargetKind.CODE:
        return ["<string>"]
    if target.kind == TargetKind.SCRIPT:
        roots = [target.value, os.path.abspath(target.value)]
        for d in {os.path.dirname(os.path.abspath(target.value)), os.path.dirname(os.path.realpath(target.value))}:
            roots.append(d.rstrip("/") + "/")
        return roots
    files = {n: f for n, _, f in eager.executed if f}
    top = target.value.partition(".")[0]
    roots = []
    for name in (top, "__main__"):
        f = files.get(name)
        if f:
            roots.append(os.path.dirname(f).rstrip("/") + "/" if os.path.basename(f) == "__init__.py" else f)
    return roots


class _Runner:
    """One lazy/eager run of the program → (output, record); outputs cached by keep set."""

    def __init__(self, opts: LazyOptions, interp, session: Session):
        self.opts = opts
        self.interp = interp
        self.session = session  # the invocation's session: each run's limit, where warnings go
        self.outputs: dict[frozenset[str], tuple[ProgramOutput, LazyRun | None]] = {}
        self.runs = 0
        self.mask: str | None = None  # analysis.lazy.COMPARISONS key: numbers that change from run to run

    def run(self, *, lazy: bool, keep: Sequence[str] = (), only: Sequence[tuple[str, str]] = (),
            target: Target | None = None, calibrate: int = 0) -> tuple[ProgramOutput, LazyRun | None]:
        from profiler.analysis.lazy import masked
        from profiler.capture.lazy import run_lazy
        from profiler.parse.lazy import parse_lazy_record

        out = run_lazy(
            self.interp.path, self.interp.version, target or self.opts.target, lazy=lazy,
            keep=[*self.opts.keep_eager, *keep], only=only, calibrate=calibrate, flags=self.opts.flags,
            timeout=self.opts.timeout, session=self.session,
        )
        self.runs += 1
        record = parse_lazy_record(out.record) if out.record else None
        return masked(ProgramOutput(out.stdout, out.stderr, out.returncode), self.mask), record

    def lazy_with(self, keep: Sequence[str]) -> tuple[ProgramOutput, LazyRun | None]:
        key = frozenset(keep)
        if key not in self.outputs:
            self.outputs[key] = self.run(lazy=True, keep=keep)
        return self.outputs[key]


def _bisect(runner: _Runner, reference: ProgramOutput, candidates: list[str]):
    """The smallest keep-eager set (None when even all candidates eager differ), runs used."""
    from profiler.analysis.bisect import minimize
    from profiler.analysis.lazy import describe_difference

    def suffices(subset) -> bool:
        got, _ = runner.lazy_with(subset)
        return describe_difference(reference, got) is None

    if not suffices(tuple(candidates)):
        return None, False
    runner.session.info(f"the lazy run differs from the eager one: bisecting over {len(candidates)} modules")
    res = minimize(candidates, suffices, max_tests=runner.opts.max_bisect_runs)
    return list(res.items), res.complete


@dataclass
class _Lazy:
    """One `lazy` invocation's state, handed from stage to stage (see lazy())."""

    opts: LazyOptions
    interp: Interpreter
    session: Session
    runner: _Runner
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reference: ProgramOutput | None = None  # the eager reference run's output (masked when it must be)
    eager_rec: LazyRun | None = None
    unstable: str | None = None  # why the output cannot be judged (it changes from run to run)
    keep: list[str] = field(default_factory=list)  # the must-stay-eager set found
    must: list[MustStayEager] = field(default_factory=list)
    explained: bool = False  # a final difference already warned about
    identical: bool = False
    lazy_rec: LazyRun | None = None
    plain: PlainCheck | None = None  # the set checked under the bare interpreter (_plain_check)
    filter_dir: str | None = None  # sitecustomize.py with the filter, as --filter-out writes it (3.15's timing)

    def warning(self, said: Said) -> None:
        self.warnings.append(said)
        self.session.warn(said)

    def compare_masked(self, how: str) -> None:
        """From now on every run is compared with `how` masked (analysis.lazy.COMPARISONS)."""
        from profiler.analysis.lazy import COMPARISONS, masked

        runner = self.runner
        runner.mask = how
        runner.outputs = {k: (masked(o, how), r) for k, (o, r) in runner.outputs.items()}
        self.reference = masked(self.reference, how)
        self.notes.append(f"the program's output changes from run to run in its numbers: every run compared with "
                          f"{COMPARISONS[how][1]}")


def lazy(opts: LazyOptions, *, session: Session) -> LazyReport:
    from profiler.capture.interpreter import interpreter_for

    interp = interpreter_for(opts.python, "lazy", session=session)
    st = _Lazy(opts, interp, session, _Runner(opts, interp, session))
    try:
        _eager_reference(st)
        _keep_eager_set(st)
        plain_check(st)
        _verify(st)
        report = _priced_report(st)
        if not opts.measure:
            return report
        return _measured(report, opts, interp, st.keep, dict(st.lazy_rec.counts), _calibration(st),
                         session=session, filter_dir=st.filter_dir)
    finally:  # the filter's folder (lazy_plain.py): a library call has no invocation folder to remove it
        if st.filter_dir is not None:
            import shutil

            shutil.rmtree(st.filter_dir, ignore_errors=True)


def _eager_reference(st: _Lazy) -> None:
    """Step 1: the eager reference (after a warm-up), run twice: how its output is compared."""
    from profiler.analysis.lazy import comparison_for

    opts, runner = st.opts, st.runner
    warm, _ = runner.run(lazy=False)  # warm-up: a first run may fill caches (.pyc files, the program's own)
    st.reference, st.eager_rec = runner.run(lazy=False)
    if st.reference.exit_code != 0:  # the lazy runs are then checked against this same exit code
        from profiler.workflows.targets import check_exit

        tail = "\n".join(st.reference.stderr.rstrip("\n").splitlines()[-10:])
        _blame_the_instrument(st, tail)
        ignored = check_exit(st.reference.exit_code, tail, opts.target.label(), ignore_failure=opts.ignore_failure)
        if ignored is not None:
            st.warning(ignored)
    if st.eager_rec is None:
        raise TargetFailed(f"the target ended without running exit handlers (os._exit?): {opts.target.label()}; "
                           "importprof lazy needs them to see which modules ran")
    again, again_rec = runner.run(lazy=False)
    # a program that prints a timing ("3 passed in 0.10s") is compared with its numbers masked
    try:
        how = comparison_for([st.reference, again])
    except ValueError as exc:
        how, st.unstable = None, str(exc)
    if how is None and not st.unstable:
        try:  # two equal timings can hide it: the warm-up run is a third sample (a cache it filled aside)
            how = comparison_for([st.reference, warm])
        except ValueError:
            pass
    if how is not None:
        st.compare_masked(how)
    if st.unstable:
        st.warning(Said(f"the program's output changes from run to run ({st.unstable}): lazy vs eager cannot be judged; "
                        "no bisection", WarningKind.OUTPUT_UNSTABLE, WarningKind.OUTPUT_UNSTABLE.value))
    if again_rec is not None and again_rec.executed_names != st.eager_rec.executed_names:
        st.warning(Said(f"two eager runs executed different modules ({len(st.eager_rec.executed)} vs {len(again_rec.executed)}): "
                        "the program's start-up changes from run to run (a cache of its own?); counts are the first run's",
                        WarningKind.EAGER_RUNS_DIFFER, WarningKind.EAGER_RUNS_DIFFER.value))


def _blame_the_instrument(st: _Lazy, tail: str) -> None:
    """The eager reference run goes through importprof's launcher: when the program exits 0
    without it, the failure is importprof's, and the error says so (never the program's)."""
    from profiler.capture.process import run

    t = st.opts.target
    bare = run([st.interp.path, *st.opts.flags, *t.python_argv()], timeout=st.opts.timeout, missing=TargetFailed,
               what="target", session=st.session)
    if bare.returncode == 0:
        raise TargetFailed(f"importprof's instrument broke the target: it exits 0 without importprof, "
                           f"{st.reference.exit_code} under importprof lazy's launcher (its eager run, nothing deferred); "
                           f"this is importprof's fault, not the program's: {t.label()}", detail=tail.strip() or None)


def _keep_eager_set(st: _Lazy) -> None:
    """Step 2: the first lazy run; when its output differs, the smallest set of modules that
    must stay eager (delta debugging), each with the difference seen when it alone is lazy."""
    from profiler.analysis.lazy import bisect_candidates, comparison_for, describe_difference

    opts, runner = st.opts, st.runner
    first, _ = runner.lazy_with(())
    difference = describe_difference(st.reference, first)
    st.explained = bool(st.unstable)
    if not difference or st.unstable:
        return
    candidates = bisect_candidates(st.eager_rec, opts.keep_eager)
    if runner.mask is None:
        # every module kept eager, lazy loading changes nothing: a difference only in numbers
        # is the program's timing, which the eager runs happened to print alike (a fast test run)
        same_program, _ = runner.lazy_with(candidates)
        if describe_difference(st.reference, same_program):
            try:
                how = comparison_for([st.reference, same_program])
            except ValueError:
                how = None
            if how is not None:
                st.compare_masked(how)
                first = runner.lazy_with(())[0]
                difference = describe_difference(st.reference, first)
    if not difference:
        return
    found, complete = _bisect(runner, st.reference, candidates)
    if found is None:
        st.explained = True
        st.warning(Said(f"the lazy run differs even with every module eager ({difference}): "
                        "the difference does not come from one import being lazy", WarningKind.DIFFERS_ALL_EAGER,
                        WarningKind.DIFFERS_ALL_EAGER.value))
        return
    st.keep = found
    if not complete:
        st.warning(Said(f"bisection stopped after {opts.max_bisect_runs} runs: the keep-eager set ({len(found)} modules) "
                        "may not be minimal (raise --max-bisect-runs)", WarningKind.BISECTION_STOPPED,
                        f"bisection stopped after {opts.max_bisect_runs} runs"))
    for name in found:
        others = [k for k in found if k != name]
        if complete or frozenset(others) in runner.outputs:  # complete: ddmin has run each of these
            got, _ = runner.lazy_with(others)
            reason = describe_difference(st.reference, got) or "needed with the others"
        else:
            reason = f"in the set the bisection kept eager (stopped after {opts.max_bisect_runs} runs)"
        st.must.append(MustStayEager(name, reason))


def _rests_on(st: _Lazy) -> str:
    """What the verdict rests on, said with it (the emulation is not the real 3.15)."""
    p = st.plain
    if _major_minor(st.interp) >= (3, 15):
        text = f"the real Python {st.interp.version}'s -X lazy_imports=all"
        if p is not None and p.runs:
            text += (f"; the keep-eager set checked under the bare interpreter with a plain filter: "
                     f"{'identical' if p.identical else 'DIFFERENT'} in {p.runs} runs")
        return text
    text = (f"importprof's emulation of PEP 810 on Python {st.interp.version} (module-level imports rewritten into lazy "
            "bindings), not the real 3.15")
    if p is None:
        return text
    if p.skipped:
        return text + f"; not checked on the real 3.15: {p.skipped}"
    return text + (f"; checked on the real Python {p.python_version} (bare, -X lazy_imports=all, the set in a plain filter): "
                   f"{'identical' if p.identical else 'DIFFERENT: ' + (p.difference or '')} in {p.runs} runs")


def _verify(st: _Lazy) -> None:
    """Step 2, last: the verification lazy run with the set kept eager (never cached)."""
    from profiler.analysis.lazy import describe_difference, only_durations_differ

    final, st.lazy_rec = st.runner.run(lazy=True, keep=st.keep)
    final_difference = describe_difference(st.reference, final)
    if only_durations_differ(st.reference, final):
        st.notes.append("the program prints durations, which change when it runs faster: "
                        "eager and lazy runs compared with them masked")
    if final_difference and st.runner.mask is None and not st.unstable:
        rejudged = _only_timing(st, final)
        if rejudged is not None:
            final_difference = rejudged or None
    plain_failed = (st.plain is not None and st.plain.runs and not st.plain.identical
                    and _major_minor(st.interp) >= (3, 15))  # the user's configuration: bare, the set in a filter
    st.identical = final_difference is None and not st.unstable and not plain_failed
    if final_difference and not st.explained:
        kept = f" with {', '.join(st.keep)} kept eager" if st.keep else ""
        gist = f"the verification lazy run{kept} differs from the eager run"
        st.warning(Said(f"{gist}: {final_difference}", WarningKind.VERIFICATION_DIFFERS, gist))
    if st.lazy_rec is None:
        st.lazy_rec = st.eager_rec
        st.warning(Said("the lazy run ended without running exit handlers: its module counts are the eager run's",
                        WarningKind.NO_EXIT_HANDLERS, WarningKind.NO_EXIT_HANDLERS.value))
    if st.opts.keep_eager:
        st.notes.append(f"kept eager as asked (--keep-eager): {', '.join(st.opts.keep_eager)}")


def _only_timing(st: _Lazy, final: ProgramOutput) -> str | None:
    """The verification differs from the reference in numbers only, not durations (a score "0.11"
    against "0.10", which the eager runs happened to print alike): up to 3 more eager runs; when
    one of them differs from the reference the same way, those numbers are the program's timing,
    compared masked from now on. The verification's difference then ("": none; None: not timing)."""
    from profiler.analysis.lazy import comparison_for, describe_difference, masked

    try:
        how = comparison_for([st.reference, final])
    except ValueError:
        return None
    if how is None:
        return None
    for _ in range(3):
        again, _rec = st.runner.run(lazy=False)
        if masked(again, how) == masked(st.reference, how) and again != st.reference:
            st.compare_masked(how)
            return describe_difference(st.reference, masked(final, how)) or ""
    return None


def _priced_report(st: _Lazy) -> LazyReport:
    """Step 3: the eager -X importtime profile prices what the lazy run avoided, per module and
    per import statement of the target's own code (the costliest measured alone)."""
    from profiler.analysis.lazy import avoided_modules, stayed_eager, statement_savings, total_self_us
    from profiler.workflows.imports import ImportsOptions, imports

    opts, eager_rec, lazy_rec = st.opts, st.eager_rec, st.lazy_rec
    with st.session.quiet():  # the profile's warnings and progress are not lazy's
        profile = imports(
            ImportsOptions(target=opts.target, python=opts.python, runs=opts.profile_runs, warmup=1,
                           flags=tuple(opts.flags), sites=True, ignore_failure=opts.ignore_failure), session=st.session,
        )
    avoided, avoided_us = avoided_modules(eager_rec, lazy_rec, profile.modules)
    statements = statement_savings(avoided, profile.modules, own_roots(opts.target, eager_rec))
    bisect_runs = max(0, st.runner.runs - 5)  # beyond the three eager, the first lazy and the verification
    statements = _measure_statements(st.runner, st.reference, eager_rec, statements, st.keep, profile.modules)
    return LazyReport(
        results=(),
        must_stay_eager=tuple(st.must),
        avoided=tuple(avoided),
        identical_output=st.identical,
        modules_eager=len(eager_rec.executed),
        modules_lazy=len(lazy_rec.executed),
        statements=tuple(statements),
        python=st.interp.path,
        python_version=st.interp.version,
        target=opts.target.label(),
        mode="-X lazy_imports=all" if _major_minor(st.interp) >= (3, 15) else "finder",
        stayed_eager=tuple(stayed_eager(lazy_rec)),
        avoided_us=avoided_us,
        bisect_runs=bisect_runs,
        warnings=tuple(st.warnings),
        notes=tuple(st.notes),
        total_self_us=total_self_us(profile.modules),
        rests_on=_rests_on(st),
        plain_check=st.plain,
        own_lazy=tuple(eager_rec.own_lazy),
    )


def _major_minor(interp) -> tuple[int, ...]:
    return tuple(int(p) for p in interp.version.split(".")[:2])


def _calibration(st: _Lazy) -> dict:
    """Step 4: before 3.15, the hook times its own per-event costs in this interpreter."""
    if _major_minor(st.interp) >= (3, 15):
        return {}
    _, cal_rec = st.runner.run(lazy=True, target=Target(TargetKind.CODE, "pass"), calibrate=2000)
    return dict(cal_rec.calibration) if cal_rec is not None else {}


def _importer_of(site: str, eager: LazyRun, target: Target) -> str | None:
    """The module whose file holds `site` (file:line), as the import system names it."""
    from profiler.analysis.lazy import site_file

    path = os.path.abspath(site_file(site))
    names = [n for n, _, f in eager.executed if f and os.path.abspath(f) == path]
    if not names and (site_file(site) == "<string>" or (target.kind == TargetKind.SCRIPT and os.path.abspath(target.value) == path)):
        return "__main__"  # (3.15 drops __main__.__file__ before exit handlers run)
    return next((n for n in names if n != "__main__"), names[0] if names else None)


def _source_line(site: str) -> str | None:
    from profiler.analysis.lazy import site_file

    head, _, line = site.rpartition(":")
    try:
        with open(site_file(site), encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, 1):
                if i == int(line):
                    return text.strip()
    except (OSError, ValueError):
        return None
    return None


def _measure_statements(runner, reference, eager_rec, statements, keep, modules):
    """Each of the costliest statements measured alone: a recorded run in which only that
    statement's imports are lazy (3.15's filter, or the emulation's, on (importer, module)),
    priced at the eager self time of every module that run no longer imports."""
    from profiler.analysis.lazy import describe_difference, run_saving, saves_nothing, suggestion_for

    out = []
    limit = runner.opts.statement_runs
    written = _written_lazy(eager_rec) if statements and limit and runner.interp.version_tuple[:2] >= (3, 15) else []
    if statements and limit:
        n = min(limit, len(statements))
        runner.session.info("measuring the costliest import statement alone" if n == 1 else
             f"measuring the {n} costliest import statements one at a time")
    for i, st in enumerate(statements):
        importer = _importer_of(st.site, eager_rec, runner.opts.target)
        text = _source_line(st.site)
        st = replace(st, importer=importer, statement=text, suggestion=suggestion_for(text, importer, st.imports))
        if i < limit and importer and st.imports:
            got, rec = runner.run(lazy=True, keep=keep, only=[(importer, n) for n in st.imports] + written)
            if rec is not None:
                names, saving = run_saving(eager_rec, rec, modules)
                same = describe_difference(reference, got) is None
                # nothing to write when that one change saves nothing (a console script's
                # `from pkg import main`, called at once) or changes the output
                st = replace(st, saving_us=saving, saving_modules=tuple(names), identical_output=same,
                             suggestion=st.suggestion if names and same else None)
        out.append(st)
    measured = sorted((s for s in out if s.saving_us is not None and not saves_nothing(s)), key=lambda s: (-(s.saving_us or 0), s.site))
    # a statement that, measured alone, saved nothing (no module left out) comes after every
    # candidate still to be judged: it is no recommendation, whatever its estimate
    nothing = sorted((s for s in out if saves_nothing(s)), key=lambda s: s.site)
    return tuple(measured + [s for s in out if s.saving_us is None] + nothing)


def _written_lazy(eager_rec) -> list[tuple[str, str]]:
    """What the executed modules' own sources write lazy (analysis/lazy.py: written_lazy), so
    that a one-statement run on 3.15 (every import through the filter) leaves them lazy as the
    bare run does."""
    from profiler.analysis.lazy import written_lazy

    pairs: list[tuple[str, str]] = []
    for name, _kind, path in eager_rec.executed:
        if not path or not path.endswith(".py"):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                source = fh.read()
        except OSError:
            continue
        pairs.extend(written_lazy(name, path.endswith("__init__.py"), source))
    return list(dict.fromkeys(pairs))


def _measured(report: LazyReport, opts: LazyOptions, interp, keep, counts, calibration,
              session: Session, filter_dir: str | None = None) -> LazyReport:
    from profiler.analysis.lazy import predict_lazy
    from profiler.capture.lazy import bare_launcher_argv, lazy_argv, lazy_flags
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.measure import measure

    t = opts.target
    label = t.label()
    common = dict(python=interp.path, python_version=interp.version, target=label, target_kind=t.kind)
    lazy_extra = tuple(lazy_flags(interp.version, True))
    kept = [*opts.keep_eager, *keep]
    emulated = report.mode == "finder"
    lazy_env = None
    if not emulated:  # 3.15: the bare interpreter as a user runs it, the set (if any) in the plain filter
        lazy_cmd = (interp.path, *opts.flags, *lazy_extra, *t.python_argv())
        if kept and filter_dir:
            lazy_env = tuple(filter_env(filter_dir).items())
        elif kept:  # (no filter module written: a library caller's path) the launcher's filter
            lazy_cmd = tuple(lazy_argv(interp.path, interp.version, opts.flags, t, lazy=True, keep=kept))
    else:
        lazy_cmd = tuple(lazy_argv(interp.path, interp.version, opts.flags, t, lazy=True, keep=kept))
    specs = [
        CommandSpec(argv=(interp.path, *opts.flags, *t.python_argv()), variant="eager",
                    flags=tuple(opts.flags), key="eager", **common),
        CommandSpec(argv=lazy_cmd, variant="lazy", flags=(*opts.flags, *lazy_extra), key="lazy", env=lazy_env, **common),
    ]
    through_launcher = emulated or (bool(kept) and lazy_env is None)
    if through_launcher:  # the launcher's own cost, timed beside python on -c pass (taken out of the prediction)
        empty = Target(TargetKind.CODE, "pass")
        base = dict(python=interp.path, python_version=interp.version, target="-c pass", target_kind=TargetKind.CODE,
                    flags=tuple(opts.flags), role="baseline")
        specs += [
            CommandSpec(argv=(interp.path, *opts.flags, "-c", "pass"), variant="python -c pass", key="bare-empty", **base),
            CommandSpec(argv=tuple(bare_launcher_argv(interp.path, opts.flags, empty)), variant="launcher -c pass",
                        key="launcher-empty", **base),
        ]
    plan = RunPlan(runs=opts.runs, warmup=opts.warmup, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    try:
        m = measure(specs, plan, engine=opts.engine, reference="eager", session=session)
    except Interrupted as exc:
        part = exc.partial
        if part is not None:
            partial = replace(report, results=tuple(r for r in part.results if r.key in ("eager", "lazy")),
                              relative=tuple(r for r in part.relative if r.key in ("eager", "lazy")),
                              reference=part.reference, machine=part.machine,
                              warnings=report.warnings + part.warnings, interrupted=True)
            raise Interrupted(exc.message, partial=partial) from None
        raise
    by = {r.key: r for r in m.results}
    prediction = None
    e, z = by.get("eager"), by.get("lazy")
    if e is not None and z is not None and not e.failed and not z.failed and e.mean:
        launcher_s = 0.0
        b, lz = by.get("bare-empty"), by.get("launcher-empty")
        if b is not None and lz is not None and not b.failed and not lz.failed:
            # CPU time (user + system): the launcher's work is CPU; the wall difference of two
            # ~20 ms runs drowns in a loaded machine's scheduling noise
            if None not in (lz.user, lz.system, b.user, b.system):
                launcher_s = max(0.0, (lz.user + lz.system) - (b.user + b.system))
            else:
                launcher_s = max(0.0, lz.mean - b.mean)
        if emulated:
            prediction = predict_lazy(e.mean, z.mean, launcher_s, counts, calibration)
        else:
            from profiler.model.lazy import Prediction

            lazy_mean = max(0.0, z.mean - launcher_s)
            how = ("measured: 3.15's own lazy imports (-X lazy_imports=all), nothing emulated"
                   + (f"; the {len(kept)} modules kept eager by the plain filter module (sitecustomize.py on PYTHONPATH), "
                      "no importprof code in the timed runs" if lazy_env else "")
                   + (f"; the keep-eager filter's launcher ({launcher_s * 1e3:.1f} ms: CPU time of its -c pass beside python's) taken out"
                      if through_launcher else ""))
            prediction = Prediction(lazy_mean, lazy_mean / e.mean, launcher_s, launcher_s=launcher_s, how=how)
    return replace(report, results=tuple(r for r in m.results if r.key in ("eager", "lazy")),
                   relative=tuple(r for r in m.relative if r.key in ("eager", "lazy")), reference=m.reference,
                   machine=m.machine, warnings=report.warnings + m.warnings, prediction=prediction)
