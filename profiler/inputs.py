"""Reading the files users hand to importprof (saved logs, saved JSON documents): every way
they can be wrong ends as one BadInput line naming the file.

A saved document is checked at this boundary, before any code trusts it: strict JSON (no
NaN/Infinity, no number too large for a float), an `importprof.<kind>/1` schema the reader
accepts, then the JSON schema of that kind (`profiler/schemas/<kind>.json`, published in the
README) and the few rules a JSON schema cannot say (a module's parent exists). The message
names the first offending place: `modules[3].self_us: expected integer (got a string)`.
"""

from __future__ import annotations

import math
import os
import stat
from typing import AbstractSet, Callable, Generator, Iterable, Iterator

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
# document kinds importprof writes that have no published schema yet (read as objects only)
WRITTEN_WITHOUT_SCHEMA = ("pythons", "pack", "build", "variant")
MAX_NESTING = 200  # deeper JSON is not an importprof document (and would exhaust the stack)


# Inputs are read whole; past this size a reader stops with one line saying how to raise it (a
# log of a long run is tens of MB; /dev/zero or a runaway pipe would otherwise fill the memory).
DEFAULT_MAX_INPUT_MB = 1024
MAX_INPUT_ENV = "IMPORTPROF_MAX_INPUT_MB"
_CHUNK = 1 << 20


def max_input_bytes() -> int:
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB << 20
    if not raw.isdigit() or not 0 < int(raw) <= 1 << 30:
        raise _bad(f"{MAX_INPUT_ENV}={raw!r}: give a whole number of MiB from 1 to {1 << 30}")
    return int(raw) << 20


def read_text(path: str, what: str = "file", errors: str = "replace") -> str:
    """The file's text (undecodable bytes replaced: logs carry program output; a document's
    reader asks for surrogateescape, so a non-UTF-8 file name in it round-trips). Bounded:
    larger than the input limit, a device (it may never end) or a FIFO nobody writes to is one
    line, not a wait or a MemoryError."""
    shown = f"cannot read {what} {path}"
    fd = _open_input(path, shown)
    try:
        return _read_fd(fd, shown, whole=True).decode("utf-8", errors)
    finally:
        os.close(fd)


