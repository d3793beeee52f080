"""The JSON Schema compiler: each published schema (profiler/schemas/<kind>.json) compiled once
into plain Python checks, a fast yes/no for a document or for one item of its big list;
jsonschema (schema_problems) judges what this refuses and names the problem."""

from __future__ import annotations

import os

# profiler/schemas/: one level up from this package
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas")

_VALIDATORS: dict = {}


def schema(kind: str) -> dict:
    import json

    with open(os.path.join(SCHEMA_DIR, f"{kind}.json"), encoding="utf-8") as fh:
        return json.load(fh)


def validator(kind: str):
    if kind not in _VALIDATORS:
        from jsonschema import Draft202012Validator

        _VALIDATORS[kind] = Draft202012Validator(schema(kind))
    return _VALIDATORS[kind]


_FAST: dict = {}


def conforms(doc: object, kind: str) -> bool:
    """A fast yes/no against `kind`'s schema (about 10x jsonschema's speed on big documents):
    the schemas use a small subset of JSON Schema (type, properties, additionalProperties,
    required, items, minimum, const, enum, anyOf), compiled here to plain checks. jsonschema stays the judge: a document this
    refuses is validated again by jsonschema, which names the problem (tests/test_fuzz.py and
    tests/test_schema_compiler.py check that both agree on mutated documents). Measured against
    jsonschema and fastjsonschema by benchmarks/bench_schema.py (docs/benchmarks.md)."""
    if kind not in _FAST:
        try:
            _FAST[kind] = _compile(schema(kind))
        except _Unsupported:
            _FAST[kind] = None
    check = _FAST[kind]
    return check(doc) if check is not None else not list(validator(kind).iter_errors(doc))


class _Unsupported(Exception):
    pass


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_MISSING = object()


def _leaf(s: dict):
    """A schema of only `type` (and `minimum`): one dict lookup by the value's Python type."""
    names = s["type"] if isinstance(s["type"], list) else [s["type"]]
    table = {
        str: "string" in names, bool: "boolean" in names, type(None): "null" in names,
        list: "array" in names, dict: "object" in names,
        int: "integer" in names or "number" in names,
    }
    number, integer, low = "number" in names, "integer" in names, s.get("minimum")

    def check(x):
        t = type(x)
        if t is float:
            ok = number or (integer and x.is_integer())
        else:
            ok = table.get(t, False)
        if ok and low is not None and (t is int or t is float) and x < low:
            return False
        return ok

    return check


