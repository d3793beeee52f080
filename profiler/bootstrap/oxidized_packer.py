"""Packer for `importprof pack`: runs INSIDE importprof's launcher (a CPython with the
`oxidized_importer` module of PyOxidizer's python-oxidized-importer crate built in). Standard
library + oxidized_importer only; it never imports the rest of the `profiler` package.

    importprof-launcher -S oxidized_packer.py PLAN_JSON

PLAN_JSON: {"out": DIR, "lib": "lib", "sets": ["in-memory", "filesystem"], "cache": DIR,
  "modules": [{"name", "kind": "source"|"extension"|"bytecode", "path", "is_package"}],
  "data": [{"package", "name", "path"}]}                 package data files
For each set it writes DIR/<set>/packed-resources (python-packed-resources format, serialized by
OxidizedFinder) and the files that set needs under DIR/<set>/lib/:
  in-memory   bytecode and package data in the resources; extension modules as files
              (CPython cannot load them from memory on Linux), with their package's data files
              beside them (their `__file__` is the copy);
  filesystem  bytecode as .pyc files and extension modules under lib/; package data indexed
              where it is.
Paths in the resources are absolute (the launcher gives the finder "/" as its origin, see the
package data aliases below).
Every packed module names its real source file (so `__file__` is the real path and a package's
`__path__` its real folder: `__file__`-relative opens work and what is not packed still imports
through the path finder); its code is read from the pack. In the in-memory set a source module
also names the bytecode file python would cache it in (`__cached__`, computed here once, not by
importlib at each import; PYTHONPYCACHEPREFIX at run time is not followed). Bytecode is compiled once per source
file version into the "cache" folder (keyed by path, size, mtime and the bytecode magic).
Prints one JSON line: per set, counts and sizes; "failed": [[name, reason]] of the sources that
do not compile with this interpreter (left out).
"""

import importlib.util
import json
import marshal
import os
import shutil
import struct
import sys

import oxidized_importer
from pack_cache import cached_marshal  # sibling: this folder is sys.path[0]


def _pyc(bytecode):
    # unchecked hash-based pyc header (flags=0b01): the finder strips the 16 bytes anyway
    return importlib.util.MAGIC_NUMBER + struct.pack("<I", 1) + b"\0" * 8 + bytecode


def _rel(lib, name, is_package, suffix):
    parts = name.split(".")
    if is_package:
        return os.path.join(lib, *parts, "__init__" + suffix)
    return os.path.join(lib, *parts[:-1], parts[-1] + suffix)


def _write(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)
    return len(data)


def _read(path):
    with open(path, "rb") as fh:
        return fh.read()


def _bytecode(path, cache):
    """marshal(code) of a source file, compiled once per version of the file (pack_cache)."""
    return cached_marshal(path, cache,
                          lambda: marshal.dumps(compile(_read(path), path, "exec", dont_inherit=True, optimize=0)))


