"""The `startup` table (and `--import` costs) for humans."""

from __future__ import annotations

from profiler.model.measurement import StartupReport
from profiler.render.console import new_table, render_tables
from profiler.render.text import path_cell, shown_target
from profiler.render.units import RATIO_CONVENTION, fmt_count, fmt_failed, fmt_pm, timing_cells


def _label(r) -> str:
    return r.variant or r.key or r.command


def render_startup_table(report: StartupReport, tty: bool = False) -> str:
    many_py = len({r.python for r in report.results}) > 1
    has_instr = any(r.instructions is not None for r in report.results)
    rel = {x.key: x for x in report.relative}
    ref = next((r for r in report.results if r.key == report.reference), None)
    ref_label = report.reference
    if ref is not None:
        ref_label = _label(ref) + (f" on {ref.python_version}" if many_py and ref.python_version else "")
        if sum(1 for r in report.results if _label(r) == _label(ref)) > 1:  # --import: which row
            ref_label += f" {shown_target(ref.target)}"
    title = "Start-up time" + (" (interrupted: partial results)" if report.interrupted else "")
    t = new_table(tty, title=title)
    t.add_column("Variant")
    if many_py:
        t.add_column("Python")
    t.add_column("Target")
    t.add_column("Mean ± σ", justify="right")
    t.add_column("Median", justify="right")
    t.add_column("Min … Max", justify="right")
    t.add_column("User", justify="right")
    t.add_column("System", justify="right")
    t.add_column("Peak RSS", justify="right")
    # a long reference (--vs targets, console scripts' paths) is named once, in the note below
    # --python all: each interpreter's variants against its own default, the defaults against the first
    per_python = len({x.reference for x in report.relative}) > 1
    header = "vs its Python's default" if per_python else ("vs " + ref_label if len(ref_label) <= 40 else "vs the reference")
    t.add_column(header if ref_label else "Relative", justify="right")
    if has_instr:
        t.add_column("Instructions", justify="right")
    t.add_column("Runs", justify="right")
    for r in report.results:
        row = [_label(r)]
        if many_py:
            row.append(f"{path_cell(r.python, tty)} ({r.python_version})" if r.python else "")  # a -- COMMAND row: none
        row.append(shown_target(r.target))
        row += timing_cells(r, rel.get(r.key), error_below=True)
        if has_instr:
            spread = r.instructions_variation_pct
            row.append(fmt_count(r.instructions) + (f" (range {spread:.2f} %)" if spread is not None else ""))
        row.append(str(r.runs))
        t.add_row(*row)
    parts: list = [t]
    # a failed row's error under the table, whole, where the Mean column would cut it
    parts += [f"{_label(r)}{' on ' + r.python_version if many_py and r.python_version else ''}: {fmt_failed(r.error)}"
              for r in report.results if r.failed]
    if report.harness is not None:  # a `-- COMMAND` that starts Python processes: the harness first
        from profiler.render.console_imports import process_tables

        h = report.harness
        measured = next((r for r in report.results if not r.failed), None)
        parts[:0] = process_tables(h.headline, h.per_process, h.summed, tty, top=10,
                                   untraced_wall_s=measured.median if measured is not None else None)
    if report.relative:
        here = (f"each Python's variants against that Python's first variant; its first variant against {ref_label}"
                if per_python else ref_label)
        parts.append(f"{RATIO_CONVENTION} (here: {here})")
    if not many_py and report.results and report.results[0].python:
        r0 = report.results[0]
        parts.append(f"python: {r0.python} ({r0.python_version}); engine: {report.engine}")
    if report.import_costs:
        c = new_table(tty, title="Import cost (`-c \"import X\"` minus `-c pass`)")
        c.add_column("Module")
        c.add_column("Variant")
        if many_py:
            c.add_column("Python")
        c.add_column("Cost ± σ", justify="right")
        for ic in report.import_costs:
            row = [ic.module, ic.variant]
            if many_py:
                row.append(path_cell(ic.python, tty))
            noisy = ic.stddev is not None and ic.stddev > abs(ic.mean)  # smaller than its own spread: noise
            row.append(f"noise ({fmt_pm(ic.mean, ic.stddev)})" if noisy else fmt_pm(ic.mean, ic.stddev))
            c.add_row(*row)
        parts.append(c)
        if any(ic.stddev is not None and ic.stddev > abs(ic.mean) for ic in report.import_costs):
            from profiler.render.console_imports import NOISE_NOTE

            parts.append(NOISE_NOTE)
    for note in report.notes:
        parts.append(f"note: {note}")
    return render_tables(parts, tty)
