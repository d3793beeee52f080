"""The report page's data (importprof.report/1) as JSON text in pieces, for a page that holds
saved imports reports read back as columns (model.report.SavedColumns, their trees
model.report.ColumnTree): the page's keys written at once with a stand-in string where each
such document's modules and each such tree go, and in their place the modules and the tree
written from the columns a process at a time (a layout's rows through one template). The same
text as json.dumps of the page whose documents are the saved dicts and whose trees are
analysis.page.import_tree's, byte for byte: compact (html.embed_json's, escapes included) or
indent=2 (report_json's)."""

from __future__ import annotations

import json
import re
import uuid
from itertools import chain, repeat
from typing import Callable, Iterator

from profiler.model.import_columns import ColumnBlock, module_blocks
from profiler.model.report import ColumnTree, SavedColumns


def has_columns(page: dict) -> bool:
    """The page (PageReport.to_dict()) holds a document or a tree kept as columns."""
    docs = [item.get("doc") for item in page.get("documents") or () if isinstance(item, dict)]
    trees = [d.get("tree") for d in (page.get("derived") or {}).get("documents") or () if isinstance(d, dict)]
    return any(isinstance(d, SavedColumns) for d in docs) or any(isinstance(t, ColumnTree) for t in trees)


def page_chunks(page: dict, dumps: Callable[[object], str], indent: bool, escape: Callable[[str], str] = lambda s: s) -> Iterator[str]:
    """`dumps(page)` (json.dumps of compact or indent=2 form; `escape` applied to every piece
    made here, as html.embed_json applies it to its text) in pieces: each SavedColumns' modules
    and each ColumnTree written from its columns where dumps wrote a stand-in for it."""
    token = uuid.uuid4().hex
    fills: dict[str, Callable[[int], Iterator[str]]] = {}

    def stand_in(fill) -> str:
        name = f"importprof-stream-{token}-{len(fills)}"
        fills[name] = fill
        return name

    light = dict(page)
    if isinstance(page.get("documents"), (list, tuple)):
        light["documents"] = [
            {**item, "doc": item["doc"].header(stand_in(lambda level, d=item["doc"]: _modules(d.records, level, indent)))}
            if isinstance(item, dict) and isinstance(item.get("doc"), SavedColumns) else item
            for item in page["documents"]]
    derived = page.get("derived")
    if isinstance(derived, dict) and isinstance(derived.get("documents"), (list, tuple)):
        light["derived"] = {**derived, "documents": [
            {**d, "tree": stand_in(lambda level, t=d["tree"]: _tree(t, level, indent))} if isinstance(d, dict) and isinstance(d.get("tree"), ColumnTree) else d
            for d in derived["documents"]]}
    text = dumps(light)
    places = sorted((text.index(json.dumps(name)), name) for name in fills)
    done = 0
    for at, name in places:
        head = text[done:at]
        done = at + len(json.dumps(name))
        level = 0
        if indent:  # the stand-in's key begins its line: the value's level is that line's
            line = text[text.rfind("\n", 0, at) + 1:at]
            level = (len(line) - len(line.lstrip(" "))) // 2
        yield head
        for piece in fills[name](level):
            yield escape(piece)
    text = text[done:]
    yield text


def _sep(indent: bool, level: int) -> str:
    return "\n" + "  " * level if indent else ""


# ------------------------------------------------------------------ modules
_STAND = (-7000000000000011, -7000000000000012, -7000000000000013)  # self, cumulative, process: no real row has them


def _record_text(record, indent: bool, level: int) -> str:
    d = record.to_dict()
    if indent:
        return json.dumps(d, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * level)
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def _block_template(block: ColumnBlock, indent: bool, level: int) -> str | None:
    """The block's rows joined as the list writes them, a %-template of (self, cumulative,
    process, self, cumulative) a row, made once per layout and form; None when a row's text
    does not have them so (a name holding a stand-in's digits, or a %)."""
    layout = block.layout
    key = ("page_json", indent, level)
    if key in layout.memo:
        return layout.memo[key]
    s, c, p = _STAND
    n = len(layout.names)
    stand = ColumnBlock(layout, p, [s] * n, [c] * n)
    texts = [_record_text(stand.record(i), indent, level + 1) for i in range(n)]
    joined = ("," + _sep(indent, level + 1)).join(texts)
    numbers = "|".join(str(v) for v in _STAND)
    found = re.findall(numbers, joined)
    template = None
    if "%" not in joined and found == [str(_STAND[k]) for k in (0, 1, 2, 0, 1)] * n:
        template = re.sub(numbers, "%d", joined)
    layout.memo[key] = template
    return template


