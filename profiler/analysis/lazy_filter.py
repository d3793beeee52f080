"""The text of a lazy-imports filter module (`importprof lazy --filter-out FILE`), pure.

The module installs `sys.set_lazy_imports_filter` (Python 3.15+, PEP 810) so that a program run
with `-X lazy_imports=all` keeps the modules the measurement found must stay eager, eager; every
other import stays lazy. It is meant to run before the program: saved as `sitecustomize.py` on
the path, or imported first. On an interpreter without PEP 810 it does nothing.
"""

from __future__ import annotations

from typing import Sequence


def filter_module(eager: Sequence[str], *, target: str = "", python: str = "") -> str:
    names = sorted(set(eager))
    listed = "".join(f"    {n!r},\n" for n in names)
    made_for = f" for {target}" if target else ""
    measured = f" (measured on Python {python})" if python else ""
    return (
        f'"""Lazy imports filter written by `importprof lazy --filter-out`{made_for}{measured}.\n'
        "\n"
        "Run the program with `python -X lazy_imports=all` and this module imported first (save it as\n"
        "sitecustomize.py on sys.path): every import is lazy except the modules below, which the\n"
        "measurement found must stay eager for the program's output to stay the same.\n"
        '"""\n'
        "\n"
        "import sys\n"
        "\n"
        f"EAGER = frozenset([\n{listed}])\n"
        "\n"
        "\n"
        "def keep_lazy(importer, name, fromlist=None):\n"
        "    # eager: the module, or a submodule named in the from-list (`from pkg import sub`), in the set\n"
        "    if name in EAGER:\n"
        "        return False\n"
        "    for item in fromlist or ():\n"
        "        if isinstance(item, str) and name + '.' + item in EAGER:\n"
        "            return False\n"
        "    return True\n"
        "\n"
        "\n"
        'if hasattr(sys, "set_lazy_imports_filter"):\n'
        "    sys.set_lazy_imports_filter(keep_lazy)\n"
    )
