"""`importprof report`: the page bundle (`importprof.report/1`): the documents one page shows,
each with where it came from, and what the page derives from them."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, saved


def kind_of(doc: dict) -> str:
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if isinstance(schema, str) and schema.startswith("importprof.") and "/" in schema:
        return schema[len("importprof.") :].split("/", 1)[0]
    return "other"


@dataclass(frozen=True)
class PageReport(Document):
    """What the HTML page shows: documents in order, each with where it came from."""

    SCHEMA = "importprof.report/1"

    # (fields in the order of the JSON's keys: the page's facts before its documents)
    machine: dict = field(default_factory=dict)
    title: str = "importprof report"
    generated_at: str = ""
    target: str | None = None
    interpreter: dict | None = None
    sources: tuple[str, ...] = ()
    skipped: tuple[dict, ...] = ()  # {"part": ..., "reason": ...}
    # (source label, JSON document); each written as {source, doc}: where it came from beside it
    documents: tuple[tuple[str, dict], ...] = saved(default=(), pairs=("source", "doc"))
    derived: dict = field(default_factory=dict)  # what the page shows beyond the documents (analysis/page.py: page_data)

    def kinds(self) -> list[str]:
        return [kind_of(doc) for _, doc in self.documents]

    def warnings(self) -> list[str]:
        """The page's own warnings in words (documents that mix targets or interpreters)."""
        out = []
        for mix in self.derived.get("mixed", ()):
            noun = "targets" if mix["what"] == "target" else "Python versions"
            listing = "; ".join(f"{v['value']} ({', '.join(v['sources'])})" for v in mix["values"])
            out.append(f"these documents measure different {noun}: {listing}; compare their figures with care")
        return out
