"""The command line: parses arguments, calls ONE workflow, renders, writes through a sink.

`app` is the console-script entry point. `importprof --version` answers before typer (and
everything else) is imported: a start-up profiler must be quick to start itself.
"""

from __future__ import annotations

import sys


def app(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        from profiler import __version__

        sys.stdout.write(f"importprof {__version__}\n")
        return 0
    from profiler.commands import main

    return main(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
