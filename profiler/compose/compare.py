"""`importprof compare`: build the five variants of a target (or a workload), time them
interleaved and tabulate them as PyOxidizer's "Performance of Built Binaries" page does.

Syscall counts come from `importprof trace`'s machinery (one strace -f run per variant) when
strace works; otherwise the table goes without them (a warning says why).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Callable

from profiler.errors import BadInput, Interrupted, ToolFailed, ToolMissing, UsageError
from profiler.model.build_variant import REFERENCE
from profiler.model.compare import CompareReport
from profiler.model.measurement import CommandSpec
from profiler.model.run_options import RunOptions
from profiler.model.target import Target
from profiler.model.warnings import first_clause
from profiler.model.words import Said, Syscalls, TargetKind, WarningKind
from profiler.session import Session

NOTES = (
    "oxidized/filesystem/in-memory: importprof's launcher (CPython + PyOxidizer's oxidized_importer), "
    "no site; in-memory: OxidizedFinder over a memory-mapped packed-resources file",
    "frozen: importprof's C launcher with the target's bytecode in CPython's frozen-modules table "
    "(FrozenImporter), no site",
    "lazy (only with --variant): traditional with every import deferred to first use (importprof lazy's finder); "
    "lazy+in-memory: the same finder above the in-memory launcher's, the two fixes stacked",
    "CPU = user + system of the process and the children it waited for (wait4 rusage)",
)


@dataclass(frozen=True)
class CompareOptions(RunOptions):
    # RunOptions' fields (model/run_options.py): target None with a workload; python: an
    # Interpreter (the harness workload's: the one importprof runs in, unless --python names one)
    DEFAULTS = {"warmup": None}  # 1, none for --harness (resolved in _compare)
    NOT_TAKEN = ("flags", "timeout")
    workload: str | None = None
    min_time_s: float = 2.0
    launches: int = 10
    build_dir: str | None = None
    syscalls: Syscalls = Syscalls.AUTO  # --syscalls (its word made the member at the edge: options_edge.syscalls_word)
    variants: tuple[str, ...] | None = None  # --variant (default: every one the interpreter has)
    force: bool = False  # --force: build into a --build-dir importprof did not make (its own files only)
    harness: str | None = None  # --harness CMD: a command line with {program}, timed once per variant per round
    harness_shell: bool = False  # --harness-shell: CMD run by /bin/sh -c (else split as a shell would, no shell)
    record_with: str | None = None  # --record-with CMD: another command whose program processes' modules are packed too

    def __post_init__(self) -> None:
        """A CompareOptions that exists is valid (the command's and the library's alike): each
        check is one usage error, in this order."""
        super().__post_init__()
        from profiler.workloads import WORKLOADS

        if (self.target is None) == (self.workload is None):
            raise UsageError("compare needs a target (SCRIPT, -m MODULE, -c CODE) or --workload NAME, not both")
        if self.workload is not None and self.workload not in WORKLOADS:
            raise UsageError(f"unknown workload {self.workload!r} (known: {', '.join(WORKLOADS)})")
        if self.target is not None and not self.target.is_python:
            raise UsageError("compare needs a Python target, not `-- COMMAND`")
        if self.launches < 1:
            raise UsageError("--launches must be at least 1")
        if self.harness is None and (self.record_with is not None or self.harness_shell):
            raise UsageError("--record-with and --harness-shell go with --harness CMD")
        if self.harness is not None:
            from profiler.compose.compare_harness import harness_words

            if self.target is None:
                raise UsageError("--harness needs a target (the program the harness starts), not --workload")
            harness_words(self.harness, "--harness")
            if self.syscalls == Syscalls.ON:
                raise UsageError("--syscalls on: not with --harness (its recording run counts the harness's processes under strace)")
            if self.record_with is not None:
                harness_words(self.record_with, "--record-with")


def harness_cli(interp) -> Target:
    """`importprof --help` of the venv the harness's interpreter (an Interpreter) belongs to:
    the importprof script beside the python named (as the user named it, or as it reports
    itself)."""
    for py in (interp.requested, interp.path):
        script = os.path.join(os.path.dirname(py), "importprof")
        if os.path.dirname(py) and os.path.isfile(script):
            return Target(TargetKind.SCRIPT, script, ("--help",))
    raise BadInput(f"harness: no importprof script beside {interp.requested}: pass --python PATH/TO/VENV/bin/python with importprof installed")


def _default_build_dir(name: str, target: Target, interp_path: str) -> str:
    from profiler.capture.cargo import cache_root

    key = hashlib.sha256(json.dumps([target.to_dict(), interp_path]).encode()).hexdigest()[:12]
    return os.path.join(cache_root(), "builds", f"{name}-{key}")


def count_syscalls(argv, env, variant, ignore_failure: bool = False, *, session: Session):
    from profiler.analysis.compare import syscall_count
    from profiler.workflows.trace import trace_argv

    full = dict(os.environ)
    full.update(env or {})
    tr = trace_argv(list(argv), variant=variant, env=full, ignore_failure=ignore_failure, session=session)
    return syscall_count(variant, tr.total_syscalls, tr.total_errors, tr.filesystem)


def build(opts: CompareOptions, warn: Callable[[str], None] | None = None,
          *, session: Session, hold: Callable | None = None, extra_modules=(), interp=None):
    """Build the variants; returns (interpreter, target, build_dir, specs to time, launches).
    `hold(cm)`: enters a context manager for the caller's whole use of the build (the default
    build folder, shared in the cache by every compare of the same target, is locked until the
    caller has measured it: a second compare at once waits instead of rebuilding it under the first)."""
    from profiler.capture.interpreter import interpreter_for
    from profiler.analysis.packing import default_name
    from profiler.compose.build import build_variants, select_variants
    from profiler.workloads import HARNESS_DRIVER, workload_target

    launches = None
    # the harness's default interpreter is the one importprof runs in (its venv has importprof)
    if interp is None:
        interp = interpreter_for(sys.executable if opts.python is None and opts.workload == "harness" else opts.python, session=session)
    if opts.workload == "harness":
        target = harness_cli(interp)
        launches = opts.launches
        name = "harness"
    elif opts.workload:
        target, name = workload_target(opts.workload), opts.workload
    else:
        target, name = opts.target, default_name(opts.target)
    build_dir = opts.build_dir or _default_build_dir(name, target, interp.path)
    if not opts.build_dir and hold is not None:
        from profiler.cachelock import locked

        os.makedirs(os.path.dirname(build_dir), exist_ok=True)
        hold(locked(build_dir + ".lock", lambda: session.info(f"another importprof compare is using {build_dir}: waiting for it...")))
    if os.path.exists(build_dir) and not os.path.isdir(build_dir):
        raise UsageError(f"--build-dir {build_dir}: exists and is not a directory")
    select_variants(interp, opts.variants)  # a variant this interpreter cannot have: refused before building
    session.info(f"building the variants of {target.label()} in {build_dir}")
    variants, made = build_variants(interp, target, build_dir, variants=opts.variants, warn=warn,
                                    force=opts.force, option="--build-dir", session=session, extra_modules=extra_modules)
    specs = []
    failed = []  # (spec, BuiltVariant): not built, or not behaving as traditional
    for bv in variants:
        if launches:
            pairs = [f"{k}={v}" for k, v in bv.env]
            argv = (interp.path, "-S", "-E", HARNESS_DRIVER, str(launches), *pairs, "--", *bv.argv)
            env = None
        else:
            argv, env = bv.argv, (bv.env or None)
        spec = CommandSpec(argv=tuple(argv) or (bv.name,), variant=bv.name, python=interp.path, python_version=interp.version,
                           target=target.label(), env=env, key=bv.name, target_kind=target.kind)
        (failed.append((spec, bv)) if bv.failed else specs.append(spec))
    return interp, target, build_dir, specs, launches, variants, failed, made


def module_origin_warning(bv) -> Said | None:
    """A packing variant that loaded most of its modules through the path finder behind its
    pack does not measure what its name says: one line that says so."""
    from profiler.model.build_variant import is_packing

    if not is_packing(bv.name) or bv.failed or bv.packed_modules is None or not bv.fallback_modules:
        return None
    if bv.fallback_modules <= bv.packed_modules:
        return None
    gist = (f"{bv.fallback_modules} of {bv.packed_modules + bv.fallback_modules} modules came from the filesystem through "
            "the fallback path finder, not from its pack")
    return Said(f"variant {bv.name}: {gist} (e.g. {', '.join(bv.fallback_sample[:4])}): this row mostly measures the "
                "ordinary importer", WarningKind.MOSTLY_FALLBACK, gist, f"variant {bv.name}")


def count_all_syscalls(opts: CompareOptions, specs, ignore_failure: bool = False, *, session: Session):
    """One strace run per variant; ([], warning) when strace cannot run and --syscalls auto."""
    if opts.syscalls == Syscalls.OFF:
        return [], []
    try:
        return [count_syscalls(s.argv, dict(s.env or ()), s.variant, ignore_failure, session=session) for s in specs], []
    except (ToolMissing, ToolFailed) as exc:
        if opts.syscalls == Syscalls.ON:
            raise
        msg = Said(f"syscall counts skipped: {exc}", WarningKind.SYSCALLS_SKIPPED, first_clause(str(exc)), "syscall counts skipped")
        session.warn(msg)
        return [], [msg]


def compare(opts: CompareOptions, *, session: Session) -> CompareReport:
    """Build, check and time the variants. The files the target names are as they were before
    when it returns: a program that rewrites its input (black formatting a file) rewrites it in
    the timed runs (each later run sees what the one before left), as build's check put it back."""
    from profiler.capture.oxidized import read_files, restore_files
    from profiler.workflows.targets import watched_files

    watched = watched_files(opts.target) if opts.target is not None and opts.target.is_python else []
    originals = list(zip(watched, read_files(watched)))
    try:
        return _compare(opts, session=session)
    finally:
        restore_files(originals)


