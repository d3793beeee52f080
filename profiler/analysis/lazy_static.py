"""Static reasons an import should stay eager, from the AST alone (pure, cheap): the words beside
the measured verdict in `importprof lazy --apply`'s table.

  importer_reasons(source, statement) -> [StaticReason]   about the import statement itself
  module_reasons(source) -> [StaticReason]                about what the imported module's
                                                          top level does when it runs

Kinds (each StaticReason has one):
  "unused"        the statement binds a name the file never reads: it exists for its side effect,
                  and a lazy import of it never runs at all
  "module-level"  the bound name is read while the module itself is being imported (top level,
                  a class body, a decorator, a default argument): lazy would load it at once
  "side-effect"   the imported module's top level registers an atexit / signal / codec handler,
                  starts a thread, monkeypatches another module (an attribute assignment on an
                  imported module, setattr, sys.modules / sys hooks), or calls an imported
                  function and drops the result (a registration into someone else's registry)

A reason is a guess: the measured verdict (the program run eager and lazy) is the judge. The
table shows both and says where they disagree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Sequence

from profiler.analysis.lazy_edit import ImportStatement, SourceError, parse_source

KINDS = ("unused", "module-level", "side-effect")


@dataclass(frozen=True)
class StaticReason:
    kind: str
    text: str
    line: int | None = None
    via: str | None = None  # a module deeper in the chain than the one imported (a -> b)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text, "line": self.line}


def _attr_chain(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Uses(ast.NodeVisitor):
    """Name loads and dotted chains read, each marked immediate (runs while the module is being
    imported) or deferred (inside a function or lambda body)."""

    def __init__(self):
        self.deferred = 0
        self.reads: list[tuple[str, int, bool]] = []  # (dotted chain or name, line, immediate)
        self.exported: set[str] = set()

    def _function(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        if getattr(node, "returns", None) is not None:
            self.visit(node.returns)
        self.deferred += 1
        for stmt in node.body:
            self.visit(stmt)
        self.deferred -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node):
        self.visit(node.args)
        self.deferred += 1
        self.visit(node.body)
        self.deferred -= 1

    def visit_Attribute(self, node):
        chain = _attr_chain(node)
        if chain is not None and isinstance(node.ctx, ast.Load):
            self.reads.append((chain, node.lineno, self.deferred == 0))
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.reads.append((node.id, node.lineno, self.deferred == 0))

    def visit_Assign(self, node):
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets) and isinstance(
            node.value, (ast.List, ast.Tuple)
        ):
            self.exported |= {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        self.generic_visit(node)


def _reads(tree: ast.Module) -> _Uses:
    uses = _Uses()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        uses.visit(stmt)
    return uses


def _matches(read: str, bound: str, dotted: str | None) -> bool:
    """Does the read `read` (a name or a.b.c chain) use what the statement bound?"""
    if dotted is None:
        return read == bound or read.startswith(bound + ".")
    # `import a.b.c` binds `a`; it is used as a.b.c (or a deeper chain)
    return read == dotted or read.startswith(dotted + ".")


def importer_reasons(source: bytes, stmt: ImportStatement, filename: str = "<source>") -> list[StaticReason]:
    """Reasons found in the importing file itself: each bound name never read, or read at module
    level (the first such read). A package's `__init__.py` re-exports what it takes with
    `from X import name`: such a name is its API, not an unused import."""
    tree, _ = parse_source(source, filename)
    uses = _reads(tree)
    node = _node_at(tree, stmt)
    out: list[StaticReason] = []
    if node is None:
        return out
    pairs = []
    for alias in node.names:
        if alias.name == "*":
            continue
        if isinstance(node, ast.Import) and alias.asname is None and "." in alias.name:
            pairs.append((alias.name.partition(".")[0], alias.name, alias.name))
        else:
            bound = alias.asname or (alias.name.partition(".")[0] if isinstance(node, ast.Import) else alias.name)
            pairs.append((bound, None, alias.name))
    unused = []
    for bound, dotted, shown in pairs:
        hits = [(line, now) for read, line, now in uses.reads if _matches(read, bound, dotted)]
        if not hits:
            if bound not in uses.exported:
                unused.append(shown)
            continue
        now = [line for line, immediate in hits if immediate]
        if now:
            out.append(StaticReason("module-level", f"`{dotted or bound}` is used at module level (line {min(now)}): "
                                    "a lazy import loads it at once", min(now)))
    reexport = filename.endswith("__init__.py") and isinstance(node, ast.ImportFrom)
    if unused and len(unused) == len(pairs) and not reexport:
        names = ", ".join(f"`{n}`" for n in unused)
        out.insert(0, StaticReason("unused", f"{names} never used: imported for its side effect", stmt.line))
    return out


def _node_at(tree: ast.Module, stmt: ImportStatement):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == stmt.line and node.col_offset == stmt.col:
            return node
    return None


_REGISTRARS = {
    "atexit.register": "registers an atexit handler",
    "signal.signal": "installs a signal handler",
    "codecs.register": "registers a codec search function",
    "codecs.register_error": "registers a codec error handler",
    "copyreg.pickle": "registers a pickle reducer",
    "faulthandler.enable": "enables faulthandler",
    "sys.settrace": "installs a trace function",
    "sys.setprofile": "installs a profile function",
    "sys.addaudithook": "installs an audit hook",
    "threading.excepthook": "installs a thread exception hook",
    "warnings.filterwarnings": "changes the warning filters",
    "warnings.simplefilter": "changes the warning filters",
    "logging.basicConfig": "configures logging",
    "mimetypes.add_type": "registers a mime type",
}
_SYS_HOOKS = {"excepthook", "displayhook", "meta_path", "path_hooks", "modules", "path", "stdout", "stderr", "stdin"}


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> what it refers to ("module" or "module.attr"), from the top-level imports."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    top = a.name.partition(".")[0]
                    out[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = "." * node.level + (node.module + "." if node.module else "") + a.name
    return out


def _qualified(chain: str, names: dict[str, str]) -> str:
    head, _, rest = chain.partition(".")
    base = names.get(head)
    if base is None:
        return chain
    return base + ("." + rest if rest else "")


def _never_on_import(node) -> bool:
    """`if __name__ == "__main__":` and `if TYPE_CHECKING:` bodies do not run on import."""
    if not isinstance(node, ast.If):
        return False
    t = node.test
    if isinstance(t, ast.Compare) and len(t.comparators) == 1 and isinstance(t.ops[0], ast.Eq):
        sides = [t.left, t.comparators[0]]
        if any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and any(
            isinstance(x, ast.Constant) and x.value == "__main__" for x in sides
        ):
            return True
    return _attr_chain(t) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _top_level_statements(tree: ast.Module):
    """Statements that run when the module is imported (module body, module-level if/try/with
    blocks, class bodies), not function bodies."""
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _never_on_import(node):
            continue
        yield node
        children = []
        for field in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, field, ()) or ():
                if isinstance(child, ast.excepthandler):
                    children.extend(child.body)
                elif isinstance(child, ast.stmt):
                    children.append(child)
        stack.extend(reversed(children))


def module_reasons(source: bytes, filename: str = "<source>") -> list[StaticReason]:
    """What the module's own top level does beyond defining names, that making it lazy could
    postpone or skip."""
    tree, _ = parse_source(source, filename)
    names = _imported_names(tree)
    out: list[StaticReason] = []
    seen: set[str] = set()

    def add(kind, text, line):
        if text not in seen:
            seen.add(text)
            out.append(StaticReason(kind, f"{text} (line {line})", line))

    for stmt in _top_level_statements(tree):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            chain = _attr_chain(call.func)
            q = _qualified(chain, names) if chain else None
            if q in _REGISTRARS:
                add("side-effect", f"its top level {_REGISTRARS[q]}", stmt.lineno)
            elif q and (q.endswith(".start") or q.endswith("Thread")) and "thread" in q.lower():
                add("side-effect", "its top level starts a thread", stmt.lineno)
            elif isinstance(call.func, ast.Attribute) and call.func.attr == "start" and isinstance(call.func.value, ast.Call):
                inner = _attr_chain(call.func.value.func)
                if inner and "thread" in _qualified(inner, names).lower():
                    add("side-effect", "its top level starts a thread", stmt.lineno)
            elif chain == "setattr" and call.args:
                add("side-effect", "its top level monkeypatches another object (setattr)", stmt.lineno)
            elif chain and chain.partition(".")[0] in names:
                add("side-effect", f"its top level calls {q}() and drops the result (a registration?)", stmt.lineno)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                base = t.value if isinstance(t, ast.Subscript) else t
                chain = _attr_chain(base) if isinstance(base, ast.Attribute) or isinstance(t, ast.Subscript) else None
                if chain is None:
                    continue
                q = _qualified(chain, names)
                head = chain.partition(".")[0]
                if q.startswith("sys.") and q.split(".")[1] in _SYS_HOOKS:
                    add("side-effect", f"its top level changes {q}", stmt.lineno)
                elif head in names:
                    add("side-effect", f"its top level monkeypatches {q}", stmt.lineno)
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.ClassDef, ast.If, ast.Try, ast.With)) else ():
            if isinstance(node, ast.Call):
                chain = _attr_chain(node.func)
                q = _qualified(chain, names) if chain else None
                if q in _REGISTRARS and not (isinstance(stmt, ast.Expr) and node is stmt.value):
                    add("side-effect", f"its top level {_REGISTRARS[q]}", stmt.lineno)
    return out


def statement_reasons(
    importer_source: bytes,
    stmt: ImportStatement,
    modules: Sequence[tuple[str, bytes | None]],
    filename: str = "<source>",
) -> list[StaticReason]:
    """All static reasons for one statement: the importer's own, then each imported module's
    (`modules`: (name, source or None) of the modules that would be deferred, the statement's
    own module first), the chain said as `a -> b` when the reason sits below the first."""
    out = importer_reasons(importer_source, stmt, filename)
    first = modules[0][0] if modules else None
    for name, source in modules:
        if source is None:
            continue
        try:
            found = module_reasons(source, name)
        except SourceError:
            continue
        for r in found:
            where = name if name == first else f"{first} -> {name}"
            out.append(StaticReason(r.kind, f"{where}: {r.text}", r.line, None if name == first else where))
    return out


def blocking(reasons: Sequence[StaticReason]) -> list[StaticReason]:
    """The reasons that keep a statement eager: an unused bound name, a side effect of the
    imported module itself. A module-level use only means no saving; a side effect deeper in
    the chain is said, and left to the measurement and the verification to judge (the deeper
    module may be imported eagerly by something else anyway)."""
    return [r for r in reasons if r.kind == "unused" or (r.kind == "side-effect" and r.via is None)]
