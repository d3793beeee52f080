"""`importprof --version`'s line: the version, and whether the native strace parser is
installed. Its own module, standard library only (os), so that both entries that answer
--version (cli.py before anything is imported, the typer app's --version option in
profiler/commands) take it from here and neither imports the other."""

import os

NATIVE_MODULES = (("parse", "_strace_native."), ("analysis", "_syscall_tally."))


def native_parser_installed() -> bool:
    """Whether the compiled strace parser and tallies (profiler/native, built into the wheel or
    by `make setup`) sit beside the package: a folder listing each, no import (loading the
    library would cost --version a millisecond)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for package, prefix in NATIVE_MODULES:
        try:
            names = os.listdir(os.path.join(here, package))
        except OSError:
            return False
        if not any(n.startswith(prefix) and n.endswith(".so") for n in names):
            return False
    return True


def version_line() -> str:
    """`importprof --version`: the version, and whether `trace` parses with the native parser
    (without it, the pure-Python one: the same records, about half as fast)."""
    from profiler import __version__

    return f"importprof {__version__} (native strace parser: {'yes' if native_parser_installed() else 'no'})\n"
