"""`importprof.why/1`: the import chains from a root import down to a module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from profiler.model.document import Document, Record, saved
from profiler.model.import_records import ModuleExtras

WHY_SCHEMA = "importprof.why/1"


@dataclass(frozen=True)
class WhyHop(ModuleExtras, Record):
    """One hop of an import chain: the module and its cost. `extra` (merged into the JSON
    item) starts as the module record's `extra`; a later feature adds e.g. `"site": "f.py:12"`."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int
    extra: Mapping[str, Any] = saved(default_factory=dict, flatten=True)  # its keys beside the fields


@dataclass(frozen=True)
class WhyChain(Record):
    """From a root import (the entry point's import) down to the asked module."""

    process: int
    hops: tuple[WhyHop, ...]
    loaded: bool = True  # False: the last hop imported MODULE when it was already loaded (why --all)


@dataclass(frozen=True)
class WhyReport(Document):
    SCHEMA = WHY_SCHEMA
    NOT_SAVED = ("cached_in",)  # in memory only: the why document has never carried it

    module: str
    chains: tuple[WhyChain, ...]
    machine: dict[str, Any]
    python: str | None
    python_version: str | None
    runs: int
    target: str | None = None
    cached_in: tuple[int, ...] = ()  # processes where 3.14 saw it only as cached
    # written only when asked for:
    importers: tuple[str, ...] | None = saved(default=None, omit="none")  # every module with an import statement of MODULE (why --all)
    # why --statements: MODULE's costliest top-level statements (a bare `dict`: model.document
    # reads a tuple of dict[...] otherwise)
    statements: tuple[dict, ...] | None = saved(default=None, omit="none")  # type: ignore[type-arg]
