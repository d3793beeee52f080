"""The build variants of `build`/`compare` are one registry (model/build_variant.py): names and
order are a contract, every builder kind has a builder, the needs reach model/interpreter.py."""

from __future__ import annotations

from profiler.model.build_variant import BUILD_VARIANT_NAMES, BUILD_VARIANTS, NO_SITE, REFERENCE, is_packing, names_where
from profiler.model.interpreter import variant_needs
from profiler.model.variant import BUILTIN_VARIANTS


def test_names_and_order_are_the_contract():
    assert BUILD_VARIANT_NAMES == ("traditional", "no-site", "oxidized", "filesystem", "in-memory", "frozen", "lazy",
                                   "lazy+in-memory")
    assert REFERENCE == BUILD_VARIANT_NAMES[0] and NO_SITE in BUILD_VARIANTS


def test_the_sets_the_code_asks_for():
    assert names_where(on_request=True) == ("lazy", "lazy+in-memory")
    assert names_where(oxidized=True) == ("oxidized", "filesystem", "in-memory", "lazy+in-memory")
    assert names_where(packing=True) == ("filesystem", "in-memory", "frozen", "lazy+in-memory")
    assert names_where(site=True) == ("traditional", "lazy")
    assert is_packing("in-memory") and not is_packing("no-site") and not is_packing("default")


def test_every_builder_kind_is_built_and_a_pack_is_a_set():
    from profiler.compose.build import BUILDERS
    from profiler.workflows.pack import SETS

    assert {v.builder for v in BUILD_VARIANTS.values()} <= set(BUILDERS)
    assert {v.resources for v in BUILD_VARIANTS.values() if v.resources} <= set(SETS)
    assert all(v.oxidized for v in BUILD_VARIANTS.values() if v.resources)
    assert all(v.summary for v in BUILD_VARIANTS.values())


def test_needs_reach_the_interpreter_table_in_its_order():
    # the interpreter's variants first (no-site is theirs there), then build's own
    assert list(variant_needs()) == [*BUILTIN_VARIANTS, *(n for n in BUILD_VARIANT_NAMES if n not in BUILTIN_VARIANTS)]
    assert variant_needs()["no-site"] == BUILTIN_VARIANTS["no-site"].needs
    assert variant_needs()["lazy+in-memory"] == ("hooks", "lazy_hooks", "oxidized")
    assert variant_needs()["frozen"] == ("hooks", "frozen")
