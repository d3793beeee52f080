"""The console-script entry point: hands argv to profiler.commands (fast paths first).

`app` is the console-script entry point. `importprof --version` answers before typer (and
everything else) is imported, and `--help` from the help cache (profiler/helpcache.py) when it
holds the text: a start-up profiler must be quick to start itself.
"""

import os
import sys


def _answer(text: str) -> int:
    """The fast paths' output with main()'s rules, without importing sinks (tempfile & co): a
    closed pipe is fine (exit 0), a full disk is one line (exit 3)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # the interpreter's final flush must not fail again
        return 0
    except OSError as exc:
        sys.stdout = open(os.devnull, "w")
        sys.stderr.write(f"importprof: error: cannot write to standard output: {exc.strerror or exc}\n")
        return 3
    return 0


def _prepare_streams() -> None:
    """Standard streams the OS may hand over in any state. A closed one (`>&-`, `<&-`) gets
    /dev/null on its descriptor, so no file importprof opens later takes its number (and is
    handed to a child as its stdout); a closed stdout is silence, as a closed pipe is, and a
    closed stdin stays None, which a reader of `-` reports in one line. Text that the output's
    encoding cannot carry (an ASCII locale) is replaced, as pip and git do, never a traceback."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this very fd
            if null != fd:  # pragma: no cover - a lower one was free, so it was handled first
                os.dup2(null, fd)
                os.close(null)
            if fd:
                setattr(sys, name, open(fd, "w", closefd=False))
            else:
                sys.stdin = None
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # pragma: no cover - a stream that cannot change
                pass


def app(argv: "list[str] | None" = None) -> int:
    _prepare_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        from profiler.version import version_line

        return _answer(version_line())
    from profiler.helpcache import cache_name, cached_help, help_folder

    text = cached_help(args)
    if text is not None:  # exactly what click would print, without importing typer
        return _answer(text)
    from profiler.commands import main

    code = main(args)
    if code == 0 and cache_name(args) is not None and not os.environ.get("IMPORTPROF_NO_HELP_CACHE"):
        folder = help_folder()  # None when the cache cannot be written: do not render in vain
        if folder is not None:
            from profiler.commands import render_help
            from profiler.helpcache import store_help

            store_help(folder, render_help())
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
