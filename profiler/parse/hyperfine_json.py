"""hyperfine's `--export-json` file → TimingResults (pure).

hyperfine writes `command` as the `-n` name when one was given; `names` maps that name back to
the full command line and importprof's identity fields.
"""

from __future__ import annotations

import json
from typing import Mapping

from profiler.errors import BadInput
from profiler.model.measurement import CommandSpec, TimingResult


def parse_hyperfine_json(
    text: str, specs: Mapping[str, CommandSpec] | None = None, source: str = "hyperfine JSON"
) -> list[TimingResult]:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{source}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise BadInput(f"{source}: no 'results' list (not a hyperfine export)")
    out = []
    for i, r in enumerate(doc["results"]):
        try:
            name = r["command"]
            times = tuple(float(t) for t in r["times"])
            spec = (specs or {}).get(name)
            mem = r.get("memory_usage_byte")
            codes = r.get("exit_codes") or [0] * len(times)
            out.append(
                TimingResult(
                    command=spec.command if spec else name,
                    mean=float(r["mean"]),
                    stddev=None if r.get("stddev") is None else float(r["stddev"]),
                    median=float(r["median"]),
                    user=None if r.get("user") is None else float(r["user"]),
                    system=None if r.get("system") is None else float(r["system"]),
                    min=float(r["min"]),
                    max=float(r["max"]),
                    times=times,
                    exit_codes=tuple(-1 if c is None else int(c) for c in codes),
                    memory_usage_byte=None if mem is None else tuple(int(m) for m in mem),
                    variant=spec.variant if spec else r.get("variant", ""),
                    python=spec.python if spec else r.get("python"),
                    python_version=spec.python_version if spec else r.get("python_version"),
                    flags=spec.flags if spec else tuple(r.get("flags") or ()),
                    target=spec.target if spec else r.get("target", ""),
                    key=spec.key if spec else (r.get("key") or name),
                    instructions=r.get("instructions"),
                    engine="hyperfine",
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BadInput(f"{source}: result {i} is malformed ({exc!r})") from None
    return out
