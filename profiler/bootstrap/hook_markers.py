"""Import markers in the syscall stream. Standard library only, Python 3.8+, runs INSIDE the
traced interpreter and never imports the rest of `profiler`.

`importprof trace` no longer installs it: its wrapper's frames made CPython map and unmap
frame-stack chunks around every import (thousands of mmap/munmap the program does not make) and
its stats added two calls per import. trace now runs the program bare plus `-X importtime` and
takes the boundaries from the interpreter's own writes (analysis/import_boundaries.py). What
this hook wrote is still read from saved logs (`trace --from-log`), as the "markers" way.

`install(options)` wraps importlib's `_find_and_load` (the function that every import of a
module not yet in `sys.modules` goes through: the `import` statement, `__import__` and
`importlib.import_module`) so that the begin and the end of each module's import make one
syscall each, recognisable in an strace log:

    stat("/.importprof-mark/b/json.decoder")   -> ENOENT   (begin)
    stat("/.importprof-mark/e/json.decoder")   -> ENOENT   (end)
    stat("/.importprof-mark/f/nt")             -> ENOENT   (end of an import that raised:
                                                            ModuleNotFoundError for nt on Linux...)

`options["marker_prefix"]` overrides the prefix.

The launcher imports nothing beyond what a bare `python -S` holds, so every module the target
or `site` imports goes through the wrapper. The attribution (profiler/analysis/attribution.py)
knows the prefix, removes these calls from every count, and gives the syscalls between a begin
and its end to that module (nested imports to the inner one).
"""

import sys

PREFIX = "/.importprof-mark/"


def install(options):
    import posix

    prefix = options.get("marker_prefix") or PREFIX
    bootstrap = sys.modules.get("_frozen_importlib") or sys.modules["importlib._bootstrap"]
    original = bootstrap._find_and_load
    if getattr(original, "_importprof_markers", False):
        return
    stat = posix.stat
    begin = prefix + "b/"
    end = prefix + "e/"
    failed = prefix + "f/"

    def _find_and_load(name, import_):
        try:
            stat(begin + name)
        except OSError:
            pass
        try:
            module = original(name, import_)
        except BaseException:
            try:
                stat(failed + name)
            except OSError:
                pass
            raise
        try:
            stat(end + name)
        except OSError:
            pass
        return module

    _find_and_load._importprof_markers = True
    bootstrap._find_and_load = _find_and_load
