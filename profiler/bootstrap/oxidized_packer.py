"""Packer for `importprof pack`: runs INSIDE importprof's launcher (a CPython with the
`oxidized_importer` module of PyOxidizer's python-oxidized-importer crate built in). Standard
library + oxidized_importer only; it never imports the rest of the `profiler` package.

    importprof-launcher -S oxidized_packer.py PLAN_JSON

PLAN_JSON: {"out": DIR, "lib": "lib", "modules": [{"name", "kind": "source"|"extension",
"path", "is_package"}], "sets": ["in-memory", "filesystem"]}. For each set it writes
DIR/<set>/packed-resources (python-packed-resources format, serialized by OxidizedFinder) and the
files that set needs under DIR/<set>/lib/:
  in-memory   bytecode (optimization level 0) and source in the resources; extension modules
              as files (CPython cannot load them from memory on Linux);
  filesystem  bytecode as .pyc files (+ .py source) and extension modules, the resources only
              index them (paths relative to the executable's folder).
Prints one JSON line: per set, counts and sizes.
"""

import json
import marshal
import os
import shutil
import struct
import sys

import oxidized_importer

MAGIC = None


def _pyc_bytes(code, source_bytes):
    import importlib.util

    # unchecked hash-based pyc header (flags=0b01): the finder strips the 16 bytes anyway
    return importlib.util.MAGIC_NUMBER + struct.pack("<I", 1) + b"\0" * 8 + marshal.dumps(code)


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


def pack(plan):
    out, lib = plan["out"], plan.get("lib", "lib")
    compiled = []
    for m in plan["modules"]:
        if m["kind"] == "source":
            with open(m["path"], "rb") as fh:
                src = fh.read()
            code = compile(src, m["path"], "exec", dont_inherit=True, optimize=0)
            compiled.append((m, src, code))
        else:
            compiled.append((m, None, None))
    summary = {}
    for set_name in plan["sets"]:
        root = os.path.join(out, set_name)
        os.makedirs(root, exist_ok=True)
        resources = []
        stats = {"modules": 0, "extension_modules": 0, "bytecode_bytes": 0, "source_bytes": 0, "file_bytes": 0, "files": 0}
        for m, src, code in compiled:
            r = oxidized_importer.OxidizedResource()
            r.name = m["name"]
            r.is_package = bool(m["is_package"])
            if m["kind"] == "extension":
                r.is_extension_module = True
                rel = os.path.join(lib, *m["name"].split(".")[:-1], os.path.basename(m["path"]))
                dest = os.path.join(root, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(m["path"], dest)
                r.relative_path_extension_module_shared_library = rel
                stats["extension_modules"] += 1
                stats["files"] += 1
                stats["file_bytes"] += os.path.getsize(dest)
            else:
                r.is_module = True
                bc = marshal.dumps(code)
                stats["modules"] += 1
                stats["bytecode_bytes"] += len(bc)
                stats["source_bytes"] += len(src)
                if set_name == "in-memory":
                    r.in_memory_bytecode = bc
                    r.in_memory_source = src
                else:
                    rel_pyc = _rel(lib, m["name"], m["is_package"], ".pyc")
                    rel_py = _rel(lib, m["name"], m["is_package"], ".py")
                    stats["file_bytes"] += _write(root, rel_pyc, _pyc_bytes(code, src))
                    stats["file_bytes"] += _write(root, rel_py, src)
                    stats["files"] += 2
                    r.relative_path_module_bytecode = rel_pyc
                    r.relative_path_module_source = rel_py
            resources.append(r)
        finder = oxidized_importer.OxidizedFinder()
        finder.add_resources(resources)
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
