"""importprof hook `lazy_rewrite`: the compile-time half of the emulation: each module-level import statement
of a module's source replaced by a `__importprof_lazy__` call, the rewritten code cached
under the hook cache, and SourceFileLoader.get_code / the launcher's compile of the target
returning it (see hook_lazy.py).

Standard library only; loaded by bootstrap/hook_lazy.py (the `lazy` hook), whose state it shares
(the same objects, bound here by name); it never imports the rest of the `profiler` package."""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
    import marshal
    import posix
finally:
    pass

_LAZY = _importprof["_importprof_hook_lazy"]
_OPTIONS = _LAZY._OPTIONS
_EAGER = _LAZY._EAGER
_COUNTS = _LAZY._COUNTS
_RECORD = _LAZY._RECORD
_COMPILING = _LAZY._COMPILING
_MAGIC = _LAZY._MAGIC
_loader_kind = _LAZY._loader_kind


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
    # the hooks' own version in the name, not only in the header: two importprof installations
    # (a clone beside a venv's) sharing ~/.cache would otherwise evict each other's entry at
    # every run, and a timed lazy run would compile every module it loads (pip on 3.11 measured
    # 340 ms lazy against 80 ms while another installation's tests ran)
    return "%s/lazy-code%s.%s.%x.lazy" % (cache, path, sys.implementation.cache_tag, _SELF_MTIME[0])


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
        _publish(cached, header + marshal.dumps((code, eager)))
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
    _note_eager(eager, _importprof["_importprof_launch"].shown.get(filename, filename))
    return code


def _code_for_text(source, filename):
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    check = 0
    for b in data:
        check = (check * 31 + b) & 0xFFFFFFFF
    cache = _OPTIONS.get("hook_cache")
    cached = "%s/lazy-code/-c/%d-%08x.%s.%x.lazy" % (cache, len(data), check, sys.implementation.cache_tag,
                                                     _SELF_MTIME[0]) if cache else None
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
        _publish(cached, header + marshal.dumps((data, code, eager)))
    return code, eager


def _publish(cached, blob):
    """A cache entry written whole: NAME.PID.tmp renamed over NAME (a writer killed mid-write
    leaves only its .tmp, swept later); a cache that cannot be written is no error."""
    tmp = "%s.%d.tmp" % (cached, posix.getpid())
    try:
        _makedirs(cached.rpartition("/")[0])
        with open(tmp, "wb") as fh:
            fh.write(blob)
        posix.rename(tmp, cached)
    except OSError:
        pass


def install(options):
    """Nothing of its own: the `lazy` hook wires this module in."""
