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


# the bound fast_decoder leaves to its caller (inputs.strict_json.MAX_JSON_INT)
_MAX_INT = 2**53
_SHAPES_KEPT = 64  # distinct shapes judged per list; past that, items take item_check and the strict decoder


def item_shape_check(kind: str, key: str):
    """A yes/no of one item of the list `key` decoded by strict_json.fast_decoder (its integers
    unbounded): True only when item_check would say yes and every integer of it is within
    2**53, False when the caller is to decode its text again strictly and judge it by
    item_check (a refusal then said as before). An item's keys in their order are judged once:
    each value is then tested inline by one compiled expression (its type, an integer's minimum
    and the 2**53 bound, a list's items by min and max in C), no loop over the schema's
    properties; keys this cannot judge so (an object, an unknown key, a schema beyond type,
    minimum and an array of such) say False for every item that has them."""
    sub = schema(kind)["properties"][key].get("items", {})
    shapes: dict = {}

    def check(value) -> bool:
        if type(value) is not dict:
            return False
        keys = tuple(value)
        judge = shapes.get(keys)
        if judge is None:
            if len(shapes) >= _SHAPES_KEPT:
                return False
            judge = shapes[keys] = _shape_judge(sub, keys)
        return judge(value)

    return check


def _never(value) -> bool:
    return False


def _leaf_terms(s: object) -> tuple[frozenset, object] | None:
    """A schema of only type (and minimum) as (the Python types it may take, its minimum or
    None); None for any other schema."""
    if not isinstance(s, dict) or set(s) - _NOTES - {"minimum"} != {"type"}:
        return None
    names = s["type"] if isinstance(s["type"], list) else [s["type"]]
    low = s.get("minimum")
    if not all(n in _TYPES for n in names) or (low is not None and not _is_number(low)):
        return None
    taken = {t for n in names for t in _TYPES[n]}
    if "integer" in names:
        taken.add(float)  # 5.0 is an integer: a float is judged by the leaf
    return frozenset(taken), low


def _value_test(n: int, s: dict, env: dict) -> str | None:
    """The inline test of value `v{n}` against a leaf schema `s` (item_check's verdict, every
    integer within 2**53), its constants put in `env`; None for a schema beyond a leaf."""
    terms = _leaf_terms(s)
    if terms is None:
        return None
    taken, low = terms
    v = f"v{n}"
    out = []
    if type(None) in taken:
        out.append(f"{v} is None")
    if int in taken:
        env[f"L{n}"] = -_MAX_INT if low is None else low
        out.append(f"(type({v}) is int and L{n} <= {v} <= M)")
    for t, name in ((str, "str"), (bool, "bool"), (list, "list"), (dict, "dict")):
        if t in taken:
            out.append(f"type({v}) is {name}")
    if float in taken:
        env[f"F{n}"] = _leaf(s)
        out.append(f"(type({v}) is float and F{n}({v}))")
    return "(" + " or ".join(out or ["False"]) + ")"


def _shape_judge(sub: dict, keys: tuple):
    """The check of every item with these keys in this order: item_check's verdict, and every
    integer within 2**53."""
    if sub.get("type") != "object" or set(sub) - _NOTES - {"type", "required", "properties", "additionalProperties"}:
        return _never
    props = sub.get("properties", {})
    if not set(sub.get("required", ())) <= set(keys):
        return _never  # item_check refuses it: said by the strict path
    env: dict = {"M": _MAX_INT, "INTS": frozenset({int})}
    tests = []
    for n, k in enumerate(keys):
        prop = props.get(k)
        if not isinstance(prop, dict):
            return _never  # an unknown key: the strict path
        test = _value_test(n, prop, env)
        if test is None and prop.get("type") == "array" and set(prop) - _NOTES == {"type", "items"}:
            item = _leaf_terms(prop["items"])
            if item is None or not item[0] <= {int, float, type(None)}:
                return _never
            floor = -_MAX_INT if item[1] is None else item[1]
            env[f"L{n}"], env[f"S{n}"] = floor, _int_list(prop["items"], *item)
            v = f"v{n}"
            # a list of integers (the usual one) by min and max in C; any other by its items
            fast = f"{{*map(type, {v})}} <= INTS and min({v}, default=0) >= L{n} and max({v}, default=0) <= M" \
                if int in item[0] else "False"
            test = f"(type({v}) is list and (({fast}) or S{n}({v})))"
        if test is None:
            return _never  # an object, a schema beyond these: the strict path
        tests.append(test)
    names = "".join(f"v{n}, " for n in range(len(keys)))
    lines = ["def judge(x):", f"    ({names}) = x.values()", f"    return {' and '.join(tests) or 'True'}"]
    exec(compile("\n".join(lines) + "\n", "<item_shape_check>", "exec"), env)
    return env["judge"]


def _int_list(items: dict, taken: frozenset, low):
    """A list whose items' schema is a leaf taking integers, floats or null: each item taken,
    an integer from the minimum (if any) to 2**53, a float judged by the leaf."""
    floor = -_MAX_INT if low is None else low
    leaf = _leaf(items)

    def check(xs) -> bool:
        if not set(map(type, xs)) <= taken:
            return False
        ints = [x for x in xs if type(x) is int]
        if ints and (min(ints) < floor or max(ints) > _MAX_INT):
            return False
        return all(map(leaf, (x for x in xs if type(x) is float)))

    return check
