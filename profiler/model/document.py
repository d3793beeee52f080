"""Documents declared once: a frozen dataclass's fields ARE its JSON.

`Record` gives a dataclass `to_dict()` (its fields in declaration order; tuples become lists,
nested records their dicts) and `from_dict()` (the reverse, driven by the field annotations:
`tuple[X, ...]`, `X | None`, nested records). `Document` adds the envelope every saved
document starts with: `"schema": "importprof.<kind>/1"` (the class's SCHEMA) before its fields.
So adding a field to a document is one line in its dataclass; the JSON schema beside it
(profiler/schemas/<kind>.json) is checked against the fields by tests/test_documents_declared.py.

A field that is not saved (only for this run) is named in `NOT_SAVED`; a property the document
carries for its readers (a figure derived from the fields) is named in `DERIVED` and written
after the fields (never read back); `derived(name, key=, round=, after=)` says more about one.

A field whose JSON is not simply its value says how in its declaration, `saved(...)` (the
dataclass `field()` with the JSON options; every option is read by the code made for the class,
nothing else looks at them):

  key="variant"         the JSON key, when the field is spelled differently
  omit="none"|"empty"   written only when not None / not empty; omit=("a", "b"): only when one
                        of those fields is not empty (a feature's keys, written when it ran)
  round=6               a float written to 6 decimals (times to the microsecond)
  pairs=("name", "count")  a tuple of pairs written as records with those keys; pairs="map":
                        as one object
  flatten=True          its keys (a dict's, or a record's) written in its place, never replacing
                        a key written before them (a last flattened field comes after the
                        derived figures); read back from the keys no other field has
  bare=True             a nested document written without its envelope (schema, machine)
  write_as=R            each item written as record R made by `R.of(item)` (a brief form),
                        read back by the field's own type
  after="key"           written right after that key ("" or "schema": first)
  missing=V / missing_from=f  the value when a saved document lacks the key (an older
                        version's, a minimal one): V, or f(the document)

For each class a writer and a reader are made once, as Python source compiled on first use (a
document of 100,000 module records writes and reads them at the speed of a hand-written dict).
"""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import types
import sys
import typing
from typing import Any, Callable, ClassVar, Mapping

_UNSET = object()


@dataclasses.dataclass(frozen=True)
class Saved:
    """The JSON options of one field (see the module's docstring)."""

    key: str | None = None
    omit: Any = None
    round: int | None = None
    pairs: Any = None
    flatten: bool = False
    bare: bool = False
    write_as: Any = None
    after: str | None = None
    missing: Any = _UNSET
    missing_from: Callable[[Mapping], Any] | None = None


def saved(*, default: Any = dataclasses.MISSING, default_factory: Any = dataclasses.MISSING, compare: bool = True,
          repr: bool = True, **options: Any) -> Any:
    """A dataclass field with its JSON options (`Saved`)."""
    return dataclasses.field(default=default, default_factory=default_factory, compare=compare, repr=repr,
                             metadata={"json": Saved(**options)})


@dataclasses.dataclass(frozen=True)
class Derived:
    """A property written with the fields (never read back)."""

    name: str
    key: str | None = None
    round: int | None = None
    after: str | None = None


def derived(name: str, *, key: str | None = None, round: int | None = None, after: str | None = None) -> Derived:
    return Derived(name, key, round, after)


_ENVELOPE = ("schema", "machine")


def _dump(value: Any) -> Any:
    """A value's JSON form: records become their dicts, tuples lists. A dict is JSON already
    (machine facts, a document read from disk) and goes out as it is: walking it would recurse
    as deep as a user's document nests."""
    if hasattr(value, "to_dict"):  # a record, or a model object with its own JSON form
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_dump(v) for v in value]
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """The resolved annotations of a record's fields (cached per class)."""
    hints = _HINTS.get(cls)
    if hints is None:
        # each class's annotations are resolved in its own module (typing's default)
        try:
            hints = typing.get_type_hints(cls)
        except TypeError:
            if sys.version_info >= (3, 10):
                raise
            hints = _hints_before_310(cls)
        _HINTS[cls] = hints
    return hints


def _hints_before_310(cls: type) -> dict[str, Any]:
    """Python 3.9: `X | None` annotations (written as strings under `from __future__ import
    annotations`) evaluated as typing.Union[X, None], each in its class's own module."""
    import ast

    class Unions(ast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            if not isinstance(node.op, ast.BitOr):
                return node
            union = ast.Attribute(value=ast.Name(id="__typing__", ctx=ast.Load()), attr="Union", ctx=ast.Load())
            return ast.Subscript(value=union, slice=ast.Index(value=ast.Tuple(elts=[node.left, node.right], ctx=ast.Load())),
                                 ctx=ast.Load())

    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        namespace = {**vars(sys.modules[klass.__module__]), "__typing__": typing}
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            if isinstance(annotation, str):
                tree = ast.fix_missing_locations(Unions().visit(ast.parse(annotation, mode="eval")))
                annotation = eval(compile(tree, "<annotation>", "eval"), namespace)
            hints[name] = annotation
    return hints


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) is typing.Union or isinstance(tp, getattr(types, "UnionType", ()))


def _load(tp: Any, value: Any) -> Any:
    """A JSON value read back as annotation `tp` says (the general case; the made readers
    handle the common shapes inline)."""
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


_PLAIN = (str, int, float, bool, dict, Any, object, type(None))


def _shape(tp: Any) -> tuple[str, Any, bool]:
    """(kind, record type or None, optional) of an annotation: kind is "plain" (as it is),
    "list" (a tuple of plain values), "record", "records" (a tuple of records) or "other"."""
    optional = False
    if _is_union(tp):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        optional = len(options) < len(typing.get_args(tp))
        if len(options) != 1:
            plain = all(o in _PLAIN for o in options)
            return ("plain" if plain else "other"), None, optional
        tp = options[0]
    if tp in _PLAIN or typing.get_origin(tp) is dict:
        return "plain", None, optional
    if tp is Mapping or typing.get_origin(tp) is collections.abc.Mapping:
        return "mapping", None, optional
    if isinstance(tp, type) and issubclass(tp, Record):
        return "record", tp, optional
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = args[0]
            if isinstance(inner, type) and issubclass(inner, Record):
                return "records", inner, optional
            if inner in _PLAIN or (_is_union(inner) and all(a in _PLAIN for a in typing.get_args(inner))):
                return "list", None, optional
    return "other", None, optional


@dataclasses.dataclass
class _Entry:
    key: str
    name: str  # the attribute
    field: Any  # the dataclasses.Field, None for a derived figure
    spec: Any  # Saved or Derived


def _entries(cls: type[Record]) -> list[_Entry]:
    """The keys of the class's JSON in order: its saved fields, then its derived figures (a last
    flattened field after those), each `after=` moved right after its key."""
    fields = [f for f in dataclasses.fields(cls) if f.name not in cls.NOT_SAVED]  # type: ignore[arg-type]
    out = []
    for f in fields:
        spec = f.metadata.get("json") or Saved()
        out.append(_Entry(spec.key or f.name, f.name, f, spec))
    tail = [out.pop()] if out and out[-1].spec.flatten else []
    for d in cls.DERIVED:
        d = d if isinstance(d, Derived) else Derived(d)
        out.append(_Entry(d.key or d.name, d.name, None, d))
    out += tail
    for e in [e for e in out if e.spec.after is not None]:
        out.remove(e)
        where = 0 if e.spec.after in ("", "schema") else [x.key for x in out].index(e.spec.after) + 1
        out.insert(where, e)
    return out


