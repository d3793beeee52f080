"""Renderers: model → str|bytes. One file per output format; this one registry maps a
`--format` name and the report's kind (its SCHEMA) to "module:function" — `*` for a format
every kind has. Renderers never compute statistics and never open files.

Adding a format is one file in render/ plus its lines here.
"""

from __future__ import annotations

import importlib

ANY = "*"
FORMATS: dict[str, dict[str, str]] = {
    "json": {ANY: "profiler.render.report_json:render_json"},
    "markdown": {
        "importprof.startup/1": "profiler.render.markdown:render_markdown",
        "importprof.compare/1": "profiler.render.markdown:render_markdown",
    },
    "chrome": {
        "importprof.imports/1": "profiler.render.chrome_imports:render_chrome_imports",
        "importprof.trace/1": "profiler.render.chrome_syscalls:render_chrome_syscalls",
    },
    "speedscope": {"importprof.imports/1": "profiler.render.speedscope:render_speedscope"},
    "folded": {"importprof.imports/1": "profiler.render.folded:render_folded"},
    "html": {"importprof.report/1": "profiler.render.html:render_html",
             "importprof.history/1": "profiler.render.html_history:render_history_html"},
    "junit": {"importprof.check/1": "profiler.render.junit:render_junit"},
}


def formats_for(kind: str) -> tuple[str, ...]:
    """The --format names a report kind ("imports" for importprof.imports/1) can be written in."""
    schema = f"importprof.{kind}/1"
    return tuple(fmt for fmt, kinds in FORMATS.items() if schema in kinds or ANY in kinds)


def get_renderer(fmt: str, chunks: bool = False):
    """The renderer of `fmt`: a function of the report that picks the kind's own renderer.
    `chunks`: the renderer gives the text in pieces made as they are read (an iterable of
    str), so a writer that writes each as it comes never holds the whole output: the module's
    `<function>_chunks` where it has one (the big documents: imports' json, speedscope, chrome
    and folded), else the whole text as one piece. Which renderer applies is decided at once,
    before any piece is made."""
    from profiler.errors import UsageError

    kinds = FORMATS.get(fmt)
    if kinds is None:
        raise UsageError(f"unknown format {fmt!r} (known: {', '.join(sorted(FORMATS))})")

    def render(report):
        schema = getattr(report, "SCHEMA", None)
        target = kinds.get(schema) or kinds.get(ANY)
        if target is None:
            raise UsageError(f"--format {fmt} is not available for {schema or 'this report'}")
        module, _, func = target.partition(":")
        mod = importlib.import_module(module)
        if chunks:
            streamed = getattr(mod, f"{func}_chunks", None)
            return streamed(report) if streamed is not None else (getattr(mod, func)(report),)
        return getattr(mod, func)(report)

    return render
