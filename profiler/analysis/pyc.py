"""The bytecode caches of a source file, pure: which `__pycache__` entries belong to it and how
each one was written (cache tag, optimization level, invalidation mode), from its name and its
16-byte header (PEP 3147, PEP 488, PEP 552).

  cache_entry(source_name, pyc_name) -> (tag, optimize) | None
  invalidation_mode(tag, header) -> "timestamp" | "checked-hash" | "unchecked-hash" | None
  tag_version(tag) -> (major, minor) | None

`importprof lazy --apply` reads these to refresh the bytecode of every file it edits with the
interpreter of each tag, as the tree had it: same optimization level, same invalidation mode.
"""

from __future__ import annotations

import re

MODES = ("timestamp", "checked-hash", "unchecked-hash")
_TAG = re.compile(r"^(?P<impl>[a-z]+)-?(?P<major>\d)(?P<minor>\d+)(?P<abi>[a-z]*)$")
_REST = re.compile(r"^(?P<tag>[A-Za-z0-9_-]+)(?:\.opt-(?P<opt>\d+))?\.pyc$")


def cache_entry(source_name: str, pyc_name: str) -> tuple[str, int] | None:
    """(cache tag, optimization level) when `pyc_name` (a file in the `__pycache__` beside the
    source) is the bytecode of `source_name` (`mod.py` -> `mod.cpython-315.pyc`,
    `mod.cpython-315.opt-2.pyc`); None otherwise (another module's, a temporary file)."""
    stem = source_name[:-3] if source_name.endswith(".py") else None
    if not stem or not pyc_name.startswith(stem + "."):
        return None
    m = _REST.match(pyc_name[len(stem) + 1:])
    if not m:
        return None
    return m.group("tag"), int(m.group("opt") or 0)


def tag_version(tag: str) -> tuple[int, int] | None:
    """The (major, minor) of a CPython cache tag (`cpython-315` -> (3, 15), `cpython-313t`
    too); None for a tag of another implementation."""
    m = _TAG.match(tag)
    if not m or m.group("impl") != "cpython":
        return None
    return int(m.group("major")), int(m.group("minor"))


def invalidation_mode(tag: str, header: bytes) -> str | None:
    """How a .pyc is checked against its source: its header's flags word (PEP 552, 3.7+: bit 0
    hash-based, bit 1 check the source); before 3.7 every .pyc is timestamp-based. None when
    the header is cut short or its flags are unknown."""
    version = tag_version(tag)
    if version is not None and version < (3, 7):
        return "timestamp" if len(header) >= 12 else None
    if len(header) < 16:
        return None
    flags = int.from_bytes(header[4:8], "little")
    if flags == 0:
        return "timestamp"
    if flags == 0b11:
        return "checked-hash"
    if flags == 0b01:
        return "unchecked-hash"
    return None


def compile_order(tags: dict[str, list[str]]) -> list[str]:
    """The cache tags in the order their interpreters are sought (newest CPython first, then the
    others by name): the one that matters most for the proof is compiled first."""
    return sorted(tags, key=lambda t: (tag_version(t) is None, tuple(-x for x in (tag_version(t) or (0, 0))), t))
