"""`lazy --apply`, the choice: the statements under DIR the lazy run moved cost out of start-up
(priced at each module's floor), each judged (applied, eager, below --min-ms, skipped), their
companions gathered, the edit compiled in memory; on 3.15 the edited program profiled again
until the edit is a fixed point (compose/lazy_apply.py: the flow)."""

from __future__ import annotations

import os
from typing import Sequence

from profiler.compose.lazy_apply_state import _in_dir, _module_of, _package_of, _read, _regular, _under, ApplyOptions, ApplyState, Candidate
from profiler.compose.lazy_plain import find_315
from profiler.errors import BadInput
from profiler.model.lazy_apply import StatementVerdict
from profiler.model.words import LazyStyle, Said, WarningKind
from profiler.session import Session


def companions_of(cands: Sequence[Candidate], sources: dict) -> None:
    """Fill each candidate's companions from every parsed file under DIR (`sources`: path ->
    its import statements)."""
    for c in cands:
        avoided = set(c.modules)
        found = []
        for path, stmts in sources.items():
            if _module_of(path) in avoided:
                continue  # a module the lazy run never ran: its imports do not run at start-up either
            for s in stmts:
                if s.blocked or (path == c.path and s.line <= c.line <= s.end_line):
                    continue
                if any(s.reaches(m) for m in avoided):
                    found.append((path, s.line))
        c.companions = tuple(sorted(found))


MAX_PASSES = 12


NOT_A_STATEMENT = "not an import statement (a use of a lazy name, or a dynamic import, loads the module here)"


def _deepen(state: ApplyState) -> None:
    """On 3.15 the edit takes effect, and a module a chosen statement defers may now be loaded
    at start-up by another statement under DIR (the next on its way, which the eager profile
    never charged because the module was already loaded). So the edited program is profiled
    again and the statements it charges are judged the same way (new ones too), until a pass
    leaves the edit byte for byte as it was (at most MAX_PASSES profiles, said in a note when
    reached): the edit is then a fixed point, and a second --apply on the tree it leaves
    changes nothing. A line that is no import statement (where a use of a lazy name loaded its
    module) is skipped, never chosen. Before 3.15 the edit is inert: one pass."""
    if state.interp.version_tuple[:2] < (3, 15):
        return
    while state.passes < MAX_PASSES:
        state.edits.write(state.contents)
        found, _ = _statements_under(state)
        state.passes += 1
        had = state.contents
        _select(state, _merge_pass(state, [c for c in (_in_original(state, c) for c in found) if c is not None]))
        _gather_tree(state)
        _compile_check(state)
        if state.contents == had:
            return  # a fixed point: this pass changed no byte of the edit
    line = (f"the edited program was profiled {MAX_PASSES} times, each pass changing the edit (cap reached): "
            "a second --apply may change more")
    state.notes.append(line)
    state.session.info(line)


def _merge_pass(state: ApplyState, found) -> list[int]:
    """The candidates of a later pass merged into the known ones: a new statement is added; a
    known one left below --min-ms is priced again over the modules it loads in any pass (those
    a chosen statement deferred may now load below it); and every known one applied or below
    --min-ms is priced again at the floor of every run so far (each module at its lowest self
    time), so that each decision rests on the same, final estimate. The floor only falls as
    runs are pooled: a statement chosen on the first profile's three runs (1.1 ms) that the
    pooled runs price at 0.9 ms goes back below --min-ms, where a second --apply, pooling fewer
    runs, would leave it; the pass after re-judges the edit without it. Returns the indices to
    judge (again)."""
    from dataclasses import replace

    index = {(c.path, c.line): i for i, c in enumerate(state.cands)}
    judge = []
    seen: dict[int, tuple[str, ...]] = {}
    for c in found:
        i = index.get((c.path, c.line))
        if i is None:
            index[(c.path, c.line)] = len(state.cands)
            judge.append(len(state.cands))
            state.cands.append(c)
        elif state.verdicts.get(i) is not None and state.verdicts[i].decision == "below --min-ms":
            seen[i] = c.modules
    for i, v in sorted(state.verdicts.items()):
        if v.decision not in ("below --min-ms", "applied") or i in judge:
            continue
        old = state.cands[i]
        modules = tuple(dict.fromkeys(old.modules + seen.get(i, ())))
        saving = sum(state.self_us.get(n, 0) for n in modules)
        if saving != old.saving_us or modules != old.modules:
            state.cands[i] = replace(old, modules=modules, saving_us=saving)
            judge.append(i)
    return judge


