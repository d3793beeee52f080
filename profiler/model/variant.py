"""Interpreter variants: named sets of command-line flags (DESIGN.md, "Variants")."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from profiler.errors import UsageError


@dataclass(frozen=True)
class Variant:
    name: str
    flags: tuple[str, ...] = field(default_factory=tuple)
    # cold-pyc: each run gets `-X pycache_prefix=<fresh empty dir>` appended to the flags
    fresh_pycache: bool = False
    description: str = ""
    # no-site: the sys.path entries `site` would add (site-packages, .pth paths) are given
    # through PYTHONPATH, so an installed program still imports: what is skipped is site's work
    keep_site_paths: bool = False

    def to_dict(self) -> dict:
        return {"name": self.name, "flags": list(self.flags), "fresh_pycache": self.fresh_pycache,
                "keep_site_paths": self.keep_site_paths}


BUILTIN_VARIANTS: dict[str, Variant] = {
    "default": Variant("default", (), description="no flags"),
    "no-site": Variant(
        "no-site", ("-S",), keep_site_paths=True,
        description="-S: site's work skipped; the paths it adds (site-packages, .pth paths) kept through PYTHONPATH",
    ),
    "no-site-bare": Variant(
        "no-site-bare", ("-S",), description="-S as is: site-packages not on sys.path (only the stdlib imports)"
    ),
    "isolated": Variant("isolated", ("-I",), description="-I: isolated mode"),
    "no-frozen": Variant(
        "no-frozen", ("-X", "frozen_modules=off"), description="-X frozen_modules=off"
    ),
    "cold-pyc": Variant(
        "cold-pyc",
        (),
        fresh_pycache=True,
        description="-X pycache_prefix=<fresh empty dir per run>: every import compiles",
    ),
}

DEFAULT_STARTUP_VARIANTS = ("default", "no-site", "isolated", "no-frozen")


def parse_variants(
    names: list[str] | tuple[str, ...] | None,
    flags: list[str] | tuple[str, ...] | None = None,
    default: tuple[str, ...] = ("default",),
) -> list[Variant]:
    """`--variant a,b --variant c` and `--flags "-X dev"` → ordered, de-duplicated variants."""
    out: list[Variant] = []
    seen: set[str] = set()
    requested: list[str] = []
    for item in names or []:
        requested.extend(part.strip() for part in item.split(",") if part.strip())
    if not requested and not flags:
        requested = list(default)
    for name in requested:
        if name not in BUILTIN_VARIANTS:
            known = ", ".join(BUILTIN_VARIANTS)
            raise UsageError(f"unknown variant {name!r} (known: {known}; custom: --flags=...)")
        if name not in seen:
            seen.add(name)
            out.append(BUILTIN_VARIANTS[name])
    for text in flags or []:
        try:
            parts = tuple(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"cannot parse --flags {text!r}: {exc}") from None
        if not parts:
            raise UsageError("--flags needs at least one flag")
        name = " ".join(parts)
        if name not in seen:
            seen.add(name)
            out.append(Variant(name, parts, description="custom flags"))
    return out
