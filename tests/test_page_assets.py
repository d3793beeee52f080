"""The report page's script: one asset manifest, type-checked by the real TypeScript compiler.

`profiler/render/html_assets/manifest.json` is the one list of the page's files (render/html.py
joins them in its order; tests/js/page.test.js loads them from it); every script carries
`// @ts-check` and `tsc --noEmit -p tests/js` (TypeScript from tests/js/package-lock.json,
installed by `make setup`) must find nothing: a misspelt function or a wrong property fails here.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import REPO

ASSETS = REPO / "profiler" / "render" / "html_assets"
TSC = REPO / "tests" / "js" / "node_modules" / ".bin" / "tsc"


def test_manifest_lists_every_asset_once_and_html_joins_it():
    from profiler.render.html import manifest, render_html

    m = manifest()
    assert sorted(m["scripts"]) == sorted(p.name for p in ASSETS.glob("*.js"))
    assert sorted(m["styles"]) == sorted(p.name for p in ASSETS.glob("*.css"))
    assert len(set(m["scripts"])) == len(m["scripts"]) and m["scripts"][-1] == "page.js"
    page = render_html({"schema": "importprof.report/1", "documents": []})
    positions = [page.index(f"/* ---- {name} ---- */") for name in m["scripts"]]
    assert positions == sorted(positions)


def test_every_script_is_type_checked():
    for f in ASSETS.glob("*.js"):
        assert f.read_text().startswith("// @ts-check\n"), f.name
    config = json.loads((REPO / "tests" / "js" / "tsconfig.json").read_text())
    assert config["compilerOptions"]["checkJs"] and config["compilerOptions"]["noEmit"]


@pytest.mark.slow
def test_tsc_finds_no_type_error():
    if not TSC.exists() or not shutil.which("node"):  # a set-up requirement, as node is for the page's tests
        pytest.fail("TypeScript is not installed in tests/js: run `make setup` (npm ci there)")
    proc = subprocess.run([str(TSC), "--noEmit", "-p", str(REPO / "tests" / "js")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_document_too_deep_for_json_dumps_is_embedded_as_the_same_text():
    """embed_json falls back to its own writer when json.dumps recurses too deep (an import
    chain thousands long): the text must be what json.dumps writes given the stack."""
    import sys

    from profiler.render.html import _dumps_deep, embed_json

    deep: list = [{"name": "<m>", "x": 1.5, "ok": True, "none": None}]
    for i in range(5000):
        deep = [{"name": f"m{i}", "children": deep, "é": "→"}]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)
    try:
        expected = json.dumps(deep, ensure_ascii=False, separators=(",", ":"))
    finally:
        sys.setrecursionlimit(old)
    assert _dumps_deep(deep) == expected
    assert embed_json(deep) == expected.replace("<", "\\u003c").replace(">", "\\u003e")
