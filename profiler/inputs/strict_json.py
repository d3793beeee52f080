"""The strict JSON reader: what json.loads reads, less NaN and Infinity, numbers beyond a float's
range and integers beyond 2**53 (I-JSON); every refusal one BadInput line naming the file."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from profiler.inputs.bounded import bad, read_text

if TYPE_CHECKING:
    from json import JSONDecoder


class NotFinite(ValueError):
    """A number (or constant) strict JSON refuses; raised from inside json's decoder."""


def _constant(name: str):
    raise NotFinite(f"{name} is not a number JSON allows")


# I-JSON (RFC 7493): integers beyond 2**53 do not survive other JSON readers, and no time, size,
# count or depth importprof writes comes near it
MAX_JSON_INT = 2**53


def _int(text: str) -> int:
    if len(text) < 16:  # at most 15 digits: below 2**53 (json calls this for every integer)
        return int(text)
    digits = len(text.lstrip("-"))
    if digits > 16:  # before int(): past 4300 digits it raises, and a long one costs quadratic time
        raise NotFinite(f"a number of {digits} digits is larger than any importprof document holds")
    value = int(text)
    if abs(value) > MAX_JSON_INT:
        raise NotFinite(f"{text} is larger than any importprof document holds (at most 2**53)")
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(f"{text[:30]} is too large for a number")
    return value


_DECODER: JSONDecoder | None = None


def strict_decoder() -> JSONDecoder:
    """One json.JSONDecoder with parse_json's refusals (NotFinite), made once: its decode() and
    raw_decode() read a value as parse_json does (json.loads would build a decoder per call)."""
    global _DECODER
    if _DECODER is None:
        import json

        _DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_int)
    return _DECODER


_FAST: JSONDecoder | None = None


def fast_decoder() -> JSONDecoder:
    """strict_decoder's refusals but for its integers, which json's C parser reads as it reads
    them for json.load (strict_decoder's hook costs a Python call for each: half of the decoding
    of a saved report's records). For a caller that bounds every integer of the value itself
    (schema_compiler.item_shape_check) and decodes the text again with strict_decoder when it
    cannot: an integer past 2**53 comes through here."""
    global _FAST
    if _FAST is None:
        import json

        _FAST = json.JSONDecoder(parse_constant=_constant, parse_float=_float)
    return _FAST


def parse_json(text: str, source: str) -> object:
    """Strict JSON: NaN, Infinity and numbers beyond a float's range are refused."""
    import json

    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except NotFinite as exc:
        raise bad(f"{source}: not valid JSON ({exc})") from None
    except RecursionError:
        raise bad(f"{source}: not an importprof document (JSON nested too deeply)") from None
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        line = getattr(exc, "lineno", None)
        raise bad(f"{source}: not JSON ({msg.removesuffix(' at')}{f', line {line}' if line else ''})") from None


def read_json(path: str, what: str = "JSON document") -> object:
    return parse_json(read_text(path, what, errors="surrogateescape"), path)
