"""`importprof build`: one folder per variant, each with a `variant.json` whose `argv` is the exact
command that runs it, every variant checked to give the same output.

  traditional  the interpreter running the target with `site`, as users run it
  no-site      the same with -S
  oxidized     importprof's launcher (CPython + oxidized_importer), standard path importer
  filesystem   launcher + OxidizedFinder over filesystem-relative resources (.pyc files in lib/)
  in-memory    launcher + OxidizedFinder over resources in memory (a memory-mapped
               packed-resources file; extension modules stay files in lib/)
  frozen       importprof's C launcher whose PyImport_FrozenModules table holds the target's
               bytecode: CPython's own FrozenImporter serves it from memory (3.8-3.13; see
               workflows/frozen.py), run with -S
The oxidized variants need python-oxidized-importer 0.9's CPython (3.8-3.11): elsewhere they are
left out with the reason (refused when named with --variant). The launcher variants never run
`site` (PyOxidizer's default). Paths that `site` adds to sys.path
(site-packages, .pth paths) are given to the other variants through PYTHONPATH (`env`), so that
modules left unpacked still import.

`--pyoxidizer` drives the real `pyoxidizer build --system-rust` over pyoxidizer.bzl instead.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from profiler.errors import TargetFailed, UsageError
from profiler.model.packing import BuildReport, BuiltVariant
from profiler.model.target import Target

VARIANTS = ("traditional", "no-site", "oxidized", "filesystem", "in-memory", "frozen", "lazy", "lazy+in-memory")
# built only when named (--variant): lazy loading may change what a program prints, which
# `importprof lazy` checks and bisects; here the variants must print what traditional prints
ON_REQUEST = ("lazy", "lazy+in-memory")
VARIANT_FILE = "variant.json"
# every name a build writes into its folder: in a folder of the user's (--force) these must be
# absent or importprof's own, and nothing else in it is touched
BUILD_ENTRIES = (*VARIANTS, "build.json")  # the packed sets (in-memory, filesystem) are variants too


@dataclass
class BuildOptions:
    target: Target
    python: str | None = None
    name: str | None = None
    out_dir: str | None = None
    variants: tuple[str, ...] | None = None  # --variant (default: every one this interpreter has)
    force: bool = False  # --force: build into a folder importprof did not make (its own files only)


def default_name(target: Target) -> str:
    if target.kind == "script":
        stem = os.path.splitext(os.path.basename(target.value))[0]
        return stem or "app"
    if target.kind == "module":
        return target.value.rsplit(".", 1)[-1]
    return "app"


def _absolute(target: Target) -> Target:
    if target.kind == "script":
        return replace(target, value=os.path.abspath(target.value))
    return target


OXIDIZED = ("oxidized", "filesystem", "in-memory", "lazy+in-memory")


@dataclass(frozen=True)
class Built:
    """What build_variants made besides the folders: the packing (oxidized variants), the frozen
    executable's contents, and the notes on variants left out for this interpreter."""

    launcher: str | None = None
    pack: object | None = None  # PackReport
    frozen: object | None = None  # FrozenReport
    skipped: tuple[str, ...] = ()


