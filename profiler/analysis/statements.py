"""Import-time work inside module bodies: the `statements` hook's sampled runs merged and cut (pure)."""

from __future__ import annotations


def merge_statement_runs(runs) -> list:
    """Several sampled runs of the `statements` hook → one row per statement: its time per run
    (the mean over the runs, 0 where a run did not see it) and its samples over all runs,
    costliest first."""
    from dataclasses import replace

    merged: dict = {}
    for rows in runs:
        for r in rows:
            key = (r.module, r.file, r.line)
            have = merged.get(key)
            merged[key] = r if have is None else replace(have, self_us=have.self_us + r.self_us, samples=have.samples + r.samples)
    n = max(1, len(runs))
    out = [replace(r, self_us=r.self_us // n) for r in merged.values()]
    return sorted(out, key=lambda r: (-r.self_us, r.module, r.line))


def is_import(statement: str | None) -> bool:
    """An import statement: its cost is the import tree's (finding and loading what it imports)."""
    if not statement:
        return False
    return statement.startswith(("import ", "from ")) and (" import " in statement or statement.startswith("import "))


def top_statements(rows, n: int, min_samples: int, module: str | None = None, work_only: bool = True) -> list:
    """The costliest statements seen by at least `min_samples` samples (fewer is noise),
    optionally of one module only; `work_only` leaves import statements out (their cost is
    the imported module's, in the import tree)."""
    return [r for r in rows if r.samples >= min_samples and (module is None or r.module == module)
            and not (work_only and is_import(r.statement))][:n]


def sampled_per_module(rows) -> dict:
    """Each module's sampled body time: all its statements, imports and the rarely seen too."""
    out: dict = {}
    for r in rows:
        out[r.module] = out.get(r.module, 0) + r.self_us
    return out


def annotate_statements(report, costs, top: int = 5):
    """Each module's costliest statements other than imports (seen by MIN_SAMPLES samples or
    more) in its record's `statements`, and its whole sampled body time in
    `statements_sampled_us` (model ModuleExtras; the shares are of that: both from the same runs)."""
    from dataclasses import replace

    from profiler.analysis.imports_marks import annotate_modules
    from profiler.model.statements import MIN_SAMPLES

    body = sampled_per_module(costs)
    facts: dict = {}
    for r in top_statements(costs, len(costs), MIN_SAMPLES):
        f = facts.setdefault(r.module, {"statements": [], "statements_sampled_us": body[r.module]})
        if len(f["statements"]) < top:
            f["statements"].append(r.to_dict())
    return replace(report, modules=annotate_modules(report.modules, facts))
