"""The `doctor` findings for humans: costliest first, each with where and the fix."""

from __future__ import annotations

from profiler.model.doctor import DoctorReport
from profiler.render.console import new_table, render_tables
from profiler.render.text import path_cell, shown_target
from profiler.render.units import fmt_seconds


def _cost(f) -> str:
    return fmt_seconds(f.cost_us / 1e6) + (" (est.)" if f.estimate else "")


def _measured(f) -> str:
    if f.measured_us is None:
        return "-"
    shown = fmt_seconds(f.measured_us / 1e6)
    if f.measured_noise:  # within the two timings' spread: not a gain or a loss that was measured
        return f"noise ({shown} ± {fmt_seconds(f.measured_spread_us / 1e6)})"
    return shown


def render_doctor_table(report: DoctorReport, tty: bool = False) -> str:
    parts: list = []
    head = f"target: {shown_target(report.target)}; python: {path_cell(report.python, tty)} ({report.python_version})"
    if report.startup_s is not None:
        head += f"; start-up as is: {fmt_seconds(report.startup_s)} (mean)"
    if report.verified and report.verify_startup_s is not None:
        # the measured savings come from another timed run than the line above: its own whole
        head += f"; as is in the verification run: {fmt_seconds(report.verify_startup_s)} (mean; the measured savings are from that run)"
    parts.append(head)
    if not report.findings:
        parts.append("no findings: nothing in start-up that importprof knows how to fix")
    else:
        t = new_table(tty, title=f"Findings, costliest first ({len(report.findings)})")
        t.add_column("#", justify="right")
        t.add_column("Kind")
        t.add_column("Estimated" if report.verified else "Cost (estimated)", justify="right")
        if report.verified:
            t.add_column("Measured", justify="right")
        t.add_column("What")
        for i, f in enumerate(report.findings, 1):
            t.add_row(str(i), f.kind, _cost(f), *((_measured(f),) if report.verified else ()), f.title)
        parts.append(t)
        if report.verified:
            parts.append("estimated: the saving predicted from the measurements; measured: start-up as is minus start-up "
                         "with the fix applied in a scratch overlay, timed side by side (- : not verified, see below; "
                         "noise: the difference is smaller than the two timings' spread, so not measurable at these "
                         "runs: raise --runs); "
                         "findings overlap (site's total includes its .pth files): do not add them up")
        else:
            parts.append("every figure is an estimate of the saving, from the measurement named (est.: a rougher one); "
                         "--verify applies each fix in a scratch overlay and times it; findings overlap (site's total "
                         "includes its .pth files): do not add them up")
        for i, f in enumerate(report.findings, 1):
            figure = f"estimated {_cost(f)}" + (f", measured {_measured(f)}" if report.verified else "")
            # a finding about the whole program is where the target is: shown as typed
            where = shown_target(f.where) if f.where == report.target else path_cell(f.where, tty, 72)
            text = f"{i}. {f.kind}, {figure}: {f.title}\n   where: {where}\n   fix: {f.fix}"
            if report.verified and f.verify:  # how it was timed, or "not verified: why"
                text += "\n   " + (f.verify if f.verify.startswith("not verified") else f"verified: {f.verify}")
            parts.append(text)
    kinds = {f.kind for f in report.findings}
    for c in report.checks:  # a lazy check that found nothing says why (measured no faster, its own machinery)
        if c.kind == "lazy" and c.ran and c.note and "lazy" not in kinds:
            parts.append(f"lazy: no finding: {c.note}")
    skipped = [c for c in report.checks if not c.ran]
    if skipped:
        parts.append("not checked: " + "; ".join(f"{c.kind} ({c.note})" for c in skipped))
    return render_tables(parts, tty)