def _compare(opts: CompareOptions, session: Session) -> CompareReport:
    from profiler.capture.timing import RunPlan

    if opts.harness is not None:  # a harness runs for seconds to minutes: a few rounds, no warm-up unless asked
        from profiler.compose.compare_harness import DEFAULT_RUNS

        plan = RunPlan(runs=opts.runs or DEFAULT_RUNS, warmup=opts.warmup or 0, ignore_failure=True, use_spawner=False)
        with contextlib.ExitStack() as held:
            return _compare_harness(opts, plan, held.enter_context, session=session)
    plan = RunPlan(runs=opts.runs, warmup=1 if opts.warmup is None else opts.warmup, min_runs=5, min_time_s=opts.min_time_s, ignore_failure=opts.ignore_failure)
    unavailable: list[str] = []  # variants this interpreter cannot have: one line each, in the report

    def note(msg: str) -> None:
        unavailable.append(msg)
        session.warn(msg)

    with contextlib.ExitStack() as held:
        return _compare_built(opts, plan, unavailable, note, held.enter_context, session=session)


def _compare_built(opts, plan, unavailable, note, hold, session: Session) -> CompareReport:
    from profiler.analysis.compare import compare_rows
    from profiler.workflows.measure import measure

    interp, target, build_dir, specs, launches, built, not_built, _made = build(opts, warn=note, session=session, hold=hold)
    from profiler.model.measurement import TimingResult

    failures = tuple(TimingResult.failure(spec, (bv.exit_code,) if bv.exit_code is not None else (), f"{bv.error} (what to do: {bv.hint})")
                     for spec, bv in not_built)
    origins = {bv.name: (bv.packed_modules, bv.fallback_modules) for bv in built}
    for bv in built:
        if bv.failed:
            session.warn(Said(f"variant {bv.name} failed: {bv.error}", WarningKind.VARIANT_FAILED, first_clause(bv.error or ""),
                              f"variant {bv.name} failed"))
    mostly_disk = [msg for msg in (module_origin_warning(bv) for bv in built) if msg]
    for msg in mostly_disk:
        note(msg)
    traditional = next((bv for bv in built if bv.name == REFERENCE), None)
    if traditional is not None and traditional.exit_code:
        from dataclasses import replace as _replace

        plan = _replace(plan, ignore_failure=True)  # the program's own exit code, checked equal in every variant

    def report_of(m, counts=(), skipped=()) -> CompareReport:
        order = {bv.name: i for i, bv in enumerate(built)}
        results = tuple(sorted((*m.results, *failures), key=lambda r: order.get(r.variant, len(order))))
        return CompareReport(
            workload=opts.workload, target=target.label(), python=interp.path, python_version=interp.version,
            build_dir=build_dir, results=results, rows=tuple(compare_rows(results, counts, origins=origins)),
            syscalls=tuple(counts), relative=m.relative, launches=launches,
            warnings=(*unavailable, *m.warnings, *skipped), notes=NOTES, machine=m.machine,
        )

    if not_built and all(s.variant == REFERENCE for s in specs):  # nothing left to compare with the reference
        from profiler.errors import TargetFailed

        raise TargetFailed("every variant but traditional failed", detail="\n".join(f"{bv.name}: {bv.error}" for _, bv in not_built))
    try:
        m = measure(specs, plan, reference=REFERENCE, session=session)
    except Interrupted as exc:  # Ctrl-C: the table of the runs measured so far
        raise exc.showing(report_of) from None
    failed = {r.key for r in m.results if r.failed}
    ok = [s for s in specs if s.key not in failed]
    counts, skipped = count_all_syscalls(opts, ok, ignore_failure=plan.ignore_failure, session=session)
    return report_of(m, counts, skipped)


