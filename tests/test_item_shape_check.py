"""schema_compiler.item_shape_check, the judge of a saved report's records decoded with their
integers unbounded (strict_json.fast_decoder): it says yes only where item_check says yes and
every integer is within 2**53 (else the record is decoded again strictly and judged as before),
and for a record of the schema's own keys it says exactly that. Records of the saved fixture
mutated as tests/test_fuzz.py mutates documents. No process is started."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from test_fuzz import mutated_json

from profiler.inputs.schema_compiler import item_check, item_shape_check, schema

RECORDS = json.loads((FIXTURES / "report" / "imports.json").read_text())["modules"]
PLAIN = set(schema("imports")["properties"]["modules"]["items"]["properties"]) - {"statements"}


def _bounded(value) -> bool:
    if isinstance(value, dict):
        return all(map(_bounded, value.values()))
    if isinstance(value, list):
        return all(map(_bounded, value))
    return type(value) is not int or abs(value) <= 2**53


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(RECORDS).flatmap(mutated_json))
def test_a_mutated_record_is_judged_as_item_check_judges_it(record):
    check, shaped = item_check("imports", "modules"), item_shape_check("imports", "modules")
    verdict = shaped(record)
    assert verdict is True or verdict is False
    if verdict:
        assert check(record) and _bounded(record)
    if isinstance(record, dict) and set(record) <= PLAIN:
        assert verdict == (check(record) and _bounded(record)), record


def test_the_edges():
    check, shaped = item_check("imports", "modules"), item_shape_check("imports", "modules")
    base = RECORDS[3]
    assert all(map(shaped, RECORDS))
    for key, value, ok in [("self_us", 2**53, True), ("self_us", 2**53 + 1, False), ("self_us", -1, False),
                           ("self_us", 5.0, True), ("self_us", 5.5, False), ("self_us", True, False),
                           ("self_us_runs", [], True), ("self_us_runs", [1, None], True), ("self_us_runs", [1, True], False),
                           ("self_us_runs", [2**54], False), ("self_us_runs", [1.0], True), ("self_us_runs", [-1], False),
                           ("find_us", None, True), ("find_us", 3, True), ("find_us", "3", False), ("parent", 1, False)]:
        record = {**base, key: value}
        assert shaped(record) is ok, (key, value)
        assert check(record) is (ok or not _bounded(record)), (key, value)
    assert not shaped({**base, "unknown": 1}) and check({**base, "unknown": 1})  # judged by the strict path
    assert not shaped({k: v for k, v in base.items() if k != "name"})
    assert not shaped([base])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RECORDS).flatmap(mutated_json))
def test_the_record_maker_makes_the_record_from_dict_makes(record):
    """model.import_columns_reader._record_maker (ModuleColumnsReader.record: a record made by
    its keys' compiled maker) against ModuleRecord.from_dict, for every valid mutated record:
    equal, with the same fields in the same order and the same extra keys in order."""
    from profiler.model.import_columns_reader import _record_maker
    from profiler.model.import_records import ModuleRecord

    if not item_check("imports", "modules")(record):
        return
    made, read = _record_maker(tuple(record))(record), ModuleRecord.from_dict(record)
    assert made == read and list(vars(made)) == list(vars(read)) and list(made.extra.items()) == list(read.extra.items())
    assert type(made.self_us_runs) is type(read.self_us_runs) and type(made.extra) is type(read.extra)


def test_the_record_makers_kept_are_bounded():
    """A document of many key orders (a hostile one may hold one per record) keeps a compiled
    maker for its first 64 only; the others are made by from_dict, the same record, and no key
    order of theirs is held."""
    from itertools import islice, permutations

    from profiler.model.import_columns_reader import ModuleColumnsReader
    from profiler.model.import_records import ModuleRecord

    reader = ModuleColumnsReader(None)
    values = [{k: RECORDS[0][k] for k in keys} for keys in islice(permutations(RECORDS[0]), 200)]
    for i, value in enumerate(values):
        reader.record(i, value)
    assert len(reader.makers) == 64
    assert list(reader.finish()) == [ModuleRecord.from_dict(v) for v in values]
