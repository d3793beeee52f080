"""The edits the JSON fuzzing makes to a saved document, one walk for both of its users:
tests/test_fuzz.py (hypothesis draws them: mutated_json; tests/test_schema_compiler.py too) and
benchmarks/bench_schema.py (a seeded random.Random: its mutated copies judged by three
validators). Only where the choices come from differs, so the benchmark's copies stay the edits
the fuzz tests make; `small` is the saved document they start from, its long lists cut."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

ACTIONS = ("value", "delete", "add", "empty", "dup", "stringify", "negate")


def mutate(base: object, integer: Callable[[int, int], int], choice: Callable[[Sequence[Any]], Any],
           value: Callable[[], object], key: Callable[[], str]) -> Any:
    """`base` with 1-4 edits at random places: a value replaced by any JSON value (`value()`), a
    key deleted or added (named by `key()`), a list emptied or an item repeated, a number turned
    into a string or negated. `integer(lo, hi)` and `choice(items)` make every other choice."""
    doc = copy.deepcopy(base)
    for _ in range(integer(1, 4)):
        parent: Any = None
        at: Any = None
        node: Any = doc
        while isinstance(node, (dict, list)) and node and integer(0, 3):
            at = choice(sorted(node) if isinstance(node, dict) else range(len(node)))
            parent, node = node, node[at]
        action = choice(ACTIONS)
        if parent is None:
            if action == "value":
                doc = value()
            continue
        if action == "value":
            parent[at] = value()
        elif action == "delete":
            del parent[at]
        elif action == "add" and isinstance(node, dict):
            node[key()] = value()
        elif action == "empty" and isinstance(node, (list, dict)):
            parent[at] = type(node)()
        elif action == "dup" and isinstance(parent, list):
            parent.insert(at, copy.deepcopy(node))
        elif action == "stringify" and isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[at] = str(node)
        elif action == "negate" and isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[at] = -node - 1
    return doc


def small(doc: dict, keep: int = 5) -> dict:
    """The fixture with its long lists cut (fuzzing speed; the shape stays)."""
    def cut(node: Any) -> Any:
        if isinstance(node, list):
            return [cut(x) for x in node[:keep]]
        if isinstance(node, dict):
            return {k: cut(v) for k, v in node.items()}
        return node

    out: dict = cut(doc)
    if out.get("schema") == "importprof.imports/1":  # keep parents inside the cut
        names = {m["name"] for m in out["modules"]}
        for m in out["modules"]:
            if m.get("parent") not in names:
                m["parent"] = None
    return out
