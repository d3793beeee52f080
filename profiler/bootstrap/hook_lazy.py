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

The rewritten code is cached (marshal) under options["hook_cache"]/lazy-code/<the source path>,
keyed by the source's mtime and size, the interpreter's magic number and this file's mtime, so
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
name, file:line of the first use], `found` (every module a finder found: the eager reference run
records it, the bisection's candidates), `counts`, `calibration`. options["lazy"] False: the
eager reference run, which defers nothing and only records.
"""

import sys
import marshal
import posix

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
        return "%s:%d" % (fn, f.f_lineno)
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
            return
        if isinstance(current, _Pending):
            if current.kind == 4 and full != dotted and not current.done:
                current.extra = tuple(current.extra or ()) + (dotted,)
            return


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
        site = "%s:%d" % (frame.f_code.co_filename, lineno)
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


# ------------------------------------------------------------------ compile-time rewriting

# `from __future__ import annotations` (PEP 563) as a compiler flag: the statement itself is
# bound lazily, as 3.15 does (it never imports __future__ unless the name is read)
_FUTURE_FLAGS = {"annotations": 0x1000000}
# features every Python 3 has: nothing for the compiler to do
_NO_OP_FUTURES = ("nested_scopes", "generators", "division", "absolute_import", "with_statement",
                  "print_function", "unicode_literals", "generator_stop")


def _rewrite(tree, ast, future=None):
    """Replace each lazy-eligible import statement of the module body; returns the statements
    left eager as [(lineno, module, reason)]. `future`: a list that gets the compiler flags of
    the `from __future__` statements made lazy (the compile must then be given them)."""
    eager = []

    def call(node, kind, name, names, level):
        args = [ast.Constant(kind), ast.Constant(name), ast.Constant(names), ast.Constant(level),
                ast.Constant(node.lineno)]
        expr = ast.Expr(ast.Call(ast.Name("__importprof_lazy__", ast.Load()), args, []))
        return ast.copy_location(expr, node)

    def body(stmts, in_try):
        out = []
        for node in stmts:
            if isinstance(node, ast.Import):
                if in_try:
                    eager.extend((node.lineno, a.name, "inside a try block (never lazy)") for a in node.names)
                    out.append(node)
                    continue
                for a in node.names:
                    if a.asname:
                        out.append(call(node, 1, a.name, a.asname, 0))
                    else:
                        out.append(call(node, 0, a.name, None, 0))
                continue
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                level = node.level or 0
                shown = "." * level + module
                if module == "__future__" and not level:
                    if future is None or in_try or any(a.name not in _FUTURE_FLAGS and a.name not in _NO_OP_FUTURES
                                                       for a in node.names):
                        out.append(node)
                    else:  # its feature as a flag, its names bound lazily: __future__ not imported
                        future.extend(_FUTURE_FLAGS.get(a.name, 0) for a in node.names)
                        out.append(call(node, 2, module, tuple((a.name, a.asname or a.name) for a in node.names), 0))
                elif any(a.name == "*" for a in node.names):
                    eager.append((node.lineno, shown, "`from ... import *` (never lazy)"))
                    if not in_try:  # the module's own lazy names resolved first, as 3.15 does
                        out.append(call(node, 3, module, None, level))
                    out.append(node)
                elif in_try:
                    eager.append((node.lineno, shown, "inside a try block (never lazy)"))
                    out.append(node)
                else:
                    pairs = tuple((a.name, a.asname or a.name) for a in node.names)
                    out.append(call(node, 2, module, pairs, level))
                continue
            try_types = tuple(t for t in (getattr(ast, "Try", None), getattr(ast, "TryStar", None)) if t)
            inner = in_try or isinstance(node, try_types)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(node, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt) and not isinstance(
                        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    setattr(node, field, body(sub, inner))
            for handler in getattr(node, "handlers", None) or ():
                handler.body = body(handler.body, True)
            out.append(node)
        return out

    tree.body = body(tree.body, False)
    ast.fix_missing_locations(tree)
    return eager


def _compile_rewritten(source, path):
    """(code, eager statements) of a module's source, `ast` imported without leaving a trace in
    sys.modules (the program's own `import ast` must still be an import).

    Only ast's Python modules are taken out again, never what compiling itself imports: a `\\N{...}`
    escape makes the parser import `unicodedata` and keep a pointer into it (3.10-3.13 free it
    with the module: the next `\\N{...}` parsed crashed, sphinx-build on 3.11), a coding cookie
    its codec; python's own compile of a module without .pyc imports them too."""
    _COMPILING[0] = True
    added = ()
    try:
        ast = _AST[0]
        if ast is None:
            before = set(sys.modules)
            import ast
            _AST[0] = ast
            added = [n for n in set(sys.modules) - before
                     if _loader_kind(getattr(sys.modules[n], "__spec__", None) and sys.modules[n].__spec__.loader)
                     in ("source", "bytecode")]
        tree = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        future = []
        eager = _rewrite(tree, ast, future)
        flags = _DEFERRED_ANNOTATIONS[0]
        for flag in future:
            flags |= flag
        code = compile(tree, path, "exec", flags, dont_inherit=True)
    finally:
        for name in added:
            sys.modules.pop(name, None)
        _COMPILING[0] = False
    return code, eager


_AST = [None]
# 3.14+ evaluates annotations when they are read (PEP 649), never when a function or class is
# defined: under 3.15 an annotation naming a lazily imported class does not import it. Before
# 3.14 the rewritten code is compiled as under `from __future__ import annotations` (PEP 563,
# the same flag value on 3.8-3.13), so that it does not either (annotations are then strings).
_DEFERRED_ANNOTATIONS = [0x1000000 if sys.version_info < (3, 14) else 0]


def _cache_path(path):
    cache = _OPTIONS.get("hook_cache")
    if not cache or not path.startswith("/"):
        return None
    return "%s/lazy-code%s.%s.lazy" % (cache, path, sys.implementation.cache_tag)


def _makedirs(folder):
    parts = folder.split("/")
    for i in range(2, len(parts) + 1):
        d = "/".join(parts[:i])
        try:
            posix.mkdir(d)
        except FileExistsError:
            pass


def _code_for(path, source=None):
    """The rewritten code of a source file and its eager statements, from the cache when valid."""
    st = posix.stat(path)
    header = b"%s %d %d %d\n" % (_MAGIC.hex().encode(), st.st_mtime_ns, st.st_size, _SELF_MTIME[0])
    cached = _cache_path(path)
    if cached:
        try:
            with open(cached, "rb") as fh:
                data = fh.read()
            if data.startswith(header):
                return marshal.loads(data[len(header):])
        except (OSError, ValueError, EOFError, TypeError):
            pass
    _COUNTS["cache_misses"] += 1
    if source is None:
        with open(path, "rb") as fh:
            source = fh.read()
    code, eager = _compile_rewritten(source, path)
    if cached:
        tmp = "%s.%d.tmp" % (cached, posix.getpid())
        try:
            _makedirs(cached.rpartition("/")[0])
            with open(tmp, "wb") as fh:
                fh.write(header + marshal.dumps((code, eager)))
            posix.rename(tmp, cached)
        except OSError:
            pass
    return code, eager


_SELF_MTIME = [0]
_ORIGINAL_GET_CODE = [None]


def _note_eager(eager, path):
    if _RECORD[0]:
        for lineno, name, reason in eager:
            _EAGER.append([name, reason, "%s:%d" % (path, lineno)])


def _get_code(self, fullname):
    """SourceFileLoader.get_code, returning the rewritten code."""
    original = _ORIGINAL_GET_CODE[0]
    if _COMPILING[0]:
        return original(self, fullname)
    try:
        path = self.get_filename(fullname)
        code, eager = _code_for(path)
    except Exception:  # (a source the rewrite cannot handle) python's own error, or its own code
        return original(self, fullname)
    _COUNTS["rewritten_loads"] += 1
    _note_eager(eager, path)
    return code


def compile_main(source, filename, mode):
    """The launcher's compile of a `-c` or script target: rewritten too (a `-c` code cached by
    its text: its length and checksum name the file, the text itself is compared)."""
    try:
        if filename.startswith("/"):
            code, eager = _code_for(filename, source)
        else:
            code, eager = _code_for_text(source, filename)
    except (OSError, ValueError, TypeError):
        code, eager = _compile_rewritten(source, filename)
    _note_eager(eager, filename)
    return code


def _code_for_text(source, filename):
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    check = 0
    for b in data:
        check = (check * 31 + b) & 0xFFFFFFFF
    cache = _OPTIONS.get("hook_cache")
    cached = "%s/lazy-code/-c/%d-%08x.%s.lazy" % (cache, len(data), check, sys.implementation.cache_tag) if cache else None
    header = b"%s %d\n" % (_MAGIC.hex().encode(), _SELF_MTIME[0])
    if cached:
        try:
            with open(cached, "rb") as fh:
                blob = fh.read()
            if blob.startswith(header):
                text, code, eager = marshal.loads(blob[len(header):])
                if text == data:
                    return code, eager
        except (OSError, ValueError, EOFError, TypeError):
            pass
    _COUNTS["cache_misses"] += 1
    code, eager = _compile_rewritten(data, filename)
    if cached:
        tmp = "%s.%d.tmp" % (cached, posix.getpid())
        try:
            _makedirs(cached.rpartition("/")[0])
            with open(tmp, "wb") as fh:
                fh.write(header + marshal.dumps((data, code, eager)))
            posix.rename(tmp, cached)
        except OSError:
            pass
    return code, eager


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
    """[name, kind, file] of an executed module, read without triggering anything."""
    if not isinstance(mod, _ModuleType):
        return [name, "object", None]
    d = object.__getattribute__(mod, "__dict__")
    path = d.get("__file__")
    path = path if isinstance(path, str) else None
    spec = d.get("__spec__")
    if name == "__main__":
        if path is None:  # 3.15 drops __main__.__file__ before exit handlers run; -m left its spec
            origin = getattr(spec, "origin", None)
            path = origin if isinstance(origin, str) else None
        return [name, "main", path]
    if spec is None:
        return [name, "unknown", path]
    return [name, _loader_kind(spec.loader), path]


def _dump():
    # first: the json import below is importprof's own, neither deferred nor recorded
    _AUDITING[0] = False
    if _ORIGINAL_GET_CODE[0] is not None:
        _EXT.SourceFileLoader.get_code = _ORIGINAL_GET_CODE[0]
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
    import json

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
    }
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)


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


