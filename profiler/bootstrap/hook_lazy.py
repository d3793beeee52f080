"""importprof hook `lazy`: every import deferred until the module is first used, the way
`importlib.util.LazyLoader` does it (and Mercurial's demandimport on Python 3). Standard
library only (builtin modules: sys, _thread), Python 3.8-3.14; it never imports the rest of
the `profiler` package. (On 3.15+ `importprof lazy` runs `-X lazy_imports=all` instead; this
hook then only installs the keep-eager filter, when there is one, and records.)

How: each finder on `sys.meta_path` at start-up is wrapped in place: it finds the spec and, when
the module can be lazy, wraps its loader. The wrapper's `exec_module` does not run the module:
it swaps the module's class for `_LazyModule`, whose first attribute access runs the real
`exec_module` (then the class is swapped back). This is `importlib.util.LazyLoader`'s mechanism,
line for line (3.12's thread-safe version), written out here for two reasons:
  - importing `importlib.util` would import contextlib, functools, collections, types,
    warnings... (3.7 ms on 3.11 under -S) into every lazy run, before the program;
  - `__spec__` is answered without loading. CPython's import statement reads
    `sys.modules[name].__spec__._initializing` each time a module already in sys.modules is
    imported again, so with the stdlib class a second `import x` anywhere loads x.

What stays eager, decided when the module is found (`eager` records, with the reason and the
import statement's file:line):
  builtin, frozen, extension modules (their init runs in create_module), namespace packages,
  loaders without exec_module, module objects of a custom type, and the names in
  options["lazy_keep"] (the keep-eager set: given by the user, or found by bisection).
Modules already in sys.modules when the hook is installed (interpreter start-up) are never
found again: they are listed as `startup`.

What loads a lazy module, recorded when it happens (`loads` records: name, trigger, attribute,
file:line of the first frame outside importlib):
  "from"       `from x import name` (the import statement reads x's attributes at once)
  "star"       `from x import *` (reads x.__all__)
  "submodule"  importing x.y runs x's __init__ (importlib reads x.__path__)
  "use"        the program used an attribute (deferred to first use: the intended case)

At exit (options["lazy_path"] set), one JSON object: executed modules with their kind and file, pending
(found, never executed) modules, every module found (`found`, with its kind: imports that
failed are there too) and the records above. options["lazy"] False: the eager reference run,
the same launcher and finder, which defers nothing and only records.
"""

import sys
import _thread

_OPTIONS = {}
_KEEP = set()
_EAGER = []  # [name, reason, site]
_LOADS = []  # [name, trigger, attr, site]
_STARTUP = []
_FOUND = []  # [name, kind]: every module a finder found for the program, in import order
_DEFER = [True]  # False: the eager reference run (find and record, defer nothing)
_RECORD = [False]  # True when a record is written at exit (timed runs skip the bookkeeping)
_HERE = __file__
_ModuleType = type(sys)


def _caller(depth):
    """The frame `depth` levels above the caller of this function, or None when the call came
    from C with no Python frame above (the interpreter's own shutdown, a C callback)."""
    try:
        return sys._getframe(depth)
    except ValueError:
        return None


def _site(frame):
    """file:line of the first frame outside importlib's machinery and this hook."""
    f = frame
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith("<frozen importlib") or fn == _HERE:
            f = f.f_back
            continue
        return "%s:%d" % (fn, f.f_lineno)
    return None


def _trigger(attr, frame):
    """Why a lazy module is being executed now (see the module docstring)."""
    code = frame.f_code if frame is not None else None
    name = code.co_name if code is not None else ""
    internal = code is not None and code.co_filename.startswith("<frozen importlib")
    if attr == "__all__" or (not internal and attr == "__path__" and _star_import(frame)):
        return "star"
    if internal and name == "_find_and_load_unlocked":
        return "submodule"
    if attr == "__path__" or (internal and name == "_handle_fromlist"):
        return "from"  # the import code checks __path__ when there is a fromlist
    return "use"


def _star_import(frame):
    """The frame is executing `from x import *`: the constant loaded just before its
    IMPORT_NAME (f_lasti) is the fromlist ('*',)."""
    try:
        code = frame.f_code
        return code.co_consts[code.co_code[frame.f_lasti - 1]] == ("*",)
    except Exception:
        return False


class _LazyModule(_ModuleType):
    """A module whose body runs on first attribute access (importlib.util._LazyModule)."""

    def __getattribute__(self, attr):
        __spec__ = object.__getattribute__(self, "__spec__")
        if attr == "__spec__":
            return __spec__  # the import statement's own check: no load (see the docstring)
        loader_state = __spec__.loader_state
        with loader_state["lock"]:
            if object.__getattribute__(self, "__class__") is _LazyModule:
                __class__ = loader_state["__class__"]
                if loader_state["is_loading"]:
                    return __class__.__getattribute__(self, attr)
                loader_state["is_loading"] = True
                if _RECORD[0]:
                    frame = _caller(2)
                    _LOADS.append([__spec__.name, _trigger(attr, frame), attr, _site(frame)])
                __dict__ = __class__.__getattribute__(self, "__dict__")
                original_name = __spec__.name
                attrs_then = loader_state["__dict__"]
                attrs_updated = {}
                for key, value in __dict__.items():
                    if key not in attrs_then or id(value) != id(attrs_then[key]):
                        attrs_updated[key] = value
                __spec__.loader.exec_module(self)
                if original_name in sys.modules:
                    if id(self) != id(sys.modules[original_name]):
                        raise ValueError(
                            "module object for %r substituted in sys.modules during a lazy load" % original_name
                        )
                __dict__.update(attrs_updated)
                if isinstance(self, _LazyModule):
                    object.__setattr__(self, "__class__", __class__)
        return getattr(self, attr)

    def __delattr__(self, attr):
        self.__getattribute__(attr)
        delattr(self, attr)


