"""Start-up history, pure: stored check runs → series (check x machine x interpreter), the
change points of each, and the modules behind every step.

The step detector (`detect_steps`) is a penalised least-squares segmentation, optimal
partitioning with PELT's pruning, where each point is weighted by its own noise: the spread of
its runs, or the commit-to-commit scatter of the series when that is larger. A segmentation is
then only kept where every step stands beyond the noise of the two levels it joins (`k` times
their combined spread) and is not a relative ripple (`min_rel`); a level in the middle of the
series must hold for three recorded commits, so one disturbed run is not a step up and a step
back down.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from profiler.model.history import (
    UNITS,
    ChangePoint,
    HistoryPoint,
    HistorySeries,
    ModuleShift,
    ModuleTimes,
    StoredRun,
)

MAD_TO_SIGMA = 1.4826


def median(values: Sequence[float]) -> float:
    vals = sorted(values)
    n = len(vals)
    if not n:
        raise ValueError("median of nothing")
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def run_spread(runs: Sequence[float]) -> float | None:
    """A point's own noise: half the range of its runs (None below two runs)."""
    if len(runs) < 2:
        return None
    return (max(runs) - min(runs)) / 2


def scatter(values: Sequence[float]) -> float:
    """The series' commit-to-commit noise: the median absolute difference of neighbours, as a
    standard deviation (robust to the steps themselves, which are few)."""
    if len(values) < 3:
        return 0.0
    diffs = [abs(b - a) for a, b in zip(values, values[1:])]
    return MAD_TO_SIGMA * median(diffs) / math.sqrt(2)


def _noise(values: Sequence[float], spreads: Sequence[float | None]) -> list[float]:
    s = scatter(values)
    level = median([abs(v) for v in values]) if values else 0.0
    tiny = max(level * 1e-6, 1e-12)
    return [max(sp or 0.0, s, tiny) for sp in spreads]


def _segment(n: int, values: Sequence[float], weights: Sequence[float], penalty: float, min_size: int) -> list[int]:
    """Optimal partitioning (PELT pruning) of weighted squared error: the starts of the
    segments after the first."""
    sw = [0.0] * (n + 1)
    swx = [0.0] * (n + 1)
    swxx = [0.0] * (n + 1)
    for i, (x, w) in enumerate(zip(values, weights)):
        sw[i + 1] = sw[i] + w
        swx[i + 1] = swx[i] + w * x
        swxx[i + 1] = swxx[i] + w * x * x

    def cost(a: int, b: int) -> float:
        w = sw[b] - sw[a]
        m = swx[b] - swx[a]
        return max(0.0, (swxx[b] - swxx[a]) - m * m / w)

    best = [0.0] + [math.inf] * n
    last = [0] * (n + 1)
    best[0] = -penalty
    candidates = [0]
    for t in range(1, n + 1):
        choice, value = None, math.inf
        for s in candidates:
            size = t - s
            if size < min_size and s != 0 and t != n:
                continue
            v = best[s] + cost(s, t) + penalty
            if v < value:
                choice, value = s, v
        if choice is None:  # no allowed split (too short): one segment from the start
            choice, value = 0, best[0] + cost(0, t) + penalty
        best[t], last[t] = value, choice
        candidates = [s for s in candidates if best[s] + cost(s, t) <= best[t] or t - s < min_size] + [t]
    starts = []
    t = n
    while t > 0:
        s = last[t]
        if s > 0:
            starts.append(s)
        t = s
    return sorted(starts)


def detect_steps(values: Sequence[float], spreads: Sequence[float | None] | None = None, *, k: float = 4.0,
                 min_rel: float = 0.01, min_size: int = 3) -> list[int]:
    """The indices where a new level starts (`values[i]` is the first of it), oldest first.

    `spreads`: each point's own noise (half the range of its runs; None: unknown). A step is
    kept only when |after − before| exceeds `k` times the combined noise of the two levels and
    `min_rel` of the level before; a level between two steps holds `min_size` points."""
    n = len(values)
    if n < 2:
        return []
    spreads = list(spreads) if spreads is not None else [None] * n
    sigma = _noise(values, spreads)
    weights = [1.0 / (s * s) for s in sigma]
    penalty = k * k / 2 * max(1.0, math.log(n))
    starts = _segment(n, values, weights, penalty, min_size)
    while starts:  # drop the weakest step that does not stand beyond its noise, then look again
        bounds = [0, *starts, n]
        weakest, weakest_ratio = None, math.inf
        for j, s in enumerate(starts):
            a, b = bounds[j], bounds[j + 2]
            before, after = median(values[a:s]), median(values[s:b])
            noise = math.hypot(median(sigma[a:s]), median(sigma[s:b]))
            delta = abs(after - before)
            ratio = min(delta / (k * noise) if noise else math.inf,
                        delta / (min_rel * abs(before)) if before else math.inf)
            if ratio < weakest_ratio:
                weakest, weakest_ratio = j, ratio
        if weakest_ratio >= 1.0:
            break
        del starts[weakest]
    return starts


