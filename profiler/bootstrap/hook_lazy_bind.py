"""importprof hook `lazy_bind`: PEP 810's lazy bindings, emulated before 3.15: the call that replaces a
module-level import statement (`__importprof_lazy__`), the pending import each bound name
holds, the dict key that resolves it at its first lookup (see hook_lazy.py).

Standard library only; loaded by bootstrap/hook_lazy.py (the `lazy` hook), whose state it shares
(the same objects, bound here by name); it never imports the rest of the `profiler` package."""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
finally:
    pass

_LAZY = _importprof["_importprof_hook_lazy"]
_HERE = _LAZY._HERE
_SHOWN = _importprof["_importprof_launch"].shown  # the script's file as the command line named it
_KEEP = _LAZY._KEEP
_ONLY = _LAZY._ONLY
_EAGER = _LAZY._EAGER
_LOADS = _LAZY._LOADS
_PENDING = _LAZY._PENDING
_COUNTS = _LAZY._COUNTS
_RECORD = _LAZY._RECORD
_QUIET = _LAZY._QUIET
_MISSING = _LAZY._MISSING
_BOOT = _LAZY._BOOT
_ModuleType = _LAZY._ModuleType
_keep_filter = _LAZY._keep_filter


def _caller(depth):
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
        return "%s:%d" % (_SHOWN.get(fn, fn), f.f_lineno)
    return None


def _absolute(name, namespace, level):
    if not level:
        return name
    try:
        return _BOOT._resolve_name(name, _BOOT._calc___package__(namespace), level)
    except Exception:
        return name


# ------------------------------------------------------------------ lazy bindings

class _Pending(object):
    """What one name of one import statement will be bound to. kind 0: `import a.b` (binds a),
    1: `import a.b as c`, 2: `from m import x [as y]`, 4: submodule b as a lazy attribute of
    package a (after `import a.b` resolved a)."""

    __slots__ = ("ns", "kind", "name", "attr", "level", "bound", "extra", "done", "busy", "site", "value")

    def __init__(self, ns, kind, name, attr, level, bound, site):
        self.ns = ns
        self.kind = kind
        self.name = name
        self.attr = attr
        self.level = level
        self.bound = bound
        self.extra = None  # kind 0: more dotted names of the same top package (`import a.b; import a.c`)
        self.done = False
        self.busy = False
        self.site = site
        self.value = None

    def resolve(self):
        ns = self.ns
        if self.kind == 0:  # the top package only; its submodules named become lazy attributes
            top_name = self.name.partition(".")[0]
            top = __import__(top_name, ns, None, None, 0)
            for dotted in (self.name,) + tuple(self.extra or ()) + tuple(_SUBMODULES.get(top_name, ())):
                _lazy_children(dotted)
            return top
        if self.kind == 4:  # a lazy submodule attribute of its package
            __import__(self.name, ns, None, None, 0)
            value = sys.modules[self.name]
            for dotted in self.extra or ():
                _lazy_children(dotted)
            return value
        if self.kind == 1:
            __import__(self.name, ns, None, None, 0)
            return sys.modules[self.name]
        attr = self.attr
        module = __import__(self.name, ns, None, (attr,), self.level)
        try:
            return getattr(module, attr)
        except AttributeError:
            pass
        modname = getattr(module, "__name__", self.name)
        try:
            return sys.modules["%s.%s" % (modname, attr)]
        except KeyError:
            pass
        where = getattr(module, "__file__", None) or "unknown location"
        raise ImportError("cannot import name %r from %r (%s)" % (attr, modname, where), name=modname, path=where)

    def module_name(self):
        return _absolute(self.name, self.ns, self.level) if self.kind == 2 else self.name

    # a pending object that escaped its namespace (a star import of a module without __all__
    # copies the entries): it stands for the value
    def __getattr__(self, attr):
        if attr in _Pending.__slots__:
            raise AttributeError(attr)
        value = _resolve(self)
        if value is self:
            raise AttributeError(attr)
        return getattr(value, attr)

    def __call__(self, *args, **kwargs):
        return _resolve(self)(*args, **kwargs)

    def __repr__(self):
        return "<importprof lazy import %s%s>" % (self.name, "" if self.kind != 2 else " (%s)" % self.attr)


_SUBMODULES = {}  # top package -> dotted names imported lazily anywhere (`import a.b` in any module)


def _register_submodule(dotted):
    """`import a.b` anywhere makes a.b reachable as an attribute of a, for every module that
    holds a (3.15 keeps such names in sys.lazy_modules): once a is imported, a.b is a lazy
    attribute of it."""
    top = dotted.partition(".")[0]
    names = _SUBMODULES.setdefault(top, [])
    if dotted not in names:
        names.append(dotted)
    if top in sys.modules:
        _lazy_children(dotted)


