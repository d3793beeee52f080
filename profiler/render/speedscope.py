"""`--format speedscope`: an evented profile per process in speedscope's file format
(https://www.speedscope.app/file-format-schema.json), times in real µs (medians).

Written process by process (render_speedscope_chunks): the frames first (one pass over the
names), then each process's profile from its columns (analysis.imports_views.timeline_blocks); the
events of the processes laid out alike go through one text made once for their layout, so a
thousand processes are written without making an event object each."""

from __future__ import annotations

import json

SCHEMA_URL = "https://www.speedscope.app/file-format-schema.json"


def render_speedscope(report) -> str:
    return "".join(render_speedscope_chunks(report))


def render_speedscope_chunks(report):
    """The document's text in pieces: the head with every frame, then a piece per process
    (exactly json.dumps of the whole document, tested)."""
    from profiler import __version__
    from profiler.analysis.imports_views import timeline_blocks

    dumps = json.dumps
    frames: list[dict] = []
    frame_ids: dict[str, int] = {}
    named: set = set()  # the layouts whose names are all frames already
    count = 0
    for block in timeline_blocks(report.modules):  # frames in the order the events open them
        count += 1
        if block.layout is not None:
            if block.layout in named:
                continue
            named.add(block.layout)
        for name in block.names:
            if name not in frame_ids:
                frame_ids[name] = len(frames)
                frames.append({"name": name})
    label = report.target or "import log"
    head = f'{{"$schema": {dumps(SCHEMA_URL)}, "shared": {{"frames": {dumps(frames, ensure_ascii=False)}}}, "profiles": ['
    tail = (f'], "name": {dumps(f"importprof imports: {label}", ensure_ascii=False)}, "activeProfileIndex": 0, '
            f'"exporter": {dumps(f"importprof {__version__}", ensure_ascii=False)}}}\n')

    def pieces():
        yield head
        templates: dict = {}  # layout → (its events' text with %d where each `at` goes, which row's start or end each is)
        for n, block in enumerate(timeline_blocks(report.modules)):
            starts, durs = block.spans()
            ends = list(map(int.__add__, starts, durs)) if block.layout is not None else [s + d for s, d in zip(starts, durs)]
            name = f"{label} (process {block.process})" if count > 1 else label
            if block.layout is not None:
                made = templates.get(block.layout)
                if made is None:
                    made = templates[block.layout] = _layout_events(block, frame_ids)
                text, picks = made
                events = text % tuple([ends[j] if closes else starts[j] for closes, j in picks])
            else:
                events = ", ".join(dumps(e) for e in _events(block, starts, ends, frame_ids))
            end = max(max(ends, default=0), max(starts, default=0))
            yield (", " if n else "") + (f'{{"type": "evented", "name": {dumps(name, ensure_ascii=False)}, "unit": "microseconds", '
                                         f'"startValue": 0, "endValue": {dumps(end)}, "events": [{events}]}}')
        yield tail

    return pieces()


def _event_order(depths) -> list[tuple[bool, int]]:
    """(closes, row) of each event of a process in order: a row opens after the rows at its
    depth or deeper are closed; the rows still open close at the end, innermost first."""
    out: list[tuple[bool, int]] = []
    open_rows: list[int] = []
    for i, d in enumerate(depths):
        while open_rows and depths[open_rows[-1]] >= d:
            out.append((True, open_rows.pop()))
        out.append((False, i))
        open_rows.append(i)
    while open_rows:
        out.append((True, open_rows.pop()))
    return out


def _layout_events(block, frame_ids: dict) -> tuple[str, list[tuple[bool, int]]]:
    order = _event_order(block.depths)
    names = block.names
    text = ", ".join(f'{{"type": "{"C" if closes else "O"}", "frame": {frame_ids[names[j]]}, "at": %d}}' for closes, j in order)
    return text, order


def _events(block, starts, ends, frame_ids: dict):
    for closes, j in _event_order(block.depths):
        yield {"type": "C" if closes else "O", "frame": frame_ids[block.names[j]], "at": ends[j] if closes else starts[j]}