def explain_step(before: Sequence[Iterable[ModuleTimes]], after: Sequence[Iterable[ModuleTimes]],
                 limit: int = 12) -> tuple[ModuleShift, ...]:
    """The modules behind a step, from the commits on each side of it (`before`, `after`: each
    commit's modules, nearest the step last / first): those imported on most commits of one
    side and not of the other (appeared, disappeared), first, then those whose median self
    time grew or shrank beyond their own commit-to-commit spread (three times it, and at least
    100 µs and 5 % of the step), largest change first. `share_pct`: the module's change over
    the modules' changes found (what the step's imports are made of)."""
    b_sets = [{m.name: m.self_us for m in mods} for mods in before]
    a_sets = [{m.name: m.self_us for m in mods} for mods in after]
    if not b_sets or not a_sets:
        return ()

    def side(sets, name):
        seen = [d[name] for d in sets if name in d]
        if len(seen) * 2 <= len(sets):
            return None, seen  # imported on at most half of the commits: not part of the level
        return int(median(seen)), seen

    names = list(dict.fromkeys([n for d in (*b_sets, *a_sets) for n in d]))
    levels = {n: (side(b_sets, n), side(a_sets, n)) for n in names}
    total = sum((a or 0) - (b or 0) for (b, _), (a, _) in levels.values())
    floor = max(100, abs(total) * 0.05)
    shifts = []
    for name, ((was, b_seen), (now, a_seen)) in levels.items():
        if was is None and now is None:
            continue
        if was is None:
            change, delta, order = "appeared", now, 0
        elif now is None:
            change, delta, order = "disappeared", -was, 0
        else:
            delta = now - was
            noise = 3 * MAD_TO_SIGMA * max(_mad(b_seen), _mad(a_seen))
            if abs(delta) < max(floor, noise):
                continue
            change, order = ("grew" if delta > 0 else "shrank"), 1
        shifts.append((order, ModuleShift(name, change, was or 0, now or 0, delta)))
    explained = sum(m.delta_us for _, m in shifts)
    shifts.sort(key=lambda s: (s[0], -abs(s[1].delta_us), s[1].name))
    return tuple(replace(m, share_pct=round(m.delta_us / explained * 100, 1) if explained else None)
                 for _, m in shifts[:limit])


