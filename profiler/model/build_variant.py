"""The variants of `build` and `compare` (ARCHITECTURE.md, "A variant"): one `BuildVariant` per
name, in their canonical order, saying what it needs from the interpreter, how it is built and
how it is shown. Adding a build variant is one entry in BUILD_VARIANTS (and, for a new way of
building, one builder in compose/build.py: BUILDERS). Names are a contract: add, never rename.

These are not the interpreter variants of `startup` (model/variant.py); `no-site` is a name of
both (here: the interpreter with -S and the paths site would add, the reference of the
`vs no-site` columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class BuildVariant:
    name: str
    # the interpreter capabilities it needs (model/interpreter.py: CAPABILITIES)
    needs: tuple[str, ...]
    # how compose/build.py makes it (its BUILDERS): "python" (the interpreter itself, `flags`
    # added), "launcher" (importprof's oxidized launcher, `resources` its pack), "frozen"
    # (importprof's frozen C launcher), "lazy" (importprof lazy's finder over the interpreter),
    # "lazy+launcher" (the same finder above the oxidized launcher with `resources`)
    builder: str
    # interpreter flags (no-site, frozen: -S; lazy+in-memory: given to the lazy launcher)
    flags: tuple[str, ...] = ()
    # the packed-resources set an oxidized launcher serves (workflows/pack.py: SETS), None: none
    resources: str | None = None
    # runs `site` (traditional, lazy): no PYTHONPATH of site's paths, the module recorder with site
    site: bool = False
    # serves modules from a pack: the check run counts pack vs fallback, a row mostly from disk
    # is marked (render/console_compare.py) and a difference may be by design (compose/build.py)
    packing: bool = False
    # built only when named (--variant): lazy loading may change what a program prints
    on_request: bool = False
    # what --help and the docs say beside the name
    summary: str = ""

    @property
    def oxidized(self) -> bool:
        """Runs importprof's oxidized launcher (so needs the pack's launcher built)."""
        return self.builder in ("launcher", "lazy+launcher")

    @property
    def lazy(self) -> bool:
        """Wrapped by importprof lazy's launcher (its modules are not recorded a second time)."""
        return self.builder in ("lazy", "lazy+launcher")


BUILD_VARIANTS: Mapping[str, BuildVariant] = {
    v.name: v
    for v in (
        BuildVariant("traditional", ("hooks",), "python", site=True,
                     summary="the interpreter with site, as users run it: every comparison's reference"),
        BuildVariant("no-site", ("hooks",), "python", flags=("-S",),
                     summary="-S, the paths site adds kept through PYTHONPATH"),
        BuildVariant("oxidized", ("hooks", "oxidized"), "launcher",
                     summary="importprof's launcher (CPython + oxidized_importer), the standard path importer"),
        BuildVariant("filesystem", ("hooks", "oxidized"), "launcher", resources="filesystem", packing=True,
                     summary="launcher + OxidizedFinder over filesystem-relative resources"),
        BuildVariant("in-memory", ("hooks", "oxidized"), "launcher", resources="in-memory", packing=True,
                     summary="launcher + OxidizedFinder over a memory-mapped packed-resources file"),
        BuildVariant("frozen", ("hooks", "frozen"), "frozen", flags=("-S",), packing=True,
                     summary="importprof's C launcher, the target's bytecode in CPython's frozen-modules table"),
        BuildVariant("lazy", ("hooks", "lazy_hooks"), "lazy", site=True, on_request=True,
                     summary="traditional with every import deferred to first use"),
        BuildVariant("lazy+in-memory", ("hooks", "lazy_hooks", "oxidized"), "lazy+launcher", flags=("-S",),
                     resources="in-memory", packing=True, on_request=True, summary="the lazy finder above the in-memory launcher's"),
    )
}

# the names, in their canonical order (build's folders, compare's rows)
BUILD_VARIANT_NAMES: tuple[str, ...] = tuple(BUILD_VARIANTS)
# every comparison's reference: always built, the output the others must match, `delta` and
# `% of traditional`
REFERENCE = "traditional"
# the reference of the `vs no-site` columns (PyOxidizer's "Performance of Built Binaries")
NO_SITE = "no-site"


def is_packing(name: str) -> bool:
    """The variant `name` serves modules from a pack (False for a name that is no build variant)."""
    v = BUILD_VARIANTS.get(name)
    return v is not None and v.packing


def names_where(**facts: object) -> tuple[str, ...]:
    """The names of the build variants whose attributes have these values, in canonical order:
    names_where(packing=True)."""
    return tuple(n for n, v in BUILD_VARIANTS.items() if all(getattr(v, k) == want for k, want in facts.items()))
