"""The rules of an `importprof.imports/1` report that its JSON schema cannot say: a module's
parent is a module of its process, its depth no deeper than the modules there are, its four
phases all numbers or all null. Over the records of a whole-file read, or over the segments
of one read a line at a time (a layout's rows judged once)."""

from __future__ import annotations

from typing import AbstractSet, Callable


def imports_rules(doc: dict) -> str | None:
    names: dict[int, set[str]] = {}
    for m in doc["modules"]:
        names.setdefault(m.get("process", 0), set()).add(m["name"])
    for i, m in enumerate(doc["modules"]):
        problem = _phases_rule(i, m.get)
        if problem is not None:
            return problem
        depth = m.get("depth")
        if isinstance(depth, int) and depth > len(names.get(m.get("process", 0), ())):
            # a depth is a place in the chain of imports: never deeper than the modules there are
            return f"modules[{i}].depth: {depth} is deeper than the {len(names.get(m.get('process', 0), ()))} modules of its process"
        parent = m.get("parent")
        if parent is not None and parent not in names.get(m.get("process", 0), ()):
            return f"modules[{i}].parent: {parent!r} is not a module of process {m.get('process', 0)}"
    return None


_PHASE_KEYS = ("find_us", "read_us", "unmarshal_us", "exec_us")


def _phases_rule(i: int, get: Callable[[str], object]) -> str | None:
    """imports --phases writes a module's four phases together: all numbers, or all null (a
    module its hooks did not see). A record with some of them only is not one it writes (the
    phase columns would have a hole where a figure is drawn). `get`: a key's value (None when
    missing)."""
    if get("find_us") is None and get("read_us") is None and get("unmarshal_us") is None and get("exec_us") is None:
        return None
    missing = [k for k in _PHASE_KEYS if get(k) is None]
    if not missing:
        return None
    given = next(k for k in _PHASE_KEYS if get(k) is not None)
    return f"modules[{i}].{missing[0]}: null (or missing) beside {given} {get(given)!r}: a module's phases are all numbers or all null"


RULES = {"imports": imports_rules}


def imports_rules_by_segment(segments) -> str | None:
    """imports_rules over ModuleColumnsReader's segments (process, first index, layout or
    records): a layout's rows judged once for every process that has them alone."""
    names: dict[int, AbstractSet[str]] = {}
    shared: set[int] = set()  # processes in more than one segment: their names are the union
    for process, _, rows in segments:
        own: AbstractSet[str]
        if isinstance(rows, tuple):
            own = {m.name for m in rows}
        else:  # one set per layout, shared by its processes (a thousand sets of 500 names are 30 MB)
            own = rows.memo.get("name_set")
            if own is None:
                own = rows.memo["name_set"] = frozenset(rows.names)
        if process in names:
            if process not in shared:
                names[process] = set(names[process])
                shared.add(process)
            names[process] |= own
        else:
            names[process] = own
    judged: dict = {}
    for process, start, rows in segments:
        known = names[process]
        if isinstance(rows, tuple):
            entries = [(m.depth, m.parent) for m in rows]
        else:
            key = (id(rows), len(known), process in shared)
            if process not in shared and judged.get(key) == "ok":
                continue
            entries = list(zip(rows.depths, rows.parents))
        for j, (depth, parent) in enumerate(entries):
            if isinstance(rows, tuple):  # a record (a layout's rows have no phases): its phases are its extra's keys
                problem = _phases_rule(start + j, rows[j].extra.get)
                if problem is not None:
                    return problem
            if isinstance(depth, int) and depth > len(known):
                return f"modules[{start + j}].depth: {depth} is deeper than the {len(known)} modules of its process"
            if parent is not None and parent not in known:
                return f"modules[{start + j}].parent: {parent!r} is not a module of process {process}"
        if not isinstance(rows, tuple) and process not in shared:
            judged[key] = "ok"
    return None

