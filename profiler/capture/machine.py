"""The machine's state before measuring (psutil + platform): recorded under `machine` in
every JSON document, and a warning when the machine is busy."""

from __future__ import annotations

import os
import platform
import sys


_READ: dict = {}


def forget() -> None:
    """A new invocation reads the machine again."""
    _READ.clear()


def read_machine(sample_s: float = 0.25) -> dict:
    """The machine facts, read once per importprof invocation (a report running several
    parts records the state before its first measurement, and pays the CPU sample once)."""
    if sample_s not in _READ:
        _READ[sample_s] = _read(sample_s)
    return dict(_READ[sample_s])


def _read(sample_s: float) -> dict:
    import psutil  # heavy-ish: only when a command measures

    try:
        load1, load5, load15 = os.getloadavg()
    except OSError:
        load1 = load5 = load15 = None
    freq = None
    try:
        f = psutil.cpu_freq()
        if f is not None:
            freq = {"current_mhz": f.current, "min_mhz": f.min or None, "max_mhz": f.max or None}
    except Exception:  # not visible in many VMs
        freq = None
    vm = psutil.virtual_memory()
    busy_percent = psutil.cpu_percent(interval=sample_s) if sample_s else None
    return {
        "hostname": platform.node(),
        "system": platform.system(),
        "release": platform.release(),
        "arch": platform.machine(),
        "cpu_model": _cpu_model(),
        "logical_cores": psutil.cpu_count(logical=True),
        "physical_cores": psutil.cpu_count(logical=False),
        "load_average": [load1, load5, load15] if load1 is not None else None,
        "cpu_percent": busy_percent,
        "cpu_frequency": freq,
        "memory_total_bytes": int(vm.total),
        "memory_available_bytes": int(vm.available),
        "importprof_python": sys.executable,
        "importprof_version": _version(),
    }


def _version() -> str:
    from profiler import __version__

    return __version__


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None
