"""The `lazy` bootstrap hook's record (one JSON object written at exit) → LazyRun. Pure."""

from __future__ import annotations

import json

from profiler.errors import BadInput
from profiler.model.lazy import EagerImport, LazyLoad, LazyRun


def parse_lazy_record(text: str) -> LazyRun:
    try:
        d = json.loads(text)
    except ValueError:
        raise BadInput(f"lazy record: not a JSON document: {text[:80]!r}") from None
    try:
        return LazyRun(
            lazy=bool(d["lazy"]),
            python=str(d.get("python") or ""),
            startup=tuple(str(n) for n in d.get("startup") or ()),
            executed=tuple((str(e[0]), str(e[1]), e[2] if len(e) > 2 else None) for e in d["executed"]),
            pending=tuple(str(n) for n in d["pending"]),
            eager=tuple(EagerImport(str(n), str(r), s) for n, r, s in d["eager"]),
            loads=tuple(LazyLoad(str(n), str(t), str(a), s) for n, t, a, s in d["loads"]),
            found=tuple((str(n), str(k)) for n, k in d.get("found") or ()),
            counts={str(k): int(v) for k, v in (d.get("counts") or {}).items()},
            calibration={str(k): float(v) for k, v in (d.get("calibration") or {}).items()},
            own_lazy=tuple(str(x) for x in d.get("own_lazy") or ()),
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise BadInput(f"lazy record: bad or missing field ({exc!r})") from None
