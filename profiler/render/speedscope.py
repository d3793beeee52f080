"""`--format speedscope`: an evented profile per process in speedscope's file format
(https://www.speedscope.app/file-format-schema.json), times in real µs (medians)."""

from __future__ import annotations

import json


def render_speedscope(report) -> str:
    from profiler import __version__
    from profiler.analysis.imports import lay_out_timeline

    frames: list[dict] = []
    frame_ids: dict[str, int] = {}
    by_proc: dict[int, list] = {}
    for span in lay_out_timeline(report.modules):
        by_proc.setdefault(span.process, []).append(span)
    profiles = []
    label = report.target or "import log"
    for proc in sorted(by_proc):
        spans = by_proc[proc]
        events: list[dict] = []
        open_stack: list = []  # spans still open (pre-order, nested)
        for s in spans:
            while open_stack and open_stack[-1].depth >= s.depth:
                done = open_stack.pop()
                events.append({"type": "C", "frame": frame_ids[done.name], "at": done.start_us + done.dur_us})
            fid = frame_ids.get(s.name)
            if fid is None:
                fid = frame_ids[s.name] = len(frames)
                frames.append({"name": s.name})
            events.append({"type": "O", "frame": fid, "at": s.start_us})
            open_stack.append(s)
        while open_stack:
            done = open_stack.pop()
            events.append({"type": "C", "frame": frame_ids[done.name], "at": done.start_us + done.dur_us})
        end = max((e["at"] for e in events), default=0)
        name = f"{label} (process {proc})" if len(by_proc) > 1 else label
        profiles.append(
            {"type": "evented", "name": name, "unit": "microseconds", "startValue": 0, "endValue": end, "events": events}
        )
    doc = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": frames},
        "profiles": profiles,
        "name": f"importprof imports: {label}",
        "activeProfileIndex": 0,
        "exporter": f"importprof {__version__}",
    }
    return json.dumps(doc, ensure_ascii=False) + "\n"
