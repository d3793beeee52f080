"""Phase columns and the lazy-candidates table for `importprof imports` (--phases, --lazy-candidates). Renders only."""

from __future__ import annotations

PHASE_COLUMNS = (("find", "find_us"), ("read", "read_us"), ("unmarshal", "unmarshal_us"), ("exec", "exec_us"))  # a record's phase_us, in order


def phase_headers(modules) -> list[str]:
    """Extra column headers when the records carry phases (`imports --phases`), else []."""
    from profiler.model.import_columns import records_with

    if next(records_with(modules, "find_us"), None) is None:
        return []
    return [h for h, _ in PHASE_COLUMNS] + ["compiled"]


def phase_cells(m, headers: list[str]) -> list[str]:
    if not headers:
        return []
    if m is None or m.find_us is None:
        return [""] * len(headers)
    cells = [f"{us / 1000:.2f}" for us in m.phase_us]
    return cells + ["yes" if m.compiled else ""]


def phases_note(modules, runs: int, worst: int = 3) -> str:
    """The footnote of the phase columns: they come from ONE separate instrumented
    run, self/cumulative from the median of the timed runs, so a row's phases need not add up
    to its self: say so, and by how much for the rows where they differ most."""
    text = (
        "phases (ms): find+read+unmarshal+exec of ONE separate instrumented run (the median of up to 3 "
        "by total); they add up to THAT run's self, not to the self/cumulative columns (the median of "
        f"{runs} timed -X importtime run{'s' if runs != 1 else ''}); compiled = no valid .pyc"
    )
    from profiler.model.import_columns import records_with

    gaps = []
    for m in records_with(modules, "find_us"):
        if m.find_us is None:
            continue
        total = sum(us or 0 for us in m.phase_us)
        gaps.append((abs(m.self_us - total), m.name, total, m.self_us))
    gaps = [g for g in sorted(gaps, reverse=True)[:worst] if g[0] >= 100]  # 0.1 ms or more
    if gaps:
        text += "\nwhere the two runs differ most (phases sum vs self): " + "; ".join(
            f"{name} {total / 1000:.2f} vs {self_us / 1000:.2f} ms" for _, name, total, self_us in gaps
        )
        text += (
            " - two different runs, and the instrumented one starts differently (importprof's"
            " bootstrap runs first), so a row's phases can be far from its self in either direction"
        )
    return text


def lazy_table(report, tty: bool, top: int):
    """The lazy-import candidates (records with extra lazy_candidate true), costliest first;
    None when `--lazy-candidates` was not asked."""
    from profiler.render.console import new_table

    from profiler.model.import_columns import records_with

    marked = list(records_with(report.modules, "lazy_candidate"))
    if not marked:
        return None
    cands = sorted((m for m in marked if m.lazy_candidate), key=lambda m: -m.cumulative_us)
    t = new_table(tty, title=f"lazy-import candidates: never called into after their import ({len(cands)}; top {min(top, len(cands))} by cumulative ms)")
    t.add_column("module", no_wrap=True)
    t.add_column("cumulative", justify="right")
    t.add_column("imported at")
    for m in cands[:top]:
        t.add_row(m.name, f"{m.cumulative_us / 1000:.1f}", str(m.site or ""))
    return t
