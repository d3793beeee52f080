"""importprof hook `lazy`: PEP 810's `-X lazy_imports=all` (Python 3.15) emulated on Python
3.8-3.14. Standard library only; it never imports the rest of the `profiler` package. (On 3.15+
`importprof lazy` runs the real `-X lazy_imports=all`; this hook then only installs the
keep-eager filter, when there is one, and records.)

What 3.15 defers, and so what this hook defers: every import statement at module level (also
inside `if`, `with`, `for`, `while`), `import a.b` and `from a import b` alike, except those
inside a `try` statement and `from x import *`. `from __future__ import annotations` is a
lazy binding too (3.15 never imports __future__ for it), its feature given to the compiler as a
flag. Imports inside functions and class bodies, `importlib.import_module` and `__import__`
calls stay what they are: eager when they run.

How: the source of every module loaded by `SourceFileLoader` (the program's, its packages', the
stdlib's) and of the `-c`/script target is compiled with each such statement replaced by a call
of `__importprof_lazy__` (a builtin the hook adds), which binds each name the statement would
bind to a pending import instead of importing. The binding is a dict entry whose key is a `str`
subclass (`_LazyKey`) with the name's text and hash: the first lookup of the name (the module's
code reading the global, `getattr(module, name)`, `from module import name`) compares that key
with the name looked up, and the comparison runs the import, replaces the entry by the real
value under a plain key and answers "equal", so the lookup (which restarts when the dict
changed) returns the value. This is the "special key in the module's dict" of the pure-Python
lazy importers (slothy, defer-imports), applied at compile time to every module. An import
that fails raises at that first use, as in 3.15. `globals()` and `module.__dict__` show the
pending object without resolving it (3.15 shows its lazy object too). Known differences: a
module-level assignment to a lazily bound name resolves it first (3.15 replaces it unresolved);
the hook's own dict edits are not thread-safe (start-up is single-threaded in practice);
modules loaded by other loaders than SourceFileLoader (zip imports, in-memory finders, .pyc
only) run their imports eagerly.

The rewritten code is cached (marshal) under options["hook_cache"]/lazy-code/<the source path>
.<cache tag>.<these hooks' mtime>.lazy (two importprof installations keep apart entries),
checked against the source's mtime and size and the interpreter's magic number, so
a timed run reads it as the import system reads a .pyc (never the program's own __pycache__).
A cache miss compiles with `ast` imported out of sight (sys.modules restored after).

Before 3.14 the rewritten code is compiled with PEP 563's deferred annotations (strings), as
3.14+ defers annotations itself (PEP 649): a def's annotations then resolve no lazy name.

What the emulation costs beyond 3.15's mechanism (a lazy binding and its resolution are Python
calls here, C in 3.15) is counted (`counts`) and, with options["lazy_calibrate"], timed per event
in this interpreter (`calibration`), so that importprof can take it out of the prediction.

At exit (options["lazy_path"] set), one JSON object: executed modules with their kind and file,
pending (bound lazily, never resolved) modules, `eager` records [name, reason, file:line] for
statements that stay eager (try block, star import, kept eager), `loads` [name, "use", bound
name, file:line of the first use], `found` (every import the program started, with its kind:
the eager reference run records it through python's "import" audit event, without wrapping any
finder; the bisection's candidates), `counts`, `calibration`. options["lazy"] False: the eager
reference run, which defers nothing and only records.

Parts (each a module beside this one, loaded by `install` through the launcher's load_hook and
sharing this module's state objects): hook_lazy_bind.py (the lazy bindings: `_Pending`,
`_LazyKey`, `__importprof_lazy__`), hook_lazy_rewrite.py (the compile-time rewrite, its cache,
SourceFileLoader.get_code and the target's compile), hook_lazy_calibrate.py (the per-event
costs). This module keeps the state, the keep-eager filter, the eager run's record and the
record written at exit.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
    import posix
finally:
    pass

_OPTIONS = {}
_KEEP = set()
_ONLY = set()  # (importer, module) pairs: only those imports lazy (empty: every import)
_EAGER = []  # [name, reason, site]
_LOADS = []  # [name, trigger, attr, site]
_STARTUP = []
_FOUND = []  # every import the program started (names, in order: the eager run's audit hook)
_PENDING = []  # every _Pending made, to list the unresolved ones at exit
_COUNTS = {"bindings": 0, "resolutions": 0, "rewritten_loads": 0, "cache_misses": 0}
_CALIBRATION = {}
_RECORD = [False]  # True when a record is written at exit (timed runs skip the bookkeeping)
_QUIET = [0]  # > 0: _LazyKey compares as a plain str (the hook's own dict edits)
_COMPILING = [False]
_HERE = __file__
_ModuleType = type(sys)
_MISSING = object()
_BOOT = sys.modules.get("_frozen_importlib")
_EXT = sys.modules.get("_frozen_importlib_external")
_MAGIC = getattr(_EXT, "MAGIC_NUMBER", b"")


# ------------------------------------------------------------------ the eager run's finder record

_KIND = {
    "BuiltinImporter": "builtin",
    "FrozenImporter": "frozen",
    "ExtensionFileLoader": "extension",
    "SourceFileLoader": "source",
    "SourcelessFileLoader": "bytecode",
    "NamespaceLoader": "namespace",
    "_NamespaceLoader": "namespace",
}


def _loader_kind(loader):
    if loader is None:
        return "namespace"
    cls = loader if isinstance(loader, type) else type(loader)
    return _KIND.get(cls.__name__, "other")


_AUDITING = [False]


def _audit(event, args):
    """The eager reference run's record of every import the program starts (sys.addaudithook:
    python's own "import" event, raised before a module not yet in sys.modules is looked for).
    Nothing the program can see is wrapped or replaced: sys.meta_path, its finders and their
    loaders stay the program's own objects (awscli's alias finder looks for PathFinder there).
    Kinds are read at exit (a module the import left out of sys.modules: "other")."""
    if event == "import" and _AUDITING[0]:
        _FOUND.append(args[0])


def _found_records(modules):
    """[name, kind] of each import the eager run started, once, in order; every module executed
    at exit too (`importlib.import_module` raises no "import" event before 3.15)."""
    kinds = dict((name, kind) for name, kind, _ in modules)
    out = []
    seen = set()
    for name in list(_FOUND) + [name for name, _, _ in modules]:
        if name in seen or name.startswith("_importprof") or name == "__main__":
            continue
        seen.add(name)
        out.append([name, kinds.get(name, "other")])
    return out


def _module_facts(name, mod):
    """[name, kind, file] of an executed module, read without triggering anything: a cffi `Lib`
    (isinstance says module, type says not; no __dict__), a proxy or lazy object is an "object"."""
    launch = _importprof["_importprof_launch"]
    d = launch.module_dict(mod)
    if d is None:
        return [name, "object", None]
    path = launch.module_file(mod)
    spec = dict.get(d, "__spec__")
    if name == "__main__":
        if path is None:  # 3.15 drops __main__.__file__ before exit handlers run; -m left its spec
            origin = launch.spec_attr(spec, "origin")
            path = origin if type(origin) is str else None
        return [name, "main", path]
    if spec is None:
        return [name, "unknown", path]
    return [name, _loader_kind(launch.spec_attr(spec, "loader")), path]


_ORIGINAL_IMPORT = [None]  # builtins.__import__ when the hook was installed


def _imports_on_access(fn):
    """A module __getattr__ that imports what it is asked for (importlib.import_module or
    __import__ in its code, or in a function it defines): lazy loading (lazy_loader, SciPy's and
    scikit-image's packages), not a deprecation shim that reads a version (click, pluggy)."""
    try:
        codes = [fn.__code__]
        names = set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if type(c).__name__ == "code")
    except Exception:
        return False
    return "import_module" in names or "__import__" in names


