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
            sys_path_before=tuple(d.get("sys_path_before") or ()),
            sys_path_after=tuple(d.get("sys_path_after") or ()),
            pth=tuple(pth),
            sitecustomize=d.get("sitecustomize"),
            usercustomize=d.get("usercustomize"),
            user_site=d.get("user_site"),
            python=d.get("python"),
            version=d.get("version"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"site record: bad field ({exc})") from None
