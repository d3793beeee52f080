"""What to pack: pure decisions over the units a target imports from (distributions, standard
library packages, source trees: profiler/capture/oxidized.py lists their files) and the modules
it had at exit (records written by profiler/bootstrap/hook_oxidized_modules.py).

As PyOxidizer does, the unit is the distribution, not the modules one run happened to import:
every module of every unit is packed, so a run that takes another path than the recording run
still finds its modules. Within a unit a file is
  a module     `.py` source (bytecode is packed), an extension module (`.so`: it stays a file,
               copied beside the launcher, PyOxidizer's filesystem-relative location), or a `.pyc`
               without source (its bytecode is packed); a folder of modules without
               `__init__.py` is a namespace package, whose modules are packed while the path
               finder builds the package itself (its `__path__` spans sys.path);
  package data any other file below a package (importlib.resources, pkgutil.get_data);
  metadata     the distribution's `.dist-info` folder: listed, and read where it is (see
               METADATA_ON_DISK).
Packed modules keep their real `__file__` (the resources name each one's source file), and a
packed package its real folder as `__path__`, so `__file__`-relative opens read the real files
and anything not packed still imports through the ordinary path finder behind the pack.
The recorded modules outside every unit are listed as not packed, with the reason; those the
interpreter serves itself (builtin, frozen) are `served`.
"""

from __future__ import annotations

import ast
import os
from typing import Iterable, Sequence

from profiler.model.packing import LoadedModule, PackageData, PackPlan, PlannedModule, Unit, Unpacked, distribution_name
from profiler.model.target import Target
from profiler.model.words import TargetKind

# the order CPython's path finder tries a folder's files in: an extension module shadows a source
_KIND_RANK = {"extension": 0, "source": 1, "bytecode": 2}


def needs_file_at_import(source: str) -> bool:
    """True when module-level code (outside function bodies) reads `__file__` (or `__cached__`).
    A source that mentions them but does not parse is treated as needing its file (leave it to
    python). Most sources never mention them: no parse then (it is most of a build's time)."""
    if "__file__" not in source and "__cached__" not in source:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # decorators and defaults run at import; bodies do not
            stack.extend(node.decorator_list if not isinstance(node, ast.Lambda) else [])
            stack.extend(d for d in node.args.defaults if d is not None)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, ast.Try) and any(_catches_name_error(h) for h in node.handlers):
            # `try: __file__ ... except NameError:` (importlib does this): guarded, not needed
            stack.extend(node.handlers)
            stack.extend(node.orelse)
            stack.extend(node.finalbody)
            continue
        if isinstance(node, ast.Name) and node.id in ("__file__", "__cached__"):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _catches_name_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    if t is None:
        return True
    names = [e.id for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name)]
    return any(n in ("NameError", "Exception", "BaseException") for n in names)


def module_of(rel: str) -> tuple[str, str, bool] | None:
    """A file's path below a sys.path entry → (module name, kind, is_package), or None when the
    file is not an importable module (data, or a folder name that is no identifier)."""
    parts = rel.split("/")
    fname, dirs = parts[-1], parts[:-1]
    if not all(d.isidentifier() for d in dirs) or "__pycache__" in dirs:
        return None
    if fname.endswith(".py"):
        stem, kind = fname[:-3], "source"
    elif fname.endswith(".pyc"):
        stem, kind = fname[:-4], "bytecode"
    elif fname.endswith(".so"):
        stem, kind = fname.split(".", 1)[0], "extension"  # name.cpython-311-x86_64-linux-gnu.so, name.abi3.so
        # C code imports any word as a name (mypyc's shared `<hash>__mypyc` module starts with a digit)
        if stem and stem.replace("_", "a").isalnum() and stem.isascii():
            return (".".join(dirs), kind, True) if stem == "__init__" and dirs else (".".join(dirs + [stem]), kind, False)
        return None
    else:
        return None
    # importlib takes any name without a dot (sysconfig imports `_sysconfigdata__linux_x86_64-linux-gnu`)
    if not stem or not (stem.replace("-", "_").isidentifier() or stem.replace("-", "_").replace("_", "a").isalnum()):
        return None
    if stem == "__init__":
        return (".".join(dirs), kind, True) if dirs else None
    return ".".join(dirs + [stem]), kind, False


# python-oxidized-importer 0.9 serves packed metadata as OxidizedDistribution objects whose
# `files` raises NotImplementedError; importlib.metadata yields them beside the path finder's, and
# pytest reads `files` of every distribution while loading its plugins (it died on the first).
# So metadata is read where it is installed, through the path finder behind the pack: version,
# entry points and plugin discovery work as in traditional.
METADATA_ON_DISK = ("metadata read from its .dist-info folder by the path finder (python-oxidized-importer 0.9's "
                    "OxidizedDistribution has no `files`, which pytest's plugin loading reads)")