def _own_lazy(modules):
    """The program's own lazy-import machinery, seen at exit without touching a module: a
    replaced builtins.__import__ (Mercurial's demandimport on Python 2, many "lazy import"
    packages), sys.meta_path finders of its own named for lazy or demand loading (Mercurial's
    demandimport on Python 3 wraps every finder in a LazyFinder whose specs carry an
    importlib.util.LazyLoader), modules still pending in a LazyLoader at exit (a
    `_LazyModule`), and packages outside the standard library whose PEP 562 module __getattr__
    imports what it is asked for (_imports_on_access; most are deprecation shims)."""
    launch = _importprof["_importprof_launch"]
    out = []
    current = launch.module_dict(sys.modules.get("builtins")) or {}
    imp = dict.get(current, "__import__")
    if _ORIGINAL_IMPORT[0] is not None and imp is not _ORIGINAL_IMPORT[0]:
        where = getattr(imp, "__module__", None) if type(imp).__name__ == "function" else None
        out.append("builtins.__import__ replaced" + (" by %s" % where if type(where) is str else ""))
    finders = {}
    for f in list(getattr(sys, "meta_path", ()) or ()):
        t = type(f)  # the true type: a proxy finder answers __class__ with the finder it wraps
        label = "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", t.__name__))
        low = label.lower()
        if "lazy" in low or "demand" in low:
            finders[label] = finders.get(label, 0) + 1
    for label, n in sorted(finders.items()):
        out.append("sys.meta_path finder %s%s" % (label, " x%d" % n if n > 1 else ""))
    stdlib = getattr(sys, "stdlib_module_names", ())
    pending, getattr_packages = 0, []
    for name, mod in modules:
        d = launch.module_dict(mod)
        if d is None or name.startswith("_importprof"):
            continue
        if type(mod).__name__ == "_LazyModule":
            pending += 1
        top = name.partition(".")[0]
        hook = dict.get(d, "__getattr__")
        if (type(hook).__name__ == "function" and dict.get(d, "__path__") is not None
                and top not in stdlib and not top.startswith("_") and _imports_on_access(hook)):
            getattr_packages.append(name)
    if pending:
        out.append("importlib.util.LazyLoader: %d modules still pending at exit" % pending)
    if getattr_packages:
        shown = ", ".join(sorted(getattr_packages)[:5]) + (" and %d more" % (len(getattr_packages) - 5) if len(getattr_packages) > 5 else "")
        out.append("module __getattr__ (PEP 562) in %s" % shown)
    return out


