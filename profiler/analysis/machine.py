"""Pure judgements on the machine facts that capture/machine.py reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from profiler.model.measurement import TimingResult
    from profiler.model.words import Said

# The busy warning says the times cannot be trusted because the runs waited for a core, and it
# is judged on what the runs themselves got, not on the load average. Calibrated on a 2-core
# machine, `importprof startup --runs 30 --warmup 3 -c "import json, email.parser"`:
#   runs that got a core whenever they wanted one (importprof under SCHED_FIFO): the runs' CPU
#     share, (user + system) / wall, 0.98, median 73-82 ms; with one `yes` beside them at the
#     same priority (one of the two cores taken): 0.94, median 86 ms. Figures that stand.
#   runs sharing the cores with ~9 runnable tasks (load average 9): 0.27, median 446 ms; with
#     one `yes` more: 0.12, 844 ms; with two: 0.10, 1,010 ms. Figures 5-12x inflated.
# The load average was 8.4-10.4 in every one of these runs, and other work used 52% of the
# machine in the sound ones, 87-95% in the inflated ones: a load average of 1.0 on 2 cores (a CI
# runner's agent) says nothing about the figures, and neither figure alone tells the two kinds
# apart; the runs' CPU share does (0.94+ against 0.27-). The threshold sits between: a run that
# spent over a fifth of its wall time waiting, while other work used at least a quarter of the
# machine (so a program that waits on its own, a sleep or the network, does not count as busy).
BUSY_CPU_SHARE = 0.8
BUSY_OTHERS_PCT = 25.0


def runs_cpu_share(results: Sequence[TimingResult]) -> float | None:
    """The median, over the measured results, of (user + system) / mean wall time: the share of
    their wall time the runs spent on a CPU; None when no result has the figures."""
    shares: list[float] = sorted(r.cpu / r.mean for r in results
                    if not getattr(r, "failed", False) and r.mean and r.cpu is not None)
    if not shares:
        return None
    mid = len(shares) // 2
    return shares[mid] if len(shares) % 2 else (shares[mid - 1] + shares[mid]) / 2


def busy_warnings(machine: dict[str, Any], results: Sequence[TimingResult] = ()) -> list[Said]:
    """Pure: the machine facts and the measured results → warnings. Busy (see the calibration
    above) when the runs got less than BUSY_CPU_SHARE of their wall time on a CPU while other work
    used at least BUSY_OTHERS_PCT of the machine; low free memory."""
    from profiler.model.words import Said, WarningKind

    out: list[Said] = []
    others = machine.get("cpu_percent")
    share = runs_cpu_share(results)
    if share is not None and others is not None and share < BUSY_CPU_SHARE and others >= BUSY_OTHERS_PCT:
        out.append(Said(
            f"the machine is busy: the runs were on a CPU for {share:.0%} of their wall time while other work used "
            f"{others:.0f}% of the machine, so the times include waiting for a core; quiet the machine",
            WarningKind.BUSY, WarningKind.BUSY.value,
        ))
    avail = machine.get("memory_available_bytes")
    total = machine.get("memory_total_bytes")
    if avail and total and avail < 0.1 * total:
        gist = f"{avail / 2**30:.1f} GiB of {total / 2**30:.1f} GiB available"
        out.append(Said(f"low free memory: {gist}", WarningKind.LOW_MEMORY, gist, "low free memory"))
    return out
