"""`importprof lazy --apply DIR` / `--filter-out FILE`: write what the lazy measurement proved,
then prove what was written.

  lazy_apply(opts, session) -> LazyApplyReport

1. Refuse before anything runs: DIR missing, not a folder, inside site-packages or the
   interpreter's stdlib; `--style keyword` where the project's requires-python allows an
   interpreter without PEP 810 syntax.
2. The lazy measurement (compose/lazy.py, untimed): the must-stay-eager set and the modules the
   lazy run avoided; an eager `-X importtime` profile with import sites charges each avoided
   module to the import statement under DIR that brought it in. A statement's saving is the
   self time of the avoided modules below it (each module counted once).
3. The selection: saving >= --min-ms, none of its modules in the must-stay-eager set, no static
   reason to stay eager (analysis/lazy_static.py: unused bound name, a side effect of a module
   under DIR), and a place PEP 810 can defer (module scope, not in try/with/def/class).
4. The edit (analysis/lazy_edit.py), per file: parsed, compiled (by the 3.15 interpreter for the
   keyword style), written atomically (sinks.write_atomic). A file that does not parse, cannot
   be written or fails to compile is left alone with one line saying so. `--diff` stops here
   and prints the unified diff: nothing is written.
5. Verification, on the interpreters at hand (the --python one, a 3.15 when there is one, the
   oldest the project allows) and on every --verify-with command: output and exit code before
   and after must be identical. When they differ, delta debugging over the applied statements
   finds the smallest set to take back; the rest stays applied. Any failure on the way puts the
   original bytes back.
6. The proof: per interpreter, before and after: start-up (mean, spread, range), import time,
   modules loaded, peak RSS, imports still lazy at exit (3.15).

`--filter-out FILE` writes a `sys.set_lazy_imports_filter` module instead (analysis/lazy_filter)
keeping the must-stay-eager set eager under `-X lazy_imports=all`: `lazy`'s set, with the check
`lazy` made of it under the bare 3.15 (compose/lazy_plain.py: one mechanism).

The rooms: lazy_apply_state.py (the options and the state the stages share),
lazy_apply_select.py (steps 2-4: the choice and the edit in memory, the 3.15 fixed point),
lazy_apply_verify.py (steps 5-6), lazy_apply_files.py (the tree's files and bytecode),
lazy_apply_floor.py (each module's floor remembered between invocations); this module runs them.
"""

from __future__ import annotations

import difflib
import os

from profiler.compose.lazy_apply_select import _candidates, _compile_check, _deepen, _gather_tree, _lines_by_file, _loaded_files, _select, _untimed
from profiler.compose.lazy_apply_state import _package_of, _under, ApplyOptions, ApplyState, lower_bound, requires_python
from profiler.compose.lazy_apply_verify import _proof, _pythons_for, _verification_setup, _write_and_bisect
from profiler.errors import BadInput, Interrupted, UsageError
from profiler.model.lazy_apply import Check, FileEdit, LazyApplyReport, StatementVerdict
from profiler.model.words import LazyStyle
from profiler.session import Session


def check_directory(directory: str, interp) -> str:
    """DIR as an absolute path, or BadInput (one line): missing, not a folder, third-party or
    stdlib code."""
    if not os.path.exists(directory):
        raise BadInput(f"--apply {directory}: no such folder")
    if not os.path.isdir(directory):
        raise BadInput(f"--apply {directory}: not a folder")
    real = os.path.realpath(directory)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        raise BadInput(f"--apply {directory}: inside site-packages (installed third-party code is not yours to edit)")
    for lib in {interp.stdlib, os.path.realpath(interp.stdlib)} - {""}:
        if _under(real, lib) or _under(lib, real):
            raise BadInput(f"--apply {directory}: holds the standard library of {interp.path} ({lib})")
    return real


def check_style(opts: ApplyOptions) -> None:
    """`--style keyword` writes `lazy import`: refused, before anything runs, where the
    project's requires-python (read from DIR upwards) allows an interpreter without PEP 810's
    syntax. The one check of the options that reads files: run once, here, at the entry (the
    others are ApplyOptions' own, at construction)."""
    if opts.style == LazyStyle.KEYWORD and opts.directory is not None:
        spec, where = requires_python(opts.directory)
        low = lower_bound(spec) if spec else None
        if low is None or low < (3, 15):
            said = f"requires-python {spec!r} ({where})" if spec else "no requires-python declared"
            raise UsageError(f"--style keyword writes `lazy import`, which needs Python 3.15+, but {said}: "
                             "use --style lazy-modules (inert before 3.15)")


