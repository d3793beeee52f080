"""Any report → its versioned JSON document (`schema`, `machine`, ...)."""

from __future__ import annotations

import json


def render_json(report) -> str:
    to_json = getattr(report, "to_json", None)  # a report that writes big documents itself (imports)
    if to_json is not None:
        return to_json()
    doc = report.to_dict() if hasattr(report, "to_dict") else report
    if _page_with_columns(doc):
        return "".join(_page_chunks(doc))
    return _dumps(doc) + "\n"


def _dumps(doc) -> str:
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False)


def _page_with_columns(doc) -> bool:
    """A report page holding saved imports reports read as columns (render/page_json.py)."""
    if not isinstance(doc, dict) or doc.get("schema") != "importprof.report/1":
        return False
    from profiler.render.page_json import has_columns

    return has_columns(doc)


def _page_chunks(doc: dict):
    from profiler.render.page_json import page_chunks

    yield from page_chunks(doc, _dumps, True)
    yield "\n"


# documents whose big lists are written an item at a time (model.document.indented_json_chunks):
# a diff of two harness reports (every module changed) lists half a million changes
STREAMED = {"importprof.diff/1": ("added", "removed", "changed")}


def render_json_chunks(report):
    """render_json's text in pieces made as they are read (a report that writes big documents
    itself, imports, streams them; a diff its lists, a record at a time; any other is one
    piece)."""
    chunks = getattr(report, "json_chunks", None)
    if chunks is not None:
        return chunks()
    if getattr(report, "SCHEMA", None) == "importprof.report/1":
        doc = report.to_dict()
        return _page_chunks(doc) if _page_with_columns(doc) else (_dumps(doc) + "\n",)
    fields = STREAMED.get(getattr(report, "SCHEMA", None))
    if fields and hasattr(report, "to_dict"):
        from profiler.model.document import indented_json_chunks

        return indented_json_chunks(report, fields, {"changed": change_texts})
    return (render_json(report),)


_CHANGE_KEYS = ("name", "process", "old_self_us", "new_self_us", "old_cumulative_us", "new_cumulative_us", "significant",
                "wrapper", "delta_self_us", "delta_cumulative_us")
# a column holds a flag as a bool or as 0/1 (2: unknown); 0 and 1 find False's and True's entries
_WORDS = {None: "null", True: "true", False: "false", 2: "null"}


def change_texts(changed):
    """A diff's changes kept as columns (model ChangeColumns) as indented_json_chunks writes
    them (json.dumps(indent=2) at depth 2, in the changes' order), straight from the columns:
    one %-template for every change (made from the keys of the first change's own to_dict(),
    its text checked equal to that record's), each name's JSON made once, 2,000 changes a
    text — without the ModuleChange record and dict of each. Changes spilled in sorted runs
    (compose.diff_spill.ChangeRuns: a `rows()` of them merged) are written the same way from
    their rows as the merge gives them. None (write the records) for a tuple of changes or
    columns that are not all machine integers (a saved 5.0)."""
    import json
    from array import array
    from itertools import islice

    from profiler.model.document import _indented_items
    from profiler.model.diff_report import ChangeColumns

    spilled = getattr(changed, "rows", None) if not isinstance(changed, (ChangeColumns, tuple)) else None
    if spilled is None and (not isinstance(changed, ChangeColumns) or not len(changed) or not all(
            isinstance(c, array) for c in (changed.process, changed.old_self, changed.new_self, changed.old_cum, changed.new_cum))):
        return None
    if not len(changed):
        return None
    first = changed[0]
    if tuple(first.to_dict()) != _CHANGE_KEYS:
        return None
    dumps = json.dumps
    template = "{\n      " + ",\n      ".join(f"{dumps(k)}: %{'s' if k in ('name', 'significant', 'wrapper') else 'd'}" for k in _CHANGE_KEYS) + "\n    }"
    shown: dict[str, str] = {}
    if spilled is not None:
        def row_text(r: tuple) -> str:  # (-|Δ cumulative|, -|Δ self|, name, position, k, process, os, ns, oc, nc, significant, wrapper)
            name = r[2]
            js = shown.get(name)
            if js is None:
                js = shown[name] = dumps(name, ensure_ascii=False)
            return template % (js, r[5], r[6], r[7], r[8], r[9], _WORDS[r[10]], _WORDS[r[11]], r[7] - r[6], r[9] - r[8])

        rows = spilled()
        head = next(rows)
        if row_text(head) != next(_indented_items([first.to_dict()])):
            return None
        return _batches(map(row_text, rows), row_text(head))

    names, process = changed.names, changed.process
    os_, ns, oc, nc = changed.old_self, changed.new_self, changed.old_cum, changed.new_cum
    sig, wrapper = changed.significant, changed.wrapper

    def text(k: int) -> str:
        name = names[k]
        js = shown.get(name)
        if js is None:
            js = shown[name] = dumps(name, ensure_ascii=False)
        a, b, c, d = os_[k], ns[k], oc[k], nc[k]
        return template % (js, process[k], a, b, c, d, _WORDS[sig[k]], _WORDS[wrapper[k]], b - a, d - c)

    order = changed._sorted()
    if text(order[0]) != next(_indented_items([first.to_dict()])):
        return None

    def pieces():
        it = iter(order)
        while True:
            batch = list(islice(it, 2000))
            if not batch:
                return
            yield ",\n    ".join(map(text, batch))

    return pieces()


def _batches(texts, first: str):
    """`first`, then `texts`, joined by ",\n    " 2,000 at a time."""
    from itertools import islice

    batch = [first, *islice(texts, 1999)]
    while batch:
        yield ",\n    ".join(batch)
        batch = list(islice(texts, 2000))
