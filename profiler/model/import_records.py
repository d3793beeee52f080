"""A module's import timings aggregated over runs (`ModuleRecord`, the `modules` items of
`importprof.imports/1`), with the records beside it in that document: the 3.14 cached rows,
groups, and the per-process summaries.

Extending a module record or a why hop: both carry an `extra` mapping whose keys are merged
into the JSON item (after the contract keys, never replacing one), and read back from it by
`from_dict` (every key it does not know lands in `extra`). E.g. per-module phases:
`dataclasses.replace(m, extra={**m.extra, "exec_us": 120, "compiled": False})`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import Field, dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Optional, TypeVar, overload

from profiler.model.document import Record, saved


class Samples(Sequence[Optional[int]]):
    """One module's per-run values (None where a run did not see it), held as machine integers:
    4 bytes a value (8 for a fold that saw one past 35 minutes) instead of a Python int and a
    slot each (a report of a thousand runs of a 500-module program holds a million of them). A read-only sequence that equals, and hashes
    as, the tuple of its values; a slice is a tuple."""

    __slots__ = ("_a",)
    _NONE = -1  # µs are never negative (the parser reads digits)

    def __init__(self, values: array[int]) -> None:
        self._a = values  # array('q'), owned: the folder that filled it hands it over

    def __len__(self) -> int:
        return len(self._a)

    @overload
    def __getitem__(self, i: int) -> int | None: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[int | None, ...]: ...

    def __getitem__(self, i: int | slice) -> int | None | tuple[int | None, ...]:
        if isinstance(i, slice):
            return tuple(self)[i]
        v = self._a[i]
        return None if v < 0 else v

    def __iter__(self) -> Iterator[int | None]:
        for v in self._a:
            yield None if v < 0 else v

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Samples):
            return self._a == other._a
        if isinstance(other, (tuple, list)):
            return len(other) == len(self._a) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


_Extras = TypeVar("_Extras", bound="ModuleExtras")


class ModuleExtras:
    """Typed reads of the keys later features add to a module record's (or a why hop's) `extra`,
    which stays what is saved: its keys are merged into the JSON item as they are, so a
    document's bytes do not depend on these. Each is None (or False, 0, ()) when the feature did
    not run. `with_extra(**keys)` is the record with keys added."""

    __slots__ = ()
    extra: Mapping[str, Any]
    if TYPE_CHECKING:  # what replace() asks of a dataclass: the records that carry these are ones
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def failed(self) -> bool:
        """The import raised (imports: the instrumented warm-up run saw `_find_and_load` fail)."""
        return bool(self.extra.get("failed"))

    @property
    def site(self) -> str | None:
        """`file:line` of the import statement that loaded it (--phases, --lazy-candidates)."""
        return self.extra.get("site")

    @property
    def wrapper(self) -> bool:
        """The outer row of a dotted import (diff marks it: analysis.imports_views.dotted_wrappers)."""
        return bool(self.extra.get("wrapper"))

    @property
    def statements(self) -> tuple[Mapping[str, Any], ...]:
        """Its body's costliest top-level statements, sampled (--statements), costliest first."""
        return tuple(self.extra.get("statements") or ())

    @property
    def statements_sampled_us(self) -> int:
        """Its whole body's sampled time, what the statements' shares are of (0: not sampled)."""
        return self.extra.get("statements_sampled_us") or 0

    # --phases (workflows/phases.py: PHASE_KEYS), from ONE instrumented run, µs; None: not
    # instrumented (or not seen by that run)
    @property
    def find_us(self) -> int | None:
        """Finding its spec (the finders on sys.meta_path and sys.path)."""
        return self.extra.get("find_us")

    @property
    def read_us(self) -> int | None:
        """Reading its file (0 or None: nothing read, e.g. a builtin or frozen module)."""
        return self.extra.get("read_us")

    @property
    def unmarshal_us(self) -> int | None:
        """Unmarshalling its .pyc, or compiling its source when it had none (`compiled`)."""
        return self.extra.get("unmarshal_us")

    @property
    def exec_us(self) -> int | None:
        """Running its body, the imports it makes excluded."""
        return self.extra.get("exec_us")

    @property
    def phase_us(self) -> tuple[int | None, int | None, int | None, int | None]:
        """find, read, unmarshal, exec: the phase columns' order."""
        return self.find_us, self.read_us, self.unmarshal_us, self.exec_us

    @property
    def compiled(self) -> bool:
        """Compiled from source in the instrumented run: no valid .pyc (--phases)."""
        return self.extra.get("compiled") is True

    @property
    def lazy_candidate(self) -> bool:
        """Never called into after its import (--lazy-candidates); False also when not asked
        (`records_with(modules, "lazy_candidate")` tells the two apart)."""
        return bool(self.extra.get("lazy_candidate"))

    # --group kind / distribution (workflows/imports.py: add_groups)
    @property
    def kind(self) -> str | None:
        """stdlib, site-packages, the program's own, builtin, frozen..."""
        return self.extra.get("kind")

    @property
    def distribution(self) -> str | None:
        """The installed distribution that ships it (`python` for the standard library)."""
        return self.extra.get("distribution")

    def with_extra(self: _Extras, **keys: Any) -> _Extras:
        """The record with `keys` added to its extra (a key it had replaced)."""
        return replace(self, extra={**self.extra, **keys})


