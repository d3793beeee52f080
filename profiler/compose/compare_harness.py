"""`compare --harness "CMD" TARGET`: what packing would save a harness that starts the program
many times (a test suite, a build, a shell loop), as PyOxidizer's table measures Mercurial's
test harness.

1. The command line: CMD split as a shell would (shlex), run without a shell unless
   `--harness-shell`; `{program}` in it (required) is each variant's program, a script named
   as the target is (`hg`) that runs the variant (capture/harness_runs.py).
2. The recording run: the harness once with the traditional program, untimed (or
   `--record-with CMD` instead), every process it starts counted under strace when strace
   works, and the modules each of the program's processes imported written at exit. The
   modules a single run of the target did not import are recorded too when the variants are
   built (compose/build.py: discover_more), so the packs hold what the harness uses.
   A harness that fails here (non-zero exit) is the harness's failure: exit 3, nothing timed
   (`--ignore-failure`: its exit code is what every variant must give).
3. The timed runs: the harness once per variant per round, interleaved (workflows/measure.py
   with capture/harness_runs.py's executor): CPU of the whole process tree, wall time, the
   program's launches. A variant whose harness ended otherwise than with traditional (exit code,
   or its last summary lines) is a failed row saying what differed.
4. Where the harness's processes took their modules from (the table's `modules: pack /
   fallback`): for each packing variant, one more run of the harness, untimed, each program
   process started through importprof's module recorder (bootstrap/launch.py with the
   oxidized_modules hook, a file per process at exit): the distinct modules served by the pack
   and those loaded from files by the path finder behind it, each with why it was not packed
   (origins_run). Untimed because the recorder is not the variant's work: launch.py and the hook
   read and compiled from files, every module described at exit (measured: an in-memory `hg
   log` ran 1,107.8 M instructions under it against 763.1 M without, callgrind). traditional's
   from the recording run (its recorder writes each module's loader).
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from typing import Sequence

from profiler.errors import TargetFailed, ToolFailed, ToolMissing, UsageError
from profiler.model.compare import HarnessFacts, HarnessOrigins, HarnessVariant, NotPacked
from profiler.model.target import Target
from profiler.model.words import TargetKind
from profiler.session import Session

PLACEHOLDER = "{program}"
# a harness runs for seconds to minutes: three rounds, no warm-up, unless --runs/--warmup say
DEFAULT_RUNS = 3
# one whole run of a harness (a test suite) without --timeout: an hour, not one program run's
# limit; compare --harness and build --record-with (commands/) set it on their session
HARNESS_TIMEOUT_S = 3600.0


def harness_words(cmd: str, option: str = "--harness") -> list[str]:
    """CMD split as a shell would; refused (exit 2, one line) when it cannot be split or names
    no {program}."""
    try:
        words = shlex.split(cmd)
    except ValueError as exc:
        raise UsageError(f"{option}: cannot split {cmd!r} as a shell would: {exc}") from None
    if not words:
        raise UsageError(f"{option}: an empty command")
    if not any(PLACEHOLDER in w for w in words):
        raise UsageError(f"{option}: {cmd!r} has no {PLACEHOLDER} (where each variant's program goes)")
    return words


def harness_argv(cmd: str, words: Sequence[str], shell: bool, program: str) -> list[str]:
    """The command line with `program` in place of {program}: argv (no shell), or `/bin/sh -c`
    of CMD with the program's path quoted when the user asked for a shell."""
    if shell:
        return ["/bin/sh", "-c", cmd.replace(PLACEHOLDER, shlex.quote(program))]
    return [w.replace(PLACEHOLDER, program) for w in words]


def program_name(target: Target) -> str:
    """The name harnesses reach the program by: the script's file name (`hg`), a module's last part."""
    if target.kind == TargetKind.SCRIPT:
        return os.path.basename(target.value) or "program"
    if target.kind == TargetKind.MODULE:
        return target.value.rsplit(".", 1)[-1]
    return "program"


def program_argv(argv: Sequence[str], target: Target) -> tuple[str, ...] | None:
    """A built variant's command line without the target's own arguments (the harness gives
    its own), or None when the variant's command does not end with them."""
    args = tuple(target.args)
    if not args:
        return tuple(argv)
    if tuple(argv[-len(args):]) != args:
        return None
    return tuple(argv[: -len(args)])


@dataclass(frozen=True)
class Recording:
    command: str
    exit_code: int
    summary: tuple[str, ...]
    stderr_tail: str
    processes: int | None
    program_processes: int
    modules: frozenset
    # of those, the ones some traditional process loaded from a file (traditional's row)
    file_modules: frozenset = frozenset()


