"""`--format chrome` (Trace Event Format): one format name shared by several report kinds;
each kind's events are built in its own module."""

from __future__ import annotations

from profiler.errors import UsageError

_BY_SCHEMA = {
    "importprof.imports/1": "profiler.render.chrome_imports:render_chrome_imports",
    "importprof.trace/1": "profiler.render.chrome_syscalls:render_chrome_syscalls",
}


def render_chrome(report) -> str:
    import importlib

    schema = getattr(report, "SCHEMA", None)
    target = _BY_SCHEMA.get(schema)
    if target is None:
        raise UsageError(f"--format chrome is not available for {schema or 'this report'}")
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)(report)
