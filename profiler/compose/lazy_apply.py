"""`importprof lazy --apply DIR` / `--filter-out FILE`: write what the lazy measurement proved,
then prove what was written.

  lazy_apply(opts, progress=, warn=, info=) -> LazyApplyReport

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
keeping the must-stay-eager set eager under `-X lazy_imports=all`, verified on 3.15 the same way
(bisection adds modules until the output is identical).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from profiler.compose.lazy_plain import find_315
from profiler.errors import BadInput, Interrupted, UsageError
from profiler.model.lazy_apply import Check, FileEdit, LazyApplyReport, ProofRow, Side, StatementVerdict
from profiler.runcontext import RunContext, given

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter

Note = Callable[[str], None]
PLACEHOLDER = "{python}"


@dataclass
class ApplyOptions:
    lazy: object  # compose.lazy.LazyOptions (the measurement)
    directory: str | None = None
    style: str = "lazy-modules"
    diff: bool = False
    filter_out: str | None = None
    verify_with: Sequence[str] = ()  # command lines (shlex-split; {python} = each interpreter)
    min_ms: float = 1.0
    oldest_python: Interpreter | None = None  # --oldest-python, resolved at the command's edge; None: the oldest pyenv interpreter requires-python allows
    proof_runs: int = 10
    profile_runs: int = 3
    max_bisect_runs: int = 40
    extra: dict = field(default_factory=dict)


# ------------------------------------------------------------------ checks before running


def requires_python(start: str) -> tuple[str | None, str | None]:
    """The project's requires-python (pyproject.toml [project], else setup.cfg python_requires)
    found from `start` upwards, and the file it came from."""
    folder = os.path.abspath(start)
    while True:
        for name, pattern in (("pyproject.toml", r'^\s*requires-python\s*=\s*["\']([^"\']+)["\']'),
                              ("setup.cfg", r"^\s*python_requires\s*=\s*(\S.*)$")):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):  # regular files only: a FIFO would make open() wait for a writer
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            m = re.search(pattern, text, re.M)
            if m:
                return m.group(1).strip(), path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, None
        folder = parent


def lower_bound(spec: str) -> tuple[int, int] | None:
    """The oldest (major, minor) a requires-python specifier allows (None: no lower bound)."""
    best = None
    for part in spec.split(","):
        m = re.match(r"\s*(>=|>|~=|==)\s*(\d+)\.(\d+)", part)
        if not m:
            continue
        v = (int(m.group(2)), int(m.group(3)))
        if m.group(1) == ">":
            v = (v[0], v[1] + 1) if not re.match(r"\s*>\s*\d+\.\d+\.\d", part) else v
        best = v if best is None or v > best else best
    return best


def _under(path: str, folder: str) -> bool:
    folder = folder.rstrip("/") + "/"
    return path == folder.rstrip("/") or path.startswith(folder)


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


def validate(opts: ApplyOptions) -> None:
    from profiler.analysis.lazy_edit import STYLES
    from profiler.workflows.targets import command_lines

    if opts.directory is None and opts.filter_out is None:
        raise UsageError("nothing to do: give --apply DIR or --filter-out FILE")
    if opts.directory is not None and opts.filter_out is not None:
        raise UsageError("--apply and --filter-out are two ways to adopt the result: give one")
    if opts.diff and opts.directory is None:
        raise UsageError("--diff shows what --apply DIR would write: give --apply DIR")
    if opts.style not in STYLES:
        raise UsageError(f"--style {opts.style}: one of {', '.join(STYLES)}")
    if opts.min_ms < 0:
        raise UsageError("--min-ms cannot be negative")
    command_lines("--verify-with", opts.verify_with)
    if opts.style == "keyword" and opts.directory is not None:
        spec, where = requires_python(opts.directory)
        low = lower_bound(spec) if spec else None
        if low is None or low < (3, 15):
            said = f"requires-python {spec!r} ({where})" if spec else "no requires-python declared"
            raise UsageError(f"--style keyword writes `lazy import`, which needs Python 3.15+, but {said}: "
                             "use --style lazy-modules (inert before 3.15)")


# ------------------------------------------------------------------ the interpreters at hand


def find_oldest(directory: str, interp, given, context: RunContext | None = None):
    """`given`: --oldest-python (the Interpreter the command resolved; a spec from a library caller)."""
    from profiler.capture.interpreter import candidates, interpreter_for, resolve_python

    if given:
        return interpreter_for(given, context=context)
    spec, _ = requires_python(directory)
    low = lower_bound(spec) if spec else None
    if low is None:
        return None
    floor = max(low, (3, 8))
    # in version order, each asked for its version (a folder's name is no version): the first
    # that runs and is new enough is the oldest the project allows
    for exe in candidates("pyenv"):
        try:
            found = resolve_python(exe, source="pyenv", context=context)
        except BadInput:
            continue
        if found.version_tuple[:2] >= floor:
            return found if found.version_tuple[:2] < interp.version_tuple[:2] else None
    return None


# ------------------------------------------------------------------ the edit


@dataclass
class _Candidate:
    path: str
    line: int
    modules: tuple[str, ...]
    saving_us: int
    site: str
    # the other module-level statements under DIR that import one of `modules`: in the eager
    # run they found the module already loaded, but with this statement lazy the first of them
    # to run would load it, so they go lazy with it (one unit for the edit and the bisection)
    companions: tuple[tuple[str, int], ...] = ()


def companions_of(cands: Sequence[_Candidate], sources: dict) -> None:
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


def _package_of(path: str) -> str | None:
    """The dotted package a file belongs to (for an __init__.py, the package itself), found by
    walking up through folders that hold an __init__.py."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, name = os.path.split(folder)
        parts.insert(0, name)
    return ".".join(parts) or None


