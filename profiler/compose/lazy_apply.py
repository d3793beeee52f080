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
from typing import Callable, Sequence

from profiler.errors import BadInput, UsageError
from profiler.model.lazy_apply import Check, FileEdit, LazyApplyReport, ProofRow, Side, StatementVerdict
from profiler.runcontext import RunContext, given

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
    oldest_python: str | None = None  # None: the oldest pyenv interpreter requires-python allows
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


def find_315(interp, context: RunContext | None = None):
    """A Python 3.15+ to prove the edit on: the --python one when it is, else pyenv's (its
    version as the interpreter itself reports it, not as its folder is named)."""
    from profiler.capture.interpreter import candidates, resolve_python

    if interp.version_tuple[:2] >= (3, 15):
        return interp
    for exe in candidates("pyenv", "3.15"):
        try:
            found = resolve_python(exe, source="pyenv", context=context)
        except BadInput:
            continue
        if found.version_tuple[:2] >= (3, 15):
            return found
    return None


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


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


class _Files:
    """The files under edit: their original bytes, the edit of any subset of statements, the
    writes, and putting the originals back."""

    def __init__(self, style: str, compiler: str | None):
        self.style = style
        self.compiler = compiler  # an interpreter that compiles the new bytes (keyword style)
        self.original: dict[str, bytes] = {}
        self.current: dict[str, bytes] = {}

    def edited(self, chosen: Sequence[_Candidate]) -> dict[str, bytes]:
        from profiler.analysis.lazy_edit import apply_lazy

        by_file: dict[str, list[int]] = {}
        for c in chosen:
            by_file.setdefault(c.path, []).append(c.line)
            for path, line in c.companions:
                if path in self.original:
                    by_file.setdefault(path, []).append(line)
        out = {}
        for path, original in self.original.items():
            lines = by_file.get(path)
            out[path] = apply_lazy(original, lines, style=self.style, package=_package_of(path), filename=path).source \
                if lines else original
        return out

    def write(self, contents: dict[str, bytes]) -> None:
        from profiler import sinks

        for path, data in contents.items():
            if self.current.get(path) != data:
                sinks.write_atomic(path, data)
                self.current[path] = data

    def restore(self) -> None:
        self.write(dict(self.original))


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


# ------------------------------------------------------------------ the workflow


def lazy_apply(opts: ApplyOptions, progress=None, warn: Note | None = None, info: Note | None = None, context: RunContext | None = None) -> LazyApplyReport:
    context = given(context)  # one context for the machine sample, the interpreters and the runs
    from profiler.capture.interpreter import interpreter_for
    from profiler.compose.lazy import lazy, validate as validate_lazy

    validate(opts)
    validate_lazy(opts.lazy)
    interp = interpreter_for(opts.lazy.python, "lazy", context=context)
    warnings: list[str] = []
    notes: list[str] = []

    def warning(text: str) -> None:
        warnings.append(text)
        if warn:
            warn(text)

    if opts.filter_out:
        from profiler import sinks

        sinks.check_writable(opts.filter_out)
        report = lazy(_untimed(opts.lazy), progress=None, warn=warn, info=info, context=context)
        warnings.extend(report.warnings)
        must = tuple(m.name for m in report.must_stay_eager)
        return _filter_out(opts, interp, report, must, warnings, notes, warning, info, context=context)
    directory = check_directory(opts.directory, interp)
    files = _loaded_files(opts, interp, directory, context=context)
    report = lazy(_untimed(opts.lazy), progress=None, warn=warn, info=info, context=context)
    warnings.extend(report.warnings)
    must = tuple(m.name for m in report.must_stay_eager)
    return _apply(opts, interp, directory, files, report, must, warnings, notes, warning, info, context=context)


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