def _lazy_children(dotted):
    """After `import a.b.c` resolved `a`: a.b (and below it a.b.c) become lazy attributes of
    their packages where they are not attributes yet, as in 3.15, where resolving `a` imports
    `a` alone and `a.b` is imported when the program reads it."""
    parts = dotted.split(".")
    for i in range(1, len(parts)):
        parent = sys.modules.get(".".join(parts[:i]))
        d = getattr(parent, "__dict__", None) if parent is not None else None
        if not isinstance(d, dict):
            return
        child, full = parts[i], ".".join(parts[:i + 1])
        _QUIET[0] += 1
        try:
            current = d.get(child, _MISSING)
        finally:
            _QUIET[0] -= 1
        if current is _MISSING:
            p = _Pending(d, 4, full, None, 0, child, None)
            p.extra = (dotted,) if full != dotted else ()
            _PENDING.append(p)
            _bind(d, child, p)
            if full not in sys.modules:
                return
            # a.b is being imported (`from .c import x` in a/b/__init__.py): a.b.c is an
            # attribute of it now, not once a.b is read on a
            continue
        if isinstance(current, _Pending):
            if current.kind != 4 or not (current.done or current.busy):
                if current.kind == 4 and full != dotted:
                    current.extra = tuple(current.extra or ()) + (dotted,)
                return
            # a.b resolved or resolving (its own extra names walk through it): on to a.b.c


def _shadowing_values(pending):
    """A package's own values named like the submodules this resolution imports (tenacity
    defines a function `retry` after `from .retry import ...`): eagerly the submodule was set on
    the package first and the def replaced it; resolved later, importing the submodule would
    replace the function, which 3.15 does not do. [(package dict, name, value)]"""
    name = pending.module_name() if pending.kind == 2 else pending.name
    out = []
    while "." in name:
        parent, _, child = name.rpartition(".")
        module = sys.modules.get(parent)
        d = getattr(module, "__dict__", None) if module is not None else None
        if isinstance(d, dict):
            _QUIET[0] += 1
            try:
                value = d.get(child, _MISSING)
            finally:
                _QUIET[0] -= 1
            if value is not _MISSING and not isinstance(value, (_ModuleType, _Pending)):
                out.append((d, child, value))
        name = parent
    return out


def _restore_shadowing(shadowed):
    for d, child, value in shadowed:
        _QUIET[0] += 1
        try:
            if isinstance(d.get(child), _ModuleType):
                d[child] = value
        finally:
            _QUIET[0] -= 1


def _resolve(pending):
    """Run the import of `pending` once; put the value in its namespace under a plain key."""
    if pending.done:
        return pending.value
    pending.busy = True
    shadowed = _shadowing_values(pending)
    try:
        value = pending.resolve()
        if shadowed:
            _restore_shadowing(shadowed)
    except ImportError as exc:  # as 3.15 reports a failed lazy import, at its first use
        target = pending.name if pending.kind != 2 else "%s.%s" % (pending.module_name(), pending.attr)
        exc.__cause__ = ImportError("lazy import of %r raised an exception during resolution" % target)
        raise
    finally:
        pending.busy = False
    pending.value = value
    pending.done = True
    _COUNTS["resolutions"] += 1
    ns, bound = pending.ns, pending.bound
    _QUIET[0] += 1
    try:
        current = ns.get(bound, _MISSING)
        if current is pending or (current is not _MISSING and not isinstance(current, _Pending)):
            # ours, or a value stored meanwhile (a submodule set on its package): under a plain key
            keep = value if current is pending else current
            del ns[bound]
            ns[sys.intern(str(bound))] = keep
    finally:
        _QUIET[0] -= 1
    return value


def _store_ops():
    """The opcodes of `name = value`, `global name; name = value` and `obj.name = value` in this
    interpreter, read off compiled code (their numbers change between versions; importing dis
    or opcode would show in the program's sys.modules): in each snippet the store is the one
    instruction whose argument is 1."""
    ops = set()
    g = {}
    exec(compile("def f():\n    global y\n    y = x\n", "<importprof>", "exec"), g)
    for code in (compile("y = x", "<importprof>", "exec"), g["f"].__code__,
                 compile("x.y = x", "<importprof>", "exec")):
        raw = code.co_code
        found = [raw[i] for i in range(0, len(raw) - 1, 2) if raw[i + 1] == 1]
        if len(found) == 1:
            ops.add(found[0])
    return frozenset(ops)


try:
    _STORE_OPS = _store_ops()
except Exception:  # no store recognised: a store resolves, as before
    _STORE_OPS = frozenset()


def _is_store(frame):
    """Is `frame` storing a name or an attribute (its current instruction)?"""
    try:
        return frame.f_code.co_code[frame.f_lasti] in _STORE_OPS
    except Exception:
        return False