def _writer(cls: type) -> Callable[[Any], dict]:
    """The class's to_dict, made as source and compiled (once per class): one dict display
    of the keys up to the first one written only sometimes, then one statement a key."""
    hints = field_types(cls)
    env: dict[str, Any] = {"_dump": _dump, "_ENVELOPE": _ENVELOPE, "SCHEMA": getattr(cls, "SCHEMA", "")}
    head = ["'schema': SCHEMA"] if issubclass(cls, Document) else []
    body: list[str] = []
    for i, e in enumerate(_entries(cls)):
        s = e.spec
        v = f"self.{e.name}"
        k = repr(e.key)
        if e.field is None:  # a derived figure
            expr = v if s.round is None else f"None if {v} is None else round({v}, {s.round})"
            (body.append(f"    out[{k}] = {expr}") if body else head.append(f"{k}: {expr}"))
            continue
        kind, rec, optional = _shape(hints[e.name])
        if s.flatten:
            src = f"{v}.to_dict()" if kind == "record" else v
            body += [f"    for k, x in {src}.items():", "        if k not in out:", "            out[k] = x"]
            continue
        if s.round is not None:
            expr = f"round(v, {s.round})"
        elif s.pairs == "map":
            expr = "dict(v)"
        elif s.pairs:
            a, b = s.pairs
            expr = f"[{{{a!r}: a, {b!r}: b}} for a, b in v]"
        elif s.write_as is not None:
            env[f"W{i}"] = s.write_as
            expr = f"[W{i}.of(x).to_dict() for x in v]"
        elif s.bare:
            expr = "{k: x for k, x in v.to_dict().items() if k not in _ENVELOPE}"
        elif kind == "plain":
            expr = "v"
        elif kind == "list":
            expr = "list(v)"
        elif kind == "record":
            expr = "v.to_dict()"
        elif kind == "records":
            expr = "[x.to_dict() for x in v]"
        else:
            expr = "_dump(v)"
        if expr != "v" and (optional or s.round is not None):
            expr = f"None if v is None else {expr}"
        expr = expr.replace("v", v) if expr == "v" else _subst(expr, v)
        if s.omit is None:
            (body.append(f"    out[{k}] = {expr}") if body else head.append(f"{k}: {expr}"))
            continue
        if s.omit == "none":
            test = f"{v} is not None"
        elif s.omit == "empty":
            test = v
        else:
            test = " or ".join(f"self.{n}" for n in s.omit)
        body += [f"    if {test}:", f"        out[{k}] = {expr}"]
    lines = ["def to_dict(self):", "    out = {" + ", ".join(head) + "}", *body, "    return out"]
    return _compile(cls, "to_dict", lines, env)


def _subst(expr: str, value: str) -> str:
    """`expr` with its value `v` (a whole word) spelled `value`."""
    import re

    return re.sub(r"\bv\b", value, expr)


def _reader(cls: type) -> Callable[[type, Mapping], Any]:
    """The class's from_dict (without the envelope's check), made as source and compiled."""
    hints = field_types(cls)
    entries = _entries(cls)
    known = {e.key for e in entries} | ({"schema"} if issubclass(cls, Document) else set())
    for e in entries:
        if e.field is not None and e.spec.flatten:
            kind, rec, _ = _shape(hints[e.name])
            if rec is not None:
                known |= set(rec.saved_fields())
    env: dict[str, Any] = {"_load": _load, "_KNOWN": frozenset(known), "_copy": copy.copy, "_U": _UNSET}
    lines = ["def from_dict(cls, d):", "    kw = {}"]
    for i, e in enumerate(entries):
        f, s = e.field, e.spec
        if f is None or not f.init:
            continue
        k = repr(e.key)
        tp = hints[e.name]
        kind, rec, _ = _shape(tp)
        env[f"R{i}"] = rec
        if s.flatten:
            if rec is not None:
                lines.append(f"    kw[{e.name!r}] = R{i}.from_dict(d)")
            else:
                lines += ["    v = {k: x for k, x in d.items() if k not in _KNOWN}", "    if v:",
                          f"        kw[{e.name!r}] = v"]
            continue
        if s.pairs == "map":
            expr = "tuple(v.items())"
        elif s.pairs:
            a, b = s.pairs
            expr = f"tuple([(x[{a!r}], x[{b!r}]) for x in v])"
        elif s.bare:
            expr = f"R{i}._from_fields(v)"
        elif kind in ("plain", "mapping") or s.round is not None:
            expr = "v"
        elif kind == "list":
            expr = "tuple(v)"
        elif kind == "record":
            expr = f"R{i}.from_dict(v)"
        elif kind == "records":
            expr = f"tuple([R{i}.from_dict(x) for x in v])"
        else:
            env[f"T{i}"] = tp
            expr = f"_load(T{i}, v)"
        if expr != "v":
            expr = f"None if v is None else {expr}"
        lines += [f"    v = d.get({k}, _U)", "    if v is not _U:", f"        kw[{e.name!r}] = {expr}"]
        if s.missing_from is not None:
            env[f"M{i}"] = s.missing_from
            lines += ["    else:", f"        kw[{e.name!r}] = M{i}(d)"]
        elif s.missing is not _UNSET:
            env[f"M{i}"] = s.missing
            lines += ["    else:", f"        kw[{e.name!r}] = _copy(M{i})"]
    lines.append("    return cls(**kw)")
    return _compile(cls, "from_dict", lines, env)