def _compare_harness(opts: CompareOptions, plan, hold, session: Session) -> CompareReport:
    """compare --harness (compose/compare_harness.py): record, build with what the harness
    imported, time the harness per variant, judge how it ended."""
    import tempfile
    import shutil

    from profiler.analysis.compare import compare_rows
    from profiler.capture.harness_runs import HarnessExecutor
    from profiler.capture.interpreter import interpreter_for
    from profiler.compose import compare_harness as ch
    from profiler.model.measurement import TimingResult
    from profiler.workflows.measure import measure

    unavailable: list[str] = []

    def note(msg: str) -> None:
        unavailable.append(msg)
        session.warn(msg)

    interp = interpreter_for(opts.python, session=session)
    rec = ch.record(interp, opts.target, opts.harness, opts.harness_shell, session=session)
    ch.check_recording(rec, opts.ignore_failure)
    modules = set(rec.modules)
    if opts.record_with is not None:
        more = ch.record(interp, opts.target, opts.record_with, opts.harness_shell, session=session, option="--record-with")
        modules |= more.modules
    _, target, build_dir, _specs, _, built, not_built, made = build(opts, warn=note, session=session, hold=hold,
                                                                 extra_modules=sorted(modules), interp=interp)
    for msg in (msg for msg in (module_origin_warning(bv) for bv in built) if msg):
        note(msg)
    failures = [TimingResult.failure(spec, (bv.exit_code,) if bv.exit_code is not None else (), f"{bv.error} (what to do: {bv.hint})")
                for spec, bv in not_built]
    words = ch.harness_words(opts.harness)
    folder = tempfile.mkdtemp(prefix="importprof-harness-")
    try:
        specs, counters, unusable = ch.harness_specs(interp, target, built, opts.harness, words, opts.harness_shell, folder)
        from profiler.model.measurement import CommandSpec

        for bv, why in unusable:
            failures.append(TimingResult.failure(CommandSpec(argv=bv.argv, variant=bv.name, key=bv.name), (), why))
        seen: dict = {}
        missing = ch.not_packed(rec, made.pack, made.unimportable)
        # where the harness's own processes took their modules from: traditional's recording run,
        # and an untimed run of the harness per packing variant (its processes under the recorder)
        from profiler.errors import InstrumentFailed, TargetFailed
        from profiler.model.build_variant import is_packing

        recorded = [ch.traditional_origins(rec)]
        timed_keys = {s.key for s in specs}
        for bv in built:
            if bv.name not in timed_keys or not is_packing(bv.name):
                continue
            session.info(f"recording where {bv.name}'s modules come from: the harness once more, untimed")
            try:
                got = ch.origins_run(interp, target, bv, made, rec, opts.harness, words, opts.harness_shell, folder, session=session)
            except (TargetFailed, InstrumentFailed) as exc:
                note(Said(f"variant {bv.name}: where its modules came from in the harness not recorded: {exc}",
                          WarningKind.ORIGINS_NOT_RECORDED, WarningKind.ORIGINS_NOT_RECORDED.value, f"variant {bv.name}"))
                continue
            if got is None:
                continue
            if got.exit_code != rec.exit_code:
                gist = f"the harness exited {got.exit_code} in its recording run"
                note(Said(f"variant {bv.name}: {gist} (traditional's {rec.exit_code}): its modules: pack / fallback are of that run",
                          WarningKind.HARNESS_EXIT, gist, f"variant {bv.name}"))
            recorded.append(got)
        origins = {o.variant: (o.packed_modules, o.fallback_modules) for o in recorded}
        origins.update({bv.name: (None, None) for bv in built if bv.name not in origins})

        def report_of(m, judged=()) -> CompareReport:
            bad = {j.variant: j for j in judged if not j.same_as_traditional and j.variant != REFERENCE}
            order = {bv.name: i for i, bv in enumerate(built)}
            timed = [TimingResult.failure(next(s for s in specs if s.key == r.key), tuple(r.exit_codes), bad[r.variant].difference or "no run")
                     if r.variant in bad else r for r in m.results]
            results = tuple(sorted((*timed, *failures), key=lambda r: order.get(r.variant, len(order))))
            return CompareReport(
                workload=None, target=target.label(), python=interp.path, python_version=interp.version,
                build_dir=build_dir, results=results, rows=tuple(compare_rows(results, (), origins=origins)),
                relative=m.relative, launches=None,
                harness=ch.facts(opts.harness, opts.harness_shell, target, rec, made.added, missing, judged, recorded),
                warnings=(*unavailable, *m.warnings), notes=(*NOTES, HARNESS_NOTE), machine=m.machine,
            )

        try:
            m = measure(specs, plan, reference=REFERENCE, session=session,
                        executor=HarnessExecutor.factory(counters, seen))
        except Interrupted as exc:
            raise exc.showing(report_of) from None
        return report_of(m, ch.judge(specs, seen, rec.exit_code, rec.summary))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


HARNESS_NOTE = ("--harness: CPU = user + system of the harness and every process it started and waited for (wait4 rusage "
                "of the process tree); the program is a /bin/sh script named as the target that execs the variant "
                "(the same script for every variant)")
