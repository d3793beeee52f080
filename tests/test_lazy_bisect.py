"""analysis/bisect.py: ddmin finds a 1-minimal keep-eager set in a handful of tests (pure)."""

from __future__ import annotations

import math

import pytest

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from profiler.analysis.bisect import minimize, split


def test_split_sizes_differ_by_at_most_one_and_keep_order():
    items = tuple(range(10))
    chunks = split(items, 3)
    assert [len(c) for c in chunks] == [4, 3, 3]
    assert sum(chunks, ()) == items


def test_one_culprit_among_many_takes_about_two_log2_n_tests():
    items = [f"mod{i}" for i in range(256)]
    calls = []

    def suffices(subset):
        calls.append(subset)
        return "mod137" in subset

    res = minimize(items, suffices)
    assert res.items == ("mod137",)
    assert res.complete
    assert res.tests == len(calls) <= 2 * math.log2(256) + 2


def test_two_culprits_found_and_returned_in_input_order():
    items = [f"m{i}" for i in range(40)]
    res = minimize(items, lambda s: {"m33", "m4"} <= set(s))
    assert res.items == ("m4", "m33")
    assert res.tests < 40  # fewer runs than one per module


def test_no_subset_is_tested_twice():
    items = list(range(30))
    seen = []

    def suffices(subset):
        key = frozenset(subset)
        assert key not in seen
        seen.append(key)
        return {3, 17, 29} <= key

    minimize(items, suffices)


def test_budget_returns_a_subset_known_to_suffice():
    items = list(range(64))
    res = minimize(items, lambda s: {1, 50} <= set(s), max_tests=3)
    assert not res.complete and res.tests == 3
    assert {1, 50} <= set(res.items)


def test_a_single_item_needs_no_test():
    res = minimize(["only"], lambda s: pytest.fail("no test needed"))
    assert res.items == ("only",) and res.tests == 0


def test_items_must_be_distinct():
    with pytest.raises(ValueError):
        minimize(["a", "a"], lambda s: True)


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), min_size=1, max_size=4))))
def test_monotone_predicate_finds_exactly_the_culprits(case):
    n, culprits = case
    res = minimize(list(range(n)), lambda s: culprits <= set(s))
    assert set(res.items) == culprits
    assert list(res.items) == sorted(res.items)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.integers(2, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.sets(st.integers(0, n - 1), min_size=1, max_size=3), min_size=1, max_size=3),
        )
    )
)
def test_any_predicate_gives_a_1_minimal_subset(case):
    """Several alternative sufficient sets (suffices when any of them is kept): the result
    suffices and no single item can be dropped from it."""
    n, alternatives = case

    def suffices(s):
        return any(a <= set(s) for a in alternatives)

    res = minimize(list(range(n)), suffices)
    assert res.complete and suffices(res.items)
    for x in res.items:
        assert not suffices(tuple(y for y in res.items if y != x))
