"""What to freeze for the `frozen` variant: pure decisions over the modules a target imported
(records from profiler/bootstrap/hook_oxidized_modules.py) and their sources.

CPython's FrozenImporter serves marshalled bytecode and nothing else, so a module is
  served       by the interpreter already (builtin, or frozen by CPython itself: 3.11+ freezes
               os, site, codecs... ), or an alias another module puts in sys.modules (os.path):
               nothing to do;
  frozen       when it is a plain source module (.py through SourceFileLoader);
  not frozen   with the reason: an extension module (bytecode only: it loads from its file), a
               namespace package (no code to freeze), a module reading `__file__` while it is
               imported (its spec would have no location), no source, `__main__` (the target runs as python runs it).
A frozen module keeps its real `__file__`, and a frozen package its real folder as `__path__`
(the packer sets them first thing in the module's code, as python and CPython 3.11's own frozen
stdlib have them; FrozenImporter alone sets none on 3.8-3.10 and guesses the stdlib folder on
3.11+), so the modules not frozen still import, from their files, under frozen packages too.
"""

from __future__ import annotations

from typing import Callable, Iterable

from profiler.analysis.packing import needs_file_at_import
from profiler.model.packing import FrozenPlan, LoadedModule, PackPlan, PlannedModule, Unpacked


def plan_frozen(records: Iterable[LoadedModule], read_source: Callable[[str], str | None]) -> FrozenPlan:
    frozen: dict[str, PlannedModule] = {}
    not_frozen: list[Unpacked] = []
    served: list[str] = []
    for r in sorted(records, key=lambda r: r.name):
        name, loader, origin = r.name, r.loader or "", r.origin or ""
        if name == "__main__":
            not_frozen.append(Unpacked(name, "__main__: the target itself runs as python runs it"))
        elif loader in ("BuiltinImporter", "FrozenImporter") or origin in ("built-in", "frozen"):
            served.append(name)
        elif r.alias_of and not origin:  # os.path: the module that sets it runs, nothing to freeze
            served.append(name)
        elif loader in ("NamespaceLoader", "_NamespaceLoader") or (r.is_package and not origin):
            not_frozen.append(Unpacked(name, "namespace package: no __init__.py, no code to freeze"))
        elif loader == "ExtensionFileLoader" or origin.endswith((".so", ".pyd")):
            not_frozen.append(Unpacked(name, "extension module: FrozenImporter serves bytecode only, it loads from its file"))
        elif not origin:
            not_frozen.append(Unpacked(name, f"no file to freeze (loader {loader or 'unknown'})"))
        elif not origin.endswith(".py"):
            not_frozen.append(Unpacked(name, f"no source to compile ({origin})"))
        elif loader not in ("SourceFileLoader", ""):
            not_frozen.append(Unpacked(name, f"loaded by {loader}, not from a plain source file"))
        else:
            source = read_source(origin)
            if source is None:
                not_frozen.append(Unpacked(name, f"source unreadable: {origin}"))
            elif needs_file_at_import(source):
                not_frozen.append(Unpacked(name, "reads __file__ at import: left as a file (a frozen module's spec has no location)"))
            else:
                frozen[name] = PlannedModule(name, "source", origin, r.is_package)
    not_frozen.sort(key=lambda u: u.name)
    return FrozenPlan(tuple(frozen.values()), tuple(not_frozen), tuple(served))


_LOADERS = {"source": "SourceFileLoader", "extension": "ExtensionFileLoader", "bytecode": "SourcelessFileLoader"}


def plan_frozen_units(pack: PackPlan, read_source: Callable[[str], str | None]) -> FrozenPlan:
    """The frozen variant's share of a pack plan (every module of the units the target imports
    from): plan_frozen's rules over those modules, and a package holding data files stays a file
    too (FrozenImporter has no resource reader: importlib.resources needs the package's spec to
    point at its folder)."""
    records = [LoadedModule(m.name, m.path, m.path, _LOADERS[m.kind], m.is_package) for m in pack.modules]
    plan = plan_frozen(records, read_source)
    with_data = {d.package for d in pack.data}
    keep = tuple(m for m in plan.modules if m.name not in with_data)
    moved = tuple(Unpacked(m.name, "package with data files: FrozenImporter has no resource reader, importlib.resources reads it from its folder")
                  for m in plan.modules if m.name in with_data)
    # what the pack leaves out is not frozen either (namespace packages, __main__, ...)
    return FrozenPlan(keep, tuple(sorted(plan.not_frozen + moved + pack.unpacked, key=lambda u: u.name)),
                      tuple(sorted(set(plan.served) | set(pack.served))))
