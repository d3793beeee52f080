"""`importprof history`: every recorded `check` run kept in a store, read back as series with
their change points and the modules behind each step.

  record_report(report, store_path, cwd) -> int          `check --record`: what check measured
  record_commits(opts, session) -> RecordSummary `history record --commits A..B`
  history(opts) -> HistoryReport                           `history`
  bisect_history(opts, session) -> HistoryReport  `history bisect`
  export_history(store, check) -> lines / import_history(store, files) -> (added, known)

Backfilling tests each commit as `bisect` does (a temporary git worktree, the --install steps,
then `importprof check NAME --config CONFIG` run there, compose/bisect.py's way) and records
each result at once, in its own transaction: an interrupted backfill keeps what it recorded,
and the next one skips every commit already recorded on this machine with this interpreter.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Sequence

from profiler.errors import BadInput, UsageError
from profiler.model.check import CheckReport, CheckResult
from profiler.model.history import FIGURES, HistoryReport, ModuleTimes, StoredRun
from profiler.compose import bisect
from profiler.model.words import Said, WarningKind
from profiler.session import Phase, Session

DEFAULT_STORE = os.path.join(".importprof", "history.sqlite")


@dataclass(frozen=True)
class HistoryOptions:
    check: str | None = None
    store: str | None = None  # --history PATH
    config: str | None = None  # --config FILE (default ./pyproject.toml)
    figure: str | None = None


@dataclass(frozen=True)
class RecordOptions:
    commits: str  # "A..B"
    check: str
    every: int = 1
    install: Sequence[str] = ()
    store: str | None = None
    config: str | None = None


@dataclass(frozen=True)
class BisectHistoryOptions:
    check: str
    commit: str | None = None  # the change point to narrow (default: every one with unrecorded commits)
    install: Sequence[str] = ()
    store: str | None = None
    config: str | None = None


@dataclass
class RecordSummary:
    store: str
    check: str
    commits: list[str] = field(default_factory=list)  # every commit of the range taken
    recorded: list[tuple[str, str, str | None]] = field(default_factory=list)  # (commit, status, error)
    skipped: list[str] = field(default_factory=list)  # already in the store


# ---------------------------------------------------------------- where the store is
def store_path(given_path: str | None, config: str | None, *, need_config: bool = False) -> str:
    """--history PATH; else `[tool.importprof] history` (relative to the pyproject's folder);
    else `.importprof/history.sqlite` beside the pyproject.toml."""
    if given_path:
        return os.path.abspath(given_path)
    from profiler.compose.check import DEFAULT_CONFIG

    path = os.path.abspath(config or os.path.join(os.getcwd(), DEFAULT_CONFIG))
    if not os.path.exists(path):
        if config is not None or need_config:
            raise BadInput(f"no such file: {path}")
        raise BadInput(f"no {DEFAULT_CONFIG} in {os.getcwd()}: give --history PATH (or run in the project's folder)")
    from profiler.inputs.bounded import read_text
    from profiler.parse.checks import parse_history_setting

    setting = parse_history_setting(read_text(path, "config"), path)
    return os.path.join(os.path.dirname(path), setting or DEFAULT_STORE)


def open_store(path: str, create: bool):
    from profiler.history_store import HistoryStore

    return HistoryStore.open(path, create=create)


# ---------------------------------------------------------------- one check result → one stored run
def fingerprint(machine: dict) -> str:
    """What a series is keyed on: the kind of machine (system, architecture, CPU model, cores),
    not its name, so CI runners of one kind share a series."""
    facts = [machine.get(k) for k in ("system", "arch", "cpu_model", "logical_cores")]
    return hashlib.sha256(repr(facts).encode()).hexdigest()[:16]


def machine_facts(machine: dict) -> dict:
    return {k: machine.get(k) for k in ("hostname", "system", "release", "arch", "cpu_model", "logical_cores", "physical_cores")}


def stored_run(result: CheckResult, machine: dict, *, commit: str | None, subject: str | None, commit_time: int | None,
               dirty: bool) -> StoredRun:
    return StoredRun(
        uid=uuid.uuid4().hex, check=result.name, commit=commit, subject=subject, commit_time=commit_time, dirty=dirty,
        recorded_at=datetime.now(timezone.utc).isoformat(timespec="microseconds"), machine=fingerprint(machine),
        machine_info=machine_facts(machine), python=result.python_version, status=result.status, error=result.error,
        wall_ms=result.wall_ms, wall_ms_runs=tuple(result.wall_ms_runs), import_ms=result.import_ms,
        instructions=result.instructions, instructions_runs=tuple(result.instructions_runs),
        instructions_method=result.instructions_method,
        modules=tuple(ModuleTimes(m.name, int(m.self_us), int(m.cumulative_us)) for m in result.modules),
    )


def error_run(check: str, machine: dict, python: str | None, error: str, *, commit: str, subject: str | None,
              commit_time: int | None) -> StoredRun:
    return StoredRun(
        uid=uuid.uuid4().hex, check=check, commit=commit, subject=subject, commit_time=commit_time, dirty=False,
        recorded_at=datetime.now(timezone.utc).isoformat(timespec="microseconds"), machine=fingerprint(machine),
        machine_info=machine_facts(machine), python=python, status="error", error=error,
    )


def record_report(report: CheckReport, path: str, cwd: str, session: Session) -> int:
    """`check --record`: every result of the report added to the store, at the commit checked
    out in `cwd` (marked dirty when tracked files differ from it); the number added."""
    from profiler.capture import git

    head = git.head_of(cwd, session=session)
    commit = subject = when = None
    dirty = False
    if head is None:
        session.warn(Said(f"{cwd} is not in a git repository: the check runs are recorded without a commit",
                          WarningKind.NOT_IN_GIT, f"{cwd} is not in a git repository"))
    else:
        top, commit, dirty = head
        when, subject = git.commit_facts(top, [commit], session=session).get(commit, (None, None))
        if dirty:
            session.warn(Said(f"the working tree differs from {commit[:10]}: recorded as that commit, marked dirty",
                              WarningKind.DIRTY_TREE, f"the working tree differs from {commit[:10]}"))
    runs = [stored_run(r, report.machine, commit=commit, subject=subject, commit_time=when, dirty=dirty)
            for r in report.results]
    with open_store(path, create=True) as store:
        return sum(store.add(r) for r in runs)


# ---------------------------------------------------------------- backfill
def resolve_range(repo: str, spec: str, every: int, session: Session) -> list[str]:
    """`A..B` → A and the commits after it up to B (first parents), oldest first; with
    `every` N, every Nth of them, the first and the last always kept."""
    from profiler.capture import git

    since, dots, until = spec.partition("..")
    if not dots or not since or not until or until.startswith("."):
        raise UsageError(f"--commits {spec!r}: give a range A..B (e.g. v1.0..HEAD)")
    a = git.resolve_rev(repo, since, session=session)
    b = git.resolve_rev(repo, until, session=session)
    if a != b and not git.is_ancestor(repo, a, b, session=session):
        raise BadInput(f"--commits {spec}: {since} is not an ancestor of {until}")
    commits = [a, *git.first_parent_commits(repo, a, b, session=session)]
    if every > 1:
        picked = commits[::every]
        if picked[-1] != commits[-1]:
            picked.append(commits[-1])
        commits = picked
    return commits


def _interpreter_version(spec_python: str | None, session: Session) -> str | None:
    """The check's interpreter's version, when it resolves here (a venv made by an install
    step does not: then any interpreter's run of a commit counts as recorded)."""
    from profiler.errors import ImportprofError

    try:
        from profiler.capture.interpreter import interpreter_for

        return interpreter_for(spec_python, session=session).version
    except ImportprofError:
        return None


def record_commits(opts: RecordOptions, *, session: Session) -> RecordSummary:
    import tempfile

    from profiler.capture import git
    from profiler.capture.machine import read_machine
    from profiler.compose.check import config_path, load_checks, select
    from profiler.workflows.targets import command_lines

    installs = command_lines("--install", opts.install)
    config = os.path.abspath(config_path(opts.config))
    spec = select(load_checks(config), [opts.check], config)[0]  # the check exists and its table is valid
    path = store_path(opts.store, config)
    repo = git.toplevel(os.getcwd(), session=session)
    commits = resolve_range(repo, opts.commits, opts.every, session=session)
    facts = git.commit_facts(repo, commits, session=session)
    summary = RecordSummary(store=path, check=opts.check, commits=commits)
    machine = read_machine(0.0, session=session)
    mark = fingerprint(machine)
    python = _interpreter_version(spec.python, session)
    with open_store(path, create=True) as store:
        todo = []
        for c in commits:
            (summary.skipped if store.has(opts.check, c, mark, python) else todo).append(c)
        root = tempfile.mkdtemp(prefix="importprof-history-")
        for i, commit in enumerate(todo):
            when, subject = facts.get(commit, (None, None))
            session.progress(Phase.of(i, len(todo), f"{commit[:10]} {subject or ''}".strip()))
            report, why = bisect.check_at_commit(git, repo, commit, installs, opts.check, config, root, session)
            if report is None:
                run = error_run(opts.check, machine, python, why or "could not run", commit=commit, subject=subject,
                                commit_time=when)
            else:
                result = report.results[0]
                run = stored_run(result, report.machine or machine, commit=commit, subject=subject, commit_time=when,
                                 dirty=False)
                # one machine for the whole backfill: the child's reading names the same machine
                run = _same_machine(run, machine)
            store.add(run)
            summary.recorded.append((commit, run.status, run.error))
            if run.status == "error":
                session.warn(Said(f"{commit[:10]}: could not be measured: {run.error}", WarningKind.NOT_MEASURED,
                                  WarningKind.NOT_MEASURED.value, commit[:10]))
        session.progress(Phase(done=len(todo), total=len(todo)))
    return summary


def _same_machine(run: StoredRun, machine: dict) -> StoredRun:
    from dataclasses import replace

    return replace(run, machine=fingerprint(machine), machine_info=machine_facts(machine))


# ---------------------------------------------------------------- reading
def _order(session: Session) -> dict[str, int] | None:
    """The repository's commit order when the current folder is in one (else: commit times)."""
    from profiler.capture import git
    from profiler.errors import ImportprofError

    head = git.head_of(os.getcwd(), session=session)
    if head is None:
        return None
    try:
        return git.commit_order(head[0], session=session)
    except ImportprofError:
        return None


def history(opts: HistoryOptions, session: Session) -> HistoryReport:
    from profiler.analysis.history import build_history
    from profiler.capture.machine import read_machine

    if opts.figure is not None and opts.figure not in FIGURES:
        raise UsageError(f"unknown --figure {opts.figure!r} (known: {', '.join(FIGURES)})")
    path = store_path(opts.store, opts.config)
    with open_store(path, create=False) as store:
        runs = store.runs(opts.check)
        total = store.count()
        if opts.check is not None and not runs:
            known = store.checks()
            raise BadInput(f"no run of the check {opts.check!r} in {path}"
                           + (f" (recorded: {', '.join(known)})" if known else " (it is empty)"))
    series, changes = build_history(runs, figure=opts.figure, order=_order(session))
    changes = _with_gaps(changes, session)
    return HistoryReport(machine=read_machine(0.0, session=session), store=path, check=opts.check, figure=opts.figure,
                         runs=total, series=series, change_points=changes)


def _with_gaps(changes, session: Session):
    """Each change point with the number of commits between it and the last recorded commit
    before it (what `history bisect` would narrow), where the repository is at hand."""
    from dataclasses import replace

    from profiler.capture import git
    from profiler.errors import ImportprofError

    head = git.head_of(os.getcwd(), session=session)
    if head is None:
        return changes
    out = []
    for c in changes:
        gap = None
        if c.commit and c.previous:
            try:
                gap = max(0, len(git.first_parent_commits(head[0], c.previous, c.commit, session=session)) - 1)
            except ImportprofError:
                gap = None
        out.append(replace(c, unrecorded_between=gap))
    return tuple(out)


# ---------------------------------------------------------------- narrowing a change point
def bisect_history(opts: BisectHistoryOptions, *, session: Session) -> HistoryReport:
    """Each change point of the check's series on this machine whose commit is not the one
    right after the last recorded commit before it: the commits between them measured by
    halving (each recorded), until the step sits on one commit. Then the history again."""
    import math
    import tempfile

    from profiler.analysis.history import narrowing_target
    from profiler.capture import git
    from profiler.capture.machine import read_machine
    from profiler.compose.check import config_path, load_checks, select
    from profiler.workflows.targets import command_lines

    installs = command_lines("--install", opts.install)
    config = os.path.abspath(config_path(opts.config))
    select(load_checks(config), [opts.check], config)
    path = store_path(opts.store, config)
    repo = git.toplevel(os.getcwd(), session=session)
    wanted = git.resolve_rev(repo, opts.commit, session=session) if opts.commit else None
    before = history(HistoryOptions(check=opts.check, store=path, config=config), session=session)
    machine = read_machine(0.0, session=session)
    mark = fingerprint(machine)
    mine = {s.name for s in before.series if s.machine == mark}
    todo = [c for c in before.change_points if c.series in mine and (wanted is None or c.commit == wanted)]
    if wanted is not None and not todo:
        raise BadInput(f"{opts.commit} is not a change point of the check {opts.check} on this machine")
    root = tempfile.mkdtemp(prefix="importprof-history-")
    with open_store(path, create=False) as store:
        for cp in todo:
            if cp.previous is None or cp.commit is None:  # runs recorded outside a repository: nothing to check out
                continue
            between = git.first_parent_commits(repo, cp.previous, cp.commit, session=session)[:-1]
            if not between:
                continue
            facts = git.commit_facts(repo, between, session=session)
            series = next(s for s in before.series if s.name == cp.series)
            figure = series.figure
            lo, hi = -1, len(between)  # between[lo] at the level before (-1: previous), between[hi] after (len: commit)
            steps = max(1, math.ceil(math.log2(len(between) + 1)))
            done = 0
            while hi - lo > 1:
                mid = (lo + hi) // 2
                commit = between[mid]
                when, subject = facts.get(commit, (None, None))
                session.progress(Phase.of(done, steps, f"{cp.check}: {commit[:10]} {subject or ''}".strip()))
                report, why = bisect.check_at_commit(git, repo, commit, installs, opts.check, config, root, session)
                if report is None:
                    store.add(error_run(opts.check, machine, series.python, why or "could not run", commit=commit,
                                        subject=subject, commit_time=when))
                    session.warn(Said(f"{commit[:10]}: could not be measured ({why}): counted as after the step",
                                      WarningKind.NOT_MEASURED, WarningKind.NOT_MEASURED.value, commit[:10]))
                    hi = mid
                else:
                    run = _same_machine(stored_run(report.results[0], machine, commit=commit, subject=subject,
                                                   commit_time=when, dirty=False), machine)
                    store.add(run)
                    value = run.figure(figure)
                    if value is None or narrowing_target(cp.before, cp.after, float(value)):
                        hi = mid
                    else:
                        lo = mid
                done += 1
        session.progress(Phase(done=1, total=1))
    return history(HistoryOptions(check=opts.check, store=path, config=config), session=session)


# ---------------------------------------------------------------- export / import
def export_history(opts: HistoryOptions):
    """The store's runs as JSON lines (a header line first), for `history import` elsewhere."""
    path = store_path(opts.store, opts.config)
    store = open_store(path, create=False)
    if opts.check is not None and opts.check not in store.checks():
        store.close()
        raise BadInput(f"no run of the check {opts.check!r} in {path}")

    def lines():
        try:
            yield from store.export_lines(opts.check)
        finally:
            store.close()

    return lines()


def import_history(opts: HistoryOptions, files: Sequence[str]) -> tuple[str, int, int]:
    """Every export file's runs merged into the store (a run already there, by its id, is not
    added twice): (the store, added, already there). Every file is read and checked before
    anything is written."""
    from profiler.history_store import read_export
    from profiler.inputs.bounded import read_text

    if not files:
        raise UsageError("history import needs the FILEs written by `importprof history export`")
    path = store_path(opts.store, opts.config)
    if os.path.exists(path):  # a corrupt or newer store is said before the files are read
        open_store(path, create=False).close()
    runs = []
    for f in files:
        runs += list(read_export(read_text(f, "history export").splitlines(), f))
    with open_store(path, create=True) as store:
        added = store.add_many(runs)
    return path, added, len(runs) - added