def _dump():
    _AUDITING[0] = False
    rewrite = _importprof.get("_importprof_hook_lazy_rewrite")
    if rewrite is not None and rewrite._ORIGINAL_GET_CODE[0] is not None:
        _EXT.SourceFileLoader.get_code = rewrite._ORIGINAL_GET_CODE[0]
    modules = list(sys.modules.items())
    path = _OPTIONS.get("lazy_path")
    if not path:
        return
    executed = [_module_facts(name, mod) for name, mod in modules if not name.startswith("_importprof")]
    names = set(n for n, _ in modules)
    pending = []
    for p in _PENDING:
        if not p.done:
            name = p.module_name()
            if name not in names and name not in pending:
                pending.append(name)
    doc = {
        "lazy": bool(_OPTIONS.get("lazy", True)),
        "python": "%d.%d.%d" % sys.version_info[:3],
        "startup": _STARTUP,
        "executed": executed,
        "pending": pending,
        "eager": list(_EAGER),
        "loads": list(_LOADS),
        "found": _found_records(executed) if _FOUND else [],
        "counts": dict(_COUNTS),
        "calibration": dict(_CALIBRATION),
        "own_lazy": _own_lazy(modules),
    }
    with open(path, "w", encoding="utf-8") as fh:  # (no `import json` at exit: see launch.dumps)
        fh.write(_importprof["_importprof_launch"].dumps(doc))


def _keep_filter(importer, name, fromlist=None, only=_ONLY):
    """3.15's filter (importing module, imported module, from-list): False keeps the import
    eager: the module, or a submodule named in the from-list, is in the keep-eager set; or,
    with options["lazy_only"] ([importer, module] pairs: one statement's change measured
    alone), the import is not one of those."""
    names = [name] + ["%s.%s" % (name, item) for item in fromlist or ()]
    if _KEEP and any(n in _KEEP for n in names):
        return False
    if only:
        return any((importer, n) in only for n in names)
    return True


def install(options):
    _OPTIONS.update(options)
    _KEEP.update(options.get("lazy_keep") or ())
    _ONLY.update(tuple(pair) for pair in options.get("lazy_only") or ())
    _STARTUP.extend(n for n in sys.modules if not n.startswith("_importprof"))
    launch = _importprof["_importprof_launch"]
    _ORIGINAL_IMPORT[0] = dict.get(launch.module_dict(sys.modules.get("builtins")) or {}, "__import__")
    if options.get("lazy_path"):
        _RECORD[0] = True
        launch.at_exit(_dump)
    if not options.get("lazy", True):
        if _RECORD[0]:  # the eager reference: record every import started (failed ones too)
            _AUDITING[0] = True
            sys.addaudithook(_audit)
        return
    if sys.version_info >= (3, 15):
        # PEP 810: -X lazy_imports=all does the deferring; keep the keep-eager set eager
        setter = getattr(sys, "set_lazy_imports_filter", None)
        if (_KEEP or _ONLY) and setter is not None:
            setter(_keep_filter)
        return
    # the emulation, in three parts loaded beside this one (they share its state)
    bind = launch.load_hook("lazy_bind", options)
    rewrite = launch.load_hook("lazy_rewrite", options)
    try:  # the rewritten code's cache is keyed by the code that rewrites and binds
        rewrite._SELF_MTIME[0] = max(posix.stat(m.__file__).st_mtime_ns for m in (bind, rewrite))
    except OSError:
        pass
    import builtins

    builtins.__importprof_lazy__ = bind._lazy_import
    loader_class = _EXT.SourceFileLoader
    get_code = rewrite._get_code
    rewrite._ORIGINAL_GET_CODE[0] = loader_class.get_code
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):  # read as the original's
        setattr(get_code, attr, getattr(loader_class.get_code, attr))
    loader_class.get_code = get_code
    launch.compile_main = rewrite.compile_main
    if options.get("lazy_calibrate"):
        launch.load_hook("lazy_calibrate", options)._calibrate(int(options["lazy_calibrate"]))
