"""Raw records of the `phases` and `calls` bootstrap hooks (JSON lines) → model. Pure.

Tolerant of a truncated last line (a run killed while writing); strict about meaning: a
malformed record elsewhere is an error naming its line.
"""

from __future__ import annotations

import json

from profiler.errors import BadInput
from profiler.model.phases import ImportSite, ModulePhases

_INT_KEYS = ("parent", "depth", "start_us", "cumulative_us", "find_us", "read_us", "unmarshal_us", "exec_us")


def _json_lines(text: str, what: str):
    lines = text.replace("\r\n", "\n").split("\n")
    last = max((i for i, ln in enumerate(lines) if ln.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            yield i + 1, json.loads(line)
        except ValueError:
            if i == last and not text.endswith("\n"):
                return  # truncated last line
            raise BadInput(f"{what}: line {i + 1} is not a JSON record: {line[:80]!r}") from None


def parse_phase_records(text: str) -> list[ModulePhases]:
    out = []
    for lineno, d in _json_lines(text, "phases records"):
        if not isinstance(d, dict):
            raise BadInput(f"phases records: line {lineno}: not a JSON object")
        try:
            site = d.get("site")
            out.append(
                ModulePhases(
                    index=int(d["i"]),
                    name=str(d["name"]),
                    compiled=bool(d.get("compiled", False)),
                    failed=bool(d.get("failed", False)),
                    site=ImportSite(str(site[0]), None if site[1] is None else int(site[1]), site[2]) if site else None,
                    context=tuple(d.get("context") or ()),
                    launcher=bool(d.get("launcher", False)),
                    origin=d.get("origin"),
                    **{k: _int(d[k], k) for k in _INT_KEYS},
                )
            )
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
            raise BadInput(f"phases records: line {lineno}: bad record ({exc})") from None
    return out


def _int(v, key: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{key} is not an integer: {v!r}")
    return v


def parse_calls(text: str) -> frozenset[str]:
    names = set()
    for lineno, d in _json_lines(text, "calls records"):
        if not isinstance(d, str):
            raise BadInput(f"calls records: line {lineno} is not a module name")
        names.add(d)
    return frozenset(names)