def _modules(records, level: int, indent: bool) -> Iterator[str]:
    """A document's modules as the list json.dumps writes at `level` (the list's own level)."""
    if not len(records):
        yield "[]"
        return
    blocks = module_blocks(records)
    sep = "," + _sep(indent, level + 1)
    first = True
    yield "[" + _sep(indent, level + 1)
    for b in blocks:
        text = None
        if isinstance(b, ColumnBlock):
            template = _block_template(b, indent, level)
            if template is not None:
                s, c = b.self_us, b.cumulative_us
                text = template % tuple(chain.from_iterable(zip(s, c, repeat(b.process), s, c)))
            else:
                text = sep.join(_record_text(b.record(i), indent, level + 1) for i in range(len(b.self_us)))
        else:
            text = sep.join(_record_text(m, indent, level + 1) for m in b)
        yield text if first else sep + text
        first = False
    yield _sep(indent, level) + "]"


# ------------------------------------------------------------------ the tree
def _segment_template(parents, indent: bool, level: int) -> str:
    """The roots of one segment, their kids nested by `parents` (each row's parent row in the
    segment, or None), as items of a kids list whose items are at `level`, each item after a
    ",": a %-template of (m, cum) a row, in row order (the rows are in pre-order)."""
    has_kids = [False] * len(parents)
    first_kid = [False] * len(parents)
    for j, p in enumerate(parents):
        if p is not None and not has_kids[p]:
            has_kids[p] = first_kid[j] = True
    out: list[str] = []
    open_nodes: list[tuple[int, int]] = []  # (row, its level) of the nodes whose kids are being written

    def close() -> None:
        _, lvl = open_nodes.pop()
        out.append(_sep(indent, lvl + 1) + "]" + _sep(indent, lvl) + "}")

    for j, p in enumerate(parents):
        while open_nodes and open_nodes[-1][0] != p:
            close()
        lvl = open_nodes[-1][1] + 2 if p is not None else level
        inner = _sep(indent, lvl + 1)
        node = ("{" + inner + '"m": %d,' + inner + '"cum": %d,' + inner + '"kids": ') if indent else '{"m":%d,"cum":%d,"kids":'
        out.append(("" if first_kid[j] else ",") + _sep(indent, lvl) + node)
        if has_kids[j]:
            out.append("[")
            open_nodes.append((j, lvl))
        else:
            out.append("[]" + _sep(indent, lvl) + "}")
    while open_nodes:
        close()
    return "".join(out)


def _synthetic(name: str, cum, indent: bool, level: int) -> str:
    """A synthetic node's text up to its kids' list ({"name", "cum", "kids": )."""
    inner = _sep(indent, level + 1)
    colon = ": " if indent else ":"
    return ("{" + inner + '"name"' + colon + json.dumps(name, ensure_ascii=False) + "," + inner + '"cum"' + colon
            + json.dumps(cum, ensure_ascii=False) + "," + inner + '"kids"' + colon)


def _kids(segments, indent: bool, level: int) -> Iterator[str]:
    """A kids list of the segments' roots (items at `level`)."""
    first = True
    for start, rows, parents in segments:
        if isinstance(rows, ColumnBlock):
            memo = rows.layout.memo
            key = ("page_tree", indent, level)
            template = memo.get(key)
            if template is None:
                template = memo[key] = _segment_template(parents, indent, level)
            n = len(rows.self_us)
            args = chain.from_iterable(zip(range(start, start + n), rows.cumulative_us))
        else:
            template = _segment_template(parents, indent, level)
            args = chain.from_iterable((start + j, m.cumulative_us) for j, m in enumerate(rows))
        if not template:
            continue
        text = template % tuple(args)
        if first:
            yield "[" + text[1:]
            first = False
        else:
            yield text
    yield "[]" if first else _sep(indent, level - 1) + "]"


def _tree(tree: ColumnTree, level: int, indent: bool) -> Iterator[str]:
    """analysis.page.import_tree's tree as json.dumps writes it at `level` (the top node's)."""
    yield _synthetic(tree.name, tree.cum, indent, level)
    if tree.single:
        segments = tree.processes[0][2] if tree.processes else ()
        yield from _kids(segments, indent, level + 2)
    elif not tree.processes:
        yield "[]"
    else:
        yield "[" + _sep(indent, level + 2)
        for k, (process, cum, segments) in enumerate(tree.processes):
            if k:
                yield "," + _sep(indent, level + 2)
            yield _synthetic(f"process {process}", cum, indent, level + 2)
            yield from _kids(segments, indent, level + 4)
            yield _sep(indent, level + 2) + "}"
        yield _sep(indent, level + 1) + "]"
    yield _sep(indent, level) + "}"