def _statements_under(opts: ApplyOptions, report, directory: str, context: RunContext | None = None):
    """(candidates, files of the modules the eager run loaded) for the import statements under
    DIR that the lazy run moved cost out of start-up."""
    from profiler.analysis.lazy import statement_savings
    from profiler.model.lazy import AvoidedModule
    from profiler.workflows.imports import ImportsOptions, imports

    profile = imports(ImportsOptions(target=opts.lazy.target, python=opts.lazy.python, runs=opts.profile_runs,
                                     warmup=1, flags=tuple(opts.lazy.flags), sites=True), context=context)
    self_us = {}
    for m in profile.modules:
        if m.process == 0:
            self_us.setdefault(m.name, m.self_us)
    avoided = [AvoidedModule(a.name, a.cumulative_us) for a in report.avoided]
    # sites are written as the program named its files (a script's relative path): each file
    # under DIR is a root as written, beside DIR itself
    roots = [directory.rstrip("/") + "/"]
    for m in profile.modules:
        site = m.extra.get("site") if m.process == 0 else None
        path = site.rpartition(":")[0] if site else None
        if path and path not in roots and not path.startswith("<") and _under(os.path.realpath(path), directory):
            roots.append(path)
    rows = statement_savings(avoided, profile.modules, roots)
    out = []
    for s in rows:
        path, _, line = s.site.rpartition(":")
        real = os.path.realpath(path)
        if not _under(real, directory) or not line.isdigit():
            continue
        out.append(_Candidate(real, int(line), tuple(s.modules), sum(self_us.get(n, 0) for n in s.modules), s.site))
    # the statements that import a must-stay-eager module: kept eager by the lazy run, so never
    # avoided, yet they belong in the table (measured: differs) with their eager cost
    seen = {(c.path, c.line) for c in out}
    for m in profile.modules:
        site = m.extra.get("site") if m.process == 0 else None
        if m.name not in {x.name for x in report.must_stay_eager} or not site:
            continue
        path, _, line = site.rpartition(":")
        real = os.path.realpath(path)
        if line.isdigit() and _under(real, directory) and (real, int(line)) not in seen:
            seen.add((real, int(line)))
            out.append(_Candidate(real, int(line), (m.name,), m.cumulative_us, site))
    return out, profile


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
        if f and _under(os.path.realpath(f), directory):
            try:
                modules.append((name, _read(f)))
            except OSError:
                continue
    return stmt, statement_reasons(source, stmt, modules, cand.path)


