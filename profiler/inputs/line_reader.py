"""A saved document read a line at a time (layout.document_lines: importprof's layout, or any
other read a value at a time as if it were) and validated as it is read: the keys before the
big list as a document with that list empty, each of its items against the item schema, then
the keys after it; each problem one BadInput line, the first of its first kind."""

from __future__ import annotations

from profiler.inputs.bounded import bad
from profiler.inputs.documents import MAX_NESTING, check_document, nesting
from profiler.inputs.layout import NotStreamable, document_lines
from profiler.inputs.schema_compiler import item_check, item_shape_check
from profiler.inputs.schema_problems import item_problem
from profiler.inputs.strict_json import fast_decoder, strict_decoder

_KEY = None


def _key_of(line: str) -> tuple[str, str]:
    """A top-level line `  "key": rest` → (key, rest)."""
    global _KEY
    if _KEY is None:
        import json

        _KEY = json.JSONDecoder().raw_decode
    try:
        key, end = _KEY(line, 2)
    except ValueError:
        raise NotStreamable from None
    if not isinstance(key, str) or line[end:end + 2] != ": ":
        raise NotStreamable
    return key, line[end + 2:]


def _strict(text: str):
    """One JSON value as parse_json reads it (its refusals: NotStreamable, the whole file is then
    read by parse_json, which says what is wrong and where)."""
    try:
        return strict_decoder().decode(text)
    except (ValueError, RecursionError):
        raise NotStreamable from None


def read_streamed_document(path: str, kind: str, key: str, take, record, accept, what: str) -> dict | None:
    """A saved document laid out as importprof writes it (document_json: a key a line, indented
    by two, and the list `key` one item a line), read a line at a time and validated as it is
    read: the keys before `key` against the schema (the list as if empty), each item of `key`
    against the schema's item schema (the message names `key[i]`), then the keys after it.
    Each item line goes to `take(i, text)`, which returns True when it knows the line (a record
    it has read before but for its numbers, valid by construction: the caller's promise), else
    its value, validated, to `record(i, value)`. Returns the document without the list (`key`:
    []), or None when the file is not laid out so (read it whole then: read_document)."""
    if path == "-":
        raise bad(f"reading a {what} from stdin is not supported; give a file")
    # another layout (compact, as `jq -c` or json.dump(separators=(",", ":")) write it, or
    # json.dump's one line) is read a value at a time as the lines importprof would have written
    memo: list = []  # relaid's last item: its text and value
    lines = document_lines(path, what, key, memo)
    # A document that is not JSON says so before anything else (as parse_json would), and of the
    # problems check_document finds the first of its first kind: each is held until the whole
    # file has been read (the lines after a problem are only parsed).
    held = _Held()
    try:
        if next(lines, None) != "{":
            raise NotStreamable
        doc: dict = {}
        state = "key"  # what the next line is: a key (the last value ended with a comma), the end `}`, or nothing more
        streamed = False
        for line in lines:
            if state != "key":
                if state == "end" and line == "}":
                    state = "done"
                elif state == "end" or line.strip():
                    raise NotStreamable
                continue
            if not line.startswith('  "'):
                raise NotStreamable
            name, rest = _key_of(line)
            if name in doc:
                raise NotStreamable  # a key said twice: json keeps the last one
            if name == key and rest == "[" and not streamed:
                doc[name] = []
                held.check(doc, path, accept)  # the keys before the list, as one with an empty list
                more = _stream_items(lines, path, kind, key, take, record, held, memo)
                streamed = True
            elif rest in ("{", "["):
                parts = [rest]
                close = "  }" if rest == "{" else "  ]"
                for inner in lines:
                    if inner == close or inner == close + ",":
                        parts.append(close.strip())
                        more = inner.endswith(",")
                        break
                    parts.append(inner)
                else:
                    raise NotStreamable
                doc[name] = _strict("\n".join(parts))
            else:
                more = rest.endswith(",")
                doc[name] = _strict(rest[:-1] if more else rest)
            state = "key" if more else "end"
        if state != "done":
            raise NotStreamable
    except NotStreamable:
        lines.close()
        return None
    held.check(doc, path, accept)
    held.raise_first()
    return doc


class _Held:
    """The problems found while a document is read, the first of the first kind raised at the
    end (check_document's order: not this kind, nested too deep, another version, the schema)."""

    def __init__(self) -> None:
        self.first: tuple[int, Exception] | None = None

    def check(self, doc: dict, path: str, accept) -> None:
        from profiler.errors import BadInput

        try:
            check_document(doc, path, accept)
        except BadInput as exc:
            self.hold(exc)

    def hold(self, exc: Exception) -> None:
        text = str(exc)
        rank = 1 if "nested deeper than" in text else 2 if "is a version this importprof does not read" in text else \
            3 if "not a valid importprof." in text else 0
        if self.first is None or rank < self.first[0]:
            self.first = (rank, exc)

    def __bool__(self) -> bool:
        return self.first is not None

    def raise_first(self) -> None:
        if self.first is not None:
            raise self.first[1]


def _stream_items(lines, path: str, kind: str, key: str, take, record, held: _Held, memo: list) -> bool:
    """The items of the list `key`, one a line, up to its `  ]`; whether a key follows. `memo`:
    the last item's text and value when another layout was read (layout.relaid, which decodes
    items as fast_decoder does). An item is decoded by fast_decoder (its integers by json's C
    parser) and judged by its shape (item_shape_check); one that shape does not vouch for is
    decoded again strictly and judged by item_check, so a refusal is the one it was. Nor does it
    vouch for an item whose text holds a key twice (json keeps the last value: an integer past
    2**53 before it is in no value to bound); an item it vouches for holds no object, so each of
    its keys is one of its text's colons, and a colon inside a string only sends it the strict way."""
    check = item_check(kind, key)
    shaped = item_shape_check(kind, key)  # and, inline, as many colons in its text as keys
    decode = fast_decoder().decode
    i = 0
    last = False
    for line in lines:
        if line == "  ]" or line == "  ],":
            if i and not last:
                raise NotStreamable  # a comma after the last item
            return line.endswith(",")
        if last or not line.startswith("    ") or line[4:5] == " ":
            raise NotStreamable
        text = line[4:-1] if line.endswith(",") else line[4:]
        last = not line.endswith(",")
        if held:  # a problem met already: the rest is only parsed (strictly: not JSON is said first)
            if not memo or memo[0] != text:
                _strict(text)
            elif not (shaped(memo[1]) and text.count(":") == len(memo[1])):  # relaid decoded it as fast_decoder does: its integers unbounded
                _strict(text)
        elif not take(i, text):
            if memo and memo[0] == text:
                value = memo[1]
            else:
                try:
                    value = decode(text)
                except (ValueError, RecursionError):
                    raise NotStreamable from None
            # a value is nested no deeper than its brackets + 1 (counted in C; the walk only when they could be too many)
            deep = text.count("[") + text.count("{") + 3 > MAX_NESTING and nesting(value) + 2 > MAX_NESTING
            if not deep and shaped(value) and text.count(":") == len(value):
                record(i, value)
            else:
                value = _strict(text)
                if deep:
                    held.hold(bad(f"{path}: not an importprof document (nested deeper than {MAX_NESTING})"))
                elif not check(value):
                    held.hold(bad(f"{path}: not a valid importprof.{kind}/1 document: {item_problem(kind, key, i, value)}"))
                else:
                    record(i, value)
        i += 1
    raise NotStreamable  # the file ended inside the list
