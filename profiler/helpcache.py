"""`--help` without importing the world: the help texts click would print, rendered once
(`commands.render_help`) and kept in the user's cache, keyed by what could change them:
importprof's version, the CLI modules' and the installed packages' modification times, and
the help width click would use. Only exact help requests are served from it
(`importprof --help`, `importprof CMD --help`, `-h`); anything else goes through typer.

`importprof completion SHELL` is served the same way (the scripts are written from the same
command tree, see profiler/render/completion.py).

This module runs at every `--help`: it imports only os and sys (already loaded at start), and
no `from __future__` (an import of its own at run time): annotations that 3.9 cannot evaluate
are strings.
"""

import os
import sys

HELP_FLAGS = ("-h", "--help")


SHELLS = ("bash", "zsh", "fish")


def help_request(args: "list[str]") -> "str | None":
    """"" for `importprof --help`, NAME for `importprof NAME --help`, else None."""
    if len(args) == 1 and args[0] in HELP_FLAGS:
        return ""
    if len(args) == 2 and args[1] in HELP_FLAGS and args[0].isidentifier():
        return args[0]
    return None


def cache_name(args: "list[str]") -> "str | None":
    """The cache entry that answers `args`: a help request's ("" for the top level, NAME), or
    "completion.SHELL" for `importprof completion SHELL`; None for anything else."""
    if len(args) == 2 and args[0] == "completion" and args[1] in SHELLS:
        return f"completion.{args[1]}"
    return help_request(args)


def _width() -> int:
    """The width click formats help at: min(terminal columns, 80) - 2, at least 50, with the
    columns found as shutil.get_terminal_size finds them (COLUMNS first, then the terminal)."""
    columns = 0
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        pass
    if columns <= 0:
        stdout = sys.__stdout__  # None without a standard output at all
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 80
        except (OSError, ValueError, AttributeError):
            columns = 80
    return max(min(columns or 80, 80) - 2, 50)


def cache_dir() -> str:
    """~/.cache/importprof/help/<key>: one folder per (version, sources, packages, width)."""
    from profiler import __version__

    here = os.path.dirname(os.path.abspath(__file__))
    stamps = [__version__, str(_width())]
    for folder in (here, os.path.join(here, "commands")):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                stamps.append(f"{name}:{os.stat(os.path.join(folder, name)).st_mtime_ns}")
    # --variant's help is written from the variants themselves, --format's from the registry,
    # the completion scripts by completion.py
    for part in (("model", "variant.py"), ("render", "__init__.py"), ("render", "completion.py")):
        stamps.append(str(os.stat(os.path.join(here, *part)).st_mtime_ns))
    for entry in sys.path:  # an upgraded typer/click changes its site-packages folder
        if entry.endswith("site-packages") and os.path.isdir(entry):
            stamps.append(str(os.stat(entry).st_mtime_ns))
    key = format(hash_text("|".join(stamps)), "x")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "importprof", "help", key)


def hash_text(text: str) -> int:
    """A stable 61-bit hash of `text`, in C: str hashes are randomized per process, an int's
    hash is not (the text's bytes read as one integer, hashed modulo 2**61 - 1, with its
    length). A byte loop in Python (FNV) took 2.2 ms per --help on this machine under load."""
    data = text.encode()
    return hash((int.from_bytes(data, "little"), len(data))) & 0x1FFFFFFFFFFFFFFF


def cached_help(args: "list[str]") -> "str | None":
    """The help text (or completion script) for `args` from the cache, or None (not a request
    the cache answers, or not cached)."""
    name = cache_name(args)
    if name is None or os.environ.get("IMPORTPROF_NO_HELP_CACHE"):
        return None
    try:
        with open(os.path.join(cache_dir(), (name or "_") + ".txt"), encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def help_folder() -> "str | None":
    """This key's cache folder, made; None when the cache cannot be written (then --help is not
    rendered for it in vain)."""
    folder = cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, f".probe-{os.getpid()}")
        open(probe, "w").close()
        os.unlink(probe)
    except OSError:
        return None
    return folder


def store_help(folder: str, texts: "dict[str, str]") -> None:
    """Write every help text into `folder` (atomically each) and remove the folders of other
    keys, holding the help cache's lock: two `--help` at once (another width, another version)
    never remove a folder the other is writing into. Best effort: a failure only costs speed."""
    import shutil

    from profiler.cachelock import locked
    from profiler.errors import ImportprofError
    from profiler.sinks import write_atomic

    parent = os.path.dirname(folder)
    try:
        with locked(os.path.join(parent, ".lock")):
            os.makedirs(folder, exist_ok=True)  # removed by another key's writer since help_folder()
            for name, text in texts.items():
                write_atomic(os.path.join(folder, (name or "_") + ".txt"), text)
            for name in os.listdir(parent):
                path = os.path.join(parent, name)
                if name != os.path.basename(folder) and os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
    except (ImportprofError, OSError):
        return
