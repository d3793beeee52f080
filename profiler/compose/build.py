"""`importprof build`: one folder per variant, each with a `variant.json` whose `argv` is the exact
command that runs it, every variant checked to behave as traditional (exit code, stdout, stderr,
the files the target names). A variant that cannot be built, or behaves otherwise, is a failed
variant with its reason and what to do; the others are still built (and measured by compare).

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
(site-packages, .pth paths, an editable install's folder) are given to the other variants
through PYTHONPATH (`env`), so that whatever is not packed still imports through the path
finder behind the pack.

`--pyoxidizer` drives the real `pyoxidizer build --system-rust` over pyoxidizer.bzl instead.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Sequence

from profiler.errors import TargetFailed, UsageError
from profiler.model.packing import BuildReport, BuiltVariant
from profiler.model.target import Target
from profiler.analysis.packing import default_name
from profiler.model.build_variant import BUILD_VARIANT_NAMES, BUILD_VARIANTS, REFERENCE, BuildVariant
from profiler.workflows.targets import watched_files
from profiler.session import Session
from profiler.model.words import Said, TargetKind, WarningKind

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

VARIANT_FILE = "variant.json"
# every name a build writes into its folder: in a folder of the user's (--force) these must be
# absent or importprof's own, and nothing else in it is touched
BUILD_ENTRIES = (*BUILD_VARIANT_NAMES, "build.json")  # the packed sets (in-memory, filesystem) are variants too


@dataclass(frozen=True)
class BuildOptions:
    target: Target
    python: Interpreter | None = None  # resolved at the command's edge (profiler/api.py for a library caller); None: python3 on PATH
    name: str | None = None
    out_dir: str | None = None
    variants: tuple[str, ...] | None = None  # --variant (default: every one this interpreter has)
    force: bool = False  # --force: build into a folder importprof did not make (its own files only)
    record_with: str | None = None  # --record-with CMD: the modules the program imports while CMD runs are packed too


def _absolute(target: Target) -> Target:
    if target.kind == TargetKind.SCRIPT:
        return replace(target, value=os.path.abspath(target.value))
    return target


@dataclass(frozen=True)
class Built:
    """What build_variants made besides the folders: the packing (oxidized variants), the frozen
    executable's contents, and the notes on variants left out for this interpreter."""

    launcher: str | None = None
    pack: object | None = None  # PackReport
    frozen: object | None = None  # FrozenReport
    skipped: tuple[str, ...] = ()
    # extra_modules (compare --harness's recording): the ones added to the recorded modules, and
    # the ones that could not be imported apart from the harness (so not packed)
    added: tuple[str, ...] = ()
    unimportable: tuple[str, ...] = ()


