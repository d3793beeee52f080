"""`--format folded`: flamegraph.pl's collapsed stacks, one line per module
(`root;child;module SELF_US`), weights in µs (medians). Several processes: a `python N` frame
on top of each stack.

Written process by process (render_folded_chunks, analysis.imports_views.stack_blocks): a stack's
text is joined once per layout (processes of one program repeat them)."""

from __future__ import annotations


def render_folded(report) -> str:
    return "".join(render_folded_chunks(report))


def _frames(stack) -> str:
    return ";".join([f.replace(";", ":").replace(" ", "_") for f in stack])


def render_folded_chunks(report):
    from profiler.analysis.imports_views import stack_blocks

    many = report.processes > 1 or any(process for process, *_ in stack_blocks(report.modules))

    def pieces():
        by_layout: dict = {}  # layout → each row's stack as text, with the space before the weight
        joined: dict[tuple[str, ...], str] = {}  # a stack's text (processes kept as records)
        for process, layout, paths, selfs in stack_blocks(report.modules):
            texts = by_layout.get(layout) if layout is not None else None
            if texts is None:
                texts = []
                for stack in paths:
                    text = joined.get(stack)
                    if text is None:
                        text = joined[stack] = _frames(stack)
                    texts.append(text + " ")
                if layout is not None:
                    by_layout[layout] = texts
            prefix = f"python {process};" if many else ""
            lines = [f"{prefix}{t}{s}\n" for t, s in zip(texts, selfs) if s > 0]
            if lines:
                yield "".join(lines)

    return pieces()