def lazy_apply(opts: ApplyOptions, *, session: Session) -> LazyApplyReport:
    from profiler.capture.interpreter import interpreter_for
    from profiler.compose.lazy import lazy

    check_style(opts)
    interp = interpreter_for(opts.lazy.python, "lazy", session=session)
    if opts.filter_out:
        from profiler import sinks

        sinks.check_writable(opts.filter_out)
        with session.relabelled(None):  # the measurement's own progress is not shown
            report = lazy(_untimed(opts.lazy), session=session)
        must = tuple(m.name for m in report.must_stay_eager)
        return _filter_out(opts, interp, report, must, list(report.warnings), [])
    state = ApplyState(opts, interp, check_directory(opts.directory, interp), session)
    try:
        from profiler.compose import lazy_apply_floor as floor

        state.files = _loaded_files(opts, interp, state.directory, session=session)
        state.self_us.update(floor.load(state.directory, interp.path, interp.version, state.files))
        with session.relabelled(None):  # the measurement's own progress is not shown
            state.report = lazy(_untimed(opts.lazy), session=session)
        state.warnings.extend(state.report.warnings)
        state.must = tuple(m.name for m in state.report.must_stay_eager)
        report = _apply(state)
        floor.save(state.directory, interp.path, interp.version, state.files, state.self_us)
        return report
    except (KeyboardInterrupt, Interrupted) as exc:
        raise Interrupted(_interrupted_line(state), partial=None) from (None if isinstance(exc, Interrupted) else exc)


def _interrupted_line(state: ApplyState) -> str:
    """What Ctrl-C left: the files as they were, or the verified edit in place."""
    edits = state.edits
    if state.stage == "proving":
        n, m, f = _counts(edits)
        return (f"interrupted during the proof: the verified edit stays ({n} imports of {m} modules lazy in {f} files, "
                f"bytecode refreshed); the proof is not shown")
    if edits is not None and edits.written:
        return f"interrupted while {'verifying the edit' if state.stage == 'verifying' else 'refreshing the bytecode'}: " \
               "every file was put back as it was (no file changed)"
    return "interrupted: no file changed"


def _apply(state: ApplyState) -> LazyApplyReport:
    _candidates(state)
    _select(state)
    _gather_tree(state)
    _compile_check(state)
    if state.opts.diff:
        return _diff_report(state)
    if all(state.contents[p] == state.edits.original[p] for p in state.contents):
        state.notes.append("nothing to apply: no statement under the folder passed the checks above (the files are as they were)")
        return _report(state, state.contents)
    _verification_setup(state)
    state.stage = "verifying"
    try:
        _deepen(state)
        _write_and_bisect(state)
        state.stage = "refreshing"
        final = state.edits.edited(_lines_by_file(state.chosen, state.edits), _package_of)
        state.edits.write(final)
        changed = [p for p, data in final.items() if data != state.edits.original[p]]
        state.notes.extend(state.edits.refresh_bytecode(changed, lambda tag: _pythons_for(state, tag), session=state.session))
        after = state.edits.snapshot()
    except BaseException:
        state.edits.restore()
        raise
    state.stage = "proving"
    try:
        state.proof, state.machine = _proof(state, after)
    except (KeyboardInterrupt, Interrupted):
        state.edits.put(after)  # stopped by the user: the verified edit stays, as it is left
        raise
    except BaseException:
        state.edits.restore()
        raise
    state.edits.put(after)
    if all(p.version_tuple[:2] < (3, 15) for p in state.pythons):
        state.notes.append(f"no Python 3.15 here: `__lazy_modules__` is inert on {', '.join(p.version for p in state.pythons)}; "
                           f"the saving is the prediction of the lazy measurement: {_predicted(state) / 1000:.1f} ms")
    return _report(state, final)


def _predicted(state: ApplyState) -> int:
    """The self time of the avoided modules below the chosen statements, each module once (a
    module a later pass charged to another statement is not counted twice)."""
    if state.edits is None or not any(e.changed for e in state.edits.edits.values()):
        return 0  # nothing written (the statements chosen are lazy already): nothing to gain
    modules = {m for c in state.chosen for m in c.modules}
    return sum(state.self_us.get(m, 0) for m in modules)


def _counts(edits) -> tuple[int, int, int]:
    """(import statements made lazy, distinct modules they name, files) by the last edit."""
    if edits is None:
        return 0, 0, 0
    done = [e for e in edits.edits.values() if e.changed]
    modules = {m for e in done for _, ms in e.applied for m in ms}
    return sum(len(e.applied) for e in done), len(modules), len(done)


