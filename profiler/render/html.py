"""A page bundle (`importprof.report/1`) → ONE self-contained HTML file.

Everything is inline (the script and the style sheet come from `html_assets/` as package
data), so the page works from `file://` with no network. The data travels as JSON inside
`<script type="application/json">` with `<`, `>`, `&` and the two JavaScript line separators
written as `\\u` escapes, so no name taken from a log or a target can close the element;
the page's script builds the DOM with `textContent` and SVG attributes only, never HTML
parsing of data. The renderer computes nothing: charts are drawn by the page's script.
"""

from __future__ import annotations

import html
import json
import math
from importlib import resources

_ASSETS = "profiler.render.html_assets"


def manifest() -> dict:
    """html_assets/manifest.json: the page's scripts (one file per page part, each only declaring
    functions and constants; page.js, last, starts the drawing) and style sheets, in the order
    they are joined. node's tests load the scripts from the same list. No chart library: the
    charts are hand-drawn SVG."""
    return json.loads(resources.files(_ASSETS).joinpath("manifest.json").read_text(encoding="utf-8"))


_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _finite(value):
    """NaN and infinities are not JSON: they become null. Iterative (a deep import tree must
    not exhaust the stack)."""
    root: list = [None]
    stack = [(value, root, 0)]
    while stack:
        item, holder, key = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            holder[key] = None
        elif isinstance(item, dict):
            out = holder[key] = dict.fromkeys(map(str, item))
            stack.extend((v, out, str(k)) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            out = holder[key] = [None] * len(item)
            stack.extend((v, out, j) for j, v in enumerate(item))
        else:
            holder[key] = item
    return root[0]


def _dumps_deep(value) -> str:
    """json.dumps(value, ensure_ascii=False, separators=(",", ":")) with an explicit stack."""
    def leaf(v) -> str:
        return json.dumps(v, ensure_ascii=False, allow_nan=False)

    out: list[str] = []
    stack: list = [(False, value)]  # (is a literal piece of text, value)
    while stack:
        literal, v = stack.pop()
        if literal:
            out.append(v)
        elif isinstance(v, dict) and v:
            items = list(v.items())
            stack.append((True, "}"))
            for n, (k, x) in enumerate(reversed(items)):
                stack.append((False, x))
                stack.append((True, ("{" if n == len(items) - 1 else ",") + leaf(str(k)) + ":"))
        elif isinstance(v, (list, tuple)) and v:
            stack.append((True, "]"))
            for n, x in enumerate(reversed(v)):
                stack.append((False, x))
                stack.append((True, "[" if n == len(v) - 1 else ","))
        else:
            out.append(leaf(v))
    return "".join(out)


def embed_json(data) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` survive literally."""
    clean = _finite(data)
    try:
        text = json.dumps(clean, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except RecursionError:  # an import tree thousands deep: the same text, without recursion
        text = _dumps_deep(clean)
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def _asset(name: str) -> str:
    text = resources.files(_ASSETS).joinpath(name).read_text(encoding="utf-8")
    closing = "</script" if name.endswith(".js") else "</style"
    if closing in text.lower():  # would end the inline element early
        raise ValueError(f"asset {name} contains {closing}")
    return text


def _target_labels(doc) -> set[str]:
    out = set()
    if isinstance(doc.get("target"), str):
        out.add(doc["target"])
    for r in doc.get("results") or doc.get("variants") or []:
        for key in ("target", "command"):  # a command line too is shown as typed
            if isinstance(r, dict) and isinstance(r.get(key), str):
                out.add(r[key])
    return out


def shown_targets(bundle: dict) -> dict[str, str]:
    """Every target label of the bundle → as a user types it (render/text.py), for the page."""
    from profiler.render.text import shown_target

    labels = _target_labels(bundle)
    for item in bundle.get("documents") or []:
        if isinstance(item, dict) and isinstance(item.get("doc"), dict):
            labels |= _target_labels(item["doc"])
    return {label: shown_target(label) for label in sorted(labels) if label}


def _script() -> str:
    return "".join(f"/* ---- {name} ---- */\n{_asset(name)}" for name in manifest()["scripts"])


def _style() -> str:
    return "".join(_asset(name) for name in manifest()["styles"])


def render_html(report) -> str:
    """`report` is a page bundle (`.to_dict()` → importprof.report/1) or that dict."""
    return "".join(render_html_chunks(report))


def render_html_chunks(report):
    """render_html's text in pieces: a page holding saved imports reports read as columns
    (render/page_json.py) writes their modules and trees a process at a time; any other page
    is one piece."""
    from profiler.render.page_json import has_columns, page_chunks

    doc = report.to_dict() if hasattr(report, "to_dict") else report
    derived = dict(doc.get("derived") or {})
    derived["shown_targets"] = shown_targets(doc)
    doc = {**doc, "derived": derived}
    import uuid

    mark = f"importprof-data-{uuid.uuid4().hex}"
    head, tail = _page(doc, mark).split(mark)
    if not has_columns(doc):
        yield head + embed_json(doc) + tail
        return
    yield head
    yield from page_chunks(doc, embed_json, False, _escape)
    yield tail


def _escape(text: str) -> str:
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def _page(doc: dict, data: str) -> str:
    title = doc.get("title") or "importprof report"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # no network at all: the page may only use what it carries
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\n{_style()}</style>\n"
        "</head>\n<body>\n"
        '<noscript><p class="noscript">This report draws its charts with JavaScript; '
        "enable it to see them.</p></noscript>\n"
        '<main id="report" aria-live="polite"></main>\n'
        '<div id="tooltip" class="tooltip" role="tooltip" hidden></div>\n'
        f'<script type="application/json" id="importprof-data">{data}</script>\n'
        f"<script>\n(function () {{\n{_script()}}})();\n</script>\n"
        "</body>\n</html>\n"
    )