def _mad(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    m = median(values)
    return median([abs(v - m) for v in values])


def series_key(run: StoredRun) -> tuple[str, str, str | None]:
    return (run.check, run.machine, run.python)


def machine_label(info: Mapping) -> str:
    cpu = info.get("cpu_model") or "unknown CPU"
    cores = info.get("logical_cores")
    arch = info.get("arch") or ""
    return " ".join(p for p in (arch, cpu, f"x{cores}" if cores else "") if p)


def pick_figure(runs: Sequence[StoredRun]) -> str:
    """What a series follows when not told: instructions where they were counted (exact,
    the figure a busy machine does not move), else the wall time."""
    return "instructions" if any(r.instructions is not None for r in runs) else "wall_ms"


def order_commits(runs: Sequence[StoredRun], order: Mapping[str, int] | None = None) -> list[list[StoredRun]]:
    """The runs grouped by commit, commits oldest first (by `order`, the position in the
    repository's history, when it holds every commit; else by commit time), runs of one commit
    by time recorded. Runs without a commit each stand alone."""
    groups: dict[object, list[StoredRun]] = {}
    for r in sorted(runs, key=lambda r: r.recorded_at):
        key = r.commit if r.commit is not None else ("uid", r.uid)
        groups.setdefault(key, []).append(r)

    known = order is not None and all(isinstance(key, str) and key in order for key in groups)

    def rank(item):
        key, rs = item
        first = rs[0]
        if known:  # every commit is in the repository at hand: its order, whatever the clocks said
            return (order[key], 0, first.recorded_at)
        # else by commit time (runs without a commit by when they were recorded), ties in the
        # repository's order where known
        place = order.get(key, math.inf) if order is not None and isinstance(key, str) else math.inf
        return (first.commit_time if first.commit_time is not None else _epoch(first.recorded_at), place, first.recorded_at)

    return [rs for _, rs in sorted(groups.items(), key=rank)]


def _epoch(iso: str) -> float:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


def build_point(runs: Sequence[StoredRun], figure: str) -> HistoryPoint:
    latest = runs[-1]
    ok = [r for r in runs if r.status != "error" and r.figure(figure) is not None]
    values: list[float] = []
    for r in ok:
        values += list(r.figure_runs(figure)) or [float(r.figure(figure))]
    value = median([float(r.figure(figure)) for r in ok]) if ok else None
    last_ok = ok[-1] if ok else None
    return HistoryPoint(
        commit=latest.commit, subject=latest.subject, dirty=latest.dirty, recorded_at=latest.recorded_at,
        recorded=len(runs), status=latest.status, error=latest.error if latest.status == "error" else None,
        value=value, low=min(values) if values else None, high=max(values) if values else None, runs=tuple(values),
        wall_ms=last_ok.wall_ms if last_ok else None, import_ms=last_ok.import_ms if last_ok else None,
        instructions=last_ok.instructions if last_ok else None,
    )


def build_history(runs: Sequence[StoredRun], *, figure: str | None = None, order: Mapping[str, int] | None = None,
                  k: float = 4.0, min_rel: float = 0.01) -> tuple[tuple[HistorySeries, ...], tuple[ChangePoint, ...]]:
    """Every series of the runs, and the change points of each with the modules behind them."""
    by_key: dict[tuple, list[StoredRun]] = {}
    for r in runs:
        by_key.setdefault(series_key(r), []).append(r)
    series_out, changes = [], []
    for key in sorted(by_key, key=lambda k: (k[0], k[1], k[2] or "")):
        rs = by_key[key]
        fig = figure or pick_figure(rs)
        grouped = order_commits(rs, order)
        points = [build_point(g, fig) for g in grouped]
        check, machine, python = key
        label = machine_label(rs[-1].machine_info)
        name = f"{check} on {label} [{machine[:8]}], python {python or '-'}"
        series_out.append(HistorySeries(name=name, check=check, machine=machine, machine_label=label, python=python,
                                        figure=fig, unit=UNITS[fig], points=tuple(points)))
        measured = [(i, p) for i, p in enumerate(points) if p.value is not None]
        values = [p.value for _, p in measured]
        spreads = [run_spread(p.runs) for _, p in measured]
        starts = detect_steps(values, spreads, k=k, min_rel=min_rel)
        sigma = _noise(values, spreads)
        bounds = [0, *starts, len(values)]
        for j, s in enumerate(starts):
            a, b = bounds[j], bounds[j + 2]
            before, after = median(values[a:s]), median(values[s:b])
            i_after, i_before = measured[s][0], measured[s - 1][0]
            # the commits of each level nearest the step (at most 5 a side)
            before_mods = [_modules(grouped[measured[q][0]]) for q in range(max(a, s - 5), s)]
            after_mods = [_modules(grouped[measured[q][0]]) for q in range(s, min(b, s + 5))]
            mods = explain_step([m for m in before_mods if m], [m for m in after_mods if m])
            p = points[i_after]
            changes.append(ChangePoint(
                series=name, check=check, commit=p.commit, subject=p.subject, previous=points[i_before].commit,
                before=before, after=after, delta=after - before,
                delta_pct=round((after - before) / before * 100, 2) if before else None,
                noise=math.hypot(median(sigma[a:s]), median(sigma[s:b])), modules=mods,
            ))
    return tuple(series_out), tuple(changes)


def _modules(runs: Sequence[StoredRun]) -> tuple[ModuleTimes, ...]:
    for r in reversed(runs):
        if r.modules:
            return r.modules
    return ()


def narrowing_target(before: float, after: float, value: float) -> bool:
    """`history bisect`: whether a commit measured `value` is already at the level after the
    step (closer to `after` than to `before`)."""
    return abs(value - after) < abs(value - before)
