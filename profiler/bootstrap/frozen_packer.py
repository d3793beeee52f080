"""Packer for the `frozen` variant: runs INSIDE the target interpreter (its marshal format and
bytecode are version-specific), standard library only, Python 3.8+; it never imports the rest
of the `profiler` package.

    python -S -E frozen_packer.py PLAN_JSON

PLAN_JSON: {"out": BLOB_PATH, "modules": [{"name", "path", "is_package"}], "cache": DIR}. Compiles each
source (optimization level 0, as python does without -O; with its real `__file__`, and a
package's real `__path__`, set first; once per file version, kept in the "cache" folder), writes the blob that
oxidized_builds/frozen-launcher/launcher.c reads:

    "IPFROZEN" u32:count ( u32:name_len name NUL u8:is_package u32:code_len marshal(code) )*

and prints one line `IMPORTPROF-FROZEN {json}`: modules, packages, bytecode_bytes, failed
([{name, reason}]: sources that do not compile here; they are left out).
"""

import json
import marshal
import struct
import sys

from pack_cache import cached_marshal  # sibling: this folder is sys.path[0]


def _with_real_location(source, filename, is_package):
    """The module's code with `__file__ = its source path` (and, for a package, `__path__ = [its
    folder]`) as its first statements (after the docstring and `from __future__` imports), as
    python sets them for a module imported from its file and as CPython 3.11+ does for its own
    frozen stdlib modules. FrozenImporter alone sets no `__file__` on 3.8-3.10 and guesses one
    in the stdlib folder on 3.11+ (wrong for anything else: code that later looks for files
    beside its module failed), and gives a package an empty `__path__` (3.8-3.10) or that guess,
    so a submodule left as a file (an extension module, a `__file__` reader, one imported only
    later) could not be found. The code itself still runs from memory."""
    import ast
    import os

    tree = ast.parse(source, filename)
    body = tree.body
    i = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        i = 1
    while i < len(body) and isinstance(body[i], ast.ImportFrom) and body[i].module == "__future__":
        i += 1
    path = os.path.abspath(filename)
    text = "__file__ = %r\n" % path
    if is_package:
        text += "__path__ = [%r]\n" % os.path.dirname(path)
    line = body[i].lineno if i < len(body) else 1
    prelude = ast.parse(text).body
    for stmt in prelude:
        for node in ast.walk(stmt):
            if "lineno" in node._attributes:
                node.lineno, node.col_offset = line, 0
                node.end_lineno, node.end_col_offset = line, 0
    body[i:i] = prelude
    return tree


def _cached(path, is_package, cache):
    """marshal(code) of the module with its real location first, compiled once per version of
    the file (pack_cache; the key also says package or not)."""
    def build():
        with open(path, "rb") as fh:
            source = fh.read()
        return marshal.dumps(compile(_with_real_location(source, path, is_package), path, "exec",
                                     dont_inherit=True, optimize=0))
    return cached_marshal(path, cache, build, tag="frozen-1\0%d\0" % is_package)


def pack(plan):
    entries = []
    failed = []
    for m in plan["modules"]:
        try:
            data = _cached(m["path"], bool(m["is_package"]), plan.get("cache"))
        except (OSError, SyntaxError, ValueError) as exc:
            failed.append({"name": m["name"], "reason": "does not compile: %s" % (str(exc).splitlines() or [""])[0]})
            continue
        entries.append((m["name"], bool(m["is_package"]), data))
    out = bytearray(b"IPFROZEN" + struct.pack("<I", len(entries)))
    for name, is_package, data in entries:
        raw = name.encode("utf-8")  # what the import system looks names up by
        out += struct.pack("<I", len(raw)) + raw + b"\0" + struct.pack("<B", 1 if is_package else 0)
        out += struct.pack("<I", len(data)) + data
    with open(plan["out"], "wb") as fh:
        fh.write(out)
    return {
        "modules": [e[0] for e in entries],
        "packages": [e[0] for e in entries if e[1]],
        "bytecode_bytes": sum(len(e[2]) for e in entries),
        "failed": failed,
    }


def main(argv):
    with open(argv[0]) as fh:
        plan = json.load(fh)
    summary = pack(plan)
    sys.stdout.write("IMPORTPROF-FROZEN " + json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
