"""Statistics of repeated runs (pure functions).

Conventions follow hyperfine where it has one:
- stddev is the sample standard deviation (n-1), `None` for a single run;
- outliers by the modified Z-score: (x - median) / MAD, flagged beyond 14.826 (= 1.4826 * 10),
  as hyperfine's `outlier_detection.rs`; a first run beyond it is "much slower first run";
- relative speed: ratio = mean / reference mean, its stddev by propagation of the relative
  errors, sqrt((s1/m1)^2 + (s2/m2)^2) * ratio, as hyperfine's `relative_speed`.
- a spread is "too wide to trust" when stddev > 10% of the mean (pyperf's `check`).
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Sequence

from profiler.model.measurement import (
    CommandSpec,
    ImportCost,
    Relative,
    RunSample,
    TimingResult,
)
from profiler.model.words import Engine

if TYPE_CHECKING:
    from profiler.model.words import Said

OUTLIER_THRESHOLD = 1.4826 * 10.0
WIDE_SPREAD = 0.10


def mean(xs: Sequence[float]) -> float:
    if not xs:
        raise ValueError("mean of no values")
    return math.fsum(xs) / len(xs)


def stddev(xs: Sequence[float]) -> float | None:
    """Sample standard deviation; None with fewer than two values."""
    n = len(xs)
    if n < 2:
        return None
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def median(xs: Sequence[float]) -> float:
    if not xs:
        raise ValueError("median of no values")
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2.0


def mad(xs: Sequence[float]) -> float:
    """Median absolute deviation (unscaled)."""
    m = median(xs)
    return median([abs(x - m) for x in xs])


def modified_zscores(xs: Sequence[float]) -> list[float]:
    m = median(xs)
    d = mad(xs)
    d = d if d > 0 else sys.float_info.epsilon
    return [(x - m) / d for x in xs]


def outlier_indices(xs: Sequence[float], threshold: float = OUTLIER_THRESHOLD) -> list[int]:
    if len(xs) < 3:
        return []
    return [i for i, z in enumerate(modified_zscores(xs)) if abs(z) > threshold]


def first_run_much_slower(xs: Sequence[float], threshold: float = OUTLIER_THRESHOLD) -> bool:
    if len(xs) < 3:
        return False
    return modified_zscores(xs)[0] > threshold


def summarize(spec: CommandSpec, samples: Sequence[RunSample], engine: Engine = Engine.BUILTIN) -> TimingResult:
    """Raw runs of one command → its TimingResult (hyperfine's fields)."""
    if not samples:
        raise ValueError(f"no runs measured for {spec.key or spec.command}")
    times = tuple(s.wall_s for s in samples)
    users = [s.user_s for s in samples if s.user_s is not None]
    systems = [s.system_s for s in samples if s.system_s is not None]
    rss = [s.max_rss_bytes for s in samples if s.max_rss_bytes is not None]
    have_cpu = len(users) == len(samples) and len(systems) == len(samples)
    return TimingResult(
        command=spec.command,
        mean=mean(times),
        stddev=stddev(times),
        median=median(times),
        user=mean(users) if have_cpu else None,
        system=mean(systems) if have_cpu else None,
        min=min(times),
        max=max(times),
        times=times,
        exit_codes=tuple(s.exit_code for s in samples),
        memory_usage_byte=tuple(rss) if len(rss) == len(samples) else None,
        variant=spec.variant,
        python=spec.python,
        python_version=spec.python_version,
        flags=spec.flags,
        target=spec.target,
        key=spec.key or spec.variant,
        role=spec.role,
        module=spec.module,
        user_times=tuple(users) if have_cpu else None,
        system_times=tuple(systems) if have_cpu else None,
        engine=engine,
        way=spec.way,
    )


def ratio_with_error(
    m1: float, s1: float | None, m2: float, s2: float | None
) -> tuple[float, float | None]:
    """m1/m2 and its propagated standard deviation (None if either stddev is unknown)."""
    if m2 <= 0:
        raise ValueError("reference mean must be positive")
    ratio = m1 / m2
    if s1 is None or s2 is None or m1 <= 0:
        return ratio, None
    return ratio, ratio * math.sqrt((s1 / m1) ** 2 + (s2 / m2) ** 2)


def relative_speeds(results: Sequence[TimingResult], reference_key: str) -> list[Relative]:
    ref = next((r for r in results if r.key == reference_key), None)
    if ref is None:
        raise ValueError(f"reference {reference_key!r} not among the results")
    if ref.mean is None:
        raise ValueError(f"reference {reference_key!r} has no mean (it failed)")
    out = []
    for r in results:
        if r.mean is None:
            raise ValueError(f"{r.key!r} has no mean (it failed)")
        ratio, err = ratio_with_error(r.mean, r.stddev, ref.mean, ref.stddev)
        if r.key == ref.key:
            err = None  # the reference against itself is exactly 1
        out.append(Relative(r.key, ratio, err, ref.key))
    return out


def difference_with_error(
    m1: float, s1: float | None, m2: float, s2: float | None
) -> tuple[float, float | None]:
    """m1 - m2 and the stddev of the difference of two independent means' samples."""
    if s1 is None or s2 is None:
        return m1 - m2, None
    return m1 - m2, math.sqrt(s1 * s1 + s2 * s2)


def import_cost(module: str, with_import: TimingResult, baseline: TimingResult) -> ImportCost:
    if with_import.mean is None or baseline.mean is None:
        raise ValueError(f"import {module}: a failed run has no mean")
    diff, err = difference_with_error(
        with_import.mean, with_import.stddev, baseline.mean, baseline.stddev
    )
    return ImportCost(module, with_import.variant, with_import.python, diff, err)


def import_costs(results: Sequence[TimingResult], baseline: str) -> list[ImportCost]:
    """`-c "import X"` minus the `-c pass` baseline (`baseline`: its target label), per
    (python, variant), both measured."""
    measured = [r for r in results if not r.failed]
    base = {(r.python, r.variant): r for r in measured if r.role == "baseline" or (r.role == "target" and r.target == baseline)}
    return [import_cost(r.module, r, base[(r.python, r.variant)]) for r in measured
            if r.role == "import" and r.module is not None and (r.python, r.variant) in base]


def result_warnings(r: TimingResult) -> list[Said]:
    """Hyperfine's and pyperf's warnings for one result, as readable sentences (each with its
    kind: model/words.py Said)."""
    from profiler.model.words import Said, WarningKind as K

    label = r.key or r.variant or r.command
    out: list[Said] = []
    if r.median is not None and first_run_much_slower(r.times):
        out.append(Said(
            f"{label}: the first run was much slower than the rest "
            f"({r.times[0] * 1e3:.1f} ms vs median {r.median * 1e3:.1f} ms): caches were cold; "
            "use --warmup or more runs", K.FIRST_RUN_SLOWER, K.FIRST_RUN_SLOWER.value, label
        ))
    outliers = outlier_indices(r.times)
    if outliers and not (outliers == [0] and first_run_much_slower(r.times)):
        gist = f"{len(outliers)} statistical outlier(s) among {len(r.times)} runs"
        out.append(Said(
            f"{label}: {gist} "
            "(modified Z-score > 14.8): other programs or I/O may have interfered", K.OUTLIERS, gist, label
        ))
    if r.stddev is not None and r.mean is not None and r.mean > 0 and r.stddev > WIDE_SPREAD * r.mean:
        out.append(Said(
            f"{label}: the spread is too wide to trust (stddev {r.stddev / r.mean:.0%} of the "
            "mean, over 10%): quiet the machine or raise --runs", K.WIDE_SPREAD, K.WIDE_SPREAD.value, label
        ))
    failed = sum(1 for c in r.exit_codes if c != 0)
    if failed:
        gist = f"{failed} of {len(r.exit_codes)} runs exited non-zero"
        out.append(Said(f"{label}: {gist} (ignored)", K.NON_ZERO_EXITS, gist, label))
    return out
