"""`importprof build --pyoxidizer --distribution ARCHIVE`: the same five variants built by the
real PyOxidizer over pyoxidizer.bzl (`--var variant NAME`), each into OUT/<variant>/ with a
variant.json. Without a local python-build-standalone archive: one line saying what to download."""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
from dataclasses import dataclass

from profiler.errors import ToolMissing, UsageError
from profiler.model.packing import BuiltVariant, PyOxidizerReport
from profiler.model.target import Target
from profiler.model.words import TargetKind
from profiler.analysis.packing import default_name
from profiler.model.build_variant import BUILD_VARIANT_NAMES
from profiler.session import Session


@dataclass(frozen=True)
class PyOxidizerOptions:
    target: Target
    name: str | None = None
    out_dir: str | None = None
    force: bool = False  # --force: build into a folder importprof did not make (its own files only)
    distribution: str | None = None
    variants: tuple[str, ...] = BUILD_VARIANT_NAMES


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_with_pyoxidizer(opts: PyOxidizerOptions, *, session: Session) -> PyOxidizerReport:
    from profiler.capture.oxidized import write_json
    from profiler.capture.pyoxidizer import DOWNLOAD_HINT, config_path, find_pyoxidizer, pyoxidizer_build

    if opts.target.kind not in (TargetKind.SCRIPT, TargetKind.MODULE):
        raise UsageError("build --pyoxidizer needs SCRIPT or -m MODULE")
    if not opts.distribution:
        raise ToolMissing(DOWNLOAD_HINT)
    if not os.path.isfile(opts.distribution):
        raise ToolMissing(f"--distribution {opts.distribution}: no such file. {DOWNLOAD_HINT}")
    exe = find_pyoxidizer()
    name = opts.name or default_name(opts.target)
    out_dir = os.path.abspath(opts.out_dir or os.path.join("oxidized_builds", name))
    project = os.path.join(out_dir, "pyoxidizer")
    from profiler.sinks import claim_output_folder

    claim_output_folder(out_dir, "-o", force=opts.force, entries=("pyoxidizer", *opts.variants))
    os.makedirs(project, exist_ok=True)
    shutil.copy2(config_path(), os.path.join(project, "pyoxidizer.bzl"))
    dist = os.path.abspath(opts.distribution)
    common = {"name": name, "distribution": dist, "distribution_sha256": _sha256(dist)}
    if opts.target.kind == TargetKind.SCRIPT:
        script = os.path.abspath(opts.target.value)
        common["script"] = script
        root = opts.target.first_path(os.getcwd())  # a script's folder (None only for a command)
        if root is not None:
            common["app_root"] = root
    else:
        common["module"] = opts.target.value
    built = []
    for v in opts.variants:
        session.info(f"pyoxidizer build --var variant {v} (this compiles a Rust project)...")
        pyoxidizer_build(exe, project, {"variant": v, **common}, session=session)
        found = sorted(glob.glob(os.path.join(project, "build", "*", "release", "install", name)))
        if not found:
            raise ToolMissing(f"pyoxidizer build left no executable named {name} under {project}/build")
        folder = os.path.join(out_dir, v)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        shutil.copytree(os.path.dirname(found[0]), folder)
        bv = BuiltVariant(v, folder, (os.path.join(folder, name), *opts.target.args))
        write_json(os.path.join(folder, "variant.json"), {"schema": "importprof.variant/1", **bv.to_dict()})
        built.append(bv)
    from profiler.capture.machine import read_machine

    return PyOxidizerReport(name, out_dir, dist, tuple(built), machine=read_machine(session=session))
