"""`importprof compare` table: PyOxidizer's "Performance of Built Binaries" columns."""

from __future__ import annotations

from profiler.model.build_variant import NO_SITE, is_packing
from profiler.render.console import Table, new_table, render_tables
from profiler.render.text import path_cell, shown_target
from profiler.render.units import RATIO_CONVENTION, fmt_bytes, fmt_count, fmt_failed, fmt_ratio, fmt_seconds


def _pm(mean, sd):
    if mean is None:
        return "n/a"
    return fmt_seconds(mean) if sd is None else f"{fmt_seconds(mean)} ± {fmt_seconds(sd, mean)}"


def _vs_no_site(row) -> str:
    """The row's wall time against no-site's, as a TIME ratio (the convention of every table).
    The JSON keeps PyOxidizer's `speedup_vs_no_site` (no-site's mean / this mean, a speed
    ratio), so the time ratio is its inverse."""
    if row.variant == NO_SITE:
        return fmt_ratio(1.0, reference=True)
    if not row.speedup_vs_no_site:
        return "n/a"
    return fmt_ratio(1.0 / row.speedup_vs_no_site)


def _origin(row) -> str:
    """How many modules the variant's check run took from its pack and from the fallback path
    finder; a packing row that took most from the filesystem is marked."""
    if row.packed_modules is None:
        return "n/a"
    text = f"{fmt_count(row.packed_modules)} / {fmt_count(row.fallback_modules)}"
    if is_packing(row.variant) and (row.fallback_modules or 0) > row.packed_modules:
        text += " (mostly disk)"
    return text


def render_compare_table(report, tty: bool) -> str:
    what = f"workload {report.workload}" if report.workload else shown_target(report.target)
    if report.launches:
        what += f" ({report.launches} launches per run)"
    harness = getattr(report, "harness", None)
    if harness is not None:
        what = f"harness {harness.command} · program {harness.program} = {shown_target(report.target)}"
    runs = report.results[0].runs if report.results else 0
    t = new_table(tty, title=f"{what} · Python {report.python_version} · {runs} runs per variant, interleaved")
    cols = ["variant", "CPU (user+sys)", "delta", "% of traditional", "vs no-site (wall)", "wall", "peak RSS"]
    have_sys = any(r.syscalls is not None for r in report.rows)
    if have_sys:
        cols.append("syscalls")
    have_origin = any(getattr(r, "packed_modules", None) is not None for r in report.rows)
    if have_origin:
        cols.append("modules: pack / fallback")
    for c in cols:
        t.add_column(c, justify="left" if c == "variant" else "right")
    failed = {r.variant: r for r in report.results if getattr(r, "failed", False)}
    for r in report.rows:
        if r.variant in failed:
            continue
        cells = [
            r.variant,
            _pm(r.cpu_s, r.cpu_stddev_s),
            "n/a" if r.delta_cpu_s is None else ("+" if r.delta_cpu_s > 0 else "") + fmt_seconds(r.delta_cpu_s, r.cpu_s),
            "n/a" if r.pct_of_traditional is None else f"{r.pct_of_traditional:.1f}%",
            _vs_no_site(r),
            _pm(r.wall_s, r.wall_stddev_s),
            fmt_bytes(r.peak_rss_bytes),
        ]
        if have_sys:
            cells.append(fmt_count(r.syscalls))
        if have_origin:
            cells.append(_origin(r))
        t.add_row(*cells)
    for variant, r in failed.items():  # no timing figure at all: the error instead
        t.add_row(variant, fmt_failed(getattr(r, "error", None)), *[""] * (len(cols) - 2))
    parts: list[Table | str] = [t]
    if harness is not None:
        parts += _harness_parts(harness, tty)
    if report.syscalls:
        fams = sorted({n for s in report.syscalls for n, _ in s.families})
        if fams:
            st = new_table(tty, title="system calls (one strace -f run per variant)")
            st.add_column("variant")
            for c in ["total", "failed", *fams, "files opened"]:
                st.add_column(c, justify="right")
            for s in report.syscalls:
                fd = dict(s.families)
                st.add_row(s.variant, fmt_count(s.total), fmt_count(s.errors), *[fmt_count(fd.get(n)) for n in fams], fmt_count(s.files_opened))
            parts.append(st)
    notes = [f"build: {path_cell(report.build_dir, tty)}"]
    if any(r.speedup_vs_no_site for r in report.rows):
        notes.append(f"vs no-site: {RATIO_CONVENTION} (here: no-site's wall time)")
    if have_origin and harness is not None:
        notes.append("modules: pack / fallback: distinct modules the harness's program processes took from the variant's own "
                     "pack (OxidizedFinder, the frozen table) / from files through the ordinary path finder behind it, "
                     "over a whole run of the harness (a packing variant's: an untimed run of its own, each process "
                     "recording at exit; traditional's: the recording run; n/a: not recorded)")
    elif have_origin:
        notes.append("modules: pack / fallback: modules the variant's check run took from its own pack (OxidizedFinder, "
                     "the frozen table) / from the filesystem through the ordinary path finder behind it")
    notes += [f"warning: {w}" for w in report.warnings if "fallback path finder" in w]
    notes += list(report.notes)
    parts.append("\n".join(notes))
    return render_tables(parts, tty)


def _harness_parts(h, tty: bool) -> list:
    """How the harness ended per variant, and what its recording run saw."""
    ht = new_table(tty, title="the harness per variant (exit code, program launches per run, its last lines)")
    for c in ("variant", "exit", "launches", "as traditional", "summary"):
        ht.add_column(c, justify="left" if c in ("variant", "summary", "as traditional") else "right")
    for v in h.variants:
        codes = sorted(set(v.exit_codes))
        ht.add_row(v.variant, ",".join(str(c) for c in codes) or "-", ",".join(str(n) for n in v.launches) or "-",
                   "yes" if v.same_as_traditional else f"NO: {v.difference}", " | ".join(v.summary))
    procs = "not counted (no strace)" if h.processes is None else f"{h.processes:,} processes"
    lines = [f"recording run (traditional, untimed): {procs}; {h.program_processes:,} {h.program} processes imported "
             f"{h.modules_recorded:,} distinct modules, {h.modules_added:,} of them beyond one run of the target (packed too)"]
    if h.not_packed:
        shown = ", ".join(f"{n.name} ({n.reason})" for n in h.not_packed[:5])
        lines.append(f"not packed ({len(h.not_packed)}): {shown}" + (" ..." if len(h.not_packed) > 5 else ""))
    for o in getattr(h, "origins", ()):
        if o.fallback:
            lines.append(f"{o.variant}: {o.fallback_modules:,} module{'s' if o.fallback_modules != 1 else ''} from files, not from its pack, in the harness's "
                         f"{o.processes:,} {h.program} processes: " + _by_reason(o.fallback))
    return [ht, "\n".join(lines)]


def _by_reason(names, shown: int = 6) -> str:
    """The names grouped by why they were not packed, the largest group first, a few names each."""
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(n.reason, []).append(n.name)
    parts = []
    for reason, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        more = f", ... ({len(group)})" if len(group) > shown else ""
        parts.append(f"{', '.join(group[:shown])}{more}: {reason}")
    return "; ".join(parts)
