"""Human tables for `importprof imports` / `show` / `why` / `diff`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from profiler.model.words import View
from profiler.render.text import path_cell, shown_argv


@dataclass(frozen=True)
class ImportsView:
    view: View = View.TREE
    min_ms: float = 1.0
    top: int = 20
    filter: str | None = None
    tree_lines: int = 400  # with several processes the tree is cut there (tables draw only what they show)

    def __post_init__(self) -> None:
        # the word as its member, whoever made the view (a command passes --view's word)
        object.__setattr__(self, "view", View.parse(self.view, "--view"))


def _ms(us: int | float) -> str:
    return f"{us / 1000:.1f}"


MAD_TO_SD = 1.4826  # a normal distribution's σ in MADs


def _noisy(value_us: int, spread_us: int) -> bool:
    """The uncertainty (the spread as a standard deviation) is larger than the value itself."""
    return spread_us > 0 and spread_us * MAD_TO_SD > value_us


def _spread_cell(us: int, value_us: int | None = None) -> str:
    if value_us is not None and _noisy(value_us, us):
        return "noise"
    return f"±{us / 1000:.1f}" if us else ""


NOISE_NOTE = "noise: not measurable at these runs (the spread is larger than the value; raise --runs)"


def _header(report) -> str:
    who = report.python or ("python (from a log)" if report.source == "log" else "command")
    ver = f" {report.python_version}" if report.python_version else ""
    runs = f"{report.runs} run{'s' if report.runs != 1 else ''}"
    procs = f", {report.processes} processes" if report.processes > 1 else ""
    from profiler.render.text import shown_target

    target = f" · {shown_target(report.target)}" if report.target else ""
    return f"imports: {who}{ver}{target} · {runs}{procs} · total {_ms(report.total_us)} ms (Σ roots' cumulative, median)"


def render_imports_table(report, tty: bool, view: ImportsView = ImportsView()) -> str:
    from profiler.analysis.imports_views import collapse_tree, filter_modules, top_modules
    from profiler.render.console import new_table, render_tables
    from profiler.model.import_columns import records_with

    from profiler.render.console_phases import lazy_table, phase_cells, phase_headers, phases_note

    parts: list = [_header(report)]
    many = report.processes > 1
    if report.per_process:  # several Python processes: headline, processes, modules summed
        parts.extend(process_tables(report.harness, report.per_process, report.summed, tty, view.top))
    ph = phase_headers(report.modules)  # --phases columns (ms)
    partial = report.runs > 1 and any(not m.in_all_runs for m in report.modules)  # one run: every module is in it
    noisy = False
    if view.view is View.TOP:
        mods = filter_modules(report.modules, view.filter, keep_ancestors=False)
        for by, title in (("self_us", "self"), ("cumulative_us", "cumulative")):
            t = _module_table(new_table(tty, title=f"top {view.top} by {title} (ms, median)"), many, ph, spread_of=title)
            for m in top_modules(mods, view.top, by):
                row = [_name(m)] + ([str(m.process)] if many else [])
                spread = m.self_us_spread if by == "self_us" else m.cumulative_us_spread
                row += [_ms(m.self_us), _ms(m.cumulative_us), _spread_cell(spread, getattr(m, by)), _runs(m, report.runs)]
                noisy = noisy or _noisy(getattr(m, by), spread)
                t.add_row(*row, *phase_cells(m, ph))
            parts.append(t)
    else:
        mods = filter_modules(report.modules, view.filter)
        lines = collapse_tree(mods, int(view.min_ms * 1000))
        cut = len(lines) - view.tree_lines if many and len(lines) > view.tree_lines else 0
        title = f"import tree{' per process' if many else ''} (ms, median; children under {view.min_ms:g} ms folded)"
        t = _module_table(new_table(tty, title=title), many, ph)
        for line in lines[: len(lines) - cut]:
            indent = "  " * line.depth
            if line.module is None:
                row = [f"{indent}… {line.hidden_modules} more"] + ([str(line.process)] if many else [])
                row += ["", _ms(line.hidden_us), "", ""]
            else:
                m = line.module
                row = [indent + _name(m)] + ([str(m.process)] if many else [])
                row += [_ms(m.self_us), _ms(m.cumulative_us), _spread_cell(m.cumulative_us_spread, m.cumulative_us), _runs(m, report.runs)]
                noisy = noisy or _noisy(m.cumulative_us, m.cumulative_us_spread)
            t.add_row(*row, *phase_cells(line.module, ph))
        parts.append(t)
        if cut:
            parts.append(f"the tree is cut after {view.tree_lines} of {len(lines)} lines ({report.processes} processes): narrow it with --filter or --min-ms, or see --format json")
    if ph:
        parts.append(phases_note(report.modules, report.runs))
    work = statements_table(report.modules, tty, view.top)  # --statements
    if work is not None:
        parts.extend(work)
    lazy = lazy_table(report, tty, view.top)  # --lazy-candidates
    if lazy is not None:
        parts.append(lazy)
    if report.group_by:
        t = new_table(tty, title=f"by {report.group_by} (ms, top {view.top} by cumulative)")
        t.add_column(report.group_by, no_wrap=True)
        t.add_column("modules", justify="right")
        t.add_column("self", justify="right")
        t.add_column("cumulative", justify="right")
        groups = [g for g in report.groups if not (view.filter and not g.name.startswith(view.filter))]
        for g in groups[: view.top]:
            t.add_row(g.name, str(g.modules), _ms(g.self_us), _ms(g.cumulative_us))
        rest = groups[view.top :]
        if rest:
            t.add_row(f"… {len(rest)} more (--top {view.top})", str(sum(g.modules for g in rest)), _ms(sum(g.self_us for g in rest)), "")
        parts.append(t)
    failed = sum(1 for m in records_with(report.modules, "failed") if m.failed)
    if failed:
        parts.append(
            f"{failed} import{'' if failed == 1 else 's'} failed (marked {FAILED_MARK.strip()}): the module was not loaded; "
            "the time spent trying is real and counted in its importers' cumulative"
        )
    if report.cached:
        parts.append(f"{len(report.cached)} modules were also found already imported (3.14 `cached` rows); see --format json")
    if noisy:
        parts.append(NOISE_NOTE)
    if partial:
        parts.append("runs: a module seen in only some runs shows seen/total (e.g. 3/5)")
    if report.instructions is not None:
        parts.append(instructions_line(report.instructions))
    return render_tables(parts, tty)


def instructions_line(ins) -> str:
    """--metric instructions: the counts, each with its own run-to-run range."""
    def counted(value, runs, spread) -> str:
        return f"{value:,}" + (f" (range {spread:.2f} % over {len(runs)} runs)" if spread is not None else "")

    text = f"instructions ({ins['method']}): target {counted(ins['target'], ins['target_runs'], ins.get('variation_pct'))}"
    if ins.get("bare") is not None:
        text += (f"; bare interpreter (-c pass) {counted(ins['bare'], ins.get('bare_runs') or (), ins.get('bare_variation_pct'))}"
                 f"; the program adds {ins['difference']:,}")
    return text


FAILED_MARK = " (failed)"


def _name(m) -> str:
    return m.name + (FAILED_MARK if m.failed else "")


def process_tables(h, per_process, summed, tty: bool, top: int, untraced_wall_s: float | None = None) -> list:
    """A harness's tables (`imports -- COMMAND`, and `startup -- COMMAND` above its own): the
    headline, the Python processes by import time, the modules summed over them. Read through
    strace, every time in them is traced, and says so; `untraced_wall_s` (startup's measured
    median) goes beside the traced wall time."""
    from profiler.render.console import new_table

    parts: list = []
    if h:
        traced = h.capture == "strace"
        n = h.python_processes
        t = new_table(tty, title=f"harness: {n} Python process{'' if n == 1 else 'es'}"
                      + (" (one capture traced by strace: its times are traced, not measured)" if traced else ""))
        t.add_column("what", no_wrap=True)
        t.add_column("value", justify="right")
        t.add_row("Python processes (with import time lines)", str(h.python_processes))
        if h.unreached:
            t.add_row("Python processes without import times (not counted below)", str(len(h.unreached)))
        t.add_row("Σ import time (each process's total, median)", f"{_ms(h.imports_us)} ms")
        tr = " (traced)" if traced else ""
        if h.python_wall_s is not None:
            t.add_row(f"Σ Python process wall time (exec to exit){tr}", f"{h.python_wall_s * 1000:.1f} ms")
        if h.command_wall_s is not None:
            t.add_row(f"the command's wall time{' (traced)' if traced else ' (median)'}", f"{h.command_wall_s * 1000:.1f} ms")
        if untraced_wall_s is not None:
            t.add_row("the command's wall time untraced (the timing table's median)", f"{untraced_wall_s * 1000:.1f} ms")
        if h.imports_share is not None:
            t.add_row(f"import time / the command's wall time{' (both traced)' if traced else ''}", f"{h.imports_share * 100:.0f}%")
        parts.append(t)
        if h.imports_share is not None and h.imports_share > 1:
            parts.append("the share exceeds 100%: processes ran in parallel")
        if traced:
            parts.append(
                "read through strace (each `import time:` line's write is traced): import times are ~15-30% high "
                "in absolute terms; comparisons between these processes are fair"
            )
    procs = sorted(per_process, key=lambda p: (-p.imports_us, p.index))
    shown = procs[:top]
    t = new_table(tty, title=f"Python processes ({len(procs)}; top {len(shown)} by import time, ms)")
    t.add_column("proc", justify="right")
    t.add_column("parent", justify="right")
    t.add_column("imports", justify="right")
    t.add_column("wall", justify="right")
    t.add_column("argv", no_wrap=True)
    for p in shown:
        t.add_row(
            str(p.index), "" if p.parent is None else str(p.parent), _ms(p.imports_us),
            "" if p.wall_s is None else f"{p.wall_s * 1000:.1f}", shown_argv(p.argv),
        )
    if len(procs) > len(shown):
        rest = procs[len(shown) :]
        t.add_row("", "", _ms(sum(p.imports_us for p in rest)), "", f"… {len(rest)} more (--top {top})")
    parts.append(t)
    if summed:
        shown_m = summed[:top]
        t = new_table(tty, title=f"modules summed over the processes (top {len(shown_m)} of {len(summed)} by Σ cumulative, ms)")
        t.add_column("module", no_wrap=True)
        t.add_column("processes", justify="right")
        t.add_column("Σ self", justify="right")
        t.add_column("Σ cumulative", justify="right")
        for m in shown_m:
            t.add_row(m.name, str(m.processes), _ms(m.self_us), _ms(m.cumulative_us))
        parts.append(t)
    return parts


def _runs(m, runs: int) -> str:
    return "" if m.in_all_runs else f"{m.runs_seen}/{runs}"


def render_why_table(report, tty: bool) -> str:
    from profiler.render.console import new_table, render_tables

    parts: list = []
    if not report.chains:
        return render_tables([f"{report.module} is not imported"], tty)
    if report.statements is not None:  # why --statements: the work inside MODULE's body, after its chains
        return render_tables([render_why_table(replace(report, statements=None), tty).rstrip("\n"),
                              *_why_statements(report, tty)], tty)
    if any(not c.loaded for c in report.chains):  # why --all: every importer, one line each
        t = new_table(tty, title=f"every import of {report.module}: {len(report.chains)} chains, shortest first")
        t.add_column("#", justify="right")
        t.add_column("chain", no_wrap=True)
        t.add_column("loaded it", justify="right")
        t.add_column("first hop cumulative ms", justify="right")
        for i, chain in enumerate(report.chains, 1):
            path = " → ".join(h.name for h in chain.hops)
            t.add_row(str(i), path, "yes" if chain.loaded else "already loaded", _ms(chain.hops[0].cumulative_us) if len(chain.hops) > 1 else "")
        parts.append(t)
        loading = [c for c in report.chains if c.loaded]
        report_chains = loading
        parts.append(f"the chain that loaded {report.module}, hop by hop:" if loading else f"{report.module} was loaded before -X importtime could see it")
    else:
        report_chains = list(report.chains)
    parts.extend(_chain_tables(report, report_chains, tty))
    return render_tables(parts, tty)


def why_table_pieces(report, tty: bool):
    """render_why_table's text a chain's table at a time (`why` of a harness: a table per
    process, never all drawn at once); the same text joined. On a terminal, or with --all or
    --statements, the whole text in one piece."""
    if tty or not report.chains or report.statements is not None or any(not c.loaded for c in report.chains):
        yield render_why_table(report, tty)
        return
    from profiler.render.console import render_tables_each

    yield from render_tables_each(_chain_tables(report, report.chains, tty), tty)


def _chain_tables(report, chains, tty: bool):
    """One table per chain, hop by hop, made as they are asked for."""
    from profiler.render.console import new_table

    proc_shown = any(c.process for c in report.chains)
    for i, chain in enumerate(chains, 1):
        proc = f" (process {chain.process})" if proc_shown else ""
        t = new_table(tty, title=f"chain {i}{proc}: who imports {report.module}")
        t.add_column("hop", no_wrap=True)
        t.add_column("self ms", justify="right")
        t.add_column("cumulative ms", justify="right")
        # the file:line of each hop's import; other extras (phases, kind...) stay in the JSON
        sites = any(h.site for h in chain.hops)
        if sites:
            t.add_column("site")
        for j, h in enumerate(chain.hops):
            arrow = "  " * j + ("└─ " if j else "")
            t.add_row(arrow + h.name + (FAILED_MARK if h.failed else ""), _ms(h.self_us), _ms(h.cumulative_us), *([path_cell(str(h.site or ""), tty)] if sites else []))
        yield t


WRAPPER_MARK = " (dotted import)"  # the outer row of `import a.b` (see DiffReport notes)


def _modules(n: int) -> str:
    return f"{n} module" if n == 1 else f"{n} modules"


def render_diff_table(report, tty: bool, top: int = 25) -> str:
    from profiler.render.console import new_table, render_tables

    tot = report.totals
    sign = "+" if tot.delta_us >= 0 else ""
    pct = f" ({sign}{tot.delta_pct:.1f}%)" if tot.delta_pct is not None else ""
    verdict = {True: "significant", False: "not significant (within the runs' spread)"}.get(
        tot.significant, "significance not judged (needs 3 runs or more in both reports)")
    if tot.modules_added is not None or tot.modules_removed is not None:
        moved = [f"{_modules(n)} {w}" for n, w in ((tot.modules_added or 0, "added"), (tot.modules_removed or 0, "removed")) if n]
        times = {True: "significant too", False: "within the runs' spread"}.get(tot.times_significant, "not judged (needs 3 runs or more in both reports)")
        verdict = f"significant: {' and '.join(moved)} (a change whatever the times' spread; the times alone: {times})"
    parts: list = [
        f"total import time: {_ms(tot.old_us)} ms → {_ms(tot.new_us)} ms, {sign}{_ms(tot.delta_us)} ms{pct}: {verdict}"
    ]

    def side(d: dict) -> str:
        facts = [f for f in (d.get("python_version"), f"{d['runs']} run{'' if d.get('runs') == 1 else 's'}" if d.get("runs") else None) if f]
        return f"{d.get('path') or '?'}" + (f" ({', '.join(facts)})" if facts else "")

    if report.old.get("path") or report.new.get("path"):
        parts.append(f"old: {side(report.old)} → new: {side(report.new)}")
    if not (report.added or report.removed or report.changed):
        parts.append("no differences")
        return render_tables(parts, tty)
    for title, rows in (("added", report.added), ("removed", report.removed)):
        if rows:
            t = new_table(tty, title=f"{title}: {_modules(len(rows))} (top {min(top, len(rows))} by cumulative, ms)")
            t.add_column("module", no_wrap=True)
            t.add_column("self", justify="right")
            t.add_column("cumulative", justify="right")
            for m in rows[:top]:
                t.add_row(m.name + (WRAPPER_MARK if m.wrapper else ""), _ms(m.self_us), _ms(m.cumulative_us))
            parts.append(t)
    if report.changed:
        t = new_table(tty, title=f"changed: {_modules(len(report.changed))} (top {min(top, len(report.changed))} by impact, ms)")
        t.add_column("module", no_wrap=True)
        t.add_column("cumulative", justify="right")
        t.add_column("Δ cumulative", justify="right")
        t.add_column("Δ self", justify="right")
        t.add_column("significant", justify="right")
        for c in report.changed[:top]:
            sig = "n/a" if c.significant is None else ("yes" if c.significant else "no")
            t.add_row(
                c.name + (WRAPPER_MARK if c.wrapper else ""),
                f"{_ms(c.old_cumulative_us)} → {_ms(c.new_cumulative_us)}",
                f"{c.delta_cumulative_us / 1000:+.1f}",
                f"{c.delta_self_us / 1000:+.1f}",
                sig,
            )
        parts.append(t)
    if report.notes:
        parts.extend(report.notes)
    return render_tables(parts, tty)


def _why_statements(report, tty: bool) -> list:
    from profiler.render.console import new_table
    from profiler.render.text import cut_middle

    if not report.statements:
        return [f"{report.module}: no top-level statement of its body other than imports was seen by 3 samples or more"]
    t = new_table(tty, title=f"import-time work in {report.module}'s body (top-level statements, sampled)")
    for col in ("of its body", "≈ ms", "site", "statement"):
        t.add_column(col, justify="right" if col in ("≈ ms", "of its body") else "left")
    for s in report.statements:
        t.add_row(f"{s['of_body_pct']:.0f}%", _ms(s["estimated_us"]), f"{s['file'].rsplit('/', 1)[-1]}:{s['line']}",
                  cut_middle(s.get("statement") or "", 70))
    return [t, STATEMENTS_NOTE]


STATEMENTS_NOTE = ("sampled every 0.25 ms in separate runs: a statement's share is the part of its module body's sampled time "
                   "during which it was the running top-level line (functions it called included, nested imports' bodies "
                   "excluded; import statements are left out: their cost is in the import tree); ≈ ms is that share of the "
                   "module's self in the timed runs (sampling slows the runs, so its own milliseconds are not shown)")


def statements_table(modules, tty: bool, top: int, module: str | None = None) -> list | None:
    """--statements: the top-level statements that cost their module's self time, costliest
    first (each module's, from its record's extra), or None when none was recorded."""
    from profiler.render.console import new_table
    from profiler.render.text import cut_middle

    from profiler.model.import_columns import records_with

    rows = [(m, s) for m in records_with(modules, "statements") for s in m.statements if module is None or m.name == module]
    if not rows:
        return None
    t = new_table(tty, title=f"import-time work in module bodies (top {min(top, len(rows))} top-level statements, sampled)")
    for col in ("module", "≈ ms", "of its body", "site", "statement"):
        t.add_column(col, justify="right" if col in ("≈ ms", "of its body") else "left", no_wrap=col == "module")

    def share(m, s) -> float:
        body = m.statements_sampled_us
        return s["self_us"] / body if body else 0.0

    rows.sort(key=lambda ms: -share(*ms) * ms[0].self_us)
    for m, s in rows[:top]:
        t.add_row(m.name, _ms(round(share(m, s) * m.self_us)), f"{100 * share(m, s):.0f}%",
                  f"{s['file'].rsplit('/', 1)[-1]}:{s['line']}", cut_middle(s.get("statement") or "", 60))
    return [t, STATEMENTS_NOTE]


def _module_table(t, many: bool, phase_headers, spread_of: str = "cumulative"):
    """The columns shared by the top and tree views. `spread` always names what it is the
    spread of (the median absolute deviation over the runs): self in the top-by-self table,
    cumulative elsewhere."""
    t.add_column("module", no_wrap=True)
    if many:
        t.add_column("proc", justify="right")
    for name in ("self", "cumulative", f"spread ({spread_of})", "runs", *phase_headers):
        t.add_column(name, justify="right")
    return t