class _LazyKey(str):
    """A module-dict key equal to its name; comparing it with the name resolves the import."""

    __hash__ = str.__hash__

    def __eq__(self, other):
        if str.__eq__(self, other) is not True:
            return False
        if _QUIET[0]:
            return True
        pending = self.__dict__.get("pending")
        if pending is None or pending.done:
            return True
        if pending.kind == 4 and _is_store(_caller(2)):
            # the package assigns the name of a submodule it imported from (`from .retry import
            # x` then `def retry`): 3.15 keeps no entry for a lazy submodule, so the value is
            # stored and the submodule is not imported; the entry becomes a plain value
            pending.done = True
            return True
        if pending.busy:
            # its own resolution looks the name up (`from . import sub` in the package: is sub
            # an attribute yet?): absent until resolved, so the submodule is imported and set
            return False
        if _RECORD[0]:
            frame = _caller(1)
            _LOADS.append([pending.module_name(), "use", str.__str__(self), _site(frame)])
        _resolve(pending)
        return True

    def __ne__(self, other):
        return not self.__eq__(other)


def _bind(ns, bound, pending):
    _QUIET[0] += 1
    try:
        old = ns.pop(bound, _MISSING)  # a plain entry would keep its key on assignment
        if (pending.kind == 0 and isinstance(old, _Pending) and old.kind == 0 and not old.done
                and old.name != pending.name):
            # `import a.b` then `import a.c`: resolving `a` imports both
            pending.extra = (old.extra or ()) + (old.name,)
        key = _LazyKey(bound)
        key.pending = pending
        ns[key] = pending
    finally:
        _QUIET[0] -= 1


def _lazy_import(kind, name, names, level, lineno):
    """The replacement of one module-level import statement (see the module docstring):
    kind 0 `import name`, 1 `import name as names`, 2 `from name import names` (pairs)."""
    frame = sys._getframe(1)
    ns = frame.f_globals
    site = None
    if _RECORD[0]:
        fn = frame.f_code.co_filename
        site = "%s:%d" % (_SHOWN.get(fn, fn), lineno)
    if kind == 3:  # before `from name import *`: resolve the module's pending names (the
        # statement reads them all: without __all__ by iterating the dict, where the keys are ours)
        module = __import__(name, ns, None, ("*",), level)
        d = getattr(module, "__dict__", None)
        if isinstance(d, dict):
            _QUIET[0] += 1
            try:
                todo = [v for v in d.values() if isinstance(v, _Pending) and v.ns is d and not v.done]
            finally:
                _QUIET[0] -= 1
            for p in todo:
                _resolve(p)
        return
    if _KEEP or _ONLY:
        absname = _absolute(name, ns, level)
        fromlist = tuple(n for n, _ in names) if kind == 2 else None
        if not _keep_filter(ns.get("__name__"), absname, fromlist):
            if _RECORD[0] and _KEEP and not _keep_filter(None, absname, fromlist, ()):
                _EAGER.append([absname, "kept eager (keep-eager set)", site])
            _eager_statement(ns, kind, name, names, level)
            return
    if kind == 0:
        top = name.partition(".")[0]
        p = _Pending(ns, 0, name, None, 0, top, site)
        _PENDING.append(p)
        _COUNTS["bindings"] += 1
        _bind(ns, top, p)
        if top != name:
            _register_submodule(name)
    elif kind == 1:
        p = _Pending(ns, 1, name, None, 0, names, site)
        _PENDING.append(p)
        _COUNTS["bindings"] += 1
        _bind(ns, names, p)
        if "." in name:
            _register_submodule(name)
    else:
        for attr, bound in names:
            p = _Pending(ns, 2, name, attr, level, bound, site)
            _PENDING.append(p)
            _COUNTS["bindings"] += 1
            _bind(ns, bound, p)
        # `from a.b import x` makes a.b reachable as an attribute of a, as `import a.b` does
        # (3.15 records it in sys.lazy_modules: `a.b` read on a imports it; botocore's
        # vendored requests package does `from .exceptions import ...` and botocore reads
        # `requests.exceptions`)
        absname = _absolute(name, ns, level)
        if "." in absname:
            _register_submodule(absname)


def _eager_statement(ns, kind, name, names, level):
    """The statement as python runs it (a keep-eager import)."""
    if kind == 0:
        ns[name.partition(".")[0]] = __import__(name, ns, None, None, 0)
    elif kind == 1:
        __import__(name, ns, None, None, 0)
        ns[names] = sys.modules[name]
    else:
        for attr, bound in names:
            p = _Pending(ns, 2, name, attr, level, bound, None)
            ns[bound] = p.resolve()


def install(options):
    """Nothing of its own: the `lazy` hook wires this module in."""
