"""The machine's state while measuring (psutil + platform): recorded under `machine` in
every JSON document, and a warning when the machine is busy.

The CPU share is read only where a timing is reported, and never by sleeping for it: a command
that times something calls start_sample() as its warm-up begins, and read_machine() after the
warm-up gives the share of the machine other work used in between (the CPU importprof and its
own children used is taken out, so the warm-up run does not count as load). A command that
times nothing (a saved log read again) asks read_machine(0.0): no CPU share (null).

The sample window and the facts read belong to the invocation: they are kept in the session
passed as `session` (Session.machine_window, .machine_read), so two invocations in one
process never share a sample; a fresh session has none (a blocking sample, read again)."""

from __future__ import annotations

import os
import sys

from profiler.session import Session


def start_sample(session: Session) -> None:
    """Open the CPU sample window of the invocation whose `session` is given (call it as the
    warm-up begins; costs no wait). The first call of an invocation counts; read_machine()
    closes it."""
    if session.machine_window is not None:
        return
    import psutil

    # (system CPU times, this process's os.times()) as the window opens
    session.machine_window = (psutil.cpu_times(), os.times())


def _window_percent(window: tuple) -> float | None:
    """The share of the machine (percent of all cores) that work other than importprof and its
    children used since start_sample(); None when no window is open or it is too short."""
    import psutil

    (cpu0, own0), cpu1, own1 = window, psutil.cpu_times(), os.times()
    total = sum(cpu1) - sum(cpu0)
    if total <= 0.05:
        return None
    idle = (cpu1.idle - cpu0.idle) + (getattr(cpu1, "iowait", 0.0) - getattr(cpu0, "iowait", 0.0))
    ours = sum(own1[:4]) - sum(own0[:4])  # user, system, children's user, children's system
    return round(max(0.0, min(100.0, 100.0 * (total - idle - ours) / total)), 1)


def read_machine(sample_s: float = 0.25, *, session: Session) -> dict:
    """The machine facts, read once per importprof invocation (`session`: a report running
    several parts records the state of its first measurement, and pays the CPU sample once).
    `sample_s`: 0 reads no CPU share; otherwise the share over the window start_sample()
    opened, or, when no window is open, a blocking sample of `sample_s` seconds (for callers
    that time without a warm-up)."""
    if sample_s not in session.machine_read:
        session.machine_read[sample_s] = _read(sample_s, session.machine_window)
    return dict(session.machine_read[sample_s])


def _read(sample_s: float, window: tuple | None) -> dict:
    import psutil  # heavy-ish: only when a command measures
    import platform  # its import (2 ms) only where the facts are read (a table of a saved log reads none)

    load1: float | None
    load5: float | None
    load15: float | None
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
    if not sample_s:
        busy_percent = None
    elif window is not None:
        busy_percent = _window_percent(window)
    else:
        busy_percent = psutil.cpu_percent(interval=sample_s)
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