def _in_original(state: ApplyState, c):
    """A candidate the profile of the edited program found, its line put back into the original
    file (an inserted declaration moves the lines below it); None for a line the edit wrote."""
    from dataclasses import replace

    from profiler.analysis.lazy_edit import original_lines

    original, now = state.edits.original.get(c.path), state.contents.get(c.path)
    if original is None or now is None or original == now:
        return c
    line = original_lines(original, now).get(c.line)
    if line is None:
        return None
    return replace(c, line=line, site=f"{c.site.rpartition(':')[0]}:{line}")


def _lines_by_file(chosen, edits) -> dict[str, list[int]]:
    by_file: dict[str, list[int]] = {}
    for c in chosen:
        by_file.setdefault(c.path, []).append(c.line)
        for path, line in c.companions:
            if path in edits.original:
                by_file.setdefault(path, []).append(line)
    return by_file


def _candidates(state: ApplyState) -> None:
    """The statements under DIR the lazy run moved cost out of start-up, and the editor."""
    from profiler.compose.lazy_apply_files import TreeFiles

    state.cands, _ = _statements_under(state)
    state.py315 = find_315(state.interp, session=state.session)
    if state.opts.style == LazyStyle.KEYWORD:
        state.compiler = state.py315.path if state.py315 is not None else None
        if state.compiler is None:
            state.warning(Said("no Python 3.15 here to compile `lazy import`: the edited files are checked by parsing only",
                               WarningKind.NO_COMPILER_315, "no Python 3.15 here to compile `lazy import`"))
    state.edits = TreeFiles(state.directory, state.opts.style)


def _select(state: ApplyState, indices=None) -> None:
    """Each candidate's verdict (those at `indices`, else all): applied, eager (measured or
    static reason), below --min-ms, or skipped (its file is left alone, its place cannot be
    deferred)."""
    for i in range(len(state.cands)) if indices is None else indices:
        c = state.cands[i]
        if indices is not None:  # judged again (priced anew): its earlier choice no longer holds
            state.chosen = [x for x in state.chosen if (x.path, x.line) != (c.path, c.line)]
        base = dict(site=c.site, modules=c.modules, saving_us=c.saving_us)
        differs = sorted(set(state.must) & set(c.modules))
        why_eager = {m.name: m.reason for m in state.report.must_stay_eager}
        measured = "differs: " + "; ".join(f"{n} lazy: {why_eager.get(n, 'changes the output')}" for n in differs) \
            if differs else "identical"
        source = _editable_source(state, c)
        if source is None:
            state.verdicts[i] = StatementVerdict(**base, measured=measured, static=(), decision="skipped",
                                                 why=_skip_reason(state.file_status[c.path]))
            continue
        state.verdicts[i] = _judge(state, c, source, base, measured, bool(differs))
        if state.verdicts[i].decision == "applied":
            state.chosen.append(c)


def _skip_reason(status: str) -> str:
    return "read-only file" if status == "read-only" else status


def _editable_source(state: ApplyState, c) -> bytes | None:
    """The candidate file's bytes when it may be edited (read in as an original), else None with
    its status set and one line said."""
    from profiler.analysis.lazy_edit import SourceError, parse_source
    from profiler.compose.lazy_apply_files import refusal

    if state.file_status.get(c.path, "ok") != "ok":
        return None
    if c.path in state.edits.original:
        return state.edits.original[c.path]
    why = refusal(c.path, state.directory)
    if why is not None:
        state.leave_alone(c.path, why)
        return None
    try:
        source = _read(c.path)
        parse_source(source, c.path)
    except OSError as exc:
        state.leave_alone(c.path, f"cannot read: {exc.strerror}")
        return None
    except SourceError as exc:
        state.leave_alone(c.path, f"does not parse ({exc})")
        return None
    state.file_status[c.path] = "ok"
    state.edits.add(c.path, source)
    return source


