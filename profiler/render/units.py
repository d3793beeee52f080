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


# One ratio convention for every table, export and the HTML page :
# ratio = mean / the reference's mean, a TIME ratio. 1.00x is the reference itself; 2.0 takes
# twice as long ("2.0x slower"); 0.25 takes a quarter of the time ("4.0x faster": for a ratio
# below 1 the text says 1/ratio and "faster", so a reader never has to know which way it goes).
RATIO_CONVENTION = (
    "ratios are time ratios against the reference: 1.00x = the reference; "
    "4.8x slower = takes 4.8 times as long; 4.8x faster = takes 1/4.8 of the time"
)


def _times(x: float) -> str:
    return f"{x:.2f}x" if x < 2 else f"{x:.1f}x"


def fmt_ratio(ratio: float | None, sd: float | None = None, *, reference: bool = False) -> str:
    """A time ratio (mean / reference mean) → '1.00x (reference)' / '4.8x slower' / '4.8x faster'
    (with '± 0.3' when its standard deviation is known; the spread of 1/ratio is sd/ratio²)."""
    if reference:
        return "1.00x (reference)"
    if ratio is None or ratio <= 0:
        return "n/a"
    if ratio >= 1:
        x, word, xsd = ratio, "slower", sd
    else:
        x, word, xsd = 1 / ratio, "faster", None if sd is None else sd / (ratio * ratio)
    text = _times(x)
    if xsd is not None:
        text += f" ± {xsd:.2f}" if x < 2 else f" ± {xsd:.1f}"
    return f"{text} {word}"


def fmt_failed(error: str | None) -> str:
    """The cell of a command that failed: its one-line error, and no timing figure."""
    return f"failed: {error or 'no error text'}"


def timing_cells(r, relative=None, error_below: bool = False) -> list[str]:
    """A timing result's cells (mean ± σ, median, min … max, user, system, peak RSS) and its
    ratio: its figures, or for a failed command its error alone (no figure at all); with
    `error_below`, only `failed (below)`: the table's caller prints the error under it."""
    if r.failed:
        return ["failed (below)" if error_below else fmt_failed(r.error), "", "", "", "", "", ""]
    ratio = "" if relative is None else fmt_ratio(relative.ratio, relative.ratio_stddev, reference=relative.key == relative.reference)
    return [fmt_pm(r.mean, r.stddev), fmt_seconds(r.median), f"{fmt_seconds(r.min)} … {fmt_seconds(r.max, r.min)}",
            fmt_seconds(r.user), fmt_seconds(r.system), fmt_bytes(r.peak_rss_bytes), ratio]
