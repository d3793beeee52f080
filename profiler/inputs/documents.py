"""A saved importprof document, read whole and checked at this boundary, before any code trusts
it: strict JSON, an `importprof.<kind>/1` schema the reader accepts, then the JSON schema of
that kind (profiler/schemas/<kind>.json, published in the README) and the few rules a JSON
schema cannot say (imports_rules: a module's parent exists). The message names the first
offending place: `modules[3].self_us: expected integer (got a string)`."""

from __future__ import annotations

import os
from typing import Iterable

from profiler.inputs.bounded import bad
from profiler.inputs.imports_rules import RULES
from profiler.inputs.schema_compiler import SCHEMA_DIR
from profiler.inputs.schema_problems import first_problem, json_type
from profiler.inputs.strict_json import read_json

# document kinds importprof writes that have no published schema yet (read as objects only)
WRITTEN_WITHOUT_SCHEMA = ("pythons", "pack", "build", "variant")
MAX_NESTING = 200  # deeper JSON is not an importprof document (and would exhaust the stack)


def kinds() -> list[str]:
    """The document kinds with a published schema."""
    return sorted(f[: -len(".json")] for f in os.listdir(SCHEMA_DIR) if f.endswith(".json"))


def kind_of(doc: object) -> str | None:
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if isinstance(schema, str) and schema.startswith("importprof.") and "/" in schema:
        return schema[len("importprof.") :].split("/", 1)[0]
    return None


def read_document(path: str, accept: Iterable[str] | None = None, what: str = "document") -> dict:
    """A saved importprof document, validated. `accept`: the kinds this reader takes (None:
    any kind; one without a published schema is only checked to be an object with a schema)."""
    if path == "-":
        raise bad(f"reading a {what} from stdin is not supported; give a file")
    doc = read_json(path, what)
    check_document(doc, path, accept)
    return doc  # type: ignore[return-value]


def check_document(doc: object, source: str, accept: Iterable[str] | None = None) -> None:
    accept = tuple(accept) if accept is not None else None
    wanted = " or ".join(f"importprof.{k}/1" for k in accept) if accept else "importprof"
    if not isinstance(doc, dict):
        raise bad(f"{source}: not an {wanted} document (a JSON {json_type(doc)}, not an object)")
    kind = kind_of(doc)
    if kind is None or (accept is not None and kind not in accept):
        raise bad(f"{source}: not an {wanted} document (schema={doc.get('schema')!r})")
    if nesting(doc) > MAX_NESTING:
        raise bad(f"{source}: not an importprof document (nested deeper than {MAX_NESTING})")
    from profiler.schemas import readable_versions

    versions = readable_versions(kind)
    if doc.get("schema") not in {f"importprof.{kind}/{v}" for v in versions}:
        reads = " or ".join(f"importprof.{kind}/{v}" for v in versions)
        raise bad(f"{source}: {doc.get('schema')!r} is a version this importprof does not read (it reads {reads})")
    if kind not in kinds():
        if kind not in WRITTEN_WITHOUT_SCHEMA:
            raise bad(f"{source}: {doc.get('schema')!r} is not a document importprof writes")
        return
    problem = first_problem(doc, kind)
    if problem is None:
        check = RULES.get(kind)
        problem = check(doc) if check else None
    if problem is not None:
        raise bad(f"{source}: not a valid importprof.{kind}/1 document: {problem}")
    if kind == "report":
        for i, item in enumerate(doc.get("documents") or ()):
            check_document(item["doc"], f"{source}: documents[{i}]")


def nesting(value: object) -> int:
    """Nesting depth, without recursion (a hostile document must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_NESTING:
                return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest
