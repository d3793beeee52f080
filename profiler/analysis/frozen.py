"""What to freeze for the `frozen` variant: pure decisions over the modules a target imported
(records from profiler/bootstrap/hook_oxidized_modules.py) and their sources.

CPython's FrozenImporter serves marshalled bytecode and nothing else, so a module is
  served       by the interpreter already (builtin, or frozen by CPython itself: 3.11+ freezes
               os, site, codecs... ), or an alias another module puts in sys.modules (os.path):
               nothing to do;
  frozen       when it is a plain source module (.py through SourceFileLoader);
  not frozen   with the reason: an extension module (bytecode only: it loads from its file), a
               namespace package (no code to freeze), a module reading `__file__` while it is
               imported (frozen modules have none: 3.8-3.10 set no `__file__`, 3.11+ guess one in
               the stdlib folder), no source, `__main__` (the target runs as python runs it).
A frozen package keeps its real folder as `__path__` (the packer sets it first thing in the
package's code: FrozenImporter alone leaves it empty on 3.8-3.10), so the modules not frozen
still import, from their files, through the path importer — under frozen packages too.
"""

from __future__ import annotations

from typing import Callable, Iterable

from profiler.analysis.packing import needs_file_at_import
from profiler.model.packing import FrozenPlan, ModuleRecord, PlannedModule, Unpacked

_SKIP_PREFIXES = ("_importprof_hook_", "_importprof_launch")


def plan_frozen(records: Iterable[ModuleRecord], read_source: Callable[[str], str | None]) -> FrozenPlan:
    frozen: dict[str, PlannedModule] = {}
    not_frozen: list[Unpacked] = []
    served: list[str] = []
    for r in sorted(records, key=lambda r: r.name):
        name, loader, origin = r.name, r.loader or "", r.origin or ""
        if name.startswith(_SKIP_PREFIXES):
            continue
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
                not_frozen.append(Unpacked(name, "reads __file__ at import (a frozen module has no file of its own)"))
            else:
                frozen[name] = PlannedModule(name, "source", origin, r.is_package)
    not_frozen.sort(key=lambda u: u.name)
    return FrozenPlan(tuple(frozen.values()), tuple(not_frozen), tuple(served))