def _compile(cls: type, name: str, lines: list[str], env: dict) -> Callable:
    code = compile("\n".join(lines) + "\n", f"<{cls.__module__}.{cls.__qualname__}.{name}>", "exec")
    exec(code, env)
    return env[name]


_WRITERS: dict[type, Callable] = {}
_READERS: dict[type, Callable] = {}
_KEYS: dict[type, tuple[str, ...]] = {}


class Record:
    """Mixin for frozen dataclasses whose JSON form is their fields."""

    NOT_SAVED: ClassVar[tuple[str, ...]] = ()
    DERIVED: ClassVar[tuple[Any, ...]] = ()

    def to_dict(self) -> dict:
        cls = type(self)
        write = _WRITERS.get(cls)
        if write is None:
            write = _WRITERS[cls] = _writer(cls)
            if "to_dict" not in cls.__dict__:  # the class's own method from now on
                cls.to_dict = _guarded(cls, write)  # type: ignore[method-assign]
        return write(self)

    @classmethod
    def _from_fields(cls, d: Mapping):
        read = _READERS.get(cls)
        if read is None:
            read = _READERS[cls] = _reader(cls)
        return read(cls, d)

    @classmethod
    def from_dict(cls, d: Mapping):
        return cls._from_fields(d)

    @classmethod
    def saved_fields(cls) -> tuple[str, ...]:
        """The keys of its JSON in order: the saved fields, then the derived figures (a
        flattened field's keys are not named: they are its value's)."""
        keys = _KEYS.get(cls)
        if keys is None:
            keys = _KEYS[cls] = tuple(e.key for e in _entries(cls) if e.field is None or not e.spec.flatten)
        return keys


def _guarded(cls: type, write: Callable) -> Callable:
    """`write` as the method of `cls`; an instance of a subclass gets its own writer."""

    def to_dict(self) -> dict:
        if self.__class__ is cls:
            return write(self)
        return Record.to_dict(self)

    to_dict.__doc__ = "Its JSON form (made from its fields' declarations: model/document.py)."
    return to_dict


class Document(Record):
    """A saved document: the schema's name first, then the fields."""

    SCHEMA: ClassVar[str] = ""

    @classmethod
    def from_dict(cls, d: Mapping):
        """Read back a saved document of this kind (another kind is a ValueError naming it)."""
        if not isinstance(d, Mapping) or d.get("schema") != cls.SCHEMA:
            got = d.get("schema") if isinstance(d, Mapping) else type(d).__name__
            raise ValueError(f"not an {cls.SCHEMA} document (schema={got!r})")
        return cls._from_fields(d)


def document_json(keys: Mapping[str, Any], records: Mapping[str, Any] | None = None) -> str:
    """A document's JSON text: `keys` in order, indented by two as json.dumps(indent=2) writes
    them, except each list named in `records` (key → the JSON text of each item, in order):
    written one item a line. With indent= json falls back to its pure-Python encoder; an item's
    text comes from its C encoder (json.dumps, no indent), so a document of hundreds of thousands
    of records is written in a fraction of the time, and is a sixth of the size. The text is
    document_json_chunks' pieces joined once, at the end."""
    return "".join(document_json_chunks(keys, records))


CHUNK_CHARS = 1 << 19  # the size of a piece of document_json_chunks (about 0.5 MB: 2,000 module records)