def _judge(state: ApplyState, c, source: bytes, base: dict, measured: str, differs: bool) -> StatementVerdict:
    from profiler.analysis.lazy_static import blocking

    stmt, reasons = _static(c, source, state.files, state.directory)
    static = tuple(r.to_dict() for r in reasons)
    own = bool(c.modules) and _under(os.path.realpath(state.files.get(c.modules[0], "") or "/nonexistent"), state.directory)
    # an unused import of the project's own module is how plugins register themselves; an
    # unused stdlib or third-party import is only dead weight (the measurement judges it)
    blockers = [r for r in blocking(reasons) if r.kind != "unused" or own or c.modules[0] not in state.files]
    if stmt is not None and stmt.blocked:
        decision, why = "skipped", stmt.blocked
    elif differs:
        decision, why = "eager", "must stay eager (measured)"
    elif stmt is None:
        # no import statement at this line: on 3.15 the use of a lazy name that loads its module
        # here (modutils.py's `logger = logging.getLogger(...)`), or a dynamic import; nothing to
        # edit, and its modules must not pull every other import of them in as companions
        decision, why = "skipped", NOT_A_STATEMENT
    elif blockers:
        decision, why = "eager", "static reason to stay eager"
    elif c.saving_us < state.opts.min_ms * 1000:
        decision, why = "below --min-ms", f"saves {c.saving_us / 1000:.1f} ms"
    else:
        decision, why = "applied", ""
    disagreement = None
    if differs and not blockers:
        disagreement = "measured differs, static analysis found no reason: the effect is indirect"
    elif any(r.kind == "module-level" for r in reasons) and c.saving_us > 0:
        disagreement = ("static analysis sees a use at module level, yet the lazy run avoided the import: "
                        "the use sits in a branch this run did not take")
    elif blockers and not differs:
        disagreement = ("static analysis sees a reason, the measured output stayed identical: kept eager "
                        "(the effect may not show in this run; --verify-with a command that exercises it)")
    return StatementVerdict(**base, measured=measured, static=static, decision=decision, why=why,
                            disagreement=disagreement)


def _gather_tree(state: ApplyState) -> None:
    """The companions: every other module-level import of the chosen modules under DIR. One in a
    file that is left alone (a link out of DIR, hard links, read-only) is reported and dropped."""
    if state.tree is None:
        state.tree = _parsed_tree(state)
    sources, refused = state.tree
    companions_of(state.chosen, sources)
    for c in state.chosen:
        kept = []
        for path, line in c.companions:
            if path in refused:
                state.leave_alone(path, refused[path])
            elif state.file_status.get(path, "ok") == "ok":
                kept.append((path, line))
        c.companions = tuple(kept)
    state.contents = state.edits.edited(_lines_by_file(state.chosen, state.edits), _package_of)


def _compile_check(state: ApplyState) -> None:
    """Each edited file compiled before anything is written; one that does not is left alone."""
    from profiler.analysis.lazy_edit import SourceError, parse_source
    from profiler.capture.lazy_apply import compile_with

    for path, data in state.contents.items():
        if data == state.edits.original[path]:
            continue
        problem = None
        try:
            compile(data, path, "exec", dont_inherit=True) if state.opts.style != LazyStyle.KEYWORD else parse_source(data, path)
        except (SyntaxError, ValueError, SourceError) as exc:
            problem = str(exc)
        if problem is None and state.compiler:
            problem = compile_with(state.compiler, path, data, session=state.session)
        if problem:
            state.warning(Said(f"{path}: the edited file does not compile ({problem}): left as it is",
                               WarningKind.EDIT_DOES_NOT_COMPILE, WarningKind.EDIT_DOES_NOT_COMPILE.value, path))
            state.chosen = [c for c in state.chosen if c.path != path]
            for i, v in state.verdicts.items():
                if state.cands[i].path == path and v.decision == "applied":
                    state.verdicts[i] = StatementVerdict(**{**v.__dict__, "decision": "skipped", "why": "the edit does not compile"})
            state.file_status[path] = "fails to compile"
    state.contents = state.edits.edited(_lines_by_file(state.chosen, state.edits), _package_of)