def _same(a, b) -> bool:
    """JSON's equality (enum): 1 and 1.0 are one number, true is not 1, lists and objects
    compared item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _enum(values: list):
    if all(isinstance(v, str) for v in values):
        names = frozenset(values)
        return lambda x: isinstance(x, str) and x in names
    return lambda x: any(_same(x, v) for v in values)


def _additional(known: frozenset, value):
    """additionalProperties: what the keys not in `properties` must be (False: none of them)."""
    if value is True:
        return lambda x: True
    if value is False:
        return lambda x: type(x) is not dict or x.keys() <= known
    extra = _compile(value)
    return lambda x: type(x) is not dict or all(extra(v) for k, v in x.items() if k not in known)


_NOTES = {"$schema", "$id", "title", "description"}  # say nothing about the instance
_TYPES = {"string": (str,), "boolean": (bool,), "null": (type(None),), "array": (list,), "object": (dict,),
          "integer": (int,), "number": (int, float)}


def _exact_types(s: dict) -> frozenset | None:
    """The Python types a schema of only `type` accepts, when the type of a value says it all
    (not an "integer" without "number": 5.0 is an integer)."""
    if set(s) - _NOTES != {"type"}:
        return None
    names = s["type"] if isinstance(s["type"], list) else [s["type"]]
    if "integer" in names and "number" not in names or not all(n in _TYPES for n in names):
        return None
    return frozenset(t for n in names for t in _TYPES[n])


def _object(s: dict):
    """An object's schema (type object, required, properties, additionalProperties) as one check:
    the keys a document holds thousands of (a module's record) pay one call, and a property of
    a type alone none."""
    required = tuple(s.get("required", ()))
    props = s.get("properties", {})
    simple, least, other = [], [], []
    for name, sub in props.items():
        types = _exact_types(sub)
        names = sub.get("type") if isinstance(sub.get("type"), list) else [sub.get("type")]
        if types is not None:
            simple.append((name, types))
        elif set(sub) - _NOTES == {"type", "minimum"} and _is_number(sub["minimum"]) and ("integer" in names or "number" in names):
            least.append((name, sub["minimum"], _leaf(sub)))  # an int is tested inline, anything else by the leaf
        else:
            other.append((name, _compile(sub)))
    typed, counted, checked = tuple(simple), tuple(least), tuple(other)
    extra = _additional(frozenset(props), s["additionalProperties"]) if "additionalProperties" in s else None

    def check(x):
        if type(x) is not dict:
            return False
        for k in required:
            if k not in x:
                return False
        for name, types in typed:
            v = x.get(name, _MISSING)
            if v is not _MISSING and type(v) not in types:
                return False
        for name, low, leaf in counted:
            v = x.get(name, _MISSING)
            if v is _MISSING:
                continue
            if type(v) is int:
                if v < low:
                    return False
            elif not leaf(v):
                return False
        for name, f in checked:
            v = x.get(name, _MISSING)
            if v is not _MISSING and not f(v):
                return False
        return extra is None or extra(x)

    return check


def _compile(s: dict):
    keys = set(s) - _NOTES
    if keys and keys <= {"type", "minimum"} and "type" in keys:
        return _leaf(s)
    if s.get("type") == "object" and keys <= {"type", "required", "properties", "additionalProperties"} and \
            isinstance(s.get("additionalProperties", True), (bool, dict)):
        return _object(s)
    checks = []
    for key in sorted(keys, key=lambda k: k != "type"):  # the type first: later checks assume it
        value = s[key]
        if key == "type":
            checks.append(_leaf({"type": value}))
        elif key == "minimum":
            checks.append(lambda x, m=value: not _is_number(x) or x >= m)
        elif key == "required":
            checks.append(lambda x, r=tuple(value): not isinstance(x, dict) or all(k in x for k in r))
        elif key == "properties":
            props = tuple((name, _compile(sub)) for name, sub in value.items())

            def check_props(x, props=props):
                if type(x) is not dict:
                    return True
                for name, f in props:
                    v = x.get(name, _MISSING)
                    if v is not _MISSING and not f(v):
                        return False
                return True

            checks.append(check_props)
        elif key == "items":
            item = _compile(value)
            checks.append(lambda x, item=item: type(x) is not list or all(map(item, x)))
        elif key == "const" and isinstance(value, str):
            checks.append(lambda x, c=value: isinstance(x, str) and x == c)
        elif key == "enum" and isinstance(value, list):
            checks.append(_enum(value))
        elif key == "additionalProperties" and isinstance(value, (bool, dict)) and "patternProperties" not in s:
            checks.append(_additional(frozenset(s.get("properties", {})), value))
        elif key == "anyOf":
            branches = tuple(_compile(b) for b in value)
            checks.append(lambda x, bs=branches: any(b(x) for b in bs))
        else:
            raise _Unsupported(key)
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def check_all(x):
        for c in every:
            if not c(x):
                return False
        return True

    return check_all


def item_check(kind: str, key: str):
    """A fast yes/no of one item of the list `key` against its schema (conforms' compiled checks)."""
    name = f"{kind}:{key}"
    if name not in _FAST:
        sub = schema(kind)["properties"][key].get("items", {})
        try:
            _FAST[name] = _compile(sub)
        except _Unsupported:
            _FAST[name] = lambda x, sub=sub: not list(item_validator(kind, key).iter_errors(x))
    return _FAST[name]


def item_validator(kind: str, key: str):
    name = f"{kind}:{key}"
    if name not in _VALIDATORS:
        from jsonschema import Draft202012Validator

        _VALIDATORS[name] = Draft202012Validator(schema(kind)["properties"][key].get("items", {}))
    return _VALIDATORS[name]