def _apply(opts, interp, directory, files, report, must, warnings, notes, warning, info, context: RunContext | None = None) -> LazyApplyReport:
    from profiler.analysis.lazy_edit import SourceError, parse_source
    from profiler.analysis.lazy_static import blocking
    from profiler.capture.lazy_apply import compile_with

    timeout = opts.lazy.timeout
    cands, _profile = _statements_under(opts, report, directory, context=context)
    py315 = find_315(interp, context=context)
    compiler = py315.path if opts.style == "keyword" and py315 is not None else None
    if opts.style == "keyword" and compiler is None:
        warning("no Python 3.15 here to compile `lazy import`: the edited files are checked by parsing only")
    edits = _Files(opts.style, compiler)
    verdicts: dict[int, StatementVerdict] = {}
    chosen: list[_Candidate] = []
    file_status: dict[str, str] = {}
    must_set = set(must)
    why_eager = {m.name: m.reason for m in report.must_stay_eager}
    for i, c in enumerate(cands):
        base = dict(site=c.site, modules=c.modules, saving_us=c.saving_us)
        differs = sorted(must_set & set(c.modules))
        measured = "differs: " + "; ".join(f"{n} lazy: {why_eager.get(n, 'changes the output')}" for n in differs) \
            if differs else "identical"
        if c.path in file_status and file_status[c.path] not in ("ok",):
            verdicts[i] = StatementVerdict(**base, measured=measured, static=(), decision="skipped", why=file_status[c.path])
            continue
        try:
            source = _read(c.path)
            parse_source(source, c.path)
        except OSError as exc:
            file_status[c.path] = f"cannot read: {exc.strerror}"
            warning(f"{c.path}: cannot read ({exc.strerror}): left as it is")
            verdicts[i] = StatementVerdict(**base, measured=measured, static=(), decision="skipped", why=file_status[c.path])
            continue
        except SourceError as exc:
            file_status[c.path] = f"does not parse ({exc})"
            warning(f"{c.path}: does not parse ({exc}): left as it is")
            verdicts[i] = StatementVerdict(**base, measured=measured, static=(), decision="skipped", why=file_status[c.path])
            continue
        if not os.access(c.path, os.W_OK) or not os.access(os.path.dirname(c.path), os.W_OK):
            file_status[c.path] = "read-only"
            warning(f"{c.path}: read-only: left as it is")
            verdicts[i] = StatementVerdict(**base, measured=measured, static=(), decision="skipped", why="read-only file")
            continue
        file_status[c.path] = "ok"
        edits.original.setdefault(c.path, source)
        stmt, reasons = _static(c, source, files, directory)
        static = tuple(r.to_dict() for r in reasons)
        own = bool(c.modules) and _under(os.path.realpath(files.get(c.modules[0], "") or "/nonexistent"), directory)
        # an unused import of the project's own module is how plugins register themselves; an
        # unused stdlib or third-party import is only dead weight (the measurement judges it)
        blockers = [r for r in blocking(reasons) if r.kind != "unused" or own or c.modules[0] not in files]
        if stmt is not None and stmt.blocked:
            decision, why = "skipped", stmt.blocked
        elif differs:
            decision, why = "eager", "must stay eager (measured)"
        elif blockers:
            decision, why = "eager", "static reason to stay eager"
        elif c.saving_us < opts.min_ms * 1000:
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
        verdicts[i] = StatementVerdict(**base, measured=measured, static=static, decision=decision, why=why,
                                       disagreement=disagreement)
        if decision == "applied":
            chosen.append(c)
    # the companions: every other module-level import of the same modules under DIR
    sources = _parsed_tree(directory, edits, file_status)
    companions_of(chosen, sources)
    # compile each edited file before anything is written
    contents = edits.edited(chosen)
    for path, data in contents.items():
        if data == edits.original[path]:
            continue
        problem = None
        try:
            compile(data, path, "exec", dont_inherit=True) if opts.style != "keyword" else parse_source(data, path)
        except (SyntaxError, ValueError, SourceError) as exc:
            problem = str(exc)
        if problem is None and compiler:
            problem = compile_with(compiler, path, data, context=context)
        if problem:
            warning(f"{path}: the edited file does not compile ({problem}): left as it is")
            chosen = [c for c in chosen if c.path != path]
            for i, v in verdicts.items():
                if cands[i].path == path and v.decision == "applied":
                    verdicts[i] = StatementVerdict(**{**v.__dict__, "decision": "skipped", "why": "the edit does not compile"})
            file_status[path] = "fails to compile"
    contents = edits.edited(chosen)
    predicted = sum(c.saving_us for c in chosen)
    common = dict(directory=opts.directory, style=opts.style, target=opts.lazy.target.label(), python=interp.path,
                  python_version=interp.version, min_ms=opts.min_ms, must_stay_eager=must, predicted_us=predicted)

    def file_rows(status_changed: str, final: dict[str, bytes]):
        rows = []
        for path in sorted(set(file_status) | set(final)):
            lines = tuple(sorted({c.line for c in chosen if c.path == path}
                                 | {ln for c in chosen for p_, ln in c.companions if p_ == path}))
            st = file_status.get(path, "ok")
            if st == "ok":
                st = status_changed if final.get(path, b"") != edits.original.get(path) else "unchanged"
            rows.append(FileEdit(path, lines, st))
        return tuple(rows)

    if opts.diff:
        text = "".join(_unified(path, edits.original[path], data) for path, data in sorted(contents.items()))
        notes.append("--diff: nothing was written; the verification and the proof run with --apply")
        return LazyApplyReport(action="diff", statements=_ordered(verdicts), files=file_rows("would edit", contents),
                               diff=text, warnings=tuple(warnings), notes=tuple(notes), **common)

    if all(contents[p] == edits.original[p] for p in contents):
        notes.append("nothing to apply: no statement under the folder passed the checks above (the files are as they were)")
        return LazyApplyReport(action="apply", statements=_ordered(verdicts), files=file_rows("edited", contents),
                               warnings=tuple(warnings), notes=tuple(notes), **common)

    # verification: before and after on the interpreters at hand
    oldest = find_oldest(directory, interp, opts.oldest_python, context=context)
    pythons = [interp]
    for p in (py315, oldest):
        if p is not None and all(os.path.realpath(p.path) != os.path.realpath(q.path) for q in pythons):
            pythons.append(p)
    jobs = _jobs(opts, pythons, opts.lazy.flags)
    before = _outputs(jobs, timeout, context=context)
    usable = []
    for job in jobs:
        if job.python and job.python != interp.path and job.label == opts.lazy.target.label() and before[job].exit_code != 0:
            notes.append(f"{job.python} cannot run the target as is (exit code {before[job].exit_code}): left out of the proof")
            pythons = [p for p in pythons if p.path != job.python]
        else:
            usable.append(job)
    jobs = [j for j in usable if not j.python or any(p.path == j.python for p in pythons)]
    modes = comparison_modes({j: before[j] for j in jobs}, _outputs(jobs, timeout, context=context))
    for j in jobs:
        if modes[j] != EXACT:
            notes.append(f"{j.label}{' on ' + j.python if j.python else ''}: its output changes from run to run; "
                         f"compared by {modes[j]}")
    bisect_runs = 0
    final = contents
    try:
        edits.write(contents)
        after = _outputs(jobs, timeout, context=context)
        diffs = _differences({j: before[j] for j in jobs}, after, modes)
        if any(diffs.values()) and chosen:
            bad = next(d for d in diffs.values() if d)
            if info:
                info(f"the edited program differs ({bad}): bisecting over {len(chosen)} statements")
            from profiler.analysis.bisect import minimize

            def suffices(taken_back) -> bool:
                nonlocal bisect_runs
                keep = [c for c in chosen if c not in taken_back]
                edits.write(edits.edited(keep))
                bisect_runs += 1
                got = _outputs(jobs, timeout, context=context)
                return not any(_differences({j: before[j] for j in jobs}, got, modes).values())

            keys = list(range(len(chosen)))
            if suffices([chosen[k] for k in keys]):
                res = minimize(keys, lambda sub: suffices([chosen[k] for k in sub]), max_tests=opts.max_bisect_runs)
                back = [chosen[k] for k in res.items]
                if not res.complete:
                    warning(f"bisection stopped after {opts.max_bisect_runs} runs: more statements than needed may have been taken back")
            else:
                back = list(chosen)
                warning(f"the program differs even with no statement made lazy ({bad}): nothing applied")
            for i, v in verdicts.items():
                if any(cands[i] is c for c in back):
                    verdicts[i] = StatementVerdict(**{**v.__dict__, "measured": "differs in verification",
                                                      "decision": "eager", "why": "taken back by the verification"})
            chosen = [c for c in chosen if c not in back]
            final = edits.edited(chosen)
            edits.write(final)
            after = _outputs(jobs, timeout, context=context)
            diffs = _differences({j: before[j] for j in jobs}, after, modes)
        checks = tuple(Check(j.python or "(as written)", j.label, diffs[j] is None, diffs[j], modes[j]) for j in jobs)
        for c in checks:
            if not c.identical:
                warning(f"{c.command} on {c.python} still differs after the edit: {c.difference}")
        proof, machine = _proof(opts, pythons, edits, final, diffs, jobs, warning, context=context)
    except BaseException:
        edits.restore()
        raise
    predicted = sum(c.saving_us for c in chosen)
    common["predicted_us"] = predicted
    if all(p.version_tuple[:2] < (3, 15) for p in pythons):
        notes.append(f"no Python 3.15 here: `__lazy_modules__` is inert on {', '.join(p.version for p in pythons)}; "
                     f"the saving is the prediction of the lazy measurement: {predicted / 1000:.1f} ms")
    return LazyApplyReport(action="apply", statements=_ordered(verdicts), files=file_rows("edited", final),
                           checks=checks, proof=proof, bisect_runs=bisect_runs, machine=machine, warnings=tuple(warnings),
                           notes=tuple(notes), **common)


