"""Hook for `importprof pack` (stdlib only, runs INSIDE the target interpreter).

At exit, writes JSON to the file named by `options["oxidized_modules_out"]`:
{"modules": [{name, file, origin, loader (class name), is_package}...], "sys_path": [...]}
for every module in `sys.modules`. What to pack is
decided by importprof (profiler/analysis/packing.py), not here.

It imports nothing before the target runs (json only at exit, after sys.modules is read), so
that what it records is what the target and `site` imported, not what the hook did.
"""

import sys


def _describe(name, module):
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
    loader_name = type(loader).__name__ if loader is not None else None
    if isinstance(loader, type):  # BuiltinImporter / FrozenImporter are classes
        loader_name = loader.__name__
    origin = getattr(spec, "origin", None)
    return {
        "name": name,
        "file": getattr(module, "__file__", None),
        "origin": origin if isinstance(origin, str) else None,
        "loader": loader_name,
        "is_package": hasattr(module, "__path__"),
    }


def install(options):
    out = options["oxidized_modules_out"]

    def dump():
        records = []
        for name, module in list(sys.modules.items()):
            if module is None:
                continue
            try:
                records.append(_describe(name, module))
            except Exception:  # a module with odd attributes: record what is certain
                records.append({"name": name, "file": None, "origin": None, "loader": None, "is_package": False})
        sys_path = [p for p in sys.path if isinstance(p, str)]
        import json

        with open(out, "w") as fh:
            json.dump({"modules": records, "sys_path": sys_path}, fh)

    sys.modules["_importprof_launch"].at_exit(dump)
