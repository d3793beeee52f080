"""Pure judgements on the machine facts that capture/machine.py reads."""

from __future__ import annotations


def busy_warnings(machine: dict) -> list[str]:
    """Pure: the machine facts → warnings (a busy machine makes timings noisy)."""
    out = []
    cores = machine.get("logical_cores") or 1
    load = machine.get("load_average")
    if load and load[0] is not None and load[0] > 0.5 * cores:
        out.append(
            f"the machine is busy: load average {load[0]:.2f} on {cores} logical cores; "
            "timings will be noisy"
        )
    cpu = machine.get("cpu_percent")
    if cpu is not None and cpu > 25.0 and not out:
        out.append(f"the machine is busy: CPU {cpu:.0f}% used by other work while measuring; timings will be noisy")
    avail = machine.get("memory_available_bytes")
    total = machine.get("memory_total_bytes")
    if avail and total and avail < 0.1 * total:
        out.append(f"low free memory: {avail / 2**30:.1f} GiB of {total / 2**30:.1f} GiB available")
    return out