@dataclass(frozen=True)
class ModuleRecord(ModuleExtras, Record):
    """A module aggregated over runs: medians, per-run values (None where not seen), spread
    (median absolute deviation, µs). `extra` holds keys added by later features: merged into
    its JSON after the contract keys (never replacing one), and every key the record does not
    know is read back into it. A saved record may leave out all but name, self_us and
    cumulative_us (the `missing` values fill them in)."""

    DERIVED = ("in_all_runs",)

    name: str
    self_us: int
    cumulative_us: int
    parent: str | None = saved(missing=None)
    depth: int = saved(missing=0)
    process: int = saved(missing=0)
    runs_seen: int = saved(missing_from=lambda d: len(d.get("self_us_runs") or (None,)))
    self_us_runs: tuple[int | None, ...] = saved(missing_from=lambda d: (d["self_us"],))
    cumulative_us_runs: tuple[int | None, ...] = saved(missing_from=lambda d: (d["cumulative_us"],))
    self_us_spread: int = 0
    cumulative_us_spread: int = 0
    # shared, read-only: a 50 MB log makes 780,000 records
    extra: Mapping[str, Any] = saved(default_factory=lambda: _NO_EXTRA, flatten=True)

    @property
    def in_all_runs(self) -> bool:
        return self.runs_seen == len(self.self_us_runs)


@dataclass(frozen=True)
class CachedRecord(Record):
    """A 3.14 `cached | cached` row: a module found in sys.modules (hits = median per run)."""

    name: str
    process: int = 0
    hits: int = 1
    depth: int | None = None


@dataclass(frozen=True)
class GroupRecord(Record):
    """Modules grouped by package, distribution or kind. `cumulative_us` counts each group
    member once: Σ cumulative of members whose parent is outside the group."""

    name: str
    self_us: int
    cumulative_us: int
    modules: int


@dataclass(frozen=True)
class ProcessSummary(Record):
    """One Python process of a `-- COMMAND` (or of a log with several headers), over runs.
    `index` is the `process` number of its module records; `parent` the index of the nearest
    Python process above it (None: started by the command itself, or unknown); `argv`,
    `python`, `wall_s` (exec to exit, median over runs) are None when read from a log;
    `imports_us`: median over runs of Σ its roots' cumulative."""

    index: int
    argv: tuple[str, ...] | None
    python: str | None
    parent: int | None
    wall_s: float | None = saved(round=6)  # a median of clock differences: to the microsecond
    imports_us: int  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see


@dataclass(frozen=True)
class SummedModule(Record):
    """A module summed across processes: in how many processes it was imported, Σ self and
    Σ cumulative of its per-process medians (a dotted import's wrapper row adds its self, not
    its cumulative: only rows not nested in a row of the same name count)."""

    name: str
    processes: int
    self_us: int
    cumulative_us: int