def select_variants(interp, requested: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """Requested variant names (repeatable, comma-separated) → the ones to build, in the
    canonical order, and one line per default variant this interpreter cannot have.
    Named explicitly, an unavailable variant is refused (one line, exit 2); `traditional` is
    always built: it is every comparison's reference and the output the others must match."""
    from profiler.model.interpreter import VARIANT_NEEDS, require, why_not_needs

    names: list[str] = []
    for item in requested or ():
        names += [n.strip() for n in item.split(",") if n.strip()]
    for n in names:
        if n not in VARIANTS:
            raise UsageError(f"unknown variant {n!r} for build/compare (known: {', '.join(VARIANTS)})")
    require(interp, "traditional", for_what="build/compare")
    skipped: list[str] = []
    if names:
        for n in names:
            require(interp, n)
        chosen = [v for v in VARIANTS if v in names or v == "traditional"]
    else:
        chosen = []
        for v in VARIANTS:
            if v in ON_REQUEST:
                continue
            reason = why_not_needs(interp, VARIANT_NEEDS[v])
            if reason is None:
                chosen.append(v)
            else:
                skipped.append(f"variant {v} unavailable on {interp.version} ({interp.path}): {reason}")
        if len(skipped) > 1 and all(s.split(": ", 1)[1] == skipped[0].split(": ", 1)[1] for s in skipped):
            names_off = ", ".join(s.split()[1] for s in skipped)
            skipped = [f"variants {names_off} unavailable on {interp.version} ({interp.path}): {skipped[0].split(': ', 1)[1]}"]
    return chosen, skipped


def build_variants(interp, target: Target, out_dir: str, info: Callable[[str], None] | None = None,
                   variants: Sequence[str] | None = None, warn: Callable[[str], None] | None = None,
                   force: bool = False, option: str = "-o") -> tuple[list[BuiltVariant], Built]:
    from profiler.capture.oxidized import clear_dir
    from profiler.sinks import claim_output_folder
    from profiler.workflows.pack import check_target

    check_target(target)
    chosen, skipped = select_variants(interp, variants)
    for line in skipped:
        if warn:
            warn(line)
    target = _absolute(target)
    out_dir = os.path.abspath(out_dir)
    existed = claim_output_folder(out_dir, option, force=force, entries=BUILD_ENTRIES)
    for v in VARIANTS:
        clear_dir(os.path.join(out_dir, v))
    before = set(os.listdir(out_dir))
    try:
        return _build_variants(interp, target, out_dir, chosen, skipped, info)
    except BaseException:
        # a failed build leaves nothing half-made (issue 12.6): a folder it made is removed;
        # in an existing one, what it wrote and the previous build's report (its variants were
        # cleared above) go
        if not existed:
            clear_dir(out_dir)
        else:
            for name in set(os.listdir(out_dir)) - before | {"build.json"}:
                clear_dir(os.path.join(out_dir, name))
        raise


def _build_variants(interp, target: Target, out_dir: str, chosen, skipped, info) -> tuple[list[BuiltVariant], Built]:
    from profiler.capture.oxidized import discover_modules, install_launcher, no_site_sys_path, write_json
    from profiler.workflows.no_site import extra_paths
    from profiler.workflows.pack import pack_target

    records, sys_path = discover_modules(interp.path, target)
    packed = None
    if any(v in OXIDIZED for v in chosen):
        packed = pack_target(interp, target, out_dir, info=info, discovered=(records, sys_path))
    frozen = None
    if "frozen" in chosen:
        from profiler.workflows.frozen import build_frozen

        frozen = build_frozen(interp, records, os.path.join(out_dir, "frozen"), info=info)
    origins = tuple(r.origin for r in records if r.origin and os.path.isabs(r.origin))
    extra = extra_paths(sys_path, no_site_sys_path(interp.path), target, origins)
    env = (("PYTHONPATH", os.pathsep.join(extra)),) if extra else ()
    home = {"home": interp.base_prefix}
    built: list[BuiltVariant] = []
    argv_tail = tuple(target.python_argv())
    for v in chosen:
        folder = os.path.join(out_dir, v)
        os.makedirs(folder, exist_ok=True)
        if v == "traditional":
            argv, venv = (interp.path, *argv_tail), ()
        elif v == "no-site":
            argv, venv = (interp.path, "-S", *argv_tail), env
        elif v == "frozen":  # no site, as no-site and the launcher variants (PyOxidizer's default)
            argv, venv = (frozen.executable, "-S", *argv_tail), env
        elif v == "lazy":  # traditional, every import deferred to first use (importprof lazy's finder)
            from profiler.capture.lazy import lazy_argv

            argv, venv = tuple(lazy_argv(interp.path, interp.version, (), target)), ()
        elif v == "lazy+in-memory":  # the two fixes stacked: the lazy finder above the in-memory one
            from profiler.capture.lazy import lazy_argv

            for part in ("packed-resources", "lib"):  # in-memory's own pack and extension modules
                if os.path.exists(os.path.join(out_dir, "in-memory", part)):
                    os.symlink(os.path.join("..", "in-memory", part), os.path.join(folder, part))
            exe = install_launcher(packed.launcher, folder, {**home, "resources": "packed-resources"})
            argv, venv = (exe, *lazy_argv(interp.path, interp.version, ("-S",), target)[1:]), env
        else:
            cfg = dict(home)
            if v in ("filesystem", "in-memory"):
                cfg["resources"] = "packed-resources"
            exe = install_launcher(packed.launcher, folder, cfg)
            argv, venv = (exe, *argv_tail), env
        built.append(BuiltVariant(v, folder, tuple(argv), tuple(venv)))
    built = check_same_output(built)
    for bv in built:
        write_json(os.path.join(bv.path, VARIANT_FILE), {"schema": "importprof.variant/1", **bv.to_dict()})
    return built, Built(launcher=packed.launcher if packed else None, pack=packed.report if packed else None,
                        frozen=frozen, skipped=tuple(skipped))


def check_same_output(variants: Sequence[BuiltVariant]) -> list[BuiltVariant]:
    """Run every variant once; all must exit 0 with the same stdout."""
    from profiler.capture.oxidized import run_variant

    outs = {}
    done = []
    for bv in variants:
        proc = run_variant(bv.argv, dict(bv.env))
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
            raise TargetFailed(f"variant {bv.name} exited {proc.returncode}: {' '.join(bv.argv)}", detail=tail or None)
        outs[bv.name] = proc.stdout
        done.append(replace(bv, output_sha256=hashlib.sha256(proc.stdout.encode()).hexdigest()))
    ref = outs[variants[0].name]
    for bv in variants[1:]:
        if outs[bv.name] != ref:
            a, b = ref.splitlines(), outs[bv.name].splitlines()
            first = next((i for i in range(max(len(a), len(b))) if (a[i:i+1] != b[i:i+1])), 0)
            detail = f"line {first + 1}: {variants[0].name}: {a[first] if first < len(a) else '<end>'!r}\n" \
                     f"line {first + 1}: {bv.name}: {b[first] if first < len(b) else '<end>'!r}"
            raise TargetFailed(f"variant {bv.name} printed something else than {variants[0].name}", detail=detail)
    return done


def build(opts: BuildOptions, info: Callable[[str], None] | None = None,
          warn: Callable[[str], None] | None = None) -> BuildReport:
    from profiler.capture.interpreter import resolve_python
    from profiler.capture.machine import read_machine
    from profiler.capture.oxidized import write_json

    name = opts.name or default_name(opts.target)
    if not name or os.sep in name or name in (".", ".."):
        raise UsageError(f"--name {name!r}: give a plain folder name")
    out_dir = opts.out_dir or os.path.join("oxidized_builds", name)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise UsageError(f"-o {out_dir}: exists and is not a directory")
    interp = resolve_python(opts.python)
    variants, made = build_variants(interp, opts.target, out_dir, info=info, variants=opts.variants,  # notes: in the report
                                    force=opts.force)
    report = BuildReport(
        name=name,
        target=_absolute(opts.target).label(),
        python=interp.path,
        python_version=interp.version,
        out_dir=os.path.abspath(out_dir),
        launcher=made.launcher,
        variants=tuple(variants),
        pack=made.pack,
        frozen=made.frozen,
        warnings=made.skipped,
        machine=read_machine(),
    )
    write_json(os.path.join(out_dir, "build.json"), report.to_dict())
    return report
