"""hyperfine's `--export-json` file → TimingResults (pure).

hyperfine writes `command` as the `-n` name when one was given; `specs` maps that name back to
the full command line and importprof's identity fields.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Mapping

from profiler.errors import BadInput
from profiler.model.measurement import CommandSpec, TimingResult
from profiler.model.words import Engine


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
            for k in ("mean", "median", "min", "max"):
                # hyperfine always writes them; a failed importprof record is not its file
                if not math.isfinite(float(r[k])):
                    raise ValueError(f"{k} is not a finite number")
            result = TimingResult.from_dict({"engine": "hyperfine", **r})
            if not result.exit_codes:  # hyperfine < 1.20 wrote no exit codes: all succeeded
                result = replace(result, exit_codes=(0,) * len(result.times))
            spec = (specs or {}).get(r["command"])
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise BadInput(f"{source}: result {i} is malformed ({exc!r})") from None
        if spec is not None:
            result = replace(
                result, command=spec.command, variant=spec.variant, python=spec.python,
                python_version=spec.python_version, flags=spec.flags, target=spec.target,
                key=spec.key, role=spec.role, module=spec.module, engine=Engine.HYPERFINE, way=spec.way,
            )
        out.append(result)
    return out