def is_regular_file(path: str) -> bool:
    """True for a regular file (one that can be read twice), False for anything else or nothing."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_text_chunks(path: str, what: str = "file", chunk_bytes: int = _CHUNK // 4, errors: str = "replace") -> Generator[str, None, None]:
    """read_text a piece at a time (pieces of about `chunk_bytes`, decoded as one text: a UTF-8
    character cut by a piece boundary is whole in the next), with read_text's bounds and
    messages (the input limit is counted as the pieces are read). Holds one piece at a time.
    Pieces of 256 KiB, not MiBs: with 4 MiB pieces the heap fragmented around what the reader
    keeps, and the peak RSS of `imports --from-log` grew with the log (35 → 43 MB from 250 to
    1,000 processes of pip; 24 → 27 MB with 256 KiB pieces, in the same time)."""
    shown = f"cannot read {what} {path}"
    fd = _open_input(path, shown)
    try:
        yield from _decoded_chunks(_fd_chunks(fd, shown, chunk_bytes), errors)
    finally:
        os.close(fd)


def stdin_text_chunks(what: str = "log", copy_to: str | None = None, chunk_bytes: int = _CHUNK // 4,
                      errors: str = "replace") -> Generator[str, None, None]:
    """Standard input a piece at a time, as read_text_chunks reads a file (the same bounds and
    messages; stdin stays open). `copy_to`: every byte read is also written to that file, so a
    reader that has to start again (a log read whole after all) reads the copy, once this
    generator has been run to its end."""
    shown = f"cannot read the {what} from standard input"
    copy = None if copy_to is None else open(copy_to, "wb")
    try:
        yield from _decoded_chunks(_stdin_chunks(shown, chunk_bytes), errors, copy)
    finally:
        if copy is not None:
            copy.close()


def _stdin_chunks(shown: str, chunk_bytes: int) -> Iterator[bytes]:
    """Standard input's bytes, for both of its readers (read_stdin, stdin_text_chunks): closed
    (`<&-`) is one line; its descriptor read as a file's is (_fd_chunks); a stream without one
    (a library caller's io.StringIO, its text as UTF-8) read through the stream, within the same
    input limit, an error reading it one line."""
    import sys

    stream = sys.stdin
    if stream is None:
        raise _bad(f"{shown}: it is closed")
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):  # replaced by a stream without a descriptor
        fd = None
    if fd is not None:
        yield from _fd_chunks(fd, shown, chunk_bytes)
        return
    limit = max_input_bytes()
    total = 0
    while True:
        try:
            piece = stream.read(chunk_bytes)
        except (OSError, ValueError) as exc:  # closed, or not readable (pytest's captured stdin)
            raise _bad(f"{shown}: {exc}") from None
        if not piece:
            return
        chunk = piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else bytes(piece)
        total += len(chunk)
        if total > limit:
            raise _bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
        yield chunk


def _decoded_chunks(chunks: Iterable[bytes], errors: str, copy=None) -> Iterator[str]:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    for chunk in chunks:
        if copy is not None:
            copy.write(chunk)
        text = decoder.decode(chunk)
        if text:
            yield text
    text = decoder.decode(b"", final=True)
    if text:
        yield text


def _open_input(path: str, shown: str) -> int:
    """An fd of PATH open for reading, after refusing what cannot be read (no such file, a
    directory, a FIFO no program writes to): one line each."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _bad(f"{shown}: no such file") from None
    except OSError as exc:
        raise _bad(f"{shown}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise _bad(f"{shown}: it is a directory")
    if stat.S_ISFIFO(st.st_mode) and not os.path.realpath(path).startswith(("/proc/", "pipe:")):
        # a named FIFO: opening it waits for a writer that may never come; refused before any
        # wait, as a device is (an anonymous pipe, `<(cmd)` or `-`, has its writer already)
        raise _bad(f"{shown}: not a regular file (a FIFO: reading it would wait for a writer); give a file, or - for standard input")
    if stat.S_ISSOCK(st.st_mode):
        raise _bad(f"{shown}: not a regular file (a socket)")
    try:  # O_NONBLOCK: a file swapped for a FIFO since the stat above must not make open() wait
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise _bad(f"{shown}: {exc.strerror}") from None
    if stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISFIFO(st.st_mode):
        os.close(fd)
        raise _bad(f"{shown}: not a regular file (a FIFO: reading it would wait for a writer); give a file, or - for standard input")
    os.set_blocking(fd, True)
    return fd


def read_stdin(what: str = "log") -> str:
    """`-`: standard input, with read_text's bounds (_stdin_chunks: closed, or a stream that
    cannot be read, is one line)."""
    shown = f"cannot read the {what} from standard input"
    try:
        return b"".join(_stdin_chunks(shown, _CHUNK)).decode("utf-8", "replace")
    except MemoryError:
        raise _bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None


def _read_fd(fd: int, shown: str, whole: bool = False) -> bytes:
    """All the bytes of fd, within the input limit. `whole`: a regular file whose size is within
    the limit is read in one piece of its size (no chunks to join: half the peak memory), then
    to its end as any other (it may have grown)."""
    try:
        first = b""
        if whole:
            st = os.fstat(fd)
            limit = max_input_bytes()
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:  # refused before it is read
                raise _bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
            if stat.S_ISREG(st.st_mode) and st.st_size:
                try:
                    first = os.read(fd, st.st_size)
                except OSError as exc:
                    raise _bad(f"{shown}: {exc.strerror}") from None
        rest = list(_fd_chunks(fd, shown, _CHUNK, len(first)))
        return first if not rest else b"".join([first, *rest])
    except MemoryError:
        raise _bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None


def _fd_chunks(fd: int, shown: str, chunk_bytes: int, total: int = 0) -> Iterator[bytes]:
    """The bytes of fd in chunks of at most chunk_bytes; refuses a device (it may never end) and
    more than the input limit (`total` bytes of it read already), each as one line."""
    st = os.fstat(fd)
    if (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) and not os.isatty(fd):
        raise _bad(f"{shown}: a device, not a file (it may never end)")
    limit = max_input_bytes()
    while True:
        try:
            chunk = os.read(fd, min(chunk_bytes, limit + 1 - total))
        except OSError as exc:
            raise _bad(f"{shown}: {exc.strerror}") from None
        except MemoryError:
            raise _bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise _bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
        yield chunk


class _NotFinite(ValueError):
    pass


def _constant(name: str):
    raise _NotFinite(f"{name} is not a number JSON allows")


# I-JSON (RFC 7493): integers beyond 2**53 do not survive other JSON readers, and no time, size,
# count or depth importprof writes comes near it
MAX_JSON_INT = 2**53


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > 16:  # before int(): past 4300 digits it raises, and a long one costs quadratic time
        raise _NotFinite(f"a number of {digits} digits is larger than any importprof document holds")
    value = int(text)
    if abs(value) > MAX_JSON_INT:
        raise _NotFinite(f"{text} is larger than any importprof document holds (at most 2**53)")
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text[:30]} is too large for a number")
    return value


def parse_json(text: str, source: str) -> object:
    """Strict JSON: NaN, Infinity and numbers beyond a float's range are refused."""
    import json

    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except _NotFinite as exc:
        raise _bad(f"{source}: not valid JSON ({exc})") from None
    except RecursionError:
        raise _bad(f"{source}: not an importprof document (JSON nested too deeply)") from None
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        line = getattr(exc, "lineno", None)
        raise _bad(f"{source}: not JSON ({msg.removesuffix(' at')}{f', line {line}' if line else ''})") from None


def read_json(path: str, what: str = "JSON document") -> object:
    return parse_json(read_text(path, what, errors="surrogateescape"), path)


# ------------------------------------------------------------------ importprof documents
def kinds() -> list[str]:
    """The document kinds with a published schema."""
    return sorted(f[: -len(".json")] for f in os.listdir(SCHEMA_DIR) if f.endswith(".json"))


def kind_of(doc: object) -> str | None:
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if isinstance(schema, str) and schema.startswith("importprof.") and "/" in schema:
        return schema[len("importprof.") :].split("/", 1)[0]
    return None


def read_document(path: str, accept: Iterable[str] | None = None, what: str = "document") -> dict:
    """A saved importprof document, validated. `accept`: the kinds this reader takes (None:
    any kind; one without a published schema is only checked to be an object with a schema)."""
    if path == "-":
        raise _bad(f"reading a {what} from stdin is not supported; give a file")
    doc = read_json(path, what)
    check_document(doc, path, accept)
    return doc  # type: ignore[return-value]


def check_document(doc: object, source: str, accept: Iterable[str] | None = None) -> None:
    accept = tuple(accept) if accept is not None else None
    wanted = " or ".join(f"importprof.{k}/1" for k in accept) if accept else "importprof"
    if not isinstance(doc, dict):
        raise _bad(f"{source}: not an {wanted} document (a JSON {_json_type(doc)}, not an object)")
    kind = kind_of(doc)
    if kind is None or (accept is not None and kind not in accept):
        raise _bad(f"{source}: not an {wanted} document (schema={doc.get('schema')!r})")
    if _depth(doc) > MAX_NESTING:
        raise _bad(f"{source}: not an importprof document (nested deeper than {MAX_NESTING})")
    from profiler.schemas import readable_versions

    versions = readable_versions(kind)
    if doc.get("schema") not in {f"importprof.{kind}/{v}" for v in versions}:
        reads = " or ".join(f"importprof.{kind}/{v}" for v in versions)
        raise _bad(f"{source}: {doc.get('schema')!r} is a version this importprof does not read (it reads {reads})")
    if kind not in kinds():
        if kind not in WRITTEN_WITHOUT_SCHEMA:
            raise _bad(f"{source}: {doc.get('schema')!r} is not a document importprof writes")
        return
    problem = first_problem(doc, kind)
    if problem is None:
        check = _RULES.get(kind)
        problem = check(doc) if check else None
    if problem is not None:
        raise _bad(f"{source}: not a valid importprof.{kind}/1 document: {problem}")
    if kind == "report":
        for i, item in enumerate(doc.get("documents") or ()):
            check_document(item["doc"], f"{source}: documents[{i}]")


_VALIDATORS: dict = {}


def schema(kind: str) -> dict:
    import json

    with open(os.path.join(SCHEMA_DIR, f"{kind}.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _validator(kind: str):
    if kind not in _VALIDATORS:
        from jsonschema import Draft202012Validator

        _VALIDATORS[kind] = Draft202012Validator(schema(kind))
    return _VALIDATORS[kind]


_FAST: dict = {}


def conforms(doc: object, kind: str) -> bool:
    """A fast yes/no against `kind`'s schema (about 10x jsonschema's speed on big documents):
    the schemas use a small subset of JSON Schema (type, properties, required, items, minimum,
    const, anyOf), compiled here to plain checks. jsonschema stays the judge: a document this
    refuses is validated again by jsonschema, which names the problem (tests/test_documents.py
    checks that both agree on fuzzed documents)."""
    if kind not in _FAST:
        try:
            _FAST[kind] = _compile(schema(kind))
        except _Unsupported:
            _FAST[kind] = None
    check = _FAST[kind]
    return check(doc) if check is not None else not list(_validator(kind).iter_errors(doc))


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


def _compile(s: dict):
    keys = set(s) - {"$schema", "$id", "title", "description"}
    if keys and keys <= {"type", "minimum"} and "type" in keys:
        return _leaf(s)
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


def first_problem(doc: dict, kind: str) -> str | None:
    """The first place (in document order) where `doc` breaks `kind`'s schema, as
    `path: what was expected (what was found)`; None when it conforms."""
    import itertools

    if conforms(doc, kind):
        return None

    errors = list(itertools.islice(_validator(kind).iter_errors(doc), 100))
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


def _json_type(value: object) -> str:
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
    text = repr(value) if isinstance(value, (int, float, str, bool)) else _json_type(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(error, prefix: tuple = ()) -> str:
    """`prefix`: where the instance validated sits in its document (an item read alone)."""
    where = _where((*prefix, *error.absolute_path))
    kind, expected, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        names = expected if isinstance(expected, list) else [expected]
        got = _json_type(value) + ("" if isinstance(value, (list, dict)) or value is None else f" {_shown(value)}")
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


def _depth(value: object) -> int:
    """Nesting depth, without recursion (a hostile document must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_NESTING:
                return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


# ------------------------------------------------------------------ a saved document, a line at a time
class _NotStreamable(Exception):
    """The document is not laid out as importprof writes it (model.document.document_json): it
    is read whole instead."""


def _lines(path: str, what: str, pieces: Generator[str, None, None] | None = None) -> Generator[str, None, None]:
    """The file's lines (without their newline), read_text_chunks' pieces (or `pieces`) split as
    they come."""
    pending = ""
    if pieces is None:
        pieces = read_text_chunks(path, what, errors="surrogateescape")
    try:
        for text in pieces:
            lines = (pending + text).split("\n") if pending else text.split("\n")
            pending = lines.pop()
            yield from lines
        if pending:
            yield pending
    finally:
        pieces.close()


def _after(head: str, pieces: Generator[str, None, None]) -> Generator[str, None, None]:
    """`head`, then the rest of `pieces` (closed with this)."""
    try:
        yield head
        yield from pieces
    finally:
        pieces.close()


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
        raise _NotStreamable from None
    if not isinstance(key, str) or line[end:end + 2] != ": ":
        raise _NotStreamable
    return key, line[end + 2:]


def _strict(text: str):
    """One JSON value as parse_json reads it (its refusals: _NotStreamable, the whole file is then
    read by parse_json, which says what is wrong and where)."""
    import json

    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except (ValueError, RecursionError):
        raise _NotStreamable from None


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
        raise _bad(f"reading a {what} from stdin is not supported; give a file")
    # another layout (compact, as `jq -c` or json.dump(separators=(",", ":")) write it, or
    # json.dump's one line) is read a value at a time as the lines importprof would have written
    lines = _document_lines(path, what, key)
    # A document that is not JSON says so before anything else (as parse_json would), and of the
    # problems check_document finds the first of its first kind: each is held until the whole
    # file has been read (the lines after a problem are only parsed).
    held = _Held()
    try:
        if next(lines, None) != "{":
            raise _NotStreamable
        doc: dict = {}
        state = "key"  # what the next line is: a key (the last value ended with a comma), the end `}`, or nothing more
        streamed = False
        for line in lines:
            if state != "key":
                if state == "end" and line == "}":
                    state = "done"
                elif state == "end" or line.strip():
                    raise _NotStreamable
                continue
            if not line.startswith('  "'):
                raise _NotStreamable
            name, rest = _key_of(line)
            if name in doc:
                raise _NotStreamable  # a key said twice: json keeps the last one
            if name == key and rest == "[" and not streamed:
                doc[name] = []
                held.check(doc, path, accept)  # the keys before the list, as one with an empty list
                more = _stream_items(lines, path, kind, key, take, record, held)
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
                    raise _NotStreamable
                doc[name] = _strict("\n".join(parts))
            else:
                more = rest.endswith(",")
                doc[name] = _strict(rest[:-1] if more else rest)
            state = "key" if more else "end"
        if state != "done":
            raise _NotStreamable
    except _NotStreamable:
        lines.close()
        return None
    held.check(doc, path, accept)
    held.raise_first()
    return doc


def _relaid(pieces: Generator[str, None, None], key: str) -> Generator[str, None, None]:
    """A JSON object in any layout, read from `pieces` a value at a time, as the lines
    document_json writes (`{`, each key on a line of its own with its value as one line of
    JSON, the list `key` one item a line, `}`), for read_streamed_document: what json.loads
    reads of it, in the memory of one item (and of the largest other value) at a time. Each
    value is read by json's own decoder with parse_json's refusals; anything else than one
    object (a syntax error, data after it) is _NotStreamable: the whole-file reader says what
    is wrong and where."""
    import json
    import re

    decoder = json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_int)
    dumps = json.dumps
    space = re.compile(r"[ \t\n\r]*").match
    buf = ""
    pos = 0
    ended = False

    def more() -> bool:
        nonlocal buf, pos, ended
        piece = next(pieces, None)
        if piece is None:
            ended = True
            return False
        buf = buf[pos:] + piece
        pos = 0
        return True

    def peek() -> str:
        """The next character that is not white space ("" at the end)."""
        nonlocal pos
        while True:
            blank = space(buf, pos)  # always a match (maybe empty)
            pos = blank.end() if blank else pos
            if pos < len(buf):
                return buf[pos]
            if not more():
                return ""

    def grow() -> bool:
        """Twice what is held of the value being read (one piece at a time would copy a big
        value again for each piece); False at the end of the file."""
        want = 2 * (len(buf) - pos) + 1
        if not more():
            return False
        while len(buf) - pos < want and more():
            pass
        return True

    def value() -> object:
        nonlocal pos
        peek()
        while True:
            try:
                got, end = decoder.raw_decode(buf, pos)
            except (RecursionError, _NotFinite):  # the whole-file reader says what is wrong
                raise _NotStreamable from None
            except json.JSONDecodeError as exc:
                # cut by the piece's end (a string not closed yet, or the error at the last
                # characters: `tru` of a true), or not JSON (the whole-file reader says where)
                cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(buf) - 10
                if not cut or ended or not grow():
                    raise _NotStreamable from None
                continue
            except ValueError:  # a number past int()'s digit limit: the whole-file reader says
                raise _NotStreamable from None
            if end >= len(buf) - 2 and type(got) in (int, float) and not ended and grow():
                continue  # a number the piece may have cut (`1` of 12, `1.5` of 1.5e-3)
            pos = end
            return got

    def expect(c: str) -> None:
        nonlocal pos
        if peek() != c:
            raise _NotStreamable
        pos += 1

    try:
        expect("{")
        yield "{"
        if peek() == "}":
            pos += 1
            yield "}"
        else:
            while True:
                if peek() != '"':
                    raise _NotStreamable
                name = value()
                expect(":")
                head = f"  {dumps(name, ensure_ascii=False)}: "
                if name == key and peek() == "[":
                    pos += 1
                    yield head + "["
                    if peek() == "]":
                        pos += 1
                    else:
                        while True:
                            item = dumps(value(), ensure_ascii=False)
                            c = peek()
                            pos += 1
                            if c == ",":
                                yield "    " + item + ","
                            elif c == "]":
                                yield "    " + item
                                break
                            else:
                                raise _NotStreamable
                    c = peek()
                    pos += 1
                    if c == ",":
                        yield "  ],"
                        continue
                    if c != "}":
                        raise _NotStreamable
                    yield "  ]"
                    break
                text = head + dumps(value(), ensure_ascii=False)
                c = peek()
                pos += 1
                if c == ",":
                    yield text + ","
                elif c == "}":
                    yield text
                    break
                else:
                    raise _NotStreamable
            yield "}"
        if peek() != "":
            raise _NotStreamable  # more after the object
    except _NotFinite:
        raise _NotStreamable from None
    finally:
        pieces.close()


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


def _stream_items(lines, path: str, kind: str, key: str, take, record, held: _Held) -> bool:
    """The items of the list `key`, one a line, up to its `  ]`; whether a key follows."""
    check = _item_check(kind, key)
    i = 0
    last = False
    for line in lines:
        if line == "  ]" or line == "  ],":
            if i and not last:
                raise _NotStreamable  # a comma after the last item
            return line.endswith(",")
        if last or not line.startswith("    ") or line[4:5] == " ":
            raise _NotStreamable
        text = line[4:-1] if line.endswith(",") else line[4:]
        last = not line.endswith(",")
        if held:  # a problem met already: the rest is only parsed
            _strict(text)
        elif not take(i, text):
            value = _strict(text)
            if _depth(value) + 2 > MAX_NESTING:
                held.hold(_bad(f"{path}: not an importprof document (nested deeper than {MAX_NESTING})"))
            elif not check(value):
                held.hold(_bad(f"{path}: not a valid importprof.{kind}/1 document: {_item_problem(kind, key, i, value)}"))
            else:
                record(i, value)
        i += 1
    raise _NotStreamable  # the file ended inside the list


def _item_check(kind: str, key: str):
    """A fast yes/no of one item of the list `key` against its schema (conforms' compiled checks)."""
    name = f"{kind}:{key}"
    if name not in _FAST:
        sub = schema(kind)["properties"][key].get("items", {})
        try:
            _FAST[name] = _compile(sub)
        except _Unsupported:
            _FAST[name] = lambda x, sub=sub: not list(_item_validator(kind, key).iter_errors(x))
    return _FAST[name]


def _item_validator(kind: str, key: str):
    name = f"{kind}:{key}"
    if name not in _VALIDATORS:
        from jsonschema import Draft202012Validator

        _VALIDATORS[name] = Draft202012Validator(schema(kind)["properties"][key].get("items", {}))
    return _VALIDATORS[name]


def _item_problem(kind: str, key: str, i: int, value) -> str:
    """first_problem's message for item `i` of the list `key` (`modules[3].self_us: ...`),
    jsonschema judging the item against its sub-schema."""
    import itertools

    errors = list(itertools.islice(_item_validator(kind, key).iter_errors(value), 100))
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


def read_imports_report(path: str, what: str = "report", on_block=None):
    """A saved `importprof.imports/1` report as an ImportsReport (show, diff, why --report), read
    a line at a time (stream_imports_report) into the form `imports --from-log` makes
    (model.import_tree.ModuleColumnsReader: a thousand processes of one program held as columns,
    a record line of a layout read before matched as its numbers alone), so reading back what
    `-o` wrote costs about what writing it did. A file not laid out as importprof writes it is
    read whole, as before. `on_block(process, first index, block)`: each process is handed over
    as it is read and not kept (the report's modules are left empty), for a reader that pairs
    them as they come (diff)."""
    report = stream_imports_report(path, on_block, what)
    if report is not None:
        return report
    from profiler.model.import_tree import ImportsReport

    return ImportsReport.from_dict(read_document(path, ["imports"], what))


def stream_imports_report(path: str, on_block, what: str = "report"):
    """The line-at-a-time read: the report with its modules in the column form (or, with
    `on_block(process, first index, block)`, each process handed over as it is read and not
    kept); None when the file is not laid out as importprof writes it — what on_block was
    handed is then to be forgotten, and the file read whole (read_imports_report). Validated
    as it is read; every error one line."""
    from dataclasses import replace

    from profiler.errors import BadInput
    from profiler.model.import_tree import ImportsReport, ModuleColumnsReader

    reader = ModuleColumnsReader(on_block)
    try:
        doc = read_streamed_document(path, "imports", "modules", reader.take, reader.record, ["imports"], what)
        if doc is None:
            return None
        modules = reader.finish()
        problem = _imports_rules_by_segment(reader.segments)
        if problem is not None:
            raise _bad(f"{path}: not a valid importprof.imports/1 document: {problem}")
        doc.setdefault("processes", reader.processes)
        doc.setdefault("total_us", reader.roots_cumulative_us)
        return replace(ImportsReport.from_dict(doc), modules=modules)
    except BadInput:
        raise
    except ValueError as exc:
        raise _bad(f"{path}: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise _bad(f"{path}: not a valid importprof.imports/1 report (bad or missing {exc})") from None


def is_saved_imports(path: str, what: str = "document") -> bool:
    """The file starts as an `importprof.imports/1` report (an object whose first key is its
    schema): read_imports_document may read it a line (or, in another layout, a value) at a
    time. Reads its first piece, and as far as its schema's value."""
    if path == "-" or not is_regular_file(path):
        return False
    try:
        lines = _document_lines(path, what, "modules")
    except Exception:  # unreadable: the whole-file reader says why, in its one line
        return False
    try:
        return next(lines, None) == "{" and next(lines, None) == '  "schema": "importprof.imports/1",'
    except Exception:  # unreadable, or not JSON: the whole-file reader says why, in its one line
        return False
    finally:
        lines.close()


def _document_lines(path: str, what: str, key: str) -> Generator[str, None, None]:
    """The document's lines as importprof writes them: the file's own lines when it starts as
    importprof writes (`{` alone on its first line), else its values read one at a time and
    laid out so (_relaid: compact, one line, ...); the whole file is never one line in memory."""
    pieces = read_text_chunks(path, what, errors="surrogateescape")
    head = next(pieces, "")
    if head.startswith("{\n"):  # importprof's layout: a line at a time
        return _lines(path, what, _after(head, pieces))
    return _relaid(_after(head, pieces), key)


def read_imports_document(path: str, what: str = "document", keep=None):
    """A saved `importprof.imports/1` report as the page of `report --from` shows it: its keys as
    saved, in order, and its modules read a line at a time into the column form (as
    read_imports_report reads them, validated as they come: the same one-line errors) — a
    model.report.SavedColumns, whose records' dicts are the saved records (the few not read as a
    layout's numbers are checked to be written back byte for byte). None when the file is not
    laid out so, or a record is not written as importprof writes it (a key left out, a 5.0):
    read it whole then (read_document). `keep(block)`: what is kept of each process as it is
    read (report --from: its columns moved out of the memory), in place of the block."""
    import json

    from profiler.errors import BadInput
    from profiler.model.import_tree import ModuleColumns, ModuleColumnsReader, ModuleRecord
    from profiler.model.report import SavedColumns

    kept: list = []
    reader = ModuleColumnsReader(None if keep is None else (lambda process, start, block: kept.append(keep(block))))
    exact = [True]
    dumps = json.dumps

    def record(i: int, value: dict) -> None:
        if exact[0]:
            exact[0] = (type(value.get("cumulative_us")) is int and type(value.get("depth")) is int and "find_us" not in value
                        and dumps(ModuleRecord.from_dict(value).to_dict(), ensure_ascii=False) == dumps(value, ensure_ascii=False))
        reader.record(i, value)

    try:
        doc = read_streamed_document(path, "imports", "modules", reader.take, record, ["imports"], what)
        if doc is None or not exact[0]:
            return None
        modules = reader.finish()
        if keep is not None:  # as finish() makes them of the blocks it keeps
            modules = ModuleColumns(kept)
            modules = tuple(modules) if len(reader.segments) <= 1 else modules
        problem = _imports_rules_by_segment(reader.segments)
        if problem is not None:
            raise _bad(f"{path}: not a valid importprof.imports/1 document: {problem}")
        return SavedColumns(doc, modules)
    except BadInput:
        raise
    except ValueError as exc:
        raise _bad(f"{path}: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise _bad(f"{path}: not a valid importprof.imports/1 report (bad or missing {exc})") from None


def _imports_rules_by_segment(segments) -> str | None:
    """_imports_rules over ModuleColumnsReader's segments (process, first index, layout or
    records): a layout's rows judged once for every process that has them alone."""
    from functools import partial

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
            if isinstance(rows, tuple):  # a record (a layout's rows have no phases)
                problem = _phases_rule(start + j, partial(getattr, rows[j]))
                if problem is not None:
                    return problem
            if isinstance(depth, int) and depth > len(known):
                return f"modules[{start + j}].depth: {depth} is deeper than the {len(known)} modules of its process"
            if parent is not None and parent not in known:
                return f"modules[{start + j}].parent: {parent!r} is not a module of process {process}"
        if not isinstance(rows, tuple) and process not in shared:
            judged[key] = "ok"
    return None



# ------------------------------------------------------------------ what a JSON schema cannot say
def _imports_rules(doc: dict) -> str | None:
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


_RULES = {"imports": _imports_rules}


def _bad(message: str):
    from profiler.errors import BadInput

    return BadInput(message)
