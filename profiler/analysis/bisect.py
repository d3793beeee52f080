"""Delta debugging (Zeller's ddmin) for `importprof lazy`: the smallest set of modules that must
stay eager. Pure: the caller's predicate runs the program; this module only chooses subsets.

    minimize(items, suffices, max_tests=None) -> Minimized(items, tests, complete)

`suffices(subset)` answers "keeping `subset` eager (everything else lazy), is the output
identical to the eager run?". Preconditions (the caller checks them, they cost one run each):
`suffices(items)` is True and `suffices(())` is False. The result is 1-minimal: it suffices,
and removing any one of its items does not. With one culprit among n modules it takes about
2·log2(n) tests, not n. Subsets keep the order of `items` (import order), every subset is
tested at most once (cached), and `max_tests` bounds the work: when it is reached the last
subset known to suffice is returned with `complete=False`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Generic, Hashable, List, Sequence, Tuple, TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Minimized(Generic[T]):
    items: Tuple[T, ...]  # a 1-minimal subset that suffices (in the input's order)
    tests: int  # predicate calls made (cache hits not counted)
    complete: bool  # False: max_tests was reached before 1-minimality was proven
    outcomes: Tuple[Tuple[Tuple[T, ...], bool], ...] = ()  # every subset tested, in order


def split(items: Sequence[T], n: int) -> List[Tuple[T, ...]]:
    """`items` in `n` contiguous chunks whose sizes differ by at most one (n <= len(items))."""
    size, extra = divmod(len(items), n)
    out = []
    start = 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        out.append(tuple(items[start:end]))
        start = end
    return out


class _Budget(Exception):
    pass


def minimize(
    items: Sequence[T],
    suffices: Callable[[Tuple[T, ...]], bool],
    max_tests: int | None = None,
) -> Minimized[T]:
    """ddmin over `items` (see the module docstring)."""
    order = {x: i for i, x in enumerate(items)}
    if len(order) != len(items):
        raise ValueError("items must be distinct")
    cache: Dict[FrozenSet[T], bool] = {frozenset(items): True, frozenset(): False}
    log: List[Tuple[Tuple[T, ...], bool]] = []

    def test(subset: Tuple[T, ...]) -> bool:
        key = frozenset(subset)
        if key not in cache:
            if max_tests is not None and len(log) >= max_tests:
                raise _Budget
            ok = bool(suffices(subset))
            cache[key] = ok
            log.append((subset, ok))
        return cache[key]

    current: Tuple[T, ...] = tuple(items)
    n = 2
    try:
        while len(current) >= 2:
            chunks = split(current, min(n, len(current)))
            reduced = False
            for chunk in chunks:  # one chunk alone suffices: zoom in
                if test(chunk):
                    current, n, reduced = chunk, 2, True
                    break
            if not reduced and len(chunks) > 2:  # (with 2 chunks the complements are the chunks)
                for i in range(len(chunks)):
                    rest = tuple(x for j, c in enumerate(chunks) if j != i for x in c)
                    if test(rest):
                        current, n, reduced = rest, max(len(chunks) - 1, 2), True
                        break
            if not reduced:
                if len(chunks) >= len(current):
                    break  # every single item is needed: 1-minimal
                n = min(len(current), 2 * len(chunks))
    except _Budget:
        return Minimized(_ordered(current, order), len(log), False, tuple(log))
    return Minimized(_ordered(current, order), len(log), True, tuple(log))


def _ordered(subset: Sequence[T], order: Dict[T, int]) -> Tuple[T, ...]:
    return tuple(sorted(subset, key=order.__getitem__))
