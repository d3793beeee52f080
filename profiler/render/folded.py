"""`--format folded`: flamegraph.pl's collapsed stacks, one line per module
(`root;child;module SELF_US`), weights in µs (medians). Several processes: a `python N` frame
on top of each stack."""

from __future__ import annotations


def render_folded(report) -> str:
    from profiler.analysis.imports import stacks

    many = report.processes > 1 or any(m.process for m in report.modules)
    lines = []
    joined: dict[tuple[str, ...], str] = {}  # a stack's frames as text, once per stack (processes of one program repeat them)
    for stack, self_us, proc in stacks(report.modules):
        if self_us <= 0:
            continue
        text = joined.get(stack)
        if text is None:
            text = joined[stack] = ";".join([f.replace(";", ":").replace(" ", "_") for f in stack])
        lines.append(f"python {proc};{text} {self_us}" if many else f"{text} {self_us}")
    return "\n".join(lines) + ("\n" if lines else "")
