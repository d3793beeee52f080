"""Hook for `importprof pack` (stdlib only, runs INSIDE the target interpreter).

At exit, writes JSON to the file named by `options["oxidized_modules_out"]` (or, with
`options["oxidized_modules_dir"]`, to a file of its own in that folder: one per process):
{"modules": [{name, file, origin, loader (class name), is_package}...], "sys_path": [...]}
for every module in `sys.modules`. What to pack is
decided by importprof (profiler/analysis/packing.py), not here.

It imports nothing before the target runs (json only at exit, after sys.modules is read), so
that what it records is what the target and `site` imported, not what the hook did.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
finally:
    pass


def _loader_name(loader):
    if isinstance(loader, type):  # BuiltinImporter / FrozenImporter are classes
        return loader.__name__
    return type(loader).__name__ if loader is not None else None


def _describe(name, module):
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
    origin = getattr(spec, "origin", None)
    record = {
        "name": name,
        "file": getattr(module, "__file__", None),
        "origin": origin if isinstance(origin, str) else None,
        "loader": _loader_name(loader),
        "is_package": hasattr(module, "__path__"),
    }
    spec_name = getattr(spec, "name", None)
    if isinstance(spec_name, str) and spec_name != name:
        # sys.modules[name] is another module: set by a module that replaced itself
        # (collections/abc.py puts _collections_abc there on 3.13) or by another one (os puts
        # posixpath at os.path). What importing `name` runs is the file the path finder finds
        # for it, if any: record that.
        record.update(alias_of=spec_name, file=None, origin=None, loader=None, is_package=False)
        real = _find_file_spec(name)
        if real is not None:
            record.update(origin=real.origin, loader=_loader_name(real.loader),
                          is_package=real.submodule_search_locations is not None)
    return record


def _find_file_spec(name):
    parent, _, _ = name.rpartition(".")
    path = None
    if parent:
        path = getattr(sys.modules.get(parent), "__path__", None)
        if path is None:  # not below a package: nothing the path finder would find
            return None
    try:
        finder = sys.modules["_frozen_importlib_external"].PathFinder
        spec = finder.find_spec(name, path)
    except Exception:
        return None
    if spec is None or not isinstance(spec.origin, str) or spec.origin in ("built-in", "frozen"):
        return None
    return spec


def install(options):
    # one file (the check run), or one file per process in a folder: `compare --harness`'s
    # untimed run of a packing variant, where every process the harness starts records (the
    # process id taken at exit: a forked child writes its own)
    out = options.get("oxidized_modules_out")
    folder = options.get("oxidized_modules_dir")

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
        if out:
            fh = open(out, "w")
        else:  # a file of its own: a long harness outlives the process ids, and a later process
            # given an earlier one's id keeps both
            base, k = "%s/%d" % (folder, sys.modules["posix"].getpid()), 0
            while True:
                try:
                    fh = open(base + ("-%d" % k if k else "") + ".json", "x")
                    break
                except FileExistsError:
                    k += 1
        with fh:  # (no `import json` at exit: see launch.dumps)
            fh.write(_importprof["_importprof_launch"].dumps({"modules": records, "sys_path": sys_path}))

    _importprof["_importprof_launch"].at_exit(dump)