def _parsed_tree(directory: str, edits: _Files, file_status: dict) -> dict:
    """path -> import statements of every Python file under DIR that parses and can be written
    (read in as an original of `edits`); the others are left out, silently: they hold no
    candidate, and the proof measures what their eager imports still cost."""
    from profiler.analysis.lazy_edit import SourceError, import_statements

    out = {}
    for folder, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.realpath(os.path.join(folder, name))
            if file_status.get(path, "ok") != "ok" or not os.access(path, os.W_OK):
                continue
            try:
                data = edits.original.get(path) or _read(path)
                out[path] = import_statements(data, _package_of(path), path)
            except (OSError, SourceError):
                continue
            edits.original.setdefault(path, data)
    return out


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


def _proof(opts, pythons, edits: _Files, final, diffs, jobs, warning, context: RunContext | None = None):
    """Before and after, timed in alternating rounds (the files rewritten between rounds), so
    that a change of the machine's load during the proof lands on both sides alike."""
    from profiler.capture.lazy_apply import run_probe
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.imports import ImportsOptions, imports
    from profiler.workflows.measure import measure

    t = opts.lazy.target
    sides = {"before": dict(edits.original), "after": final}
    rounds = min(3, opts.proof_runs)
    per_round = max(1, -(-opts.proof_runs // rounds))
    times = {(side, p.path): [] for side in sides for p in pythons}
    mems = {(side, p.path): [] for side in sides for p in pythons}
    machine = {}
    for _ in range(rounds):
        for side, contents in sides.items():
            edits.write(contents)
            specs = [CommandSpec(argv=(p.path, *opts.lazy.flags, *t.python_argv()), variant=side, python=p.path,
                                 python_version=p.version, flags=tuple(opts.lazy.flags), target=t.label(),
                                 key=f"{side}:{p.path}", target_kind=t.kind) for p in pythons]
            m = measure(specs, RunPlan(runs=per_round, warmup=1, min_time_s=0.0), engine=opts.lazy.engine,
                        machine=machine or None, context=context)
            machine = machine or m.machine
            for r in m.results:
                side_, path = r.key.split(":", 1)
                times[(side_, path)].extend(r.times)
                mems[(side_, path)].extend(r.memory_usage_byte or ())
    figures = {}
    for side, contents in sides.items():
        edits.write(contents)
        for p in pythons:
            profile = None
            if p.version_tuple[:2] >= (3, 7):
                profile = imports(ImportsOptions(target=t, python=p, runs=opts.profile_runs, warmup=1,
                                                 flags=tuple(opts.lazy.flags)), context=context)
            probe = None
            if p.version_tuple[:2] >= (3, 8):
                _, probe = run_probe(p.path, opts.lazy.flags, t, timeout=opts.lazy.timeout, context=context)
            figures[(side, p.path)] = _side(times[(side, p.path)], mems[(side, p.path)], profile, probe)
    rows = []
    for p in pythons:
        b, a = figures[("before", p.path)], figures[("after", p.path)]
        overlap = False
        if None not in (b.mean_s, a.mean_s, b.stddev_s, a.stddev_s):
            overlap = (b.mean_s - b.stddev_s) <= (a.mean_s + a.stddev_s) and (a.mean_s - a.stddev_s) <= (b.mean_s + b.stddev_s)
        identical = all(diffs[j] is None for j in jobs if j.python == p.path)
        rows.append(ProofRow(p.path, p.version, p.version_tuple[:2] >= (3, 15), b, a, identical, overlap))
        if overlap and p.version_tuple[:2] >= (3, 15):
            warning(f"Python {p.version}: the start-up ranges before and after overlap (mean ± stddev): "
                    "the difference is within the noise of this run")
    return tuple(rows), machine


# ------------------------------------------------------------------ --filter-out


def _filter_out(opts, interp, report, must, warnings, notes, warning, info, context: RunContext | None = None) -> LazyApplyReport:
    import tempfile

    from profiler import sinks
    from profiler.analysis.lazy import describe_difference
    from profiler.analysis.lazy_filter import filter_module
    from profiler.capture.lazy_apply import run_fresh, run_probe

    py315 = find_315(interp, context=context)
    eager = list(must)
    bisect_runs = 0
    checks: list[Check] = []
    t = opts.lazy.target
    if py315 is None:
        notes.append("no Python 3.15 here: the filter is written unverified (it takes effect with -X lazy_imports=all on 3.15+)")
    else:
        base = [py315.path, *opts.lazy.flags, *t.python_argv()]
        ref = run_fresh(base, timeout=opts.lazy.timeout, what=t.label(), context=context)
        from profiler.model.lazy import ProgramOutput

        reference = ProgramOutput(ref.stdout, ref.stderr, ref.returncode)
        with tempfile.TemporaryDirectory(prefix="importprof-filter-") as tmp:
            def run_with(names) -> ProgramOutput:
                nonlocal bisect_runs
                sinks.write_atomic(os.path.join(tmp, "sitecustomize.py"), filter_module(names))
                env = {"PYTHONPATH": tmp + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")}
                o = run_fresh([py315.path, "-X", "lazy_imports=all", *opts.lazy.flags, *t.python_argv()], env=env,
                              timeout=opts.lazy.timeout, what=t.label(), context=context)
                bisect_runs += 1
                return ProgramOutput(o.stdout, o.stderr, o.returncode)

            diff = describe_difference(reference, run_with(eager))
            if diff:
                _, probe = run_probe(py315.path, opts.lazy.flags, t, timeout=opts.lazy.timeout, context=context)
                pool = [n for n, _ in (probe or {}).get("modules", ()) if n not in eager and n != "__main__"]
                if info:
                    info(f"with the filter the program differs on {py315.version} ({diff}): bisecting over {len(pool)} modules")
                from profiler.analysis.bisect import minimize

                if describe_difference(reference, run_with(eager + pool)) is None:
                    res = minimize(pool, lambda sub: describe_difference(reference, run_with(eager + list(sub))) is None,
                                   max_tests=opts.max_bisect_runs)
                    eager += list(res.items)
                else:
                    warning(f"the program differs under -X lazy_imports=all even with every module eager ({diff})")
                diff = describe_difference(reference, run_with(eager))
            checks.append(Check(py315.path, f"{t.label()} with -X lazy_imports=all and the filter", diff is None, diff))
    sinks.write_atomic(opts.filter_out, filter_module(eager, target=t.label(), python=report.python_version or ""))
    return LazyApplyReport(
        action="filter-out", directory=None, style=opts.style, target=t.label(), python=interp.path,
        python_version=interp.version, min_ms=opts.min_ms, must_stay_eager=must, statements=(),
        checks=tuple(checks), filter_path=opts.filter_out, filter_eager=tuple(sorted(set(eager))),
        bisect_runs=bisect_runs, warnings=tuple(warnings), notes=tuple(notes),
    )
