"""What is wrong with a document its compiled schema refused: jsonschema judges it, and the first
offending place in document order is said as `modules[3].self_us: expected integer (got a
string)`."""

from __future__ import annotations

from profiler.inputs.schema_compiler import conforms, item_validator, validator


def first_problem(doc: dict, kind: str) -> str | None:
    """The first place (in document order) where `doc` breaks `kind`'s schema, as
    `path: what was expected (what was found)`; None when it conforms."""
    import itertools

    if conforms(doc, kind):
        return None

    errors = list(itertools.islice(validator(kind).iter_errors(doc), 100))
    if not errors:
        return None
    error = min(errors, key=lambda e: _order(doc, e.absolute_path))
    branches = error.validator_value if error.validator == "anyOf" else None
    if branches and all(set(b) == {"required"} for b in branches):
        prefix = _where(error.absolute_path) + "." if error.absolute_path else ""
        return f"{prefix}{' or '.join(k for b in branches for k in b['required'])}: missing"
    while error.context:  # anyOf/oneOf: the closest branch's first error
        from jsonschema.exceptions import best_match

        error = best_match(error.context)
    return _describe(error)


def _order(doc: object, path) -> tuple:
    """Where `path` comes in the document as written (keys in their order, items by index)."""
    out, node = [], doc
    for p in path:
        if isinstance(node, dict) and p in node:
            out.append(list(node).index(p))
            node = node[p]
        elif isinstance(node, list) and isinstance(p, int) and p < len(node):
            out.append(p)
            node = node[p]
        else:
            out.append(-1)
            node = None
    return tuple(out)


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the document"


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _shown(value: object) -> str:
    text = repr(value) if isinstance(value, (int, float, str, bool)) else json_type(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(error, prefix: tuple = ()) -> str:
    """`prefix`: where the instance validated sits in its document (an item read alone)."""
    where = _where((*prefix, *error.absolute_path))
    kind, expected, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        names = expected if isinstance(expected, list) else [expected]
        got = json_type(value) + ("" if isinstance(value, (list, dict)) or value is None else f" {_shown(value)}")
        return f"{where}: expected {' or '.join(names)} (got {got})"
    if kind == "required":
        missing = next((k for k in expected if isinstance(value, dict) and k not in value), expected[0])
        return f"{where + '.' if prefix or error.absolute_path else ''}{missing}: missing"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[kind]
        return f"{where}: expected {sign} {expected} (got {_shown(value)})"
    if kind == "const":
        return f"{where}: expected {expected!r} (got {_shown(value)})"
    if kind == "enum":
        return f"{where}: expected one of {', '.join(map(repr, expected))} (got {_shown(value)})"
    message = error.message
    return f"{where}: {message if len(message) <= 120 else message[:117] + '...'}"



def item_problem(kind: str, key: str, i: int, value) -> str:
    """first_problem's message for item `i` of the list `key` (`modules[3].self_us: ...`),
    jsonschema judging the item against its sub-schema."""
    import itertools

    errors = list(itertools.islice(item_validator(kind, key).iter_errors(value), 100))
    if not errors:
        return f"{key}[{i}]: not valid"
    error = min(errors, key=lambda e: _order(value, e.absolute_path))
    branches = error.validator_value if error.validator == "anyOf" else None
    if branches and all(set(b) == {"required"} for b in branches):
        return f"{_where((key, i, *error.absolute_path))}.{' or '.join(k for b in branches for k in b['required'])}: missing"
    while error.context:
        from jsonschema.exceptions import best_match

        error = best_match(error.context)
    return _describe(error, (key, i))
