"""Any report → its versioned JSON document (`schema`, `machine`, ...)."""

from __future__ import annotations

import json


def render_json(report) -> str:
    to_json = getattr(report, "to_json", None)  # a report that writes big documents itself (imports)
    if to_json is not None:
        return to_json()
    doc = report.to_dict() if hasattr(report, "to_dict") else report
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def render_json_chunks(report):
    """render_json's text in pieces made as they are read (a report that writes big documents
    itself, imports, streams them; any other is one piece)."""
    chunks = getattr(report, "json_chunks", None)
    if chunks is not None:
        return chunks()
    return (render_json(report),)
