"""`importprof report`: the page bundle (`importprof.report/1`): the documents one page shows,
each with where it came from, and what the page derives from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Iterator

from profiler.model.document import Document, saved
from profiler.model.words import Said, WarningKind


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

    def warnings(self) -> list[Said]:
        """The page's own warnings in words (documents that mix targets or interpreters)."""
        out = []
        for mix in self.derived.get("mixed", ()):
            noun = "targets" if mix["what"] == "target" else "Python versions"
            listing = "; ".join(f"{v['value']} ({', '.join(v['sources'])})" for v in mix["values"])
            out.append(Said(f"these documents measure different {noun}: {listing}; compare their figures with care",
                            WarningKind.MIXED_DOCUMENTS, f"these documents measure different {noun}"))
        return out


class ModuleDicts(Sequence):
    """A saved report's modules kept as columns (model.import_tree.ModuleColumns, or a tuple of
    records), read as the saved records' dicts, each made when it is read. Not a list: a writer
    that does not know it fails (json: not serializable) rather than writing it half."""

    __slots__ = ("records",)

    def __init__(self, records: Sequence) -> None:
        self.records = records

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [m.to_dict() for m in self.records[i]]
        return self.records[i].to_dict()

    def __iter__(self) -> Iterator[dict]:
        return (m.to_dict() for m in self.records)


class SavedColumns(dict):
    """A saved `importprof.imports/1` document read back a line at a time for the page
    (inputs.read_imports_document): its keys as saved, in order; `modules` the records in the
    column form (`self.records`), read through `self["modules"]` as their dicts (ModuleDicts).
    The page's writers (render/page_json.py) write its modules from the columns, a process at a
    time; the rest of the page reads it as the dict it was saved as."""

    def __init__(self, keys: dict, records: Sequence) -> None:
        super().__init__(keys)
        self["modules"] = ModuleDicts(records)
        self.records = records

    def header(self, modules: Any = ()) -> dict:
        """Its keys as a plain dict, `modules` in place of its modules."""
        return {k: (modules if k == "modules" else v) for k, v in self.items()}


class ColumnTree:
    """analysis.page.import_tree's tree of a SavedColumns document, kept as the columns it is
    made of, written by the page's writers (render/page_json.py) a process at a time: the top
    node's name and cum; `processes` [(process, cum, segments)] in the order the tree lists
    them, each segment (first row, records or ColumnBlock, parent row of each row within the
    segment); `single`: the one process's roots are the top's kids (no process node)."""

    __slots__ = ("name", "cum", "processes", "single")

    def __init__(self, name: str, cum: Any, processes: list, single: bool) -> None:
        self.name, self.cum, self.processes, self.single = name, cum, processes, single