def plan_units(units: Sequence[Unit]) -> tuple[dict[str, PlannedModule], list[PackageData], list[Unpacked]]:
    modules: dict[str, PlannedModule] = {}
    data_files: list[tuple[str, str]] = []  # (root, rel)
    metas: list[str] = []  # the units' .dist-info folders
    notes: list[Unpacked] = []
    for u in units:
        for rel in u.files:
            if u.metadata and rel.startswith(u.metadata + "/"):
                continue
            if "__pycache__/" in rel:
                continue
            found = module_of(rel)
            if found is None:
                data_files.append((u.root, rel))
                continue
            name, kind, is_package = found
            if kind == "bytecode" and rel[:-1] in u.files:
                continue  # a legacy .pyc beside its source: the source is packed
            old = modules.get(name)
            if old is None or _KIND_RANK[kind] < _KIND_RANK[old.kind]:
                modules[name] = PlannedModule(name, kind, u.root.rstrip("/") + "/" + rel, is_package)
        if u.metadata:
            metas.append(u.metadata)
    # folders of modules without __init__: namespace packages. Their modules are packed (the
    # pack finds a module by its full name), the package itself is left to the path finder,
    # which builds its __path__ from every sys.path entry (a namespace spans distributions)
    spaces = sorted({".".join(n.split(".")[:i]) for n in modules for i in range(1, n.count(".") + 1)} - set(modules))
    notes += [Unpacked(n, "namespace package: the path finder builds its __path__ across sys.path (its modules are packed)")
              for n in spaces]
    packages = {n for n, m in modules.items() if m.is_package}
    data: list[PackageData] = []
    for root, rel in data_files:
        parts = rel.split("/")
        for k in range(len(parts) - 1, 0, -1):
            pkg = ".".join(parts[:k])
            if pkg in packages:
                data.append(PackageData(pkg, "/".join(parts[k:]), root.rstrip("/") + "/" + rel))
                break
    for metadata in metas:
        notes.append(Unpacked(f"{distribution_name(metadata)[0]} (metadata)", METADATA_ON_DISK))
    return modules, data, notes


def plan_pack(records: Iterable[LoadedModule], units: Sequence[Unit]) -> PackPlan:
    """Every module of every unit packed; the recorded modules outside them classified."""
    modules, data, unpacked = plan_units(units)
    by_path = {m.path: m.name for m in modules.values() if m.path}
    served: list[str] = []
    listed = {u.name for u in unpacked}
    for r in records:
        # a module of a packed unit that the interpreter itself serves (3.11+ freezes
        # importlib.util and importlib.machinery, whose package is a file): left to it, as
        # PyOxidizer leaves frozen modules to FrozenImporter (deep-frozen code, nothing to unmarshal)
        if r.name in modules and not r.alias_of and (r.loader or "") in ("BuiltinImporter", "FrozenImporter"):
            del modules[r.name]
    for r in sorted(records, key=lambda r: r.name):
        name, loader, origin = r.name, r.loader or "", r.origin or ""
        if name in modules or name in listed:
            continue
        if name == "__main__":
            unpacked.append(Unpacked(name, "__main__: the target itself runs as python runs it"))
        elif loader in ("BuiltinImporter", "FrozenImporter") or origin in ("built-in", "frozen"):
            served.append(name)
        elif r.alias_of and (not origin or origin in by_path):  # os.path: the module that sets it runs
            served.append(name)
        elif loader in ("NamespaceLoader", "_NamespaceLoader") or (r.is_package and not origin):
            unpacked.append(Unpacked(name, "namespace package outside the packed units: found by the path finder"))
        elif not origin:
            unpacked.append(Unpacked(name, f"no file (loader {loader or 'unknown'}): made at run time by its package"))
        else:
            unpacked.append(Unpacked(name, f"outside every packed unit ({origin}): imports through the path finder"))
    unpacked.sort(key=lambda u: u.name)
    ordered = tuple(sorted(modules.values(), key=lambda m: m.name))
    return PackPlan(ordered, tuple(unpacked), tuple(served), tuple(data), tuple(units))


def without(plan: PackPlan, failed: Sequence[tuple[str, str]]) -> PackPlan:
    """The plan less the modules the packer could not compile (listed with its reason)."""
    if not failed:
        return plan
    names = {n for n, _ in failed}
    return PackPlan(tuple(m for m in plan.modules if m.name not in names),
                    tuple(sorted(plan.unpacked + tuple(Unpacked(n, r) for n, r in failed), key=lambda u: u.name)),
                    plan.served, plan.data, plan.units)


def startup_first(modules: Sequence[PlannedModule], imported: Sequence[str]) -> tuple[PlannedModule, ...]:
    """`modules` with those the recording run imported first, in the order it imported them
    (`imported`: its sys.modules order), then the rest by name. CPython's FrozenImporter finds a
    module by a linear scan of the frozen table (strcmp from the top), so the modules a start-up
    needs are found after the fewest comparisons."""
    rank: dict[str, int] = {}
    for i, name in enumerate(imported):
        rank.setdefault(name, i)
    last = len(rank)
    return tuple(sorted(modules, key=lambda m: (rank.get(m.name, last), m.name)))


def default_name(target: Target) -> str:
    if target.kind == TargetKind.SCRIPT:
        stem = os.path.splitext(os.path.basename(target.value))[0]
        return stem or "app"
    if target.kind == TargetKind.MODULE:
        return target.value.rsplit(".", 1)[-1]
    return "app"
