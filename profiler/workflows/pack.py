"""`importprof pack`: collect what a target imports into packed resources (PyOxidizer's format,
written by the python-oxidized-importer crate inside importprof's launcher)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from profiler.errors import UsageError
from profiler.model.packing import PackReport, ResourceSet
from profiler.model.target import Target
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

SETS = ("in-memory", "filesystem")
PACK_ENTRIES = (*SETS, "pack.json")  # every name a pack writes into its folder


@dataclass(frozen=True)
class PackOptions:
    out_dir: str
    target: Target | None = None
    all_stdlib: bool = False
    python: Interpreter | None = None  # resolved at the command's edge (profiler/api.py for a library caller); None: python3 on PATH
    force: bool = False  # --force: pack into a folder importprof did not make (its own files only)


@dataclass(frozen=True)
class Packed:
    report: PackReport
    launcher: str


def check_target(target: Target) -> None:
    """What packing (and so build and compare) can take, checked before any folder is touched."""
    if not target.is_python:
        raise UsageError("the target must be Python (SCRIPT, -m MODULE or -c CODE), not `-- COMMAND`")
    from profiler.workflows.targets import check_target as check_runnable

    check_runnable(target)  # the message every command gives


def stdlib_entries(interp) -> tuple[str, ...]:
    """The sys.path entries of the standard library (its top-levels are its units)."""
    return (interp.stdlib, os.path.join(interp.stdlib, "lib-dynload"))


def discover(interp, target: Target, session: Session) -> tuple:
    """One recording run (with site, as users run it): (records, sys_path); a non-zero exit is
    the program's own behaviour, compared variant by variant later."""
    from profiler.capture.oxidized import discover_modules

    return discover_modules(interp.path, target, any_exit=True, session=session)


def pack_target(interp, target: Target, out_dir: str, discovered: tuple | None = None, plan=None, *, session: Session) -> Packed:
    """`discovered`: (records, sys_path) of a discovery run already made, `plan` the PackPlan
    made from it (build shares them between the oxidized and frozen variants)."""
    from profiler.analysis.packing import plan_pack, without
    from profiler.capture.cargo import launcher_path
    from profiler.capture.oxidized import run_packer, scan_units
    from profiler.model.interpreter import require

    check_target(target)
    require(interp, "oxidized", for_what="packing with python-oxidized-importer")
    launcher = launcher_path(interp, session=session)
    records, sys_path = discovered if discovered is not None else discover(interp, target, session=session)
    if plan is None:
        plan = plan_pack(records, scan_units(records, sys_path, stdlib_entries(interp)))
    session.info(f"packing {len(plan.modules)} modules of {len(plan.units)} units "
         f"({sum(1 for u in plan.units if u.kind == 'distribution')} distributions)")
    stats = run_packer(launcher, interp.path, plan, out_dir, SETS, session=session)
    plan = without(plan, [tuple(f) for f in stats.pop("failed", ())])
    resource_sets = tuple(
        ResourceSet(name=s, path=os.path.join(os.path.abspath(out_dir), s), **stats[s]) for s in SETS
    )
    report = PackReport(
        target=target.label(),
        python=interp.path,
        python_version=interp.version,
        out_dir=os.path.abspath(out_dir),
        sets=resource_sets,
        modules=plan.modules,
        unpacked=plan.unpacked,
        served=plan.served,
        units=tuple(u.summary() for u in plan.units),
    )
    return Packed(report, launcher)


def pack(opts: PackOptions, *, session: Session) -> PackReport:
    from dataclasses import replace

    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.machine import read_machine
    from profiler.capture.oxidized import clear_dir, write_json

    if opts.all_stdlib and opts.target is not None:
        raise UsageError("give a target or --all-stdlib, not both")
    if not opts.all_stdlib and opts.target is None:
        raise UsageError("pack needs a target (SCRIPT, -m MODULE, -c CODE) or --all-stdlib")
    if not opts.out_dir:
        raise UsageError("pack needs -o DIR")
    if os.path.exists(opts.out_dir) and not os.path.isdir(opts.out_dir):
        raise UsageError(f"-o {opts.out_dir}: exists and is not a directory")
    target = opts.target
    if opts.all_stdlib:
        from profiler.workloads import workload_target

        target = workload_target("import-stdlib")
    check_target(target)
    interp = interpreter_for(opts.python, "pack", session=session)  # before any folder is cleared
    from profiler.sinks import claim_output_folder

    existed = claim_output_folder(opts.out_dir, "-o", force=opts.force, entries=PACK_ENTRIES)
    for s in SETS:  # a previous pack's files must not linger in lib/
        clear_dir(os.path.join(opts.out_dir, s))
    before = set(os.listdir(opts.out_dir)) if existed else set()
    from profiler.capture.oxidized import read_files, restore_files
    from profiler.workflows.targets import watched_files

    watched = watched_files(target)
    originals = list(zip(watched, read_files(watched)))  # the recording run may rewrite them (black)
    try:
        try:
            packed = pack_target(interp, target, opts.out_dir, session=session)
        finally:
            restore_files(originals)
        report = replace(packed.report, machine=read_machine(session=session))
        write_json(os.path.join(opts.out_dir, "pack.json"), report.to_dict())
    except BaseException:  # a failed pack leaves nothing half-made
        if not existed:
            clear_dir(opts.out_dir)
        elif os.path.isdir(opts.out_dir):
            for name in set(os.listdir(opts.out_dir)) - before | {"pack.json"}:
                clear_dir(os.path.join(opts.out_dir, name))
        raise
    return report
