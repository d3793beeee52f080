"""The `site` bootstrap hook's record (one JSON object) → SiteRun. Pure."""

from __future__ import annotations

import json

from profiler.errors import BadInput
from profiler.model.site import SiteRun


def parse_site_record(text: str) -> SiteRun:
    try:
        d = json.loads(text)
    except ValueError:
        raise BadInput("site record: not a JSON object (the run stopped before site finished?)") from None
    if not isinstance(d, dict) or d.get("main_us") is None:
        raise BadInput("site record: site.main() did not run (the interpreter ran with -S?)")
    try:
        pth = []
        for p in d.get("pth") or ():
            pth.append(
                {
                    "path": str(p["path"]),
                    "us": int(p["us"]),
                    "lines": [
                        {"lineno": ln.get("lineno"), "text": str(ln.get("text", "")), "us": int(ln["us"])}
                        for ln in p.get("lines") or ()
                    ],
                }
            )
        return SiteRun(
            main_us=int(d["main_us"]),
            sys_path_before=_strings(d.get("sys_path_before"), "sys_path_before"),
            sys_path_after=_strings(d.get("sys_path_after"), "sys_path_after"),
            pth=tuple(pth),
            sitecustomize=_timed(d.get("sitecustomize"), "sitecustomize"),
            usercustomize=_timed(d.get("usercustomize"), "usercustomize"),
            user_site=_timed(d.get("user_site"), "user_site"),
            python=d.get("python"),
            version=d.get("version"),
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise BadInput(f"site record: bad field ({exc})") from None


def _strings(value, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} is not a list of paths")
    return tuple(value)


def _timed(value, key: str) -> dict | None:
    """sitecustomize / usercustomize / user_site: None, or an object with integer `us` and
    a `path` that is a string or null."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{key} is not an object")
    path = value.get("path")
    if path is not None and not isinstance(path, str):
        raise ValueError(f"{key}.path is not a string")
    return {**value, "us": int(value["us"])}
