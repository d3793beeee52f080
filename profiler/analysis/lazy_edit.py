"""The lazy-imports codemod, pure: source bytes in, source bytes out.

  import_statements(source, package) -> [ImportStatement]   what each import statement names
  apply_lazy(source, lines, style=, package=) -> LazyEdit     the edited bytes and what was done

Two styles, PEP 810's two spellings:
  "lazy-modules"  a module-level `__lazy_modules__ = ["a", "b.c"]` naming the fully qualified
                  modules of the chosen statements, inserted on its own line before the first
                  top-level statement that holds an import it names. Inert before 3.15 (a plain
                  list), so the project keeps running unchanged on every older interpreter. An
                  existing literal `__lazy_modules__` is extended in place (the new names
                  appended before its closing bracket, in its own quote style), never duplicated.
  "keyword"       `lazy ` written in front of each chosen `import` / `from` (3.15+ syntax only).

The edits are byte-level insertions: nothing else in the file moves (comments, quotes,
parenthesised import lists, line endings, the encoding stay as they are), and a second run over
its own output changes nothing (a statement already lazy, by keyword or by `__lazy_modules__`,
is reported as such). Only statements PEP 810 lets be lazy are touched: module scope, outside
functions, classes and try/with blocks (module-level `if` blocks are fine), not `from __future__`,
not `from x import *`.

A declaration that comes after an import a later run must reach is moved up, whole and
extended (the one edit that is not an insertion), rather than written a second time.

Files that already use the `lazy` keyword are read by blanking the soft keyword before parsing
(`lazy ` read as `0;   `, the same length, so every offset stays true): importprof itself may run on a Python older than the
syntax it writes.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from typing import Iterable, Sequence

from profiler.model.words import LazyStyle

STYLES = tuple(s.value for s in LazyStyle)  # ("lazy-modules", "keyword")
LAZY_MODULES = "__lazy_modules__"


class SourceError(ValueError):
    """The file does not parse (the message names the line)."""


@dataclass(frozen=True)
class ImportStatement:
    line: int  # first line (1-based)
    end_line: int
    col: int  # byte offset of `import` / `from` on its first line
    modules: tuple[str, ...]  # the fully qualified names __lazy_modules__ matches, one per imported module
    bound: tuple[str, ...]  # the names the statement binds in the module
    top: int  # index of the enclosing top-level statement in the module body
    blocked: str | None  # why PEP 810 cannot make it lazy (None: it can)
    keyword: bool  # already written `lazy import ...`
    names: tuple[str, ...] = ()  # what a from-import takes from its module (original names)

    def reaches(self, module: str) -> bool:
        """Does running this statement import `module` (itself, or as `from pkg import module`)?"""
        if module in self.modules:
            return True
        return any(module == f"{m}.{n}" for m in self.modules for n in self.names)


@dataclass(frozen=True)
class LazyDeclaration:
    """A module-level `__lazy_modules__ = <literal>` (names None when not a literal of strings)."""

    line: int
    top: int
    names: tuple[str, ...] | None


@dataclass(frozen=True)
class LazyEdit:
    source: bytes  # the edited file (the input when nothing changed)
    applied: tuple[tuple[int, tuple[str, ...]], ...]  # (line, modules) made lazy by this edit
    already: tuple[tuple[int, tuple[str, ...]], ...]  # (line, modules) lazy before the edit
    skipped: tuple[tuple[int, str], ...]  # (line, why) asked for but not made lazy

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def _line_starts(source: bytes) -> list[int]:
    starts = [0]
    for i, b in enumerate(source):
        if b == 0x0A:
            starts.append(i + 1)
    return starts


def _eol(source: bytes) -> bytes:
    i = source.find(b"\n")
    return b"\r\n" if i > 0 and source[i - 1 : i] == b"\r" else b"\n"


def _blank_lazy_keyword(source: bytes) -> tuple[bytes, set[tuple[int, int]]]:
    """`lazy import x` / `lazy from x import y` with the soft keyword replaced by spaces, and the
    (line, column) of each statement's `import`/`from` that had it."""
    if b"lazy" not in source:
        return source, set()
    found: list[tuple[int, int]] = []
    try:
        toks = list(tokenize.tokenize(io.BytesIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source, set()
    starts_stmt = True
    prev_starts = False
    prev = None
    for tok in toks:
        if tok.type in (tokenize.ENCODING, tokenize.COMMENT, tokenize.NL):
            continue
        if prev is not None and prev.type == tokenize.NAME and prev.string == "lazy" and prev_starts:
            if tok.type == tokenize.NAME and tok.string in ("import", "from") and tok.start[0] == prev.start[0]:
                found.append((prev.start, tok.start))
        prev_starts = starts_stmt
        prev = tok
        starts_stmt = tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) or (
            tok.type == tokenize.OP and tok.string in (";", ":")
        )
    if not found:
        return source, set()
    starts = _line_starts(source)
    # `lazy ` becomes `0;   `: an expression statement, then the import at the same offset (plain
    # spaces would be an unexpected indent at module level)
    buf = bytearray(source)
    marks = set()
    for (kl, kc), (il, ic) in found:
        line = source[starts[kl - 1] : starts[kl] if kl < len(starts) else len(source)]
        at = starts[kl - 1] + len(line.decode("utf-8", "replace")[:kc].encode("utf-8"))
        col = at - starts[il - 1] + len(line.decode("utf-8", "replace")[kc:ic].encode("utf-8"))
        if bytes(buf[at : at + 5]) == b"lazy " and col == at - starts[il - 1] + 5:
            buf[at : at + 5] = b"0;   "
            marks.add((il, col))
    return bytes(buf), marks


def parse_source(source: bytes, filename: str = "<source>") -> tuple[ast.Module, set[tuple[int, int]]]:
    """The module's AST (the `lazy` soft keyword read too) and where it was written."""
    blanked, marks = _blank_lazy_keyword(source)
    try:
        return ast.parse(blanked, filename=filename), marks
    except (SyntaxError, ValueError) as exc:
        where = f" line {exc.lineno}" if getattr(exc, "lineno", None) else ""
        raise SourceError(f"{filename}{where}: {getattr(exc, 'msg', None) or exc}") from None


def resolve_from(module: str | None, level: int, package: str | None) -> str | None:
    """The fully qualified module of `from <level dots><module> import ...` in `package`
    (None when a relative import cannot be resolved: no package, too many dots)."""
    if level == 0:
        return module
    if not package:
        return None
    parts = package.split(".")
    if level - 1 > len(parts) - 1:
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _statements(tree: ast.Module):
    """(node, top index, blocked reason) of every import statement, with why PEP 810 would not
    defer it where it sits (module-level `if` blocks are module scope; anything else nested is
    left eager)."""
    blocks = {
        ast.FunctionDef: "inside a function (runs when called)",
        ast.AsyncFunctionDef: "inside a function (runs when called)",
        ast.ClassDef: "inside a class body",
        ast.Try: "inside a try block (kept eager by PEP 810)",
        ast.With: "inside a with block (kept eager by PEP 810)",
        ast.AsyncWith: "inside a with block (kept eager by PEP 810)",
    }

    def why(node) -> str | None:
        if isinstance(node, ast.If) or not isinstance(node, ast.stmt):
            return None
        if type(node).__name__ == "TryStar":
            return "inside a try block (kept eager by PEP 810)"
        return blocks.get(type(node)) or f"inside a {type(node).__name__.lower()} block"

    def walk(node, top, blocked):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, top, blocked
            else:
                yield from walk(child, top, blocked or why(child))

    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, i, None
        else:
            yield from walk(node, i, why(node))


def import_statements(source: bytes, package: str | None = None, filename: str = "<source>") -> list[ImportStatement]:
    """Every import statement of the file, in source order, with the names `__lazy_modules__`
    would need (`package`: the dotted package the file belongs to, for relative imports; the
    package itself for an `__init__.py`)."""
    tree, marks = parse_source(source, filename)
    out = []
    for node, top, blocked in _statements(tree):
        if isinstance(node, ast.Import):
            modules = tuple(a.name for a in node.names)
            bound = tuple(a.asname or a.name.partition(".")[0] for a in node.names)
        else:
            full = resolve_from(node.module, node.level, package)
            modules = (full,) if full else ()
            bound = tuple(a.asname or a.name for a in node.names if a.name != "*")
            if node.module == "__future__" and node.level == 0:
                blocked = blocked or "a __future__ import"
            elif any(a.name == "*" for a in node.names):
                blocked = blocked or "a star import (never lazy)"
            elif full is None:
                blocked = blocked or "a relative import outside a known package"
        out.append(ImportStatement(
            line=node.lineno, end_line=getattr(node, "end_lineno", None) or node.lineno, col=node.col_offset,
            modules=modules, bound=bound, top=top, blocked=blocked,
            names=tuple(a.name for a in node.names) if isinstance(node, ast.ImportFrom) else (),
            keyword=(node.lineno, node.col_offset) in marks,
        ))
    return out


def lazy_declaration(tree: ast.Module) -> LazyDeclaration | None:
    """The first module-level assignment to __lazy_modules__."""
    for i, node in enumerate(tree.body):
        targets = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if any(isinstance(t, ast.Name) and t.id == LAZY_MODULES for t in targets):
            names = None
            if isinstance(value, (ast.List, ast.Tuple, ast.Set)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                names = tuple(e.value for e in value.elts)
            return LazyDeclaration(node.lineno, i, names)
    return None


def _declaration_value(tree: ast.Module, decl: LazyDeclaration):
    node = tree.body[decl.top]
    return node.value


def _quote_of(source: bytes, starts: list[int], elt) -> bytes:
    at = starts[elt.lineno - 1] + elt.col_offset
    for ch in source[at : at + 4]:
        if ch in (0x22, 0x27):
            return bytes([ch])
    return b'"'


def _literal(name: str, quote: bytes) -> bytes:
    text = repr(name) if quote == b"'" else '"' + repr(name)[1:-1].replace('"', '\\"') + '"'
    return text.encode("utf-8")


def _extension(source: bytes, starts: list[int], value, names: Sequence[str]) -> tuple[int, bytes]:
    """Where and what to insert to append `names` to the literal `value`."""
    eol = _eol(source)
    elts = value.elts
    if not elts:
        quote = b'"'
        items = b", ".join(_literal(n, quote) for n in names)
        if isinstance(value, ast.Tuple) and len(names) == 1:
            items += b","
        opening = starts[value.lineno - 1] + value.col_offset
        return opening + 1, items
    quote = _quote_of(source, starts, elts[0])
    last = elts[-1]
    after_last = starts[last.end_lineno - 1] + last.end_col_offset
    closing = starts[value.end_lineno - 1] + value.end_col_offset  # one past the bracket
    bracketed = source[closing - 1 : closing] in (b"]", b")", b"}")
    tail_end = closing - 1 if bracketed else closing
    between = source[after_last:tail_end]
    trailing_comma = b"," in between.split(b"#")[0] if b"\n" not in between else b"," in between.split(b"\n")[0].split(b"#")[0]
    if not trailing_comma:
        return after_last, b"".join(b", " + _literal(n, quote) for n in names)
    bracket_line = starts[value.end_lineno - 1]
    own_line = bracketed and source[bracket_line : closing - 1].strip() == b"" and value.end_lineno > last.end_lineno
    if own_line:
        first_of_last = starts[last.lineno - 1]
        indent = source[first_of_last : first_of_last + last.col_offset]
        if indent.strip():
            indent = b"    "
        return bracket_line, b"".join(indent + _literal(n, quote) + b"," + eol for n in names)
    comma = after_last + between.index(b",") + 1
    return comma, b"".join(b" " + _literal(n, quote) + b"," for n in names)


def _moved_declaration(source: bytes, starts: list[int], tree: ast.Module, decl: LazyDeclaration, first_top: int,
                       new: Sequence[str]) -> bytes | None:
    """The source with the declaration's own lines (extended by `new`) cut from where they are
    and put before the statement `first_top`; None when the declaration does not own its lines
    (code before it or after it on the same lines)."""
    node = tree.body[decl.top]
    begin = starts[node.lineno - 1]
    end = starts[node.end_lineno] if node.end_lineno < len(starts) else len(source)
    if node.col_offset != 0 or source[starts[node.end_lineno - 1] + node.end_col_offset : end].split(b"#")[0].strip(b" \t\r\n;"):
        return None
    block = source[begin:end]
    if new:
        at, text = _extension(source, starts, node.value, new)
        block = source[begin:at] + text + source[at:end]
    if not block.endswith(b"\n"):
        block += _eol(source)
    rest = source[:begin] + source[end:]
    target = starts[tree.body[first_top].lineno - 1]  # before `begin`: unmoved by the cut
    return rest[:target] + block + rest[target:]


def _insert(source: bytes, edits: Iterable[tuple[int, bytes]]) -> bytes:
    out = source
    for at, text in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:at] + text + out[at:]
    return out


def apply_lazy(
    source: bytes,
    lines: Iterable[int],
    *,
    style: LazyStyle = LazyStyle.LAZY_MODULES,
    package: str | None = None,
    filename: str = "<source>",
) -> LazyEdit:
    """Make the import statements at `lines` (a line anywhere in a statement counts) lazy.
    Raises SourceError when the file does not parse, ValueError for an unknown style."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r} (one of {', '.join(STYLES)})")
    tree, _ = parse_source(source, filename)
    stmts = import_statements(source, package, filename)
    wanted = sorted(set(lines))
    chosen: list[ImportStatement] = []
    skipped: list[tuple[int, str]] = []
    for line in wanted:
        hits = [s for s in stmts if s.line <= line <= s.end_line]
        if not hits:
            skipped.append((line, "no import statement on this line"))
            continue
        for s in hits:
            if s not in chosen:
                chosen.append(s)
    chosen.sort(key=lambda s: (s.line, s.col))
    starts = _line_starts(source)
    decl = lazy_declaration(tree)
    declared = set(decl.names or ()) if decl else set()
    applied: list[tuple[int, tuple[str, ...]]] = []
    already: list[tuple[int, tuple[str, ...]]] = []
    todo: list[ImportStatement] = []
    for s in chosen:
        if s.keyword or (s.modules and decl is not None and decl.top < s.top and set(s.modules) <= declared):
            already.append((s.line, s.modules))
        elif s.blocked:
            skipped.append((s.line, s.blocked))
        elif not s.modules:
            skipped.append((s.line, "names no module"))
        else:
            todo.append(s)
    if not todo:
        return LazyEdit(source, (), tuple(already), tuple(sorted(skipped)))
    edits: list[tuple[int, bytes]] = []
    if style == LazyStyle.KEYWORD:
        for s in todo:
            edits.append((starts[s.line - 1] + s.col, b"lazy "))
            applied.append((s.line, s.modules))
    else:
        new: list[str] = []
        for s in todo:
            for m in s.modules:
                if m not in declared and m not in new:
                    new.append(m)
        first_top = min(s.top for s in todo)
        if decl is not None:
            if decl.names is None:
                for s in todo:
                    skipped.append((s.line, f"{LAZY_MODULES} (line {decl.line}) is not a literal list of names: extend it by hand"))
                return LazyEdit(source, (), tuple(already), tuple(sorted(skipped)))
            if decl.top > first_top:
                # names added there would not reach the imports above it: the declaration moves
                # up, whole and extended, to the line before the first import it now names
                moved = _moved_declaration(source, starts, tree, decl, first_top, new)
                if moved is None:
                    for s in todo:
                        if s.top < decl.top:
                            skipped.append((s.line, f"comes before {LAZY_MODULES} (line {decl.line}), "
                                                    "which shares its lines with other code: move it by hand"))
                    todo = [s for s in todo if s.top > decl.top]
                    new = [m for m in new if any(m in s.modules for s in todo)]
                else:
                    applied.extend((s.line, s.modules) for s in todo)
                    return LazyEdit(moved, tuple(applied), tuple(already), tuple(sorted(skipped)))
            if new:
                edits.append(_extension(source, starts, _declaration_value(tree, decl), new))
        else:
            node = tree.body[first_top]
            quote = b'"'
            text = LAZY_MODULES.encode() + b" = [" + b", ".join(_literal(n, quote) for n in new) + b"]" + _eol(source)
            edits.append((starts[node.lineno - 1], text))
        applied.extend((s.line, s.modules) for s in todo)
    out = _insert(source, edits)
    return LazyEdit(out, tuple(applied), tuple(already), tuple(sorted(skipped)))



def original_lines(original: bytes, edited: bytes) -> dict[int, int]:
    """Line numbers of `edited` (1-based) -> the same line in `original`, for every line the edit
    kept (an inserted `__lazy_modules__` line maps to nothing; a `lazy ` keyword keeps the
    line's number but not its text, and is matched by position within its changed block)."""
    import difflib

    a = original.splitlines(keepends=True)
    b = edited.splitlines(keepends=True)
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                out[j1 + k + 1] = i1 + k + 1
    return out
