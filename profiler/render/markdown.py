"""hyperfine's `--export-markdown` table, for reports with timing `results`."""

from __future__ import annotations

from profiler.errors import UsageError


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 1e3:.1f}"


def render_markdown(report) -> str:
    results = getattr(report, "results", None)
    if results is None:
        raise UsageError("markdown output needs a report with timing results (startup, compare)")
    rel = {x.key: x for x in getattr(report, "relative", ())}
    lines = [
        "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |",
        "|:---|---:|---:|---:|---:|",
    ]
    for r in results:
        mean = _ms(r.mean) + ("" if r.stddev is None else f" ± {_ms(r.stddev)}")
        x = rel.get(r.key)
        relative = ""
        if x is not None:
            relative = f"{x.ratio:.2f}" + ("" if x.ratio_stddev is None else f" ± {x.ratio_stddev:.2f}")
        name = (r.key or r.command).replace("|", "\\|")
        lines.append(f"| `{name}` | {mean} | {_ms(r.min)} | {_ms(r.max)} | {relative} |")
    return "\n".join(lines) + "\n"