def _common(state: ApplyState) -> dict:
    n, m, f = _counts(state.edits)
    return dict(directory=state.opts.directory, style=state.opts.style, target=state.opts.lazy.target.label(),
                python=state.interp.path, python_version=state.interp.version, min_ms=state.opts.min_ms,
                must_stay_eager=state.must, predicted_us=_predicted(state), statements=_ordered(state.verdicts),
                warnings=tuple(state.warnings), notes=tuple(state.notes),
                lazy_imports=n, lazy_modules=m, edited_files=f)


def _file_rows(state: ApplyState, status_changed: str, final: dict[str, bytes]) -> tuple:
    rows = []
    for path in sorted(set(state.file_status) | set(final)):
        lines = tuple(sorted({c.line for c in state.chosen if c.path == path}
                             | {ln for c in state.chosen for p_, ln in c.companions if p_ == path}))
        st = state.file_status.get(path, "ok")
        if st == "ok":
            st = status_changed if final.get(path, b"") != state.edits.original.get(path) else "unchanged"
        rows.append(FileEdit(path, lines, st))
    return tuple(rows)


def _diff_report(state: ApplyState) -> LazyApplyReport:
    contents = state.contents
    text = "".join(_unified(path, state.edits.original[path], data) for path, data in sorted(contents.items()))
    state.notes.append("--diff: nothing was written; the verification and the proof run with --apply")
    if state.interp.version_tuple[:2] >= (3, 15):
        state.notes.append("--diff shows the first pass: on 3.15, --apply then profiles the edited program again and may "
                           "make more statements lazy (those the deferred modules now load through)")
    return LazyApplyReport(action="diff", files=_file_rows(state, "would edit", contents), diff=text, **_common(state))


def _report(state: ApplyState, final: dict[str, bytes]) -> LazyApplyReport:
    return LazyApplyReport(action="apply", files=_file_rows(state, "edited", final), checks=state.checks,
                           proof=state.proof, bisect_runs=state.bisect_runs, machine=state.machine, **_common(state))


def _ordered(verdicts: dict[int, StatementVerdict]) -> tuple[StatementVerdict, ...]:
    order = {"applied": 0, "eager": 1, "skipped": 2, "below --min-ms": 3}
    return tuple(sorted(verdicts.values(), key=lambda v: (order.get(v.decision, 9), -v.saving_us, v.site)))


def _unified(path: str, old: bytes, new: bytes) -> str:
    if old == new:
        return ""
    rel = os.path.relpath(path)
    path = path if rel.startswith("..") else rel
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}"))


def _filter_out(opts, interp, report, must, warnings, notes) -> LazyApplyReport:
    """The filter file with `lazy`'s must-stay-eager set, and the check `lazy` made of that very
    set under the bare interpreter (compose/lazy_plain.py: one mechanism, so the report, its JSON
    and this file give one set); unverified, said in a note, where no 3.15 could run it."""
    from profiler import sinks
    from profiler.analysis.lazy_filter import filter_module

    eager = sorted({*opts.lazy.keep_eager, *must})  # what --keep-eager asked stays eager in the filter too
    checks: list[Check] = []
    t = opts.lazy.target
    plain = report.plain_check
    bisect_runs = 0
    if plain is None or not plain.runs:
        why = plain.skipped if plain is not None and plain.skipped else "no Python 3.15 here"
        notes.append(f"the filter is written unverified ({why}): it takes effect with -X lazy_imports=all on 3.15+")
    else:
        eager = sorted({*eager, *plain.eager})
        against = f", against {plain.reference}" if plain.reference else ""
        checks.append(Check(plain.python, f"{t.label()} with -X lazy_imports=all and the filter "
                                          f"(the bare check of importprof lazy, {plain.runs} runs{against})",
                            plain.identical, plain.difference))
        bisect_runs = plain.bisect_runs
    sinks.write_atomic(opts.filter_out, filter_module(eager, target=t.label(), python=report.python_version or ""))
    return LazyApplyReport(
        action="filter-out", directory=None, style=opts.style, target=t.label(), python=interp.path,
        python_version=interp.version, min_ms=opts.min_ms, must_stay_eager=must, statements=(),
        checks=tuple(checks), filter_path=opts.filter_out, filter_eager=tuple(eager),
        bisect_runs=bisect_runs, warnings=tuple(warnings), notes=tuple(notes),
    )
