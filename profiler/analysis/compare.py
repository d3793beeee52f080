"""PyOxidizer's comparison table from timing results (pure)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from profiler.analysis.statistics import mean, stddev
from profiler.model.build_variant import NO_SITE, REFERENCE
from profiler.model.compare import SyscallCount, VariantRow
from profiler.model.measurement import TimingResult


def cpu_times(r: TimingResult) -> list[float] | None:
    if r.user_times is None or r.system_times is None:
        return None
    return [u + s for u, s in zip(r.user_times, r.system_times)]


def compare_rows(results: Sequence[TimingResult], syscalls: Sequence[SyscallCount] = (),
                 reference: str = REFERENCE, no_site: str = NO_SITE,
                 origins: Mapping[str, tuple[int | None, int | None]] | None = None) -> list[VariantRow]:
    """`origins`: per variant, (modules from its pack, modules from the fallback path finder)."""
    by = {r.variant: r for r in results if not r.failed}
    ref = by.get(reference)
    ns = by.get(no_site)
    counts = {s.variant: s.total for s in syscalls}
    def cpu_mean(r: TimingResult | None) -> float | None:
        c = cpu_times(r) if r is not None else None
        return mean(c) if c else None

    ref_cpu = cpu_mean(ref)  # the same arithmetic as each row's: the reference's delta is 0.0
    ns_cpu = cpu_mean(ns)
    rows = []
    for r in results:
        cpus = cpu_times(r)
        cpu = mean(cpus) if cpus else None
        rows.append(
            VariantRow(
                variant=r.variant,
                cpu_s=cpu,
                cpu_stddev_s=stddev(cpus) if cpus else None,
                delta_cpu_s=(cpu - ref_cpu) if cpu is not None and ref_cpu is not None else None,
                pct_of_traditional=(100.0 * cpu / ref_cpu) if cpu is not None and ref_cpu else None,
                speedup_vs_no_site=(ns.mean / r.mean) if ns is not None and ns.mean is not None and r.mean else None,
                speedup_vs_no_site_cpu=(ns_cpu / cpu) if ns_cpu is not None and cpu else None,
                wall_s=r.mean,
                wall_stddev_s=r.stddev,
                peak_rss_bytes=r.peak_rss_bytes,
                syscalls=counts.get(r.variant),
                packed_modules=(origins or {}).get(r.variant, (None, None))[0],
                fallback_modules=(origins or {}).get(r.variant, (None, None))[1],
            )
        )
    return rows


def syscall_count(variant: str, total: int, errors: int, filesystem: dict[str, Any] | None) -> SyscallCount:
    fams = tuple((f["name"], int(f["count"])) for f in (filesystem or {}).get("families", ()))
    return SyscallCount(variant, total, errors, fams, (filesystem or {}).get("files_opened"))