def record(interp, target: Target, cmd: str, shell: bool, session: Session,
           option: str = "--harness") -> Recording:
    """The harness once with the traditional program recording its modules (untimed)."""
    from profiler.capture.harness_runs import read_recorded, run_harness_once, summary_of, write_program

    from profiler.compose.build import _absolute

    words = harness_words(cmd, option)
    # a script named relative to here: the harness may run the program from another folder
    prefix = program_argv((interp.path, *_absolute(target).python_argv()), target)
    tmp = tempfile.mkdtemp(prefix="importprof-harness-record-")
    try:
        rec_dir = os.path.join(tmp, "modules")
        os.makedirs(rec_dir)
        script, counter = write_program(os.path.join(tmp, "traditional"), program_name(target), prefix, (), record_dir=rec_dir)
        argv = harness_argv(cmd, words, shell, script)
        session.info(f"recording: {shlex.join(argv)} (the traditional program, untimed)")
        processes = None
        try:
            from profiler.capture.harness import capture_processes

            cap = capture_processes(argv, importtime=False, what="the harness (recording, under strace)", session=session)
            code, summary, err, processes = cap.returncode, summary_of(cap.stdout, cap.stderr), cap.stderr, len(cap.processes)
        except (ToolMissing, ToolFailed):  # no strace here: the same run, its processes not counted
            _, end = run_harness_once(argv, dict(os.environ), counter, session=session, what="the harness (recording)")
            code, summary, err = end.exit_code, end.summary, end.stderr_tail
        from profiler.compose.build import FILE_LOADERS

        loaders: dict[str, set[str]] = {}
        n, names = read_recorded(rec_dir, loaders)
        files = frozenset(k for k, v in loaders.items() if v & set(FILE_LOADERS) and k not in ("__main__", "sitecustomize"))
        return Recording(shlex.join(argv), code, summary, err, processes, n, frozenset(names), files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_recording(rec: Recording, ignore_failure: bool, what: str = "the harness", after: str = "nothing timed") -> None:
    """A harness that fails with traditional is the harness's failure, not a figure."""
    if rec.exit_code != 0 and not ignore_failure:
        last = next((ln for ln in reversed(rec.stderr_tail.splitlines()) if ln.strip()), "") or (rec.summary[-1] if rec.summary else "")
        raise TargetFailed(f"{what} failed with the traditional variant (exit {rec.exit_code}), {after}"
                           + (f": {last.strip()}" if last else ""), detail=rec.stderr_tail[-2000:] or None, ignorable=True)


def harness_specs(interp, target: Target, built, cmd: str, words, shell: bool, folder: str):
    """(CommandSpecs to time, {key: launch counter}, [(variant, why) not runnable as a program])."""
    from profiler.capture.harness_runs import write_program
    from profiler.model.measurement import CommandSpec

    specs, counters, unusable = [], {}, []
    for bv in built:
        if bv.failed:
            continue
        prefix = program_argv(bv.argv, target)
        if prefix is None:
            unusable.append((bv, f"its command line does not end with the target's arguments: {shlex.join(bv.argv)}"))
            continue
        script, counter = write_program(os.path.join(folder, bv.name), program_name(target), prefix, tuple(bv.env))
        argv = harness_argv(cmd, words, shell, script)
        specs.append(CommandSpec(argv=tuple(argv), variant=bv.name, python=interp.path, python_version=interp.version,
                                 target=target.label(), env=None, key=bv.name, target_kind=target.kind))
        counters[bv.name] = counter
    return specs, counters, unusable


def judge(specs, seen: dict, ref_code: int, ref_summary: tuple[str, ...]) -> list[HarnessVariant]:
    """How the harness ended with each variant, against traditional's end."""
    out = []
    for s in specs:
        runs = seen.get(s.key, [])
        difference = None
        for r in runs:
            if r.exit_code != ref_code:
                difference = f"the harness exited {r.exit_code}, with traditional {ref_code}"
            elif r.summary != ref_summary:
                for a, b in zip((*r.summary, "<end>"), (*ref_summary, "<end>")):
                    if a != b:
                        difference = f"the harness's summary differs: {a!r}, with traditional {b!r}"
                        break
            if difference:
                break
        out.append(HarnessVariant(variant=s.variant, exit_codes=tuple(r.exit_code for r in runs),
                                  summary=runs[-1].summary if runs else (), launches=tuple(r.launches for r in runs),
                                  same_as_traditional=difference is None and bool(runs), difference=difference))
    return out


def not_packed(rec: Recording, pack, unimportable: Sequence[str]) -> tuple[NotPacked, ...]:
    """The modules the program's processes imported that no pack holds, with the reason."""
    out = [NotPacked(u.name, u.reason) for u in (getattr(pack, "unpacked", ()) or ())
           if u.name in rec.modules and u.name not in ("__main__", "sitecustomize")]
    out += [NotPacked(n, "could not be imported apart from the harness when recorded (its import needs the harness's "
                         "state): served by the path finder behind the pack") for n in unimportable]
    return tuple(sorted(out, key=lambda n: n.name))


def fallback_reasons(variant: str, made, rec: Recording) -> dict[str, str]:
    """Why a module the variant's processes loaded from a file is not in its pack: what the
    build said (the pack's unpacked list, the frozen table's not_frozen), or that the recording
    could not import it apart from the harness."""
    from profiler.model.build_variant import BUILD_VARIANTS

    spec = BUILD_VARIANTS[variant]
    listed = (getattr(made.frozen, "not_frozen", ()) if spec.builder == "frozen" else getattr(made.pack, "unpacked", ())) or ()
    why = {u.name: u.reason for u in listed}
    for n in made.unimportable:
        why.setdefault(n, "could not be imported apart from the harness when recorded (its import needs the harness's state)")
    return why


def origins_run(interp, target: Target, bv, made, rec: Recording, cmd: str, words, shell: bool, folder: str,
                session: Session) -> HarnessOrigins | None:
    """A packing variant's untimed run of the harness, each program process started through
    importprof's module recorder (bootstrap/launch.py with the oxidized_modules hook, a file per
    process at exit): which modules its processes took from the pack and which from files
    through the fallback path finder, with why. Untimed: the recorder's start-up (its launcher
    and hook read from files) is not the variant's. None when the variant cannot be started so;
    InstrumentFailed when the recorder itself failed in a process (its counts would miss them)."""
    from profiler.capture.bootstrap import bootstrap_argv, own_errors
    from profiler.capture.harness_runs import read_origin_records, run_harness_once, write_program
    from profiler.compose.build import module_origin
    from profiler.model.build_variant import BUILD_VARIANTS
    from profiler.model.target import Target as _Target

    spec = BUILD_VARIANTS[bv.name]
    if not spec.packing or spec.lazy or bv.failed or program_argv(bv.argv, target) is None:
        return None
    from profiler.compose.build import _absolute

    bare = _Target(target.kind, _absolute(target).value, ())
    rec_dir = os.path.join(folder, bv.name + "-origins", "modules")
    os.makedirs(rec_dir)
    # the recorder's own failure goes to this file (launch.own_error), not to the program's
    # stderr, where the harness would see it (a .t test compares it) and fail as if the program had
    errors = os.path.join(folder, bv.name + "-origins", "errors.txt")
    prefix = bootstrap_argv(bv.argv[0], [] if spec.site else ["-S"], bare, ["oxidized_modules"],
                            {"oxidized_modules_dir": rec_dir, "errors_path": errors})
    script, counter = write_program(os.path.join(folder, bv.name + "-origins"), program_name(target), prefix, tuple(bv.env))
    _, end = run_harness_once(harness_argv(cmd, words, shell, script), dict(os.environ), counter, session=session,
                              what=f"the harness with {bv.name} (recording where its modules came from)")
    own_errors(errors, bare)
    frozen_set = set(getattr(made.frozen, "modules", ()) or ()) if spec.builder == "frozen" else set()
    packed: set[str] = set()
    fallback: set[str] = set()
    runs = read_origin_records(rec_dir)
    for records in runs:
        for r in records:
            where = module_origin(r.get("name", ""), r.get("loader"), r.get("alias_of"), frozen_set)
            if where == "pack":
                packed.add(r["name"])
            elif where == "fallback":
                fallback.add(r["name"])
    fallback -= packed  # a module one process took from the pack and another from a file: counted as packed only
    why = fallback_reasons(bv.name, made, rec)
    unknown = "not imported by the recording run's processes (traditional): imported only with this variant"
    listed = tuple(NotPacked(n, why.get(n) or (unknown if n not in rec.modules else "recorded, but not in the pack (no reason recorded)"))
                   for n in sorted(fallback))
    return HarnessOrigins(variant=bv.name, processes=len(runs), packed_modules=len(packed), fallback_modules=len(fallback),
                          fallback=listed, exit_code=end.exit_code)


def traditional_origins(rec: Recording) -> HarnessOrigins:
    """traditional has no pack: every module its processes loaded from a file (the recording run)."""
    return HarnessOrigins(variant="traditional", processes=rec.program_processes, packed_modules=0,
                          fallback_modules=len(rec.file_modules), fallback=(), exit_code=None)


def facts(cmd: str, shell: bool, target: Target, rec: Recording, added: Sequence[str], missing: tuple[NotPacked, ...],
          variants: Sequence[HarnessVariant], origins: Sequence[HarnessOrigins] = ()) -> HarnessFacts:
    return HarnessFacts(command=cmd, shell=shell, program=program_name(target), record_command=rec.command,
                        processes=rec.processes, program_processes=rec.program_processes,
                        modules_recorded=len(rec.modules), modules_added=len(added), not_packed=missing,
                        variants=tuple(variants), origins=tuple(origins))

