"""The `lazy` report for humans: eager vs lazy timing, whether the output stayed identical, what
had to stay eager, and where the avoided import time came from."""

from __future__ import annotations

from collections import Counter

from profiler.model.lazy import LazyReport
from profiler.render.console import new_table, render_tables
from profiler.render.units import RATIO_CONVENTION, fmt_ratio, fmt_seconds, timing_cells


def _ms(us: int) -> str:
    return fmt_seconds(us / 1e6)


def render_lazy_table(report: LazyReport, tty: bool = False, top: int = 10) -> str:
    parts: list = []
    title = "Eager vs lazy imports" + (" (interrupted: partial results)" if report.interrupted else "")
    t = new_table(tty, title=title)
    for col, just in (("Variant", "left"), ("Mean ± σ", "right"), ("Median", "right"), ("Min … Max", "right"),
                      ("User", "right"), ("System", "right"), ("Peak RSS", "right"), ("vs eager", "right"),
                      ("Runs", "right")):
        t.add_column(col, justify=just)
    rel = {x.key: x for x in report.relative}
    for r in report.results:
        row = [r.variant, *timing_cells(r, rel.get(r.key)), str(r.runs)]
        t.add_row(*row)
    if report.results:
        parts += [t, RATIO_CONVENTION + " (here: eager)"]
    from profiler.render.text import path_cell, shown_target

    emulated = report.mode == "finder"
    parts.append(f"target: {shown_target(report.target)}; python: {path_cell(report.python, tty)} ({report.python_version}); "
                 f"lazy by: {'the PEP 810 emulation (module-level imports and from-imports bound lazily)' if emulated else report.mode}")
    p = report.prediction
    if p is not None and emulated:
        parts.append(f"predicted for 3.15 -X lazy_imports=all: lazy {fmt_seconds(p.lazy_mean)}, lazy/eager {p.ratio:.2f}x "
                     f"({fmt_ratio(p.ratio)})" if p.ratio else f"predicted for 3.15: lazy {fmt_seconds(p.lazy_mean)}")
        parts.append(f"  how: {p.how}")
    elif p is not None:
        parts.append(f"3.15's own lazy imports: lazy/eager {p.ratio:.2f}x ({p.how})")
    kept = len(report.must_stay_eager)
    if report.identical_output:
        verdict = "identical (stdout, stderr, exit code)"
        if kept:
            verdict += f" with {kept} module{'s' if kept != 1 else ''} kept eager"
    else:
        verdict = "DIFFERENT from the eager run (see the warnings)"
    parts.append(f"output: {verdict}" + (f"; {report.bisect_runs} runs spent bisecting" if report.bisect_runs else ""))
    if report.rests_on:
        parts.append(f"verdict rests on: {report.rests_on}")
    if report.own_lazy:
        parts.append("the program imports lazily by itself (" + "; ".join(report.own_lazy) + "): "
                     "these figures are what PEP 810 adds on top of its own mechanism")
    gain = _no_gain(report)
    if gain:
        parts.append(gain)
    whole = f" of {_ms(report.total_self_us)} in all" if report.total_self_us else ""
    parts.append(
        f"modules executed: eager {report.modules_eager}, lazy {report.modules_lazy}; "
        f"avoided {len(report.avoided)} modules worth {_ms(report.avoided_us)} of eager import time{whole} "
        "(their own time: only modules the lazy run never imports)"
    )
    if report.must_stay_eager:
        m = new_table(tty, title="Must stay eager (what lazy loading changed)")
        m.add_column("Module")
        m.add_column("Difference when lazy")
        for x in report.must_stay_eager:
            m.add_row(x.name, x.reason)
        parts.append(m)
    if report.statements:
        s = new_table(tty, title="Import statements to make lazy (each measured alone: the saving of that one change)")
        s.add_column("Statement")
        s.add_column("Saving alone", justify="right")
        s.add_column("Modules no longer imported", justify="right")
        s.add_column("Same output")
        s.add_column("Write")

        nothing = [st for st in report.statements if st.saves_nothing]
        for st in [st for st in report.statements if not st.saves_nothing][:top]:
            saving = _ms(st.saving_us) if st.saving_us is not None else f"(≤ {_ms(st.self_us)}, not run alone)"
            count = str(len(st.saving_modules)) if st.saving_us is not None else str(len(st.modules))
            same = "-" if st.identical_output is None else ("yes" if st.identical_output else "NO")
            s.add_row(st.site, saving, count, same, st.suggestion or "")
        if len(nothing) < len(report.statements):
            parts.append(s)
        if nothing:
            parts.append(f"{len(nothing)} statement(s) measured alone saved nothing (no module left out), not recommended: "
                         + ", ".join(st.site for st in nothing[:5]) + (" ..." if len(nothing) > 5 else "")
                         + " (--format json, key statements)")
    if report.avoided:
        a = new_table(tty, title=f"Avoided modules (top {min(top, len(report.avoided))} of {len(report.avoided)}, by own import time)")
        a.add_column("Module")
        a.add_column("Self", justify="right")
        a.add_column("Eager cumulative (context)", justify="right")
        for avoided in report.avoided[:top]:
            a.add_row(avoided.name, _ms(avoided.self_us), _ms(avoided.cumulative_us))
        parts.append(a)
    if report.stayed_eager:
        counts = Counter(_short_reason(e.reason) for e in report.stayed_eager)
        parts.append("executed at once by the lazy run: " + ", ".join(f"{n} {r}" for r, n in counts.most_common())
                     + " (names and sites: --format json, key stayed_eager)")
    for n in report.notes:
        parts.append(f"note: {n}")
    return render_tables(parts, tty)


def _no_gain(report: LazyReport) -> str | None:
    """Said when lazy imports were measured no faster: no recommendation rests on them then."""
    p = report.prediction
    if p is None or not p.ratio or report.interrupted:
        return None
    if p.ratio >= 1.0:
        return (f"lazy imports measured no faster for this program (lazy/eager {p.ratio:.2f}x): "
                "nothing to gain from them at start-up")
    return None


def _short_reason(reason: str) -> str:
    for key, short in (("import *", "star imports"), ("try block", "try-block imports"), ("from ", "from-imports"), ("submodule", "packages (submodule import)"),
                       ("extension", "extension modules"), ("builtin", "builtin modules"), ("frozen", "frozen modules"),
                       ("keep-eager", "kept eager"), ("namespace", "namespace packages")):
        if key in reason:
            return short
    return "other"
