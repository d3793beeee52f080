"""Documents declared once: a frozen dataclass's fields ARE its JSON.

`Record` gives a dataclass `to_dict()` (its fields in declaration order; tuples become lists,
nested records their dicts) and `from_dict()` (the reverse, driven by the field annotations:
`tuple[X, ...]`, `X | None`, nested records). `Document` adds the envelope every saved
document starts with: `"schema": "importprof.<kind>/1"` (the class's SCHEMA) before its fields.
So adding a field to a document is one line in its dataclass; the JSON schema beside it
(profiler/schemas/<kind>.json) is checked against the fields by tests/test_documents_declared.py.

A field that is not saved (only for this run) is named in `NOT_SAVED`; a property the document
carries for its readers (a figure derived from the fields) is named in `DERIVED` and written
after the fields (never read back). A key a class spells differently on disk is not allowed:
the field is named as the key.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, ClassVar


def _dump(value: Any) -> Any:
    """A field's JSON form: records become their dicts, tuples lists. A dict field is JSON
    already (machine facts, a document read from disk) and goes out as it is: walking it would
    recurse as deep as a user's document nests."""
    if hasattr(value, "to_dict"):  # a record, or a model object with its own JSON form
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_dump(v) for v in value]
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """The resolved annotations of a record's fields (cached per class)."""
    hints = _HINTS.get(cls)
    if hints is None:
        # each class's annotations are resolved in its own module (typing's default)
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) is typing.Union or isinstance(tp, getattr(types, "UnionType", ()))


def _load(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    if _is_union(tp):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _load(options[0], value) if len(options) == 1 else value
    origin = typing.get_origin(tp)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], v) for v in value)
        if args and len(args) == len(value):
            return tuple(_load(a, v) for a, v in zip(args, value))
        return tuple(value)
    if tp is tuple:
        return tuple(value)
    if isinstance(tp, type) and issubclass(tp, Record) and isinstance(value, dict):
        return tp.from_dict(value)
    return value


_PLAIN = frozenset((str, int, float, bool))
_NAMES: dict[type, tuple[str, ...]] = {}


def _saved_names(cls: type) -> tuple[str, ...]:
    """The saved fields, then the derived figures (cached per class)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = cls.saved_fields()
    return names


class Record:
    """Mixin for frozen dataclasses whose JSON form is their fields."""

    NOT_SAVED: ClassVar[tuple[str, ...]] = ()
    DERIVED: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict:
        out = {}
        for name in _saved_names(type(self)):
            value = getattr(self, name)
            # plain values as they are (a document of 100,000 records writes millions of them)
            out[name] = value if value is None or type(value) in _PLAIN else _dump(value)
        return out

    @classmethod
    def from_dict(cls, d: dict):
        hints = field_types(cls)
        kwargs = {
            f.name: _load(hints[f.name], d[f.name])
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.init and f.name in d and f.name not in cls.NOT_SAVED
        }
        return cls(**kwargs)

    @classmethod
    def saved_fields(cls) -> tuple[str, ...]:
        """The keys of its JSON: the saved fields, then the derived figures."""
        fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in cls.NOT_SAVED)  # type: ignore[arg-type]
        return fields + tuple(cls.DERIVED)


class Document(Record):
    """A saved document: the schema's name first, then the fields."""

    SCHEMA: ClassVar[str] = ""

    def to_dict(self) -> dict:
        return {"schema": self.SCHEMA, **super().to_dict()}

    @classmethod
    def from_dict(cls, d: dict):
        """Read back a saved document of this kind (another kind is a ValueError naming it)."""
        if not isinstance(d, dict) or d.get("schema") != cls.SCHEMA:
            got = d.get("schema") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"not an {cls.SCHEMA} document (schema={got!r})")
        return super().from_dict(d)