def pack(plan):
    out, lib, cache = plan["out"], plan.get("lib", "lib"), plan.get("cache")
    compiled, failed = [], []
    for m in plan["modules"]:
        try:
            if m["kind"] == "source":
                compiled.append((m, _bytecode(m["path"], cache)))
            elif m["kind"] == "bytecode":
                compiled.append((m, _read(m["path"])[16:]))
            else:
                compiled.append((m, None))
        except (OSError, SyntaxError, ValueError) as exc:
            failed.append([m["name"], "does not compile here: %s" % (str(exc).splitlines() or [""])[0]])
    data_by_package = {}
    for d in plan.get("data", ()):
        data_by_package.setdefault(d["package"], []).append(d)
    summary = {"failed": failed}
    for set_name in plan["sets"]:
        root = os.path.join(out, set_name)
        os.makedirs(root, exist_ok=True)
        in_memory = set_name == "in-memory"
        resources = {}
        aliases = []  # package data by the package's folder (pkgutil.get_data)
        copied = set()  # packages whose data files were copied beside their extension modules
        stats = {"modules": 0, "extension_modules": 0, "bytecode_modules": 0, "bytecode_bytes": 0, "source_bytes": 0,
                 "file_bytes": 0, "files": 0, "package_data": 0, "package_data_bytes": 0}
        for m, bc in compiled:
            r = oxidized_importer.OxidizedResource()
            r.name = m["name"]
            r.is_package = bool(m["is_package"])
            if m["kind"] == "extension":
                r.is_extension_module = True
                rel = os.path.join(lib, *m["name"].split(".")[:-1 if not m["is_package"] else None],
                                   os.path.basename(m["path"]))
                dest = os.path.join(root, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(m["path"], dest)
                r.relative_path_extension_module_shared_library = dest  # absolute: any origin
                stats["extension_modules"] += 1
                stats["files"] += 1
                stats["file_bytes"] += os.path.getsize(dest)
                # its __file__ is the copy: the data files of its package go beside it, so that
                # opens relative to __file__ (mypyc-compiled code reading a grammar) find them
                package = m["name"] if m["is_package"] else m["name"].rpartition(".")[0]
                if package and package not in copied:
                    copied.add(package)
                    for d in data_by_package.get(package, ()):
                        target = os.path.join(root, lib, *package.split("."), *d["name"].split("/"))
                        os.makedirs(os.path.dirname(target), exist_ok=True)
                        shutil.copyfile(d["path"], target)
                        stats["files"] += 1
                        stats["file_bytes"] += os.path.getsize(target)
            else:
                r.is_module = True
                stats["modules"] += 1
                stats["bytecode_bytes"] += len(bc)
                if m["kind"] == "source":
                    stats["source_bytes"] += os.path.getsize(m["path"])
                    r.relative_path_module_source = m["path"]  # absolute: the real file is __file__
                else:
                    stats["bytecode_modules"] += 1
                if in_memory:
                    r.in_memory_bytecode = bc
                    if m["kind"] == "source":
                        # spec.cached (__cached__) given, as python's path finder computes it: the
                        # in-memory bytecode is what runs (the finder reads it first), this path is
                        # only the name, so no cache_from_source per import at start-up
                        r.relative_path_module_bytecode = importlib.util.cache_from_source(m["path"])
                else:
                    rel_pyc = _rel(lib, m["name"], m["is_package"], ".pyc")
                    stats["file_bytes"] += _write(root, rel_pyc, _pyc(bc))
                    stats["files"] += 1
                    r.relative_path_module_bytecode = os.path.join(root, rel_pyc)  # absolute: any origin
            files = data_by_package.get(m["name"]) if m["is_package"] else None
            if files:
                if in_memory:
                    r.in_memory_package_resources = {d["name"]: _read(d["path"]) for d in files}
                else:
                    r.relative_path_package_resources = {d["name"]: d["path"] for d in files}
                stats["package_data"] += len(files)
                stats["package_data_bytes"] += sum(os.path.getsize(d["path"]) for d in files)
            resources[m["name"]] = r
            if files:
                # pkgutil.get_data asks the finder for `<package's real folder>/<name>`; with the
                # launcher's origin at "/" the finder looks that path up as the resources of a
                # package named by the folder's parts (/venv/lib/pkg → "venv.lib.pkg"): an entry
                # of that name, holding only the package's data, answers it
                alias = oxidized_importer.OxidizedResource()
                alias.name = ".".join(p for p in os.path.dirname(m["path"]).split(os.sep) if p)
                alias.is_package = True
                alias.relative_path_package_resources = {d["name"]: d["path"] for d in files}
                aliases.append(alias)
        finder = oxidized_importer.OxidizedFinder()
        finder.add_resources(list(resources.values()) + [a for a in aliases if a.name not in resources])
        data = finder.serialize_indexed_resources()
        with open(os.path.join(root, "packed-resources"), "wb") as fh:
            fh.write(data)
        stats["resources_bytes"] = len(data)
        summary[set_name] = stats
    return summary


def main(argv):
    with open(argv[0]) as fh:
        plan = json.load(fh)
    summary = pack(plan)
    sys.stdout.write("IMPORTPROF-PACK " + json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
