"""Documents declared once (profiler/model/document.py): a document's dataclass fields are its
JSON keys, and its JSON schema (profiler/schemas/<kind>.json) must name exactly those keys, at
every level the schema describes: adding a field without its schema entry, or a schema entry
no field writes, fails here. Saved real documents (tests/fixtures/report/) read back into the
dataclasses and write out the same JSON."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import typing

import pytest

from conftest import FIXTURES, REPO
from profiler.model.document import Document, Record, Saved, derived, field_types, saved

SCHEMAS = REPO / "profiler" / "schemas"


def _all_documents() -> list[type]:
    import profiler.model as pkg

    for m in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"profiler.model.{m.name}")
    out, todo = [], list(Document.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if dataclasses.is_dataclass(cls) and cls.SCHEMA:
            out.append(cls)
    return sorted(out, key=lambda c: c.__name__)


def _record_of(tp) -> type | None:
    """The record type a field holds (itself, in a tuple, or optional)."""
    for arg in (tp, *typing.get_args(tp)):
        if isinstance(arg, type) and issubclass(arg, Record):
            return arg
        inner = typing.get_args(arg)
        if inner and isinstance(inner[0], type) and issubclass(inner[0], Record):
            return inner[0]
    return None


def _object_schema(prop: dict) -> dict | None:
    """The object schema a property describes (directly, or as the items of an array)."""
    if "properties" in prop:
        return prop
    items = prop.get("items")
    if isinstance(items, dict) and "properties" in items:
        return items
    return None


def _written(cls: type) -> tuple[set, dict, bool]:
    """(the keys a record writes, {key: the record written under it}, whether a flattened dict
    writes keys of its own too)."""
    keys = set(cls.saved_fields())
    below: dict = {}
    open_keys = False
    hints = field_types(cls)
    for f in dataclasses.fields(cls):
        if f.name in cls.NOT_SAVED:
            continue
        spec = f.metadata.get("json") or Saved()
        sub = spec.write_as or _record_of(hints[f.name])
        if spec.flatten:
            if sub is None:
                open_keys = True
            else:
                k, b, o = _written(sub)
                keys |= k
                below.update(b)
                open_keys |= o
        elif sub is not None and not spec.pairs:
            below[spec.key or f.name] = (sub, spec.bare)
    return keys, below, open_keys


def _disagreements(classes: list, schema: dict, where: str, envelope: bool) -> list[str]:
    """What the schema and the classes writing it (several when they share a kind) disagree on,
    at every level the schema describes."""
    keys, below, open_keys = set(), {}, False
    for cls in classes:
        k, b, o = _written(cls)
        keys |= k
        below.update(b)
        open_keys |= o
    if envelope:
        keys.add("schema")
    props = set(schema.get("properties", {}))
    out = []
    if keys - props:
        out.append(f"{where}: fields the schema does not name: {sorted(keys - props)}")
    if props - keys and not open_keys:
        out.append(f"{where}: schema keys no field writes: {sorted(props - keys)}")
    for name, (sub, bare) in below.items():
        nested = _object_schema(schema.get("properties", {}).get(name, {}))
        if nested is None:
            continue
        if bare:  # a document written without its envelope
            sub_keys = set(sub.saved_fields()) - {"machine"}
            got = set(nested.get("properties", {}))
            if sub_keys != got:
                out.append(f"{where}.{name}: keys {sorted(sub_keys ^ got)} written or named on one side only")
            continue
        out += _disagreements([sub], nested, f"{where}.{name}", envelope=False)
    return out


DOCUMENTS = _all_documents()


def test_documents_are_declared_with_the_base():
    # the pilot kinds at least; every kind moves here as its model is touched
    names = {c.SCHEMA for c in DOCUMENTS}
    assert "importprof.site/1" in names


KINDS = sorted({c.SCHEMA for c in DOCUMENTS})


@pytest.mark.parametrize("name", KINDS)
def test_the_schema_names_exactly_the_fields(name):
    kind = name.split(".", 1)[1].split("/")[0]
    schema = json.loads((SCHEMAS / f"{kind}.json").read_text())
    assert schema["properties"]["schema"] == {"const": name}
    classes = [c for c in DOCUMENTS if c.SCHEMA == name]  # build/1: two builders write parts of it
    assert _disagreements(classes, schema, kind, envelope=True) == []


@pytest.mark.parametrize("cls", DOCUMENTS, ids=lambda c: c.SCHEMA)
def test_a_saved_document_reads_back_and_writes_the_same_json(cls):
    kind = cls.SCHEMA.split(".", 1)[1].split("/")[0]
    # a kind two classes write (build/1: importprof's builder and `build --pyoxidizer`) is saved once per class
    shared = sum(1 for c in DOCUMENTS if c.SCHEMA == cls.SCHEMA) > 1
    name = f"{kind}-{cls.__name__}.json" if shared else f"{kind}.json"
    saved = FIXTURES / "report" / name
    if not saved.exists():
        saved = FIXTURES / "documents" / name
    if not saved.exists():
        pytest.skip(f"no saved {name} in tests/fixtures/report or tests/fixtures/documents (see its README for why)")
    doc = json.loads(saved.read_text())
    again = cls.from_dict(doc).to_dict()
    # a fixture saved by an earlier version lacks keys added since (adding is fine): every key
    # it has, at every level, is written back with its value
    assert _as_saved(again, doc) == doc


def _as_saved(again, saved):
    """`again` cut down to the keys `saved` has, at every level."""
    if isinstance(saved, dict) and isinstance(again, dict):
        return {k: _as_saved(again[k], v) if k in again else "<not written>" for k, v in saved.items()}
    if isinstance(saved, list) and isinstance(again, list) and len(saved) == len(again):
        return [_as_saved(a, v) for a, v in zip(again, saved)]
    return again


@dataclasses.dataclass(frozen=True)
class _Inner(Record):
    a: int
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class _Outer(Document):
    SCHEMA = ""  # an example, not a document kind
    items: tuple[_Inner, ...]
    best: _Inner | None = None
    pair: tuple[int, int] | None = None


def test_record_round_trip_through_annotations():
    value = _Outer(items=(_Inner(1, ("x",)), _Inner(2)), best=_Inner(3), pair=(4, 5))
    d = value.to_dict()
    assert d == {"schema": "", "items": [{"a": 1, "tags": ["x"]}, {"a": 2, "tags": []}],
                 "best": {"a": 3, "tags": []}, "pair": [4, 5]}
    assert _Outer.from_dict(json.loads(json.dumps(d))) == value


@dataclasses.dataclass(frozen=True)
class _Declared(Document):
    SCHEMA = ""  # an example of every field option, not a document kind
    DERIVED = (derived("count", after="title"), derived("half", round=2))

    name: str = saved(key="title")
    when: float | None = saved(default=None, round=3)
    pairs: tuple[tuple[str, int], ...] = saved(default=(), pairs=("k", "n"))
    env: tuple[tuple[str, str], ...] = saved(default=(), pairs="map")
    group: str | None = saved(default=None, omit=("group",))
    note: str | None = saved(default=None, omit="none")
    machine: dict = saved(default_factory=dict, after="schema")
    runs: int = saved(default=0, missing_from=lambda d: len(d["pairs"]))
    extra: dict = saved(default_factory=dict, flatten=True)

    @property
    def count(self) -> int:
        return len(self.pairs)

    @property
    def half(self) -> float:
        return self.count / 3


def test_field_options_write_and_read_back():
    value = _Declared("x", 1.23456, (("a", 1),), (("K", "V"),), machine={"m": 1}, runs=1, extra={"later": True, "title": "no"})
    d = value.to_dict()
    assert list(d) == ["schema", "machine", "title", "count", "when", "pairs", "env", "runs", "half", "later"]
    assert d["title"] == "x" and d["when"] == 1.235 and d["pairs"] == [{"k": "a", "n": 1}] and d["env"] == {"K": "V"}
    assert d["half"] == 0.33 and d["later"] is True  # a flattened key never replaces a field's
    back = _Declared.from_dict(json.loads(json.dumps(d)))
    assert back == dataclasses.replace(value, when=1.235, extra={"later": True})
    full = dataclasses.replace(value, group="g", note="n")
    assert full.to_dict()["group"] == "g" and full.to_dict()["note"] == "n"
    del d["runs"]  # an older document: the value is made from the others
    assert _Declared.from_dict(d).runs == 1


def test_every_model_class_is_declared():
    """No hand-written to_dict/from_dict in the model but the two whose reason is stated."""
    import inspect

    import profiler.model as pkg

    allowed = {("TimingResult", "from_dict"), ("TraceReport", "to_dict"), ("TraceReport", "from_dict")}
    found = set()
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name == "document":
            continue
        mod = importlib.import_module(f"profiler.model.{m.name}")
        for name, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__:
                found |= {(name, meth) for meth in ("to_dict", "from_dict") if meth in cls.__dict__
                          and not getattr(cls.__dict__[meth], "__qualname__", "").endswith("_guarded.<locals>.to_dict")}
    assert found == allowed


def test_every_kind_has_a_version_history_and_readers_take_what_it_lists():
    """profiler/schemas/__init__.py: HISTORY: each kind with a schema has its version history,
    and the reader accepts exactly the versions listed there."""
    from pathlib import Path

    from profiler.errors import BadInput
    from profiler.inputs.documents import check_document
    from profiler.schemas import HISTORY, readable_versions

    schemas = {p.stem for p in (Path(__file__).resolve().parent.parent / "profiler" / "schemas").glob("*.json")}
    assert schemas <= set(HISTORY), sorted(schemas - set(HISTORY))
    for kind, versions in HISTORY.items():
        assert [v["version"] for v in versions] == sorted({v["version"] for v in versions}) and versions[0]["since"]
        assert readable_versions(kind) == tuple(v["version"] for v in versions)
    newest = max(readable_versions("site"))
    with pytest.raises(BadInput, match=f"importprof.site/{newest}"):
        check_document({"schema": f"importprof.site/{newest + 1}"}, "x.json")