def _module_of(path: str) -> str:
    package = _package_of(path)
    stem = os.path.basename(path)[:-3] if path.endswith(".py") else os.path.basename(path)
    if stem == "__init__":
        return package or ""
    return f"{package}.{stem}" if package else stem


def _regular(path: str) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read(path: str) -> bytes:
    """A module's bytes; OSError for what is not a regular file (O_NONBLOCK: a FIFO named
    mod.py must not make open() wait for a writer; its callers leave such a file alone)."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return fh.read()


# ------------------------------------------------------------------ runs


@dataclass(frozen=True)
class _Job:
    python: str  # interpreter path ("" for a command without {python})
    label: str
    argv: tuple[str, ...]


def _jobs(opts: ApplyOptions, pythons, flags: Sequence[str]) -> list[_Job]:
    from profiler.workflows.targets import command_lines

    target = opts.lazy.target
    jobs = [_Job(p.path, target.label(), (p.path, *flags, *target.python_argv())) for p in pythons]
    for raw, argv in zip(opts.verify_with, command_lines("--verify-with", opts.verify_with)):
        shown = raw.strip()
        if any(PLACEHOLDER in a for a in argv):
            for p in pythons:
                jobs.append(_Job(p.path, shown, tuple(a.replace(PLACEHOLDER, p.path) for a in argv)))
        else:
            jobs.append(_Job("", shown, tuple(argv)))
    return jobs


def _outputs(jobs: Sequence[_Job], timeout, context: RunContext | None = None):
    from profiler.capture.lazy_apply import run_fresh
    from profiler.model.lazy import ProgramOutput

    out = {}
    for job in jobs:
        o = run_fresh(job.argv, timeout=timeout, what=job.label, context=context)
        out[job] = ProgramOutput(o.stdout, o.stderr, o.returncode)
    return out


EXACT = "output and exit code"
MASKED = "output with decimal numbers masked (timings change from run to run)"
MASKED_ALL = "output with every number masked (they change from run to run)"
EXIT_ONLY = "exit code only (its output changes from run to run)"
_DECIMAL = re.compile(r"\d+\.\d+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _masked(o, pattern=_DECIMAL):
    from profiler.model.lazy import ProgramOutput

    return ProgramOutput(pattern.sub("#", o.stdout), pattern.sub("#", o.stderr), o.exit_code)


def comparison_modes(first: dict, second: dict) -> dict:
    """How each job is compared, from two runs before any edit: exactly; with decimal numbers
    masked (a test runner's timings; counts still compared); with every number masked; or by
    exit code alone (output that changes otherwise)."""
    modes = {}
    for job, a in first.items():
        b = second[job]
        if a == b:
            modes[job] = EXACT
        elif _masked(a) == _masked(b):
            modes[job] = MASKED
        elif _masked(a, _NUMBER) == _masked(b, _NUMBER):
            modes[job] = MASKED_ALL
        else:
            modes[job] = EXIT_ONLY
    return modes


def _differences(before, after, modes) -> dict:
    from profiler.analysis.lazy import describe_difference

    out = {}
    for job, b in before.items():
        a, mode = after[job], modes.get(job, EXACT)
        if mode in (MASKED, MASKED_ALL):
            pattern = _DECIMAL if mode == MASKED else _NUMBER
            b, a = _masked(b, pattern), _masked(a, pattern)
        if mode == EXIT_ONLY:
            out[job] = None if a.exit_code == b.exit_code else f"exit code {a.exit_code} instead of {b.exit_code}"
        else:
            out[job] = describe_difference(b, a)
    return out


# ------------------------------------------------------------------ the workflow: stages over one state


@dataclass
class _State:
    """One `--apply` run: what each stage reads and what it leaves for the next."""

    opts: ApplyOptions
    interp: object
    directory: str  # DIR resolved
    context: RunContext
    warn: Note | None = None
    info: Note | None = None
    files: dict = field(default_factory=dict)  # module name -> file, as the target loads them
    report: object = None  # the lazy measurement
    must: tuple = ()
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    cands: list = field(default_factory=list)
    verdicts: dict = field(default_factory=dict)
    chosen: list = field(default_factory=list)
    file_status: dict = field(default_factory=dict)  # path -> "ok" or why it is left alone
    edits: object = None  # lazy_apply_files.TreeFiles
    py315: object = None
    compiler: str | None = None  # compiles the new bytes (keyword style)
    contents: dict = field(default_factory=dict)  # path -> the edited bytes
    pythons: list = field(default_factory=list)
    jobs: list = field(default_factory=list)
    before: dict = field(default_factory=dict)
    modes: dict = field(default_factory=dict)
    diffs: dict = field(default_factory=dict)
    bisect_runs: int = 0
    checks: tuple = ()
    proof: tuple = ()
    machine: dict = field(default_factory=dict)
    stage: str = "measuring"  # measuring / verifying / refreshing / proving: what an interrupt stops
    tree: tuple | None = None  # (path -> import statements, path -> why left alone) of DIR, walked once
    self_us: dict = field(default_factory=dict)  # module -> its self time: the lowest of every profile run so far
    passes: int = 1  # profiles of the program the selection took (the edited one after the first)

    def warning(self, text: str) -> None:
        self.warnings.append(text)
        if self.warn:
            self.warn(text)

    def leave_alone(self, path: str, why: str, shown: str | None = None) -> None:
        if self.file_status.get(path, "ok") == "ok":
            self.file_status[path] = why
            self.warning(f"{shown or path}: {why}: left as it is")


def lazy_apply(opts: ApplyOptions, progress=None, warn: Note | None = None, info: Note | None = None, context: RunContext | None = None) -> LazyApplyReport:
    context = given(context)  # one context for the machine sample, the interpreters and the runs
    from profiler.capture.interpreter import interpreter_for
    from profiler.compose.lazy import lazy, validate as validate_lazy

    validate(opts)
    validate_lazy(opts.lazy)
    interp = interpreter_for(opts.lazy.python, "lazy", context=context)
    if opts.filter_out:
        from profiler import sinks

        sinks.check_writable(opts.filter_out)
        report = lazy(_untimed(opts.lazy), progress=None, warn=warn, info=info, context=context)
        must = tuple(m.name for m in report.must_stay_eager)
        return _filter_out(opts, interp, report, must, list(report.warnings), [])
    state = _State(opts, interp, check_directory(opts.directory, interp), context, warn, info)
    try:
        from profiler.compose import lazy_apply_floor as floor

        state.files = _loaded_files(opts, interp, state.directory, context=context)
        state.self_us.update(floor.load(state.directory, interp.path, interp.version, state.files))
        state.report = lazy(_untimed(opts.lazy), progress=None, warn=warn, info=info, context=context)
        state.warnings.extend(state.report.warnings)
        state.must = tuple(m.name for m in state.report.must_stay_eager)
        report = _apply(state)
        floor.save(state.directory, interp.path, interp.version, state.files, state.self_us)
        return report
    except (KeyboardInterrupt, Interrupted) as exc:
        raise Interrupted(_interrupted_line(state), partial=None) from (None if isinstance(exc, Interrupted) else exc)


def _interrupted_line(state: _State) -> str:
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


def _apply(state: _State) -> LazyApplyReport:
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
        state.notes.extend(state.edits.refresh_bytecode(changed, lambda tag: _pythons_for(state, tag), context=state.context))
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


def _predicted(state: _State) -> int:
    """The self time of the avoided modules below the chosen statements, each module once (a
    module a later pass charged to another statement is not counted twice)."""
    if state.edits is None or not any(e.changed for e in state.edits.edits.values()):
        return 0  # nothing written (the statements chosen are lazy already): nothing to gain
    modules = {m for c in state.chosen for m in c.modules}
    return sum(state.self_us.get(m, 0) for m in modules)


MAX_PASSES = 12
NOT_A_STATEMENT = "not an import statement (a use of a lazy name, or a dynamic import, loads the module here)"


def _deepen(state: _State) -> None:
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
    if state.info:
        state.info(line)


def _merge_pass(state: _State, found) -> list[int]:
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


def _in_original(state: _State, c):
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


def _counts(edits) -> tuple[int, int, int]:
    """(import statements made lazy, distinct modules they name, files) by the last edit."""
    if edits is None:
        return 0, 0, 0
    done = [e for e in edits.edits.values() if e.changed]
    modules = {m for e in done for _, ms in e.applied for m in ms}
    return sum(len(e.applied) for e in done), len(modules), len(done)


def _candidates(state: _State) -> None:
    """The statements under DIR the lazy run moved cost out of start-up, and the editor."""
    from profiler.compose.lazy_apply_files import TreeFiles

    state.cands, _ = _statements_under(state)
    state.py315 = find_315(state.interp, context=state.context)
    if state.opts.style == "keyword":
        state.compiler = state.py315.path if state.py315 is not None else None
        if state.compiler is None:
            state.warning("no Python 3.15 here to compile `lazy import`: the edited files are checked by parsing only")
    state.edits = TreeFiles(state.directory, state.opts.style)


def _select(state: _State, indices=None) -> None:
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


def _editable_source(state: _State, c) -> bytes | None:
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


def _judge(state: _State, c, source: bytes, base: dict, measured: str, differs: bool) -> StatementVerdict:
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


def _gather_tree(state: _State) -> None:
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


def _compile_check(state: _State) -> None:
    """Each edited file compiled before anything is written; one that does not is left alone."""
    from profiler.analysis.lazy_edit import SourceError, parse_source
    from profiler.capture.lazy_apply import compile_with

    for path, data in state.contents.items():
        if data == state.edits.original[path]:
            continue
        problem = None
        try:
            compile(data, path, "exec", dont_inherit=True) if state.opts.style != "keyword" else parse_source(data, path)
        except (SyntaxError, ValueError, SourceError) as exc:
            problem = str(exc)
        if problem is None and state.compiler:
            problem = compile_with(state.compiler, path, data, context=state.context)
        if problem:
            state.warning(f"{path}: the edited file does not compile ({problem}): left as it is")
            state.chosen = [c for c in state.chosen if c.path != path]
            for i, v in state.verdicts.items():
                if state.cands[i].path == path and v.decision == "applied":
                    state.verdicts[i] = StatementVerdict(**{**v.__dict__, "decision": "skipped", "why": "the edit does not compile"})
            state.file_status[path] = "fails to compile"
    state.contents = state.edits.edited(_lines_by_file(state.chosen, state.edits), _package_of)


def _common(state: _State) -> dict:
    n, m, f = _counts(state.edits)
    return dict(directory=state.opts.directory, style=state.opts.style, target=state.opts.lazy.target.label(),
                python=state.interp.path, python_version=state.interp.version, min_ms=state.opts.min_ms,
                must_stay_eager=state.must, predicted_us=_predicted(state), statements=_ordered(state.verdicts),
                warnings=tuple(state.warnings), notes=tuple(state.notes),
                lazy_imports=n, lazy_modules=m, edited_files=f)


def _file_rows(state: _State, status_changed: str, final: dict[str, bytes]) -> tuple:
    rows = []
    for path in sorted(set(state.file_status) | set(final)):
        lines = tuple(sorted({c.line for c in state.chosen if c.path == path}
                             | {ln for c in state.chosen for p_, ln in c.companions if p_ == path}))
        st = state.file_status.get(path, "ok")
        if st == "ok":
            st = status_changed if final.get(path, b"") != state.edits.original.get(path) else "unchanged"
        rows.append(FileEdit(path, lines, st))
    return tuple(rows)


def _diff_report(state: _State) -> LazyApplyReport:
    contents = state.contents
    text = "".join(_unified(path, state.edits.original[path], data) for path, data in sorted(contents.items()))
    state.notes.append("--diff: nothing was written; the verification and the proof run with --apply")
    if state.interp.version_tuple[:2] >= (3, 15):
        state.notes.append("--diff shows the first pass: on 3.15, --apply then profiles the edited program again and may "
                           "make more statements lazy (those the deferred modules now load through)")
    return LazyApplyReport(action="diff", files=_file_rows(state, "would edit", contents), diff=text, **_common(state))


def _report(state: _State, final: dict[str, bytes]) -> LazyApplyReport:
    return LazyApplyReport(action="apply", files=_file_rows(state, "edited", final), checks=state.checks,
                           proof=state.proof, bisect_runs=state.bisect_runs, machine=state.machine, **_common(state))


def _verification_setup(state: _State) -> None:
    """The interpreters at hand (the --python one, a 3.15, the oldest the project allows), the
    jobs, their outputs before any edit (twice: how each is compared)."""
    opts, interp, ctx = state.opts, state.interp, state.context
    oldest = find_oldest(state.directory, interp, opts.oldest_python, context=ctx)
    pythons = [interp]
    for p in (state.py315, oldest):
        if p is not None and all(os.path.realpath(p.path) != os.path.realpath(q.path) for q in pythons):
            pythons.append(p)
    jobs = _jobs(opts, pythons, opts.lazy.flags)
    before = _outputs(jobs, opts.lazy.timeout, context=ctx)
    usable = []
    for job in jobs:
        if job.python and job.python != interp.path and job.label == opts.lazy.target.label() and before[job].exit_code != 0:
            state.notes.append(f"{job.python} cannot run the target as is (exit code {before[job].exit_code}): left out of the proof")
            pythons = [p for p in pythons if p.path != job.python]
        else:
            usable.append(job)
    state.pythons = pythons
    state.jobs = [j for j in usable if not j.python or any(p.path == j.python for p in pythons)]
    state.before = {j: before[j] for j in state.jobs}
    state.modes = comparison_modes(state.before, _outputs(state.jobs, opts.lazy.timeout, context=ctx))
    for j in state.jobs:
        if state.modes[j] != EXACT:
            state.notes.append(f"{j.label}{' on ' + j.python if j.python else ''}: its output changes from run to run; "
                               f"compared by {state.modes[j]}")


def _run_edit(state: _State, chosen) -> dict:
    """The program's outputs with `chosen` applied: differences from before, per job."""
    state.edits.write(state.edits.edited(_lines_by_file(chosen, state.edits), _package_of))
    got = _outputs(state.jobs, state.opts.lazy.timeout, context=state.context)
    return _differences(state.before, got, state.modes)


def _write_and_bisect(state: _State) -> None:
    """The edit written and run; when the program differs, delta debugging finds the smallest
    set of statements to take back (the rest stays applied)."""
    chosen = state.chosen
    diffs = _run_edit(state, chosen)
    if any(diffs.values()) and chosen:
        bad = next(d for d in diffs.values() if d)
        if state.info:
            state.info(f"the edited program differs ({bad}): bisecting over {len(chosen)} statements")
        from profiler.analysis.bisect import minimize

        def suffices(taken_back) -> bool:
            state.bisect_runs += 1
            return not any(_run_edit(state, [c for c in chosen if c not in taken_back]).values())

        keys = list(range(len(chosen)))
        if suffices([chosen[k] for k in keys]):
            res = minimize(keys, lambda sub: suffices([chosen[k] for k in sub]), max_tests=state.opts.max_bisect_runs)
            back = [chosen[k] for k in res.items]
            if not res.complete:
                state.warning(f"bisection stopped after {state.opts.max_bisect_runs} runs: more statements than needed may have been taken back")
        else:
            back = list(chosen)
            state.warning(f"the program differs even with no statement made lazy ({bad}): nothing applied")
        for i, v in state.verdicts.items():
            if any(state.cands[i] is c for c in back):
                state.verdicts[i] = StatementVerdict(**{**v.__dict__, "measured": "differs in verification",
                                                        "decision": "eager", "why": "taken back by the verification"})
        state.chosen = [c for c in chosen if c not in back]
        diffs = _run_edit(state, state.chosen)
    state.diffs = diffs
    state.checks = tuple(Check(j.python or "(as written)", j.label, diffs[j] is None, diffs[j], state.modes[j]) for j in state.jobs)
    for c in state.checks:
        if not c.identical:
            state.warning(f"{c.command} on {c.python} still differs after the edit: {c.difference}")


def _pythons_for(state: _State, tag: str):
    """Executables that may be the interpreter of cache tag `tag`: those of this run first, then
    the machine's (pyenv, asdf, uv, the system's, PATH); each checks the tag itself."""
    import shutil

    from profiler.analysis.pyc import tag_version
    from profiler.capture.interpreter import candidates

    version = tag_version(tag)
    seen: set[str] = set()
    at_hand = [p.path for p in state.pythons if version and tuple(p.version_tuple[:2]) == version]
    found = []
    if version:
        pattern = f"{version[0]}.{version[1]}"
        for source in ("pyenv", "asdf", "uv", "system"):
            found += candidates(source, pattern)
        found.append(shutil.which(f"python{pattern}") or "")
    for exe in at_hand + found:
        real = os.path.realpath(exe) if exe else ""
        if exe and real not in seen:
            seen.add(real)
            yield exe


def _parsed_tree(state: _State) -> tuple[dict, dict]:
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


def _loaded_files(opts: ApplyOptions, interp, directory: str, context: RunContext | None = None) -> dict[str, str]:
    """name -> file of the modules the target loads (one probe run); BadInput when none lies
    under DIR (before the measurement: a wrong folder costs one run, not minutes)."""
    from profiler.capture.lazy_apply import run_probe

    _, probe = run_probe(interp.path, opts.lazy.flags, opts.lazy.target, timeout=opts.lazy.timeout, context=context)
    files = {n: f for n, f in (probe or {}).get("modules", ()) if f}
    if probe is not None and not any(_under(os.path.realpath(f), directory) for f in files.values()):
        raise BadInput(f"--apply {opts.directory}: the target imports nothing from this folder "
                       f"({opts.lazy.target.label()} loaded {len(files)} modules from files, none under it)")
    return files


def _untimed(lazy_opts):
    from dataclasses import replace

    return replace(lazy_opts, measure=False)


def _statements_under(state: _State):
    """(candidates, the eager profile) for the import statements under DIR that the lazy run
    moved cost out of start-up. A statement in a file named under DIR whose real path lies
    outside it (a symlink to a shared checkout) is no candidate: its file is reported."""
    from profiler.analysis.lazy import statement_savings
    from profiler.model.lazy import AvoidedModule
    from profiler.workflows.imports import ImportsOptions, imports

    opts, report, directory = state.opts, state.report, state.directory
    profile = imports(ImportsOptions(target=opts.lazy.target, python=opts.lazy.python, runs=opts.profile_runs,
                                     warmup=1, flags=tuple(opts.lazy.flags), sites=True), context=state.context)
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
        out.append(_Candidate(os.path.realpath(path), int(line), tuple(s.modules),
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
            out.append(_Candidate(real, int(line), (m.name,), m.cumulative_us, site))
    return out, profile


def _pool_self_times(state: _State, modules) -> None:
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


def _in_dir(state: _State, path: str) -> bool:
    """A site's file lies under DIR (resolved); one named under DIR whose real path leaves it is
    reported and left alone."""
    real = os.path.realpath(path)
    if _under(real, state.directory):
        return True
    named = os.path.abspath(path)
    if any(_under(named, d) for d in {os.path.abspath(state.opts.directory), state.directory}):
        state.leave_alone(named, f"leads to {real}, outside {state.directory}")
    return False


def _static(cand: _Candidate, source: bytes, files: dict[str, str], directory: str):
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


# ------------------------------------------------------------------ the proof


def _side(times, mems, profile, probe) -> Side:
    from profiler.analysis.statistics import mean, stddev

    unreified = None
    if probe is not None and probe.get("unreified") is not None:
        unreified = len(probe["unreified"])
    return Side(
        mean_s=mean(times) if times else None, stddev_s=stddev(times) if len(times) > 1 else None,
        min_s=min(times) if times else None, max_s=max(times) if times else None,
        import_us=profile.total_us if profile is not None else None,
        modules=len(probe["modules"]) if probe is not None else None,
        peak_rss_bytes=max(mems) if mems else None, unreified=unreified,
    )


def _proof(state: _State, after):
    """Before and after, timed in alternating rounds, each side put in place exactly as it is
    (the sources with their modification times, their .pyc): `before` the tree as it was,
    `after` the tree as the edit leaves it, bytecode refreshed. A change of the machine's load
    during the proof lands on both sides alike."""
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.measure import measure

    opts, pythons, edits = state.opts, state.pythons, state.edits
    t = opts.lazy.target
    sides = {"before": edits.original_snapshot(), "after": after}
    rounds = min(3, opts.proof_runs)
    per_round = max(1, -(-opts.proof_runs // rounds))
    times = {(side, p.path): [] for side in sides for p in pythons}
    mems = {(side, p.path): [] for side in sides for p in pythons}
    machine = {}
    for _ in range(rounds):
        for side, snap in sides.items():
            edits.put(snap)
            specs = [CommandSpec(argv=(p.path, *opts.lazy.flags, *t.python_argv()), variant=side, python=p.path,
                                 python_version=p.version, flags=tuple(opts.lazy.flags), target=t.label(),
                                 key=f"{side}:{p.path}", target_kind=t.kind) for p in pythons]
            m = measure(specs, RunPlan(runs=per_round, warmup=1, min_time_s=0.0), engine=opts.lazy.engine,
                        machine=machine or None, context=state.context)
            machine = machine or m.machine
            for r in m.results:
                side_, path = r.key.split(":", 1)
                times[(side_, path)].extend(r.times)
                mems[(side_, path)].extend(r.memory_usage_byte or ())
    figures = {}
    for side, snap in sides.items():
        edits.put(snap)
        for p in pythons:
            figures[(side, p.path)] = _side(times[(side, p.path)], mems[(side, p.path)], *_profile_and_probe(state, p))
    return tuple(_proof_row(state, p, figures) for p in pythons), machine


def _profile_and_probe(state: _State, p):
    from profiler.capture.lazy_apply import run_probe
    from profiler.workflows.imports import ImportsOptions, imports

    opts, t = state.opts, state.opts.lazy.target
    profile = probe = None
    if p.version_tuple[:2] >= (3, 7):
        profile = imports(ImportsOptions(target=t, python=p, runs=opts.profile_runs, warmup=1,
                                         flags=tuple(opts.lazy.flags)), context=state.context)
    if p.version_tuple[:2] >= (3, 8):
        _, probe = run_probe(p.path, opts.lazy.flags, t, timeout=opts.lazy.timeout, context=state.context)
    return profile, probe


def _proof_row(state: _State, p, figures) -> ProofRow:
    b, a = figures[("before", p.path)], figures[("after", p.path)]
    overlap = False
    if None not in (b.mean_s, a.mean_s, b.stddev_s, a.stddev_s):
        overlap = (b.mean_s - b.stddev_s) <= (a.mean_s + a.stddev_s) and (a.mean_s - a.stddev_s) <= (b.mean_s + b.stddev_s)
    identical = all(state.diffs[j] is None for j in state.jobs if j.python == p.path)
    if overlap and p.version_tuple[:2] >= (3, 15):
        state.warning(f"Python {p.version}: the start-up ranges before and after overlap (mean ± stddev): "
                      "the difference is within the noise of this run")
    return ProofRow(p.path, p.version, p.version_tuple[:2] >= (3, 15), b, a, identical, overlap)


# ------------------------------------------------------------------ --filter-out


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