def document_json_chunks(keys: Mapping[str, Any], records: Mapping[str, Any] | None = None):
    """document_json's text in pieces, made as they are read: each list named in `records` is
    consumed as the pieces are, CHUNK_LINES items a piece, so a writer that writes each piece
    as it comes holds one piece of the document, never the whole (the items of a ModuleColumns
    are made from its columns as they are written). An item's text may hold several items
    joined by ",\n    " (a process's records written at once)."""
    import json

    dumps = json.dumps
    records = records or {}
    out = ["{\n"]
    for n, (key, value) in enumerate(keys.items()):
        out.append(f",\n  {dumps(key)}: " if n else f"  {dumps(key)}: ")
        lines = iter(records.get(key, ()))
        first = next(lines, None)
        if first is None:
            out.append(dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  "))
            continue
        out.append("[\n    ")
        out.append(first)
        size = len(first)
        for line in lines:
            out.append(",\n    ")
            out.append(line)
            size += len(line)
            if size >= CHUNK_CHARS:
                yield "".join(out)
                out, size = [], 0
        out.append("\n  ]")
    out.append("\n}\n")
    yield "".join(out)



def indented_json_chunks(record: Record, streamed: tuple[str, ...], texts: Mapping[str, Callable] | None = None):
    """json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n" (the JSON every
    document without a writer of its own is written as) in pieces made as they are read: each
    field named in `streamed` (a top-level list of records, its key always written) an item at
    a time, CHUNK_CHARS a piece, its records made and written a batch at a time (a diff of two
    1,000-process reports changes 500,000 modules: their dicts are never held at once).
    `texts`: field → a function of the field's value giving its items' text as they are written
    here (several joined by ",\\n    " at once), or None: for a sequence that writes them faster
    than its records do (analysis's columns).
    The same text as the whole document's, byte for byte (tests/test_streaming_io.py); a field
    that cannot be written so (one written only when not empty, a derived figure of the
    document that could read it) makes the whole text one piece."""
    import copy
    import json

    cls = type(record)
    items = {}
    hints = field_types(cls)
    entries = {e.name: e for e in _entries(cls)}
    for name in streamed:
        e = entries.get(name)
        item = None if e is None or e.field is None or e.spec.omit is not None or e.spec.flatten or cls.DERIVED else _item_dict(e, hints[name])
        if item is None or e is None:
            yield json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n"
            return
        values = getattr(record, name)
        given = (texts or {}).get(name)
        made = given(values) if given is not None else None
        items[e.key] = (values, made if made is not None else _indented_items(map(item, values)))
    shallow = copy.copy(record)
    for name in streamed:
        object.__setattr__(shallow, name, ())
    keys = shallow.to_dict()
    dumps = json.dumps
    out = ["{"]
    for n, (key, value) in enumerate(keys.items()):
        out.append(f"{',' if n else ''}\n  {dumps(key, ensure_ascii=False)}: ")
        if key not in items or not len(items[key][0]):
            out.append(dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  "))
            continue
        out.append("[\n    ")
        first = True
        for text in items[key][1]:
            if not first:
                out.append(",\n    ")
            out.append(text)
            first = False
            yield "".join(out)
            out = []
        out.append("\n  ]")
    out.append("\n}\n")
    yield "".join(out)


def _item_dict(e: _Entry, tp: Any):
    """One item of a list field as its JSON value (what the class's to_dict writes for it), or
    None when this field's items are not written one by one."""
    s = e.spec
    kind, _, _ = _shape(tp)
    if s.round is not None or s.bare or s.pairs == "map":
        return None
    if s.write_as is not None:
        w = s.write_as
        return lambda x: w.of(x).to_dict()
    if s.pairs:
        a, b = s.pairs
        return lambda x: {a: x[0], b: x[1]}
    if kind == "records":
        return lambda x: x.to_dict()
    if kind == "list":
        return lambda x: x
    return None


_SCALARS = frozenset((str, int, float, bool, type(None)))
_BATCH = 2000  # items encoded at once
_ITEM_SEP = ",\n      "  # between the keys of an item at depth 2


def _indented_items(values):
    """The items of a top-level list as json.dumps(document, indent=2) writes them (at depth 2),
    a text of up to _BATCH items joined by ",\n    " at a time. Records of plain values go through
    the C encoder a batch at once, a key a line (json.dumps' indent= takes its pure-Python
    encoder): separators=(",\n      ", ": ") writes each item's keys as indent= does, and between
    two items "}" + that separator + "{" — a real newline, which no JSON string holds, so it is
    found only there — becomes indent='s "\n    },\n    {\n      ". Anything else (a nested
    value, an empty record, a subclass of a plain type) through json.dumps(indent=2)."""
    import json
    from itertools import islice

    flat = json.JSONEncoder(ensure_ascii=False, separators=(_ITEM_SEP, ": ")).encode
    between = "}" + _ITEM_SEP + "{"
    values = iter(values)
    while True:
        batch = list(islice(values, _BATCH))
        if not batch:
            return
        if all(type(v) is dict and v and set(map(type, v.values())) <= _SCALARS for v in batch):
            text = flat(batch)  # "[{...}" + separator + "{...}]"
            yield "{\n      " + text[2:-2].replace(between, "\n    },\n    {\n      ") + "\n    }"
        else:
            yield ",\n    ".join(json.dumps(v, indent=2, ensure_ascii=False).replace("\n", "\n    ") for v in batch)
