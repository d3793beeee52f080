"""`importprof lazy --apply / --filter-out` for humans: per statement the measured verdict beside
the static reasons (and where they disagree), the files touched, the checks, and the proof table
(before and after, per interpreter)."""

from __future__ import annotations

import os

from profiler.model.lazy_apply import LazyApplyReport
from profiler.render.console import new_table, render_tables
from profiler.render.units import fmt_bytes, fmt_pm, fmt_seconds


def _ms(us: int | None) -> str:
    return "-" if us is None else fmt_seconds(us / 1e6)


def _static_text(static) -> str:
    if not static:
        return "no reason found"
    return "; ".join(s["text"] for s in static[:2]) + (f" (+{len(static) - 2})" if len(static) > 2 else "")


def _rel(path: str, directory: str | None) -> str:
    if directory:
        try:
            rel = os.path.relpath(path, os.path.realpath(directory))
            if not rel.startswith(".."):
                return rel
        except ValueError:
            pass
    return path


def _site(site: str, directory: str | None) -> str:
    path, _, line = site.rpartition(":")
    return f"{_rel(os.path.realpath(path), directory)}:{line}" if line.isdigit() else site


def render_lazy_apply_table(report: LazyApplyReport, tty: bool = False, top: int = 10) -> str:
    parts: list = []
    if report.action == "filter-out":
        parts.append(f"wrote {report.filter_path}: a sys.set_lazy_imports_filter module keeping "
                     f"{len(report.filter_eager)} module(s) eager under -X lazy_imports=all"
                     + (f" ({', '.join(report.filter_eager)})" if report.filter_eager else ""))
    else:
        t = new_table(tty, title=f"Lazy imports under {report.directory} ({report.style}; at least {report.min_ms:g} ms)")
        for col, just in (("Statement", "left"), ("Saving", "right"), ("Measured", "left"), ("Static", "left"),
                          ("Decision", "left")):
            t.add_column(col, justify=just)
        shown = [s for s in report.statements if s.decision != "below --min-ms"]
        for s in shown[: max(top, sum(1 for x in shown if x.decision != "below --min-ms"))]:
            decision = s.decision + (f" ({s.why})" if s.why and s.decision != "applied" else "")
            t.add_row(_site(s.site, report.directory), _ms(s.saving_us), f"measured: {s.measured}",
                      f"static: {_static_text(s.static)}", decision)
        below = sum(1 for s in report.statements if s.decision == "below --min-ms")
        parts.append(t)
        if below:
            parts.append(f"{below} more statement(s) save less than {report.min_ms:g} ms each: left eager")
        for s in report.statements:
            if s.disagreement:
                parts.append(f"disagreement at {_site(s.site, report.directory)}: {s.disagreement}")
        verb = "would be made" if report.action == "diff" else "made"
        n, m, f = report.lazy_imports, report.lazy_modules, report.edited_files
        parts.append(f"{n} {_plural(n, 'import')} of {m} {_plural(m, 'module')} {verb} lazy in {f} {_plural(f, 'file')}"
                     f"; the lazy measurement predicts {_ms(report.predicted_us)} less import time on 3.15"
                     + (f"; {report.bisect_runs} verification runs spent bisecting" if report.bisect_runs else ""))
        for edit in report.files:
            if edit.status not in ("edited", "would edit", "unchanged"):
                parts.append(f"left alone: {_rel(edit.path, report.directory)}: {edit.status}")
    if report.checks:
        c = new_table(tty, title="Verification: before vs after")
        c.add_column("Command")
        c.add_column("Python")
        c.add_column("Output and exit code")
        for x in report.checks:
            verdict = "identical" if x.identical else f"DIFFERS: {x.difference}"
            if x.compared != "output and exit code":
                verdict += f" ({x.compared.partition(' (')[0]})"
            c.add_row(x.command, x.python, verdict)
        parts.append(c)
    if report.proof:
        p = new_table(tty, title="The proof: the program before and after")
        p.add_column("Python")
        p.add_column("Output", justify="left")
        for col in ("Start-up before", "Start-up after", "Import time", "Modules", "Peak RSS", "Unreified at exit"):
            p.add_column(col, justify="right")
        for r in report.proof:
            b, a = r.before, r.after
            label = f"{r.python_version}" + (" (lazy)" if r.lazy else " (inert)")
            p.add_row(
                label,
                "identical" if r.output_identical else "DIFFERS",
                fmt_pm(b.mean_s, b.stddev_s) if b.mean_s is not None else "-",
                (fmt_pm(a.mean_s, a.stddev_s) if a.mean_s is not None else "-") + (" ~" if r.overlap else ""),
                f"{_ms(b.import_us)} → {_ms(a.import_us)}",
                f"{_n(b.modules)} → {_n(a.modules)}",
                f"{fmt_bytes(b.peak_rss_bytes)} → {fmt_bytes(a.peak_rss_bytes)}",
                f"{_n(b.unreified)} → {_n(a.unreified)}",
            )
        parts.append(p)
        if any(r.overlap for r in report.proof):
            parts.append("~ the start-up ranges before and after overlap (mean ± σ): within this run's noise")
    for note in report.notes:
        parts.append(f"note: {note}")
    return render_tables(parts, tty)


def render_lazy_apply_diff(report: LazyApplyReport, tty: bool = False) -> str:
    """--diff: the unified diff alone (it can go straight to `git apply` / `patch -p1`)."""
    return report.diff


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def _n(x: int | None) -> str:
    return "-" if x is None else str(x)
