"""hyperfine's `--export-markdown` table, for reports with timing `results`."""

from __future__ import annotations


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 1e3:.1f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report) -> str:
    from profiler.render.units import RATIO_CONVENTION, fmt_failed, fmt_ratio

    results = report.results  # the registry sends startup and compare reports only
    rel = {x.key: x for x in report.relative}
    lines = [
        "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |",
        "|:---|---:|---:|---:|---:|",
    ]
    for r in results:
        name = _cell(r.key or r.command)
        if r.failed:  # no timing figure: the error instead
            lines.append(f"| `{name}` | {_cell(fmt_failed(r.error))} | | | |")
            continue
        mean = _ms(r.mean) + ("" if r.stddev is None else f" ± {_ms(r.stddev)}")
        x = rel.get(r.key)
        relative = "" if x is None else fmt_ratio(x.ratio, x.ratio_stddev, reference=x.key == x.reference)
        lines.append(f"| `{name}` | {mean} | {_ms(r.min)} | {_ms(r.max)} | {relative} |")
    if rel:
        lines += ["", f"Relative: {RATIO_CONVENTION}."]
    return "\n".join(lines) + "\n"
