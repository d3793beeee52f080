"""The console-script entry point: hands argv to profiler.commands (fast paths first).

`app` is the console-script entry point. `importprof --version` answers before typer (and
everything else) is imported, and `--help` from the help cache (profiler/helpcache.py) when it
holds the text: a start-up profiler must be quick to start itself.
"""

from __future__ import annotations

import os
import sys


def app(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        from profiler import __version__

        sys.stdout.write(f"importprof {__version__}\n")
        return 0
    from profiler.helpcache import cached_help, help_request

    text = cached_help(args)
    if text is not None:  # exactly what click would print, without importing typer
        sys.stdout.write(text)
        return 0
    from profiler.commands import main

    code = main(args)
    if code == 0 and help_request(args) is not None and not os.environ.get("IMPORTPROF_NO_HELP_CACHE"):
        from profiler.commands import render_help
        from profiler.helpcache import store_help

        store_help(render_help())
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