def _parsed_tree(state: ApplyState) -> tuple[dict, dict]:
    """(path -> import statements, path -> why it is left alone) for the Python files under
    DIR that parse: those that may be edited are read in as originals; the others (a link
    out of DIR, hard links, read-only) are parsed too, so that a companion statement in one is
    reported rather than silently missed. Other names under DIR leading to a file are kept
    (its bytecode sits beside each)."""
    from profiler.analysis.lazy_edit import SourceError, import_statements
    from profiler.compose.lazy_apply_files import refusal

    out, refused = {}, {}
    edits = state.edits
    for folder, dirs, names in os.walk(state.directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            named = os.path.join(folder, name)
            real = os.path.realpath(named)
            why = refusal(named, state.directory)
            path = named if why and not _under(real, state.directory) else real
            if real != named and not why:
                edits.aliases.setdefault(real, [])
                if named not in edits.aliases[real]:
                    edits.aliases[real].append(named)
            if path in out or state.file_status.get(path, "ok") != "ok" or not _regular(real):
                continue  # a FIFO or a device named like a module is never opened (it would block)
            try:
                data = edits.original.get(path) or _read(path)
                out[path] = import_statements(data, _package_of(path), path)
            except (OSError, SourceError):
                continue
            if why:
                refused[path] = why
            else:
                edits.add(path, data)
    return out, refused


def _loaded_files(opts: ApplyOptions, interp, directory: str, session: Session) -> dict[str, str]:
    """name -> file of the modules the target loads (one probe run); BadInput when none lies
    under DIR (before the measurement: a wrong folder costs one run, not minutes)."""
    from profiler.capture.lazy_apply import run_probe

    _, probe = run_probe(interp.path, opts.lazy.flags, opts.lazy.target, timeout=opts.lazy.timeout, session=session)
    files = {n: f for n, f in (probe or {}).get("modules", ()) if f}
    if probe is not None and not any(_under(os.path.realpath(f), directory) for f in files.values()):
        raise BadInput(f"--apply {opts.directory}: the target imports nothing from this folder "
                       f"({opts.lazy.target.label()} loaded {len(files)} modules from files, none under it)")
    return files


def _untimed(lazy_opts):
    from dataclasses import replace

    return replace(lazy_opts, measure=False)


def _statements_under(state: ApplyState):
    """(candidates, the eager profile) for the import statements under DIR that the lazy run
    moved cost out of start-up. A statement in a file named under DIR whose real path lies
    outside it (a symlink to a shared checkout) is no candidate: its file is reported."""
    from profiler.analysis.lazy import statement_savings
    from profiler.model.lazy import AvoidedModule
    from profiler.workflows.imports import ImportsOptions, imports

    opts, report, directory = state.opts, state.report, state.directory
    with state.session.quiet():  # the profile's warnings and progress are not --apply's
        profile = imports(ImportsOptions(target=opts.lazy.target, python=opts.lazy.python, runs=opts.profile_runs,
                                         warmup=1, flags=tuple(opts.lazy.flags), sites=True), session=state.session)
    _pool_self_times(state, profile.modules)
    self_us = state.self_us
    avoided = [AvoidedModule(a.name, a.cumulative_us) for a in report.avoided]
    # sites are written as the program named its files (a script's relative path): each file
    # under DIR is a root as written, beside DIR itself
    roots = [directory.rstrip("/") + "/"]
    for m in profile.modules:
        site = m.site if m.process == 0 else None
        path = site.rpartition(":")[0] if site else None
        if path and path not in roots and not path.startswith("<") and _under(os.path.realpath(path), directory):
            roots.append(path)
    rows = statement_savings(avoided, profile.modules, roots)
    out = []
    for s in rows:
        path, _, line = s.site.rpartition(":")
        if not line.isdigit() or not _in_dir(state, path):
            continue
        out.append(Candidate(os.path.realpath(path), int(line), tuple(s.modules),
                              sum(self_us.get(n, 0) for n in s.modules), s.site))
    # the statements that import a must-stay-eager module: kept eager by the lazy run, so never
    # avoided, yet they belong in the table (measured: differs) with their eager cost
    seen = {(c.path, c.line) for c in out}
    eager_names = {x.name for x in report.must_stay_eager}
    for m in profile.modules:
        site = m.site if m.process == 0 else None
        if m.name not in eager_names or not site:
            continue
        path, _, line = site.rpartition(":")
        real = os.path.realpath(path)
        if line.isdigit() and _in_dir(state, path) and (real, int(line)) not in seen:
            seen.add((real, int(line)))
            out.append(Candidate(real, int(line), (m.name,), m.cumulative_us, site))
    return out, profile


def _pool_self_times(state: ApplyState, modules) -> None:
    """Each module's self time is the lowest of every profile run this --apply made of the
    program (each pass's runs pooled): a loaded machine only ever adds time to a run
    (preemption, cold caches) and a module's own cost is the floor, so the lowest run is the
    steady estimate. A median of three runs of a 0.5 ms module measured 1.6 ms on a busy
    machine, which flipped its statement over --min-ms from one --apply to the next; the floor
    does not move with the load, so a second --apply judges each statement as the first did.
    Runs of the edited program (its files' bytecode stale until the edit is written) only add
    samples above that floor."""
    for m in modules:
        if m.process != 0:
            continue
        runs = [us for us in (m.self_us_runs or (m.self_us,)) if us is not None]
        if runs:
            low = min(runs)
            state.self_us[m.name] = min(low, state.self_us.get(m.name, low))


def _static(cand: Candidate, source: bytes, files: dict[str, str], directory: str):
    from profiler.analysis.lazy_edit import SourceError, import_statements
    from profiler.analysis.lazy_static import statement_reasons

    try:
        stmts = import_statements(source, _package_of(cand.path), cand.path)
    except SourceError:
        return None, []
    stmt = next((s for s in stmts if s.line <= cand.line <= s.end_line), None)
    if stmt is None:
        return None, []
    modules = []
    for name in cand.modules:
        f = files.get(name)
        if f and _under(os.path.realpath(f), directory) and _regular(f):
            try:
                modules.append((name, _read(f)))
            except OSError:
                continue
    return stmt, statement_reasons(source, stmt, modules, cand.path)
