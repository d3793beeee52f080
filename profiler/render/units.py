"""Human formatting of quantities (shared by the text renderers)."""

from __future__ import annotations


def fmt_seconds(s: float | None, ref: float | None = None) -> str:
    """Seconds → '12.3 ms' / '456 µs' / '1.23 s'; `ref` picks the unit (so columns align)."""
    if s is None:
        return "n/a"
    scale = abs(ref if ref is not None else s)
    if scale >= 1.0:
        return f"{s:.3f} s"
    if scale >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def fmt_pm(mean: float, sd: float | None) -> str:
    if sd is None:
        return fmt_seconds(mean)
    return f"{fmt_seconds(mean)} ± {fmt_seconds(sd, mean)}"


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def fmt_count(n: int | None) -> str:
    if n is None:
        return "n/a"
    return f"{n:,}"


def fmt_ratio(r: float, sd: float | None) -> str:
    return f"{r:.2f}" if sd is None else f"{r:.2f} ± {sd:.2f}"
