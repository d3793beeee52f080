"""Tables for `importprof pack` and `importprof build` (model → text; no I/O)."""

from __future__ import annotations

from profiler.render.console import new_table, render_tables
from profiler.render.text import shown_target
from profiler.render.units import fmt_bytes, fmt_count


def _sets_table(pack, tty: bool):
    t = new_table(tty, title=f"packed resources: {shown_target(pack.target)} ({pack.python_version}, {pack.python})")
    for col in ("set", "modules", "extensions", "bytecode", "source", "package data", "packed-resources", "files", "file bytes", "folder"):
        t.add_column(col, justify="left" if col in ("set", "folder") else "right")
    for s in pack.sets:
        t.add_row(s.name, fmt_count(s.modules), fmt_count(s.extension_modules), fmt_bytes(s.bytecode_bytes), fmt_bytes(s.source_bytes),
                  f"{fmt_count(s.package_data)} ({fmt_bytes(s.package_data_bytes)})",
                  fmt_bytes(s.resources_bytes), fmt_count(s.files), fmt_bytes(s.file_bytes), s.path)
    return t


def _unpacked_lines(pack) -> list[str]:
    units = getattr(pack, "units", ())
    kinds = [u["kind"] for u in units]
    lines = [f"{len(units)} units packed whole ({kinds.count('distribution')} distributions, {kinds.count('stdlib')} "
             f"standard library top-levels, {kinds.count('package')} source trees)"] if units else []
    lines += [f"{len(pack.modules)} modules packed; {len(pack.served)} served by the interpreter itself (builtin/frozen); "
             f"{len(pack.unpacked)} not packed (they import from the filesystem):"]
    by_reason: dict[str, list[str]] = {}
    for u in pack.unpacked:
        by_reason.setdefault(u.reason, []).append(u.name)
    for reason, names in by_reason.items():  # one line for a reason many share (metadata)
        if len(names) >= 3:
            lines.append(f"  {len(names)} ({', '.join(names)}): {reason}")
        else:
            lines += [f"  {n}: {reason}" for n in names]
    return lines


def render_pack_table(report, tty: bool) -> str:
    return render_tables([_sets_table(report, tty), "\n".join(_unpacked_lines(report))], tty)


def render_pyoxidizer_build(report, tty: bool) -> str:
    lines = [f"pyoxidizer build {report.name}: {report.out_dir} ({report.distribution})"]
    lines += [f"  {v.name}: {' '.join(v.argv)}" for v in report.variants]
    return render_tables(["\n".join(lines)], tty)


def render_build_table(report, tty: bool) -> str:
    t = new_table(tty, title=f"build {report.name}: {report.out_dir}")
    t.add_column("variant")
    t.add_column("argv (variant.json)")
    t.add_column("env")
    t.add_column("output sha256", justify="right")
    t.add_column("modules: pack / fallback", justify="right")
    for v in report.variants:
        if getattr(v, "failed", False):
            t.add_row(v.name, f"failed: {v.error} (what to do: {v.hint})", "", "", "")
            continue
        origin = "n/a" if v.packed_modules is None else f"{fmt_count(v.packed_modules)} / {fmt_count(v.fallback_modules)}"
        t.add_row(v.name, " ".join(v.argv), " ".join(f"{k}=…({len(val.split(':'))} paths)" for k, val in v.env) or "-",
                  v.output_sha256[:12] or "-", origin)
    parts: list = [t]
    if report.pack is not None:
        parts += [_sets_table(report.pack, tty), "\n".join(_unpacked_lines(report.pack))]
    if report.frozen is not None:
        parts.append("\n".join(_frozen_lines(report.frozen)))
    parts += [f"note: {w}" for w in report.warnings]
    return render_tables(parts, tty)


def _frozen_lines(frozen) -> list[str]:
    lines = [f"frozen: {frozen.executable} ({fmt_bytes(frozen.executable_bytes)}): {len(frozen.modules)} modules "
             f"({len(frozen.packages)} packages, {fmt_bytes(frozen.bytecode_bytes)} of bytecode) in its frozen-modules table; "
             f"{len(frozen.served)} served by the interpreter itself (builtin/frozen); "
             f"{len(frozen.not_frozen)} not frozen (they import from the filesystem):"]
    for u in frozen.not_frozen:
        lines.append(f"  {u.name}: {u.reason}")
    return lines