def select_variants(interp, requested: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """Requested variant names (repeatable, comma-separated) → the ones to build, in the
    canonical order, and one line per default variant this interpreter cannot have.
    Named explicitly, an unavailable variant is refused (one line, exit 2); `traditional` is
    always built: it is every comparison's reference and the output the others must match."""
    from profiler.model.interpreter import require, why_not_needs

    names: list[str] = []
    for item in requested or ():
        names += [n.strip() for n in item.split(",") if n.strip()]
    for n in names:
        if n not in BUILD_VARIANTS:
            raise UsageError(f"unknown variant {n!r} for build/compare (known: {', '.join(BUILD_VARIANT_NAMES)})")
    require(interp, REFERENCE, for_what="build/compare")
    skipped: list[str] = []
    off: list[tuple[str, str]] = []  # (variant or variants, why not) this interpreter cannot have
    if names:
        for n in names:
            require(interp, n)
        chosen = [v for v in BUILD_VARIANT_NAMES if v in names or v == REFERENCE]
    else:
        chosen = []
        for v, spec in BUILD_VARIANTS.items():
            if spec.on_request:
                continue
            reason = why_not_needs(interp, spec.needs)
            if reason is None:
                chosen.append(v)
            else:
                off.append((v, reason))
        if len(off) > 1 and all(reason == off[0][1] for _, reason in off):
            off = [(", ".join(v for v, _ in off), off[0][1])]
        for names_off, reason in off:
            gist = f"variant{'s' if ', ' in names_off else ''} {names_off} unavailable on {interp.version}"
            skipped.append(Said(f"{gist} ({interp.path}): {reason}", WarningKind.VARIANTS_UNAVAILABLE, gist))
    return chosen, skipped


def build_variants(interp, target: Target, out_dir: str, variants: Sequence[str] | None = None, warn: Callable[[str], None] | None = None,
                   force: bool = False, option: str = "-o", *, session: Session,
                   extra_modules: Sequence[str] = ()) -> tuple[list[BuiltVariant], Built]:
    """`extra_modules`: module names the program imports in runs other than the target's own
    (compare --harness records them across the harness's processes): recorded too, so the
    packs hold them."""
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
    for v in BUILD_VARIANT_NAMES:
        clear_dir(os.path.join(out_dir, v))
    before = set(os.listdir(out_dir))
    try:
        return _build_variants(interp, target, out_dir, chosen, skipped, session=session, extra_modules=extra_modules)
    except BaseException:
        # a failed build leaves nothing half-made: a folder it made is removed;
        # in an existing one, what it wrote and the previous build's report (its variants were
        # cleared above) go
        if not existed:
            clear_dir(out_dir)
        else:
            for name in set(os.listdir(out_dir)) - before | {"build.json"}:
                clear_dir(os.path.join(out_dir, name))
        raise


def _failed(name: str, folder: str, argv, env, error: str, hint: str) -> BuiltVariant:
    return BuiltVariant(name, folder, tuple(argv), tuple(env), failed=True, error=error, hint=hint)


# never imported again to be recorded: the recorder's own, the program's __main__
_NOT_RECORDED_AGAIN = ("__main__", "__mp_main__", "sitecustomize", "usercustomize", "antigravity", "this")


def discover_more(interp, records, names: Sequence[str], session: Session) -> tuple[list, tuple[str, ...], tuple[str, ...]]:
    """`records` plus the records of the modules in `names` they lack, each imported by name
    in one more recording run (one failing import does not stop the others):
    (records, names added, names that could not be imported)."""
    from profiler.workflows.pack import discover

    have = {r.name for r in records}
    wanted = sorted(n for n in set(names) - have if n and not n.startswith(("_importprof",)) and n not in _NOT_RECORDED_AGAIN)
    if not wanted:
        return list(records), (), ()
    code = ("import importlib\n"
            f"for _n in {wanted!r}:\n"
            "    try:\n        importlib.import_module(_n)\n"
            "    except BaseException:\n        pass\n")
    more, _ = discover(interp, Target(TargetKind.CODE, code), session=session)
    added = [r for r in more if r.name not in have and r.name not in _NOT_RECORDED_AGAIN]
    got = {r.name for r in added}
    return [*records, *added], tuple(sorted(got)), tuple(n for n in wanted if n not in got)


def _build_variants(interp, target: Target, out_dir: str, chosen, skipped, session: Session,
                    extra_modules: Sequence[str] = ()) -> tuple[list[BuiltVariant], Built]:
    from profiler.analysis.packing import plan_pack
    from profiler.capture.oxidized import no_site_sys_path, scan_units, write_json
    from profiler.errors import ImportprofError
    from profiler.analysis.no_site import extra_paths
    from profiler.workflows.pack import discover, pack_target, stdlib_entries

    from profiler.capture.oxidized import read_files, restore_files

    watched = watched_files(target)
    originals = list(zip(watched, read_files(watched)))  # the recording run may rewrite them too
    try:
        records, sys_path = discover(interp, target, session=session)
    finally:
        restore_files(originals)
    added: tuple[str, ...] = ()
    unimportable: tuple[str, ...] = ()
    if extra_modules:
        records, added, unimportable = discover_more(interp, records, extra_modules, session=session)
        session.info(f"recorded {len(added)} more modules that the harness's processes imported"
             + (f" ({len(unimportable)} could not be imported apart from it)" if unimportable else ""))
    plan = plan_pack(records, scan_units(records, sys_path, stdlib_entries(interp)))
    packed, pack_error = None, None
    if any(BUILD_VARIANTS[v].oxidized for v in chosen):
        try:
            packed = pack_target(interp, target, out_dir, discovered=(records, sys_path), plan=plan, session=session)
        except ImportprofError as exc:  # the other variants are still built and measured
            pack_error = exc
    frozen, frozen_error = None, None
    if any(BUILD_VARIANTS[v].builder == "frozen" for v in chosen):
        from profiler.workflows.frozen import build_frozen

        try:
            frozen = build_frozen(interp, plan, os.path.join(out_dir, "frozen"), session=session,
                                  imported=[r.name for r in records])
        except ImportprofError as exc:
            frozen_error = exc
    origins = tuple(r.origin for r in records if r.origin and os.path.isabs(r.origin))
    extra = extra_paths(sys_path, no_site_sys_path(interp.path, session=session), target, origins, os.getcwd())
    # a package found by a finder of its own (an editable install's, put there by a .pth file
    # that -S skips): its folder, so that the variants without site find it on the path
    extra += [u.root for u in plan.units if u.root not in sys_path and u.root not in extra]
    env = (("PYTHONPATH", os.pathsep.join(extra)),) if extra else ()
    made = _Made(interp, target, out_dir, env, tuple(target.python_argv()), packed, frozen)
    built: list[BuiltVariant] = []
    for v in chosen:
        spec = BUILD_VARIANTS[v]
        folder = os.path.join(out_dir, v)
        os.makedirs(folder, exist_ok=True)
        if spec.oxidized and packed is None:
            from profiler.errors import ToolMissing

            # no cargo (an installed wheel on a machine without Rust): the launcher cannot be
            # built once; what to install is the error itself, the other variants are measured
            hint = ("cargo builds importprof's launcher once per interpreter (https://rustup.rs)"
                    if isinstance(pack_error, ToolMissing) else
                    "see the error; `importprof pack -o DIR TARGET` runs the packing alone")
            built.append(_failed(v, folder, (), env, f"packing failed: {pack_error}", hint))
            continue
        if spec.builder == "frozen" and frozen is None:
            built.append(_failed(v, folder, (), env, f"building the frozen executable failed: {frozen_error}",
                                 "install the interpreter's headers and a C compiler (see `importprof pythons`)"))
            continue
        argv = BUILDERS[spec.builder](spec, folder, made)
        built.append(BuiltVariant(v, folder, tuple(argv), () if spec.site else env))
    built = check_behaviour(built, target, frozen_modules=frozen.modules if frozen else (), plan=plan, session=session)
    for bv in built:
        if os.path.isdir(bv.path):
            write_json(os.path.join(bv.path, VARIANT_FILE), {"schema": "importprof.variant/1", **bv.to_dict()})
    return built, Built(launcher=packed.launcher if packed else None, pack=packed.report if packed else None,
                        frozen=frozen, skipped=tuple(skipped), added=added, unimportable=unimportable)


# the finder's origin (relative_path_origin): "/", so that pkgutil.get_data's path below any
# package's real folder reaches that package's data (bootstrap/oxidized_packer.py registers it
# under the folder's name)
FINDER_ORIGIN = {"origin": "/"}


@dataclass(frozen=True)
class _Made:
    """What every variant's builder may use: the interpreter and target, the build folder, the
    environment of the variants without site (PYTHONPATH: site's paths), the target's own argv,
    the pack (oxidized variants) and the frozen executable."""

    interp: object
    target: Target
    out_dir: str
    env: tuple
    argv_tail: tuple[str, ...]
    packed: object | None
    frozen: object | None


def _python_argv(spec: BuildVariant, folder: str, made: _Made) -> tuple[str, ...]:
    """The interpreter itself (traditional; no-site with -S)."""
    return (made.interp.path, *spec.flags, *made.argv_tail)


def _launcher(spec: BuildVariant, folder: str, made: _Made) -> str:
    """importprof's oxidized launcher copied into `folder`, configured for the variant's pack
    (none: the standard path importer). A pack of another variant's folder (lazy+in-memory
    uses in-memory's) is linked in, with its extension modules."""
    from profiler.capture.oxidized import install_launcher

    cfg = {"home": made.interp.base_prefix}
    if spec.resources:
        if spec.resources != spec.name:
            for part in ("packed-resources", "lib"):
                if os.path.exists(os.path.join(made.out_dir, spec.resources, part)):
                    os.symlink(os.path.join("..", spec.resources, part), os.path.join(folder, part))
        cfg.update({"resources": "packed-resources", **FINDER_ORIGIN})
    return install_launcher(made.packed.launcher, folder, cfg)


def _launcher_argv(spec: BuildVariant, folder: str, made: _Made) -> tuple[str, ...]:
    return (_launcher(spec, folder, made), *made.argv_tail)


def _frozen_argv(spec: BuildVariant, folder: str, made: _Made) -> tuple[str, ...]:
    """importprof's frozen C launcher; no site, as no-site and the launcher variants (PyOxidizer's default)."""
    return (made.frozen.executable, *spec.flags, *made.argv_tail)


def _lazy_argv(spec: BuildVariant, folder: str, made: _Made) -> tuple[str, ...]:
    """traditional, every import deferred to first use (importprof lazy's finder)."""
    from profiler.capture.lazy import lazy_argv

    return tuple(lazy_argv(made.interp.path, made.interp.version, spec.flags, made.target))


def _lazy_launcher_argv(spec: BuildVariant, folder: str, made: _Made) -> tuple[str, ...]:
    """The two fixes stacked: the lazy finder above the in-memory launcher's."""
    from profiler.capture.lazy import lazy_argv

    exe = _launcher(spec, folder, made)
    return (exe, *lazy_argv(made.interp.path, made.interp.version, spec.flags, made.target)[1:])


# how each kind of build variant is made (model/build_variant.py: BuildVariant.builder): its argv
BUILDERS: dict[str, Callable[[BuildVariant, str, _Made], tuple[str, ...]]] = {
    "python": _python_argv,
    "launcher": _launcher_argv,
    "frozen": _frozen_argv,
    "lazy": _lazy_argv,
    "lazy+launcher": _lazy_launcher_argv,
}


# where a module came from in a check run: the variant's own pack, or the ordinary path finder
FILE_LOADERS = ("SourceFileLoader", "SourcelessFileLoader", "ExtensionFileLoader", "NamespaceLoader", "_NamespaceLoader")


def _first_difference(a: str, b: str) -> tuple[int, str, str]:
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<end>"
        y = lb[i] if i < len(lb) else "<end>"
        if x != y:
            return i + 1, x, y
    return 1, a[-80:], b[-80:]  # they differ only in a line ending


def check_behaviour(variants: Sequence[BuiltVariant], target: Target, frozen_modules: Sequence[str] = (),
                    plan=None, *, session: Session) -> list[BuiltVariant]:
    """Run every built variant once as it is and once with importprof's module recorder: a
    variant counts when its exit code, stdout, stderr and the files the target names end as
    traditional's (the first variant); otherwise it is a failed variant showing the first
    differing line, and, where the build cannot work by design, which module did what (see
    by_design). The recorded run says how many modules came from the variant's pack and how
    many from the path finder behind it."""
    from profiler.capture.oxidized import file_stamps, read_files, restore_files, run_variant

    packed_files = {m.path: m.name for m in plan.modules} if plan is not None else {}
    rewritten: list[str] = []

    watched = watched_files(target)
    originals = list(zip(watched, read_files(watched)))
    ref = None
    done = []
    frozen_set = set(frozen_modules)
    for bv in variants:
        if bv.failed:
            done.append(bv)
            continue
        before = file_stamps(packed_files) if ref is None else None
        try:
            proc = run_variant(bv.argv, dict(bv.env), session=session)
            after = read_files(watched)
        finally:
            restore_files(originals)
        if before is not None:  # the reference run: did the program rewrite a packed module's file?
            now = file_stamps(packed_files)
            rewritten = sorted(p for p in before if now.get(p) != before[p])
        seen = (proc.returncode, proc.stdout, proc.stderr, after)
        bv = replace(bv, exit_code=proc.returncode, output_sha256=hashlib.sha256(proc.stdout.encode()).hexdigest(),
                     files_sha256=tuple((p, hashlib.sha256(d).hexdigest() if d is not None else "") for p, d in zip(watched, after)))
        if ref is None:
            ref = (bv.name, seen)
        else:
            error = _difference(ref, bv.name, seen, watched)
            if error:
                why = by_design(bv, rewritten, packed_files, proc.stderr, plan)
                done.append(replace(bv, failed=True, error=error + (f"; {why}" if why else ""),
                                    hint=f"run it to see: {' '.join(bv.argv)} (variant.json has its env)"))
                continue
        done.append(_with_counts(bv, target, frozen_set if BUILD_VARIANTS[bv.name].builder == "frozen" else set(), originals,
                                 session=session))
    return done


def by_design(bv: BuiltVariant, rewritten: Sequence[str], packed_files: dict, stderr: str, plan) -> str | None:
    """Why a packing variant cannot behave as traditional, when it is the build's design and not
    a bug: the program rewrote a packed module's file (a pack serves the code of build time), or
    it reached a file through an extension module's `__file__`, which is its copy beside the
    launcher, outside what was copied there."""
    if not BUILD_VARIANTS[bv.name].packing:
        return None
    if rewritten:
        shown = ", ".join(f"{packed_files[p]} ({p})" for p in rewritten[:3])
        return (f"by design: the program rewrote the file of packed module {shown} while it ran; "
                "a packed build runs the code packed at build time")
    lib = os.path.join(bv.path, "lib") + os.sep
    import re

    for path in re.findall(r"""['"](/[^'"\n]+)['"]""", stderr):
        if not path.startswith(lib):
            continue
        rel = path[len(lib):].split(os.sep)
        owners = sorted(m.name for m in (plan.modules if plan is not None else ()) if m.kind == "extension"
                        and m.name.split(".")[: len(rel) - 1][:1] == rel[:1])
        who = f"extension module {owners[0]}" if owners else "an extension module"
        return (f"by design: {who} is loaded from its copy beside the launcher ({lib}...), and {path} "
                "was reached from its __file__ outside the package data copied there")
    return None


def _difference(ref, name: str, seen, watched) -> str | None:
    rname, (rc, out, err, files) = ref
    if seen[0] != rc:
        tail = (seen[2].strip().splitlines() or [""])[-1]
        return f"exit code {seen[0]}, {rname} exited {rc}" + (f"; stderr ends: {tail}" if tail else "")
    for what, a, b in (("stdout", out, seen[1]), ("stderr", err, seen[2])):
        if a != b:
            n, x, y = _first_difference(a, b)
            return f"{what} differs at line {n}: {rname} {x!r}, {name} {y!r}"
    for path, a, b in zip(watched, files, seen[3]):
        if a != b:
            n, x, y = _first_difference((a or b"").decode("utf-8", "replace"), (b or b"").decode("utf-8", "replace"))
            return f"{path} differs at line {n} after the run: {rname} {x!r}, {name} {y!r}"
    return None


def module_origin(name: str, loader: str | None, alias_of: str | None, frozen_set) -> str | None:
    """Where a packing variant's module came from: "pack" (OxidizedFinder, or FrozenImporter for
    a module of the variant's own frozen table), "fallback" (a file through the ordinary path
    finder behind the pack), None (builtin, CPython's own frozen modules, an alias, importprof's)."""
    if name in ("__main__", "__mp_main__") or name.startswith("_importprof") or alias_of:
        return None
    if loader == "OxidizedFinder" or (loader == "FrozenImporter" and name in frozen_set):
        return "pack"
    return "fallback" if loader in FILE_LOADERS else None


def _with_counts(bv: BuiltVariant, target: Target, frozen_set, originals, session: Session) -> BuiltVariant:
    """The variant's run again under importprof's module recorder (bootstrap/launch.py with the
    oxidized_modules hook, site as the variant has it): where each module came from."""
    spec = BUILD_VARIANTS[bv.name]
    if spec.lazy:  # already wrapped by the lazy launcher
        return bv
    from profiler.capture.bootstrap import bootstrap_argv
    from profiler.capture.oxidized import loaded_modules, restore_files
    from profiler.errors import ImportprofError

    site = spec.site
    argv = bootstrap_argv(bv.argv[0], [] if site else ["-S"], target, ["oxidized_modules"], {})
    try:
        records, _, _ = loaded_modules(argv, dict(bv.env) or None, what=bv.name, any_exit=True, session=session)
    except ImportprofError:
        return bv  # the recorder could not run there: the counts stay unknown (None)
    finally:
        restore_files(originals)
    packed, fallback = 0, []
    for r in records:
        where = module_origin(r.name, r.loader, r.alias_of, frozen_set)
        if where == "pack":
            packed += 1
        elif where == "fallback":
            fallback.append(r.name)
    return replace(bv, packed_modules=packed, fallback_modules=len(fallback), fallback_sample=tuple(sorted(fallback)[:8]))


def build(opts: BuildOptions, *, session: Session) -> BuildReport:
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.machine import read_machine
    from profiler.capture.oxidized import write_json

    name = opts.name or default_name(opts.target)
    if not name or os.sep in name or name in (".", ".."):
        raise UsageError(f"--name {name!r}: give a plain folder name")
    out_dir = opts.out_dir or os.path.join("oxidized_builds", name)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise UsageError(f"-o {out_dir}: exists and is not a directory")
    extra: list[str] = []
    if opts.record_with is not None:
        from profiler.compose.compare_harness import check_recording, harness_words, record

        harness_words(opts.record_with, "--record-with")
    interp = interpreter_for(opts.python, session=session)
    if opts.record_with is not None:
        rec = record(interp, opts.target, opts.record_with, False, session=session, option="--record-with")
        check_recording(rec, False, what="--record-with CMD", after="nothing built")
        extra = sorted(rec.modules)
    variants, made = build_variants(interp, opts.target, out_dir, variants=opts.variants,  # notes: in the report
                                    force=opts.force, session=session, extra_modules=extra)
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
        machine=read_machine(session=session),
    )
    write_json(os.path.join(out_dir, "build.json"), report.to_dict())
    failed = [v for v in variants if v.failed]
    if failed and len(failed) == len(variants) - 1 and variants[0].name == REFERENCE:
        raise TargetFailed(f"every variant but traditional failed (the report is {os.path.join(out_dir, 'build.json')})",
                           detail="\n".join(f"{v.name}: {v.error}" for v in failed))
    return report