def _calibrate(n):
    """The emulation's own cost per event, in this interpreter (µs): a lazy binding (the call
    that replaces an import statement), a resolution beyond what the same import statement costs
    when it runs eagerly (3.15 pays that part too), and loading a module's code from the
    rewritten cache beyond python's own .pyc path."""
    import time

    clock = time.process_time  # CPU time: a loaded machine's scheduling does not inflate it
    bind_src = "for _ in range(%d):\n    __importprof_lazy__(2, 'sys', (('path', 'p'),), 0, 1)\n    p\n" % n
    plain_src = "for _ in range(%d):\n    from sys import path as p\n    p\n" % n
    empty_src = "for _ in range(%d):\n    p\n" % n
    timings = {}
    for label, src in (("lazy", bind_src), ("plain", plain_src), ("empty", empty_src)):
        code = compile(src, "<calibration>", "exec")
        best = None
        for _ in range(5):
            ns = {"p": None}
            t0 = clock()
            exec(code, ns)
            t = clock() - t0
            best = t if best is None or t < best else best
        timings[label] = best / n * 1e6
    # bind + resolve (a lookup resolves) beside the plain statement + lookup
    lazy_us = timings["lazy"] - timings["empty"]
    plain_us = timings["plain"] - timings["empty"]
    # the binding alone: the same loop without the lookup that resolves
    code = compile("for _ in range(%d):\n    __importprof_lazy__(2, 'sys', (('path', 'p'),), 0, 1)\n" % n,
                   "<calibration>", "exec")
    best = None
    for _ in range(5):
        ns = {}
        t0 = clock()
        exec(code, ns)
        t = clock() - t0
        best = t if best is None or t < best else best
    bind_us = best / n * 1e6
    _CALIBRATION["binding_us"] = round(bind_us, 4)
    _CALIBRATION["resolution_us"] = round(max(0.0, lazy_us - bind_us - plain_us), 4)
    _CALIBRATION["plain_import_us"] = round(plain_us, 4)
    # loading code: the rewritten cache against python's own .pyc path, same stdlib module
    loader = None
    for name in ("_weakrefset", "genericpath", "posixpath", "stat"):
        spec = _BOOT._find_spec(name, None) if hasattr(_BOOT, "_find_spec") else None
        if spec is not None and type(spec.loader).__name__ == "SourceFileLoader":
            loader = spec.loader
            break
    if loader is not None:
        fullname = loader.name
        _code_for(loader.get_filename(fullname))  # fill the cache
        per = {}
        for label, fn in (("ours", _get_code), ("python", _ORIGINAL_GET_CODE[0])):
            best = None
            for _ in range(5):
                t0 = clock()
                for _ in range(50):
                    fn(loader, fullname)
                t = clock() - t0
                best = t if best is None or t < best else best
            per[label] = best / 50 * 1e6
        _CALIBRATION["load_us"] = round(per["ours"] - per["python"], 4)
        _COUNTS["rewritten_loads"] = 0
    _COUNTS["bindings"] = _COUNTS["resolutions"] = 0
    del _PENDING[:]
    del _LOADS[:]


def install(options):
    _OPTIONS.update(options)
    _KEEP.update(options.get("lazy_keep") or ())
    _ONLY.update(tuple(pair) for pair in options.get("lazy_only") or ())
    _STARTUP.extend(n for n in sys.modules if not n.startswith("_importprof"))
    launch = sys.modules["_importprof_launch"]
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
    try:
        _SELF_MTIME[0] = posix.stat(_HERE).st_mtime_ns
    except OSError:
        pass
    import builtins

    builtins.__importprof_lazy__ = _lazy_import
    loader_class = _EXT.SourceFileLoader
    _ORIGINAL_GET_CODE[0] = loader_class.get_code
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):  # read as the original's
        setattr(_get_code, attr, getattr(loader_class.get_code, attr))
    loader_class.get_code = _get_code
    launch.compile_main = compile_main
    if options.get("lazy_calibrate"):
        _calibrate(int(options["lazy_calibrate"]))
