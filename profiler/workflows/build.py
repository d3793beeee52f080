"""`importprof build`: one folder per variant, each with a `variant.json` whose `argv` is the exact
command that runs it, every variant checked to give the same output.

  traditional  the interpreter running the target with `site`, as users run it
  no-site      the same with -S
  oxidized     importprof's launcher (CPython + oxidized_importer), standard path importer
  filesystem   launcher + OxidizedFinder over filesystem-relative resources (.pyc files in lib/)
  in-memory    launcher + OxidizedFinder over resources in memory (a memory-mapped
               packed-resources file; extension modules stay files in lib/)
The launcher variants never run `site` (PyOxidizer's default). Paths that `site` adds to sys.path
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

VARIANTS = ("traditional", "no-site", "oxidized", "filesystem", "in-memory")
VARIANT_FILE = "variant.json"


@dataclass
class BuildOptions:
    target: Target
    python: str | None = None
    name: str | None = None
    out_dir: str | None = None
    read_machine: bool = True


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


def build_variants(interp, target: Target, out_dir: str, info: Callable[[str], None] | None = None) -> tuple[list[BuiltVariant], object]:
    from profiler.capture.oxidized import clear_dir, install_launcher, no_site_sys_path, write_json
    from profiler.workflows.no_site import extra_paths
    from profiler.workflows.pack import check_target, pack_target

    check_target(target)
    target = _absolute(target)
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    for v in VARIANTS:
        clear_dir(os.path.join(out_dir, v))
    packed = pack_target(interp, target, out_dir, info=info)
    extra = extra_paths(packed.sys_path, no_site_sys_path(interp.path), target, packed.origins)
    env = (("PYTHONPATH", os.pathsep.join(extra)),) if extra else ()
    home = {"home": interp.base_prefix}
    variants: list[BuiltVariant] = []
    argv_tail = tuple(target.python_argv())
    for v in VARIANTS:
        folder = os.path.join(out_dir, v)
        os.makedirs(folder, exist_ok=True)
        if v == "traditional":
            argv, venv = (interp.path, *argv_tail), ()
        elif v == "no-site":
            argv, venv = (interp.path, "-S", *argv_tail), env
        else:
            cfg = dict(home)
            if v in ("filesystem", "in-memory"):
                cfg["resources"] = "packed-resources"
            exe = install_launcher(packed.launcher, folder, cfg)
            argv, venv = (exe, *argv_tail), env
        variants.append(BuiltVariant(v, folder, tuple(argv), tuple(venv)))
    variants = check_same_output(variants)
    for bv in variants:
        write_json(os.path.join(bv.path, VARIANT_FILE), {"schema": "importprof.variant/1", **bv.to_dict()})
    return variants, packed


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


def build(opts: BuildOptions, info: Callable[[str], None] | None = None) -> BuildReport:
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
    variants, packed = build_variants(interp, opts.target, out_dir, info=info)
    report = BuildReport(
        name=name,
        target=_absolute(opts.target).label(),
        python=interp.path,
        python_version=interp.version,
        out_dir=os.path.abspath(out_dir),
        launcher=packed.launcher,
        variants=tuple(variants),
        pack=packed.report,
        machine=read_machine() if opts.read_machine else {},
    )
    write_json(os.path.join(out_dir, "build.json"), report.to_dict())
    return report
