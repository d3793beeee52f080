"""The rooms of the imports analysis (profiler/analysis/imports_*.py) and who may enter which:
a renderer calls the views only, and the views pull in nothing but the model, so drawing a
saved report never loads the aggregation or the statistics. Beside test_cli_contract.py's
layer tests (the floors), these hold the rooms of one floor."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "profiler"
ANALYSIS = PKG / "analysis"

# what each room may import from the package (besides the model), so the arrows between them
# point one way: chains and processes read the views; nothing reads the chains or processes
ROOMS = {
    "imports_aggregate": set(),
    "imports_views": set(),
    "imports_marks": set(),
    "imports_chains": {"profiler.analysis.imports_views"},
    "imports_processes": {"profiler.analysis.imports_aggregate", "profiler.analysis.imports_views", "profiler.analysis.statistics"},
}


def _imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_the_rooms_are_the_ones_listed():
    assert {f.stem for f in ANALYSIS.glob("imports*.py")} == set(ROOMS)


def test_each_room_imports_only_the_model_and_the_rooms_below_it():
    for room, allowed in ROOMS.items():
        used = {m for m in _imported(ANALYSIS / f"{room}.py") if m.startswith("profiler.")}
        bad = {m for m in used if not m.startswith("profiler.model.")} - allowed
        assert not bad, f"analysis/{room}.py imports {sorted(bad)}"


def test_renderers_import_from_analysis_only_the_views():
    views = "profiler.analysis.imports_views"
    public = {n.name for n in ast.parse((ANALYSIS / "imports_views.py").read_text()).body
              if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}
    seen = set()
    for f in PKG.joinpath("render").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                bad = [a.name for a in node.names if a.name.startswith("profiler.analysis")]
                assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}: a renderer calls {views} only"
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("profiler.analysis"):
                assert node.module == views, f"{f.relative_to(PKG.parent)} imports from {node.module}: a renderer calls {views} only"
                names = {a.name for a in node.names}
                assert names <= public, f"{f.relative_to(PKG.parent)} imports {sorted(names - public)} from {views}"
                seen |= names
    assert seen, "no renderer draws a view: the test would hold nothing"
