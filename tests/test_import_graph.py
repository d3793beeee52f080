"""No import circle anywhere in importprof (issue 43): the module-level imports of every module
under profiler/ (packages' `__init__` included; imports under `if TYPE_CHECKING:` and inside
functions left out, as they run at no module's import), each import also running the packages
above its module, form no cycle. A circle makes the import order matter and the first module
half-built when the second reads it."""

from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "profiler")


def _modules() -> dict[str, str]:
    out = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path[:-3], os.path.dirname(ROOT)).replace(os.sep, ".")
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


def _imports(name: str, path: str, mods: dict[str, str]) -> set[str]:
    found: set[str] = set()
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]

    def visit(body) -> None:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(getattr(node, "finalbody", []))

    visit(ast.parse(open(path, encoding="utf-8").read()).body)
    out = set()
    for dotted in found:
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):  # `import a.b.c` runs a and a.b first
            above = ".".join(parts[:i])
            if above in mods and above != name:
                out.add(above)
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_no_import_circle_in_profiler():
    mods = _modules()
    graph = {m: _imports(m, p, mods) for m, p in mods.items()}
    assert len(graph) > 200 and graph["profiler.compose.lazy_apply"]  # the walk found the package
    assert _circles(graph) == []


def test_a_circle_is_found():
    """The finder itself, on a made-up graph: a -> b -> c -> a is one circle, d alone none."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
