"""A saved document as the lines importprof writes it (model.document.document_json: `{`, a key a
line indented by two, the list `key` one item a line, `}`), whatever its layout: the file's own
lines when it is laid out so, else its values read one at a time by json's own decoder and laid
out so (compact, as `jq -c` writes it, or json.dump's one line) — the whole file is never one
line in memory."""

from __future__ import annotations

from typing import Generator

from profiler.inputs.bounded import read_text_chunks
from profiler.inputs.strict_json import NotFinite, fast_decoder, strict_decoder


class NotStreamable(Exception):
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


def document_lines(path: str, what: str, key: str, memo: list | None = None) -> Generator[str, None, None]:
    """The document's lines as importprof writes them: the file's own lines when it starts as
    importprof writes (`{` alone on its first line), else its values read one at a time and
    laid out so (relaid: compact, one line, ...); the whole file is never one line in memory."""
    pieces = read_text_chunks(path, what, errors="surrogateescape")
    head = next(pieces, "")
    if head.startswith("{\n"):  # importprof's layout: a line at a time
        return _lines(path, what, _after(head, pieces))
    return relaid(_after(head, pieces), key, memo)


def relaid(pieces: Generator[str, None, None], key: str, memo: list | None = None) -> Generator[str, None, None]:
    """A JSON object in any layout, read from `pieces` a value at a time, as the lines
    document_json writes (`{`, each key on a line of its own with its value as one line of
    JSON, the list `key` one item a line — the item's text as the file has it, compact or
    spread over lines —, `}`), for read_streamed_document: what json.loads
    reads of it, in the memory of one item (and of the largest other value) at a time. Each
    value is read by json's own decoder with parse_json's refusals; anything else than one
    object (a syntax error, data after it) is NotStreamable: the whole-file reader says what
    is wrong and where. `memo`: set to [text, value] of each item of `key` as it is yielded
    (its reader need not decode the text it was made from): an item is decoded as
    strict_json.fast_decoder decodes it (its integers unbounded: line_reader bounds them), the
    other values strictly."""
    import json
    import re

    strict, fast = strict_decoder().raw_decode, fast_decoder().raw_decode
    dumps = json.dumps
    space = re.compile(r"[ \t\n\r]*").match
    buf = ""
    pos = start = 0
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

    def value(decode=strict) -> object:
        """The next value; `start`: where its text begins in `buf` (it ends at `pos`)."""
        nonlocal pos, start
        peek()
        while True:
            try:
                got, end = decode(buf, pos)
            except (RecursionError, NotFinite):  # the whole-file reader says what is wrong
                raise NotStreamable from None
            except json.JSONDecodeError as exc:
                # cut by the piece's end (a string not closed yet, or the error at the last
                # characters: `tru` of a true), or not JSON (the whole-file reader says where)
                cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(buf) - 10
                if not cut or ended or not grow():
                    raise NotStreamable from None
                continue
            except ValueError:  # a number past int()'s digit limit: the whole-file reader says
                raise NotStreamable from None
            if end >= len(buf) - 2 and type(got) in (int, float) and not ended and grow():
                continue  # a number the piece may have cut (`1` of 12, `1.5` of 1.5e-3)
            start, pos = pos, end
            return got

    def expect(c: str) -> None:
        nonlocal pos
        if peek() != c:
            raise NotStreamable
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
                    raise NotStreamable
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
                            got = value(fast)
                            item = buf[start:pos]  # its text as the file has it (json.dumps'ing it back cost a fifth of the read)
                            if memo is not None:  # the item's value beside its text: not read again
                                memo[:] = (item, got)
                            c = peek()
                            pos += 1
                            if c == ",":
                                yield "    " + item + ","
                            elif c == "]":
                                yield "    " + item
                                break
                            else:
                                raise NotStreamable
                    c = peek()
                    pos += 1
                    if c == ",":
                        yield "  ],"
                        continue
                    if c != "}":
                        raise NotStreamable
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
                    raise NotStreamable
            yield "}"
        if peek() != "":
            raise NotStreamable  # more after the object
    except NotFinite:
        raise NotStreamable from None
    finally:
        pieces.close()
