"""Renderers: model → str|bytes. One file per output format; this registry maps a `--format`
name to "module:function". Renderers never compute statistics and never open files.

Adding a format is one file in render/ plus one line here.
"""

from __future__ import annotations

import importlib

FORMATS: dict[str, str] = {
    "json": "profiler.render.report_json:render_json",
    "markdown": "profiler.render.markdown:render_markdown",
    "chrome": "profiler.render.chrome_trace:render_chrome",
    "speedscope": "profiler.render.speedscope:render_speedscope",
    "folded": "profiler.render.folded:render_folded",
    "html": "profiler.render.html:render_html",
}


def get_renderer(fmt: str):
    from profiler.errors import UsageError

    try:
        target = FORMATS[fmt]
    except KeyError:
        raise UsageError(f"unknown format {fmt!r} (known: {', '.join(sorted(FORMATS))})") from None
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)
