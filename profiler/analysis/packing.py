"""What to pack: pure decisions over the modules a target imported (records written by
profiler/bootstrap/hook_oxidized_modules.py) and, for sources, their text.

A module is
  served    by the interpreter itself (builtin, frozen): not packed, not needed;
  packed    as bytecode (a .py source) or as a filesystem-relative extension module (.so);
  unpacked  and listed with the reason: a namespace package, a module that reads `__file__`
            while it is being imported (in-memory modules have no `__file__`), a module without
            a source (.pyc only, zip), `__main__` (the target itself runs as python runs it).
Unpacked modules still import at run time through the path importer behind OxidizedFinder.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterable

from profiler.model.packing import LoadedModule, PackPlan, PlannedModule, Unpacked

_SKIP_PREFIXES = ("_importprof_hook_", "_importprof_launch")  # importprof's own launcher and hooks


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


def plan_pack(records: Iterable[LoadedModule], read_source: Callable[[str], str | None]) -> PackPlan:
    """Decide, for every recorded module, whether and how it is packed."""
    modules: list[PlannedModule] = []
    unpacked: list[Unpacked] = []
    served: list[str] = []
    for r in sorted(records, key=lambda r: r.name):
        name = r.name
        if name.startswith(_SKIP_PREFIXES):
            continue
        if name == "__main__":
            unpacked.append(Unpacked(name, "__main__: the target itself runs as python runs it"))
            continue
        loader = r.loader or ""
        origin = r.origin or ""
        if loader in ("BuiltinImporter", "FrozenImporter") or origin in ("built-in", "frozen"):
            served.append(name)
            continue
        if r.alias_of and not origin:  # os.path: an alias the module that sets it recreates
            served.append(name)
            continue
        if loader == "OxidizedFinder":
            unpacked.append(Unpacked(name, "already served by an OxidizedFinder"))
            continue
        if loader in ("NamespaceLoader", "_NamespaceLoader") or (r.is_package and not origin):
            unpacked.append(Unpacked(name, "namespace package (no __init__.py)"))
            continue
        if not origin:
            unpacked.append(Unpacked(name, f"no file to pack (loader {loader or 'unknown'})"))
            continue
        if origin.endswith(".py"):
            if loader not in ("SourceFileLoader", ""):
                unpacked.append(Unpacked(name, f"loaded by {loader}, not from a plain source file"))
                continue
            source = read_source(origin)
            if source is None:
                unpacked.append(Unpacked(name, f"source unreadable: {origin}"))
                continue
            if needs_file_at_import(source):
                unpacked.append(Unpacked(name, "reads __file__ at import (in-memory modules have none)"))
                continue
            modules.append(PlannedModule(name, "source", origin, r.is_package))
        elif loader == "ExtensionFileLoader" or origin.endswith(".so"):
            modules.append(PlannedModule(name, "extension", origin, False))
        else:
            unpacked.append(Unpacked(name, f"no source to compile ({origin})"))
    return _unpack_parents(modules, unpacked, served)


def _unpack_parents(modules: list[PlannedModule], unpacked: list[Unpacked], served: list[str]) -> PackPlan:
    """A package served by OxidizedFinder has no filesystem `__path__`, so an unpacked submodule
    could not be found under it: the packages above an unpacked module stay unpacked too. A plain
    module above one (`typing` above `typing.io`, which `typing` puts in sys.modules itself) is
    not a package that submodules are found in: it stays packed."""
    planned = {m.name: m for m in modules}
    out_unpacked = list(unpacked)
    for u in unpacked:
        parts = u.name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            parent = ".".join(parts[:i])
            if parent in planned and planned[parent].is_package:
                del planned[parent]
                out_unpacked.append(Unpacked(parent, f"package of unpacked {u.name}"))
    keep = [m for m in modules if m.name in planned]
    out_unpacked.sort(key=lambda u: u.name)
    return PackPlan(tuple(keep), tuple(out_unpacked), tuple(served))
