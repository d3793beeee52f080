"""`importprof pythons` as a human table. Renders only: the report carries what each
interpreter supports and why not."""

from __future__ import annotations

from profiler.model.interpreter import PythonsReport


def _cell(supports) -> str:
    yes = [s.name for s in supports if s.supported]
    no = [s.name for s in supports if not s.supported]
    if not no:
        return "all"
    if not yes:
        return "none"
    return ", ".join(yes) if len(yes) <= len(no) else "all but " + ", ".join(no)


def render_pythons_table(report: PythonsReport, tty: bool) -> str:
    from profiler.render.console import new_table, render_tables
    from profiler.render.text import path_cell

    if not report.pythons:
        return render_tables(["no Python interpreter found (looked in pyenv, asdf, uv, /usr/bin, the active venv)"], tty)
    t = new_table(tty, title=f"{len(report.pythons)} Python interpreter{'s' if len(report.pythons) != 1 else ''}")
    t.add_column("python")
    t.add_column("version")
    t.add_column("implementation")
    t.add_column("--enable-shared")
    t.add_column("found in")
    t.add_column("commands")
    t.add_column("variants")
    for p in report.pythons:
        i = p.interpreter
        shared = "?" if i.enable_shared is None else ("yes" if i.enable_shared else "no")
        t.add_row(
            path_cell(i.path, tty) + (" (venv)" if i.is_venv else ""),
            i.version,
            i.implementation,
            shared,
            i.source or "--python",
            _cell(p.commands),
            _cell(p.variants),
        )
    parts: list = [t]
    lines = []
    for p in report.pythons:
        by_reason: dict[str | None, list[str]] = {}
        labelled = [(s, s.name) for s in p.commands] + [(s, f"variant {s.name}") for s in p.variants]
        for s, label in labelled:  # by position: the lazy command and the lazy variant are equal values
            if not s.supported:
                by_reason.setdefault(s.reason, []).append(label)
        if by_reason:
            lines.append(f"  {p.interpreter.path} ({p.interpreter.version}):")
        for reason, names in by_reason.items():
            lines.append(f"    {', '.join(names)}: {reason}")
    if lines:
        parts.append("not available:\n" + "\n".join(lines))
    for w in report.warnings:
        parts.append(f"warning: {w}")
    return render_tables(parts, tty)