class _LazyLoader:
    """Wraps a loader: exec_module makes the module lazy (importlib.util.LazyLoader). Other
    loader methods (get_code, get_filename... runpy asks the spec's loader for them) go to the
    wrapped loader."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):
        if name == "loader":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__spec__.loader = self.loader
        module.__loader__ = self.loader
        if type(module) is not _ModuleType:
            if _RECORD[0]:
                _EAGER.append([module.__spec__.name, "custom module type", _site(_caller(2))])
            self.loader.exec_module(module)
            return
        module.__spec__.loader_state = {
            "__dict__": module.__dict__.copy(),
            "__class__": module.__class__,
            "lock": _thread.RLock(),
            "is_loading": False,
        }
        module.__class__ = _LazyModule


_KIND = {
    "BuiltinImporter": "builtin",
    "FrozenImporter": "frozen",
    "ExtensionFileLoader": "extension",
    "SourceFileLoader": "source",
    "SourcelessFileLoader": "bytecode",
    "NamespaceLoader": "namespace",
    "_NamespaceLoader": "namespace",
}
_NEVER_LAZY = {
    "builtin": "builtin module (no file to defer)",
    "frozen": "frozen module (no file to defer)",
    "extension": "extension module (its init function runs when the module is created)",
    "namespace": "namespace package (no code to run)",
}


def _loader_kind(loader):
    if loader is None:
        return "namespace"
    cls = loader if isinstance(loader, type) else type(loader)
    return _KIND.get(cls.__name__, "other")


def _eager_reason(name, spec):
    if name in _KEEP:
        return "kept eager (keep-eager set)"
    loader = spec.loader
    kind = _loader_kind(loader)
    if kind in _NEVER_LAZY:
        return _NEVER_LAZY[kind]
    if not hasattr(loader, "exec_module"):
        return "its loader has no exec_module (legacy load_module)"
    return None


class _LazyFinder(object):
    """Takes the place of one finder on sys.meta_path: asks it, and wraps what can be lazy.
    In its place rather than in front of all of them, so a module that is nowhere is looked
    for once per finder, as without the hook (a front finder that asked the others would have
    importlib ask them all again after its miss)."""

    __slots__ = ("finder",)

    def __init__(self, finder):
        self.finder = finder

    def find_spec(self, name, path=None, target=None):
        spec = self.finder.find_spec(name, path, target)
        if spec is None or target is not None:
            return spec
        if _RECORD[0]:
            _FOUND.append([name, _loader_kind(spec.loader)])
        if not _DEFER[0]:
            return spec
        reason = _eager_reason(name, spec)
        if reason is not None:
            if _RECORD[0]:
                _EAGER.append([name, reason, _site(_caller(2))])
            return spec
        spec.loader = _LazyLoader(spec.loader)
        return spec

    def __getattr__(self, attr):  # invalidate_caches, find_distributions...: the finder's own
        return getattr(self.finder, attr)

    def __repr__(self):
        return "<importprof lazy: %r>" % (self.finder,)


def _wrap_finders():
    sys.meta_path[:] = [f if isinstance(f, _LazyFinder) or not hasattr(f, "find_spec") else _LazyFinder(f)
                        for f in sys.meta_path]


def _unwrap_finders():
    sys.meta_path[:] = [f.finder if isinstance(f, _LazyFinder) else f for f in sys.meta_path]


def _module_facts(name, mod):
    """[name, kind, file] of an executed module, read without triggering anything."""
    if not isinstance(mod, _ModuleType):
        return [name, "object", None]
    d = object.__getattribute__(mod, "__dict__")
    path = d.get("__file__")
    path = path if isinstance(path, str) else None
    if name == "__main__":
        return [name, "main", path]
    spec = d.get("__spec__")
    if spec is None:
        return [name, "unknown", path]
    return [name, _loader_kind(spec.loader), path]


def _dump():
    # first: the json import below is importprof's own, neither deferred nor recorded
    _unwrap_finders()
    modules = list(sys.modules.items())
    eager, loads, found = list(_EAGER), list(_LOADS), list(_FOUND)
    path = _OPTIONS.get("lazy_path")
    if not path:
        return
    executed = []
    pending = []
    for name, mod in modules:
        if name.startswith("_importprof"):
            continue
        if type(mod) is _LazyModule:
            pending.append(name)
        else:
            executed.append(_module_facts(name, mod))
    import json

    doc = {
        "lazy": bool(_OPTIONS.get("lazy", True)),
        "python": "%d.%d.%d" % sys.version_info[:3],
        "startup": _STARTUP,
        "executed": executed,
        "pending": pending,
        "eager": eager,
        "loads": loads,
        "found": found,
    }
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)


def _keep_filter(importer, name, fromlist=None):
    return name not in _KEEP


def install(options):
    _OPTIONS.update(options)
    _KEEP.update(options.get("lazy_keep") or ())
    _STARTUP.extend(n for n in sys.modules if not n.startswith("_importprof"))
    launch = sys.modules["_importprof_launch"]
    if options.get("lazy_path"):
        _RECORD[0] = True
        launch.at_exit(_dump)
    if not options.get("lazy", True):
        _DEFER[0] = False  # the eager reference: record what is found (failed imports too)
        _wrap_finders()
        return
    if sys.version_info >= (3, 15):
        # PEP 810: -X lazy_imports=all does the deferring; keep the keep-eager set eager
        setter = getattr(sys, "set_lazy_imports_filter", None)
        if _KEEP and setter is not None:
            setter(_keep_filter)
        return
    _wrap_finders()
