"""The compiled schemas (profiler/inputs/schema_compiler.py) say yes exactly when jsonschema finds
no error: every published kind compiles (none falls back to jsonschema's slower walk), on the
keywords' edge cases (enum: true is not 1, 1.0 is 1; additionalProperties false or a schema; an
"integer" 5.0) and on the saved documents of tests/fixtures mutated as tests/test_fuzz.py
mutates them, checked against every kind's schema. No process is started."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples
from _mutations import small
from test_fuzz import mutated_json


def _jsonschema_says(schema: dict, value: object) -> bool:
    from jsonschema import Draft202012Validator

    return not any(True for _ in Draft202012Validator(schema).iter_errors(value))


def test_every_published_schema_compiles():
    from profiler.inputs.documents import kinds
    from profiler.inputs.schema_compiler import _compile, _Unsupported, schema

    refused = {}
    for kind in kinds():
        try:
            _compile(schema(kind))
        except _Unsupported as exc:
            refused[kind] = str(exc)
    assert refused == {}


SCHEMAS = [
    {"enum": ["in-memory", "filesystem"]},
    {"enum": [1, True, None, [1, "a"], {"k": 2}]},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": {"type": "integer", "minimum": 0}},
    {"type": "object", "properties": {"a": {"type": ["integer", "null"]}, "b": {"type": "number"}, "c": {"enum": ["x"]}}},
    {"type": "array", "items": {"type": "object", "required": ["n"], "properties": {"n": {"type": "boolean"}}, "additionalProperties": True}},
    {"properties": {"a": {"type": "integer", "minimum": 3}}, "required": ["a"]},
]
VALUES = [None, True, False, 0, 1, 1.0, 5.0, 5.5, -1, 3, "x", "in-memory", "filesystem", "", [], [1, "a"], [1.0, "a"], [True, "a"],
          {}, {"k": 2}, {"k": 2.0}, {"k": True}, {"a": 1}, {"a": 1.0}, {"a": "s"}, {"a": None}, {"a": "s", "z": 4},
          {"a": "s", "z": -4}, {"a": "s", "z": 4.0}, {"a": 3, "b": 1.5, "c": "x"}, {"a": None, "b": True}, {"c": "y"},
          {"a": 1, "extra": 0}, [{"n": True}], [{"n": 1}], [{}], [{"n": False, "m": 0}], {"a": 2}, {"a": 3.0}]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_the_keywords_edge_cases_as_jsonschema_judges_them(schema):
    from profiler.inputs.schema_compiler import _compile

    check = _compile(schema)
    said = {json.dumps(v): check(v) for v in VALUES}
    judged = {json.dumps(v): _jsonschema_says(schema, v) for v in VALUES}
    assert said == judged
    assert True in said.values() and False in said.values()  # each schema takes some values and refuses others


SAVED = {p.relative_to(FIXTURES).as_posix(): small(json.loads(p.read_text()))
         for folder in ("documents", "report") for p in sorted((FIXTURES / folder).glob("*.json"))}


def _kinds() -> list[str]:
    from profiler.inputs.documents import kinds

    return kinds()


@settings(max_examples=examples(600), deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(SAVED)).flatmap(lambda name: mutated_json(SAVED[name])), st.sampled_from(_kinds()))
def test_mutated_saved_documents_are_judged_as_jsonschema_judges_them(doc, kind):
    from profiler.inputs.schema_compiler import conforms, validator

    assert conforms(doc, kind) == (not any(True for _ in validator(kind).iter_errors(doc)))


@pytest.mark.parametrize("name", sorted(SAVED))
def test_the_saved_documents_conform_to_their_own_kind(name):
    from profiler.inputs.documents import kind_of, kinds
    from profiler.inputs.schema_compiler import conforms

    doc = json.loads((FIXTURES / name).read_text())
    kind = kind_of(doc)
    if kind not in kinds():
        pytest.skip(f"{kind}: no published schema")
    assert conforms(doc, kind)
    assert not conforms(dict(doc, schema=None), kind)
