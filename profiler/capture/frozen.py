"""Capture side of the `frozen` variant: compile importprof's C launcher
(oxidized_builds/frozen-launcher/launcher.c) against the target interpreter's own headers, marshal the
planned modules with the target interpreter (bootstrap/frozen_packer.py), and link both into one
executable whose data section holds the frozen-modules table.

The launcher's object file is cached once per interpreter (~/.cache/importprof/frozen/<key>/);
linking a build is one short gcc call (the blob is included with `.incbin`, not as C arrays).
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Sequence

from profiler.capture.process import run
from profiler.errors import ToolFailed, ToolMissing
from profiler.model.interpreter import Interpreter
from profiler.model.packing import PlannedModule
from profiler.session import Session

PACKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bootstrap", "frozen_packer.py")
EXE_NAME = "importprof-frozen"


@dataclass(frozen=True)
class Packed:
    modules: tuple[str, ...]
    packages: tuple[str, ...]
    bytecode_bytes: int
    failed: tuple[tuple[str, str], ...]  # (name, reason)


def launcher_source() -> str:
    from profiler.capture.cargo import project_dir

    src = os.path.join(project_dir(), "frozen-launcher", "launcher.c")
    if not os.path.isfile(src):
        raise ToolMissing(f"importprof's frozen launcher source not found: {src}")
    return src


def find_cc() -> str:
    for name in (os.environ.get("CC") or "", "gcc", "cc"):
        found = shutil.which(name) if name else None
        if found:
            return found
    raise ToolMissing("no C compiler (gcc/cc) found: the frozen variant compiles a small launcher against libpython")


def libpython(interp: Interpreter) -> str:
    """The shared libpython to link: LIBDIR/LDLIBRARY, or the versioned file beside it
    (Debian ships libpython3.11.so.1.0 without the bare .so unless -dev is installed)."""
    libdir = interp.libdir or ""
    if interp.ldlibrary and interp.ldlibrary.endswith(".so") and os.path.exists(os.path.join(libdir, interp.ldlibrary)):
        return os.path.join(libdir, interp.ldlibrary)
    major_minor = ".".join(interp.version.split(".")[:2])
    found = sorted(glob.glob(os.path.join(libdir, f"libpython{major_minor}*.so*")))
    if not found:
        raise ToolFailed(
            f"{interp.path} has no shared libpython{major_minor} in {libdir or 'LIBDIR (unset)'}: "
            "the frozen launcher links one (use an interpreter built with --enable-shared)"
        )
    return found[0]


def _cache_dir(interp: Interpreter, src: str) -> str:
    from profiler.capture.cargo import cache_root

    h = hashlib.sha256()
    for part in (interp.version, interp.include or "", interp.libdir or "", interp.ldlibrary or "", interp.base_prefix):
        h.update(part.encode() + b"\0")
    with open(src, "rb") as fh:
        h.update(fh.read())
    return os.path.join(os.path.dirname(cache_root()), "frozen", h.hexdigest()[:16])


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def launcher_object(interp: Interpreter, *, session: Session) -> str:
    """launcher.o for this interpreter (compiled once, cached)."""
    src = launcher_source()
    folder = _cache_dir(interp, src)
    obj = os.path.join(folder, "launcher.o")
    if os.path.exists(obj):
        return obj
    if not interp.include or not os.path.isfile(os.path.join(interp.include, "Python.h")):
        raise ToolFailed(f"{interp.path}: no Python.h in {interp.include or 'INCLUDEPY (unset)'}: install the interpreter's headers (python3-dev)")
    include = interp.include  # a str from here on (make() below cannot see the check)
    cc = find_cc()
    from profiler.cachelock import cached

    def make(tmp: str) -> None:  # one compiler at a time per interpreter; published whole
        session.info(f"compiling the frozen launcher for {interp.path} (gcc, once per interpreter)...")
        argv = [cc, "-O2", "-std=gnu99", "-c", src, "-o", tmp, "-I", include,
                f"-DIMPORTPROF_HOME={_c_string(interp.base_prefix)}"]
        proc = run(argv, timeout=300, what="gcc", session=session)
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-12:])
            raise ToolFailed(f"compiling the frozen launcher failed (exit {proc.returncode})", detail=tail or None)

    return cached(obj, make)


def pack_modules(interp: Interpreter, modules: Sequence[PlannedModule], blob: str, session: Session) -> Packed:
    """Marshal the modules with the target interpreter itself into `blob`."""
    from profiler.capture.oxidized import bytecode_cache, run_packer_script

    d = run_packer_script(interp.path, PACKER,
                          {"out": blob, "modules": [m.to_dict() for m in modules], "cache": bytecode_cache()},
                          "IMPORTPROF-FROZEN", "marshalling the frozen modules failed", interp.path, session=session)
    return Packed(tuple(d["modules"]), tuple(d["packages"]), int(d["bytecode_bytes"]),
                  tuple((f["name"], f["reason"]) for f in d["failed"]))


def elf_loader(path: str) -> str | None:
    """The dynamic loader an ELF executable names (its PT_INTERP), or None (not a 64-bit
    little-endian ELF, or static)."""
    import struct

    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            fh.seek(phoff)
            table = fh.read(phentsize * phnum)
            for i in range(phnum):
                p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
                if p_type == 3:  # PT_INTERP
                    fh.seek(p_offset)
                    return fh.read(p_filesz).rstrip(b"\0").decode("utf-8", "replace") or None
    except OSError:
        return None
    return None


def loader_flags(interp: Interpreter, cc: str) -> list[str]:
    """An interpreter that brings its own C library (Debian sid's 3.14/3.15 set up by
    scripts/setup.d/10-python-sid.sh, with their loader patched in) is linked against with that
    loader: its libpython names newer glibc symbols than this system's linker knows, which the
    loader found through the rpath provides at run time."""
    own = elf_loader(os.path.realpath(interp.path))
    if own is None or own == elf_loader(os.path.realpath(cc)):
        return []
    return [f"-Wl,--dynamic-linker={own}", "-Wl,--allow-shlib-undefined"]


def link(interp: Interpreter, obj: str, blob: str, exe: str, session: Session) -> int:
    """Link launcher.o + the blob (.incbin) + libpython into `exe`; returns its size in bytes."""
    lib = libpython(interp)
    libdir = os.path.dirname(lib)
    with tempfile.TemporaryDirectory(prefix="importprof-frozen-") as tmp:
        asm = os.path.join(tmp, "blob.S")
        with open(asm, "w") as fh:
            fh.write(
                "    .section .rodata\n"
                "    .global importprof_frozen_blob\n"
                "    .global importprof_frozen_blob_end\n"
                "    .balign 16\n"
                "importprof_frozen_blob:\n"
                f"    .incbin {_c_string(os.path.abspath(blob))}\n"
                "importprof_frozen_blob_end:\n"
                '    .section .note.GNU-stack,"",@progbits\n'
            )
        os.makedirs(os.path.dirname(os.path.abspath(exe)), exist_ok=True)
        cc = find_cc()
        argv = [cc, "-o", exe, obj, asm, f"-L{libdir}", f"-l:{os.path.basename(lib)}", f"-Wl,-rpath,{libdir}",
                *loader_flags(interp, cc)]
        proc = run(argv, timeout=300, what="gcc", session=session)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-12:])
        raise ToolFailed(f"linking the frozen launcher failed (exit {proc.returncode})", detail=tail or None)
    return os.path.getsize(exe)
