"""profiler/inputs/ is one room per concern (issue 43): its __init__ imports none of them, each
module imports (at the top or inside a function) only rooms that do not import it back, and
none is over 700 lines. Static: the sources are read, nothing is imported; the circles found
by test_import_graph's finder (which leaves the imports inside functions out)."""

from __future__ import annotations

import ast

from conftest import REPO
from test_import_graph import _circles

ROOMS = REPO / "profiler" / "inputs"


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in ROOMS.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("profiler.inputs"):
                found.add(node.module.split(".")[2] if node.module.count(".") >= 2 else "__init__")
                if node.module == "profiler.inputs":
                    found.update(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("profiler.inputs."))
        edges[path.stem] = found
    return edges


def test_the_package_init_imports_no_room():
    assert _edges()["__init__"] == set()


def test_the_rooms_import_in_one_direction():
    edges = _edges()
    assert {"bounded", "strict_json", "documents", "line_reader", "saved_imports"} <= set(edges)

    assert _circles(edges) == []


def test_no_room_is_over_700_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in ROOMS.glob("*.py")}
    assert sizes and max(sizes.values()) <= 700, sizes
