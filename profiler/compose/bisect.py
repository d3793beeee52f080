"""`importprof bisect --good REV --bad REV --check NAME`: the first commit between two
revisions that makes a declared start-up check fail. Each commit tested gets a temporary git
worktree, the project's install step(s) (`--install CMD`, run there in order; default none:
the worktree is the current directory of the check's target, so `-m mypkg` and `-c "import
mypkg"` import the worktree's own code), then `importprof check NAME` run there. The check is
the one declared now (--config, default ./pyproject.toml), so old commits need not declare it.

  bisect(opts, session) -> BisectReport
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any, Sequence

from profiler.errors import BadInput, UsageError
from profiler.model.bisect import BisectReport, BisectStep
from profiler.model.check import CheckResult
from profiler.session import Phase, Session


@dataclass(frozen=True)
class BisectOptions:
    good: str
    bad: str
    check: str
    install: Sequence[str] = ()  # each a command line, split like a shell would (no shell runs it)
    config: str | None = None


def bisect(opts: BisectOptions, *, session: Session) -> BisectReport:
    import math
    import tempfile

    from profiler.capture import git
    from profiler.capture.machine import read_machine, start_sample
    from profiler.compose.check import config_path, load_checks, select
    from profiler.workflows.targets import command_lines

    start_sample(session)  # the machine's load is read over the runs, not waited for after them
    installs = command_lines("--install", opts.install)
    config = os.path.abspath(config_path(opts.config))
    select(load_checks(config), [opts.check], config)  # the check exists and its table is valid
    repo = git.toplevel(os.getcwd(), session=session)
    good, bad = git.resolve_rev(repo, opts.good, session=session), git.resolve_rev(repo, opts.bad, session=session)
    if good == bad:
        raise UsageError("--good and --bad are the same commit")
    if not git.is_ancestor(repo, good, bad, session=session):
        raise BadInput(f"--good {opts.good} is not an ancestor of --bad {opts.bad}")
    commits = git.commits_between(repo, good, bad, session=session)
    root = tempfile.mkdtemp(prefix="importprof-bisect-")
    tested: dict[str, tuple[BisectStep, CheckResult | None]] = {}
    order: list[str] = []
    # the most a bisection tests: good, bad, and log2 of the commits between
    expected = 2 + max(0, math.ceil(math.log2(max(len(commits), 1))))

    def test(commit: str) -> BisectStep:
        if commit in tested:
            return tested[commit][0]
        session.progress(Phase.of(len(order), expected, f"testing {commit[:10]}"))
        step, result = _test_commit(git, repo, commit, installs, opts.check, config, root, session)
        tested[commit] = (step, result)
        order.append(commit)
        return step

    first = test(good)
    if first.status != "pass":
        raise BadInput(f"--good {opts.good} ({good[:10]}) does not pass the check {opts.check}: {'; '.join(first.failing)}")
    last = test(bad)
    if last.status == "pass":
        raise BadInput(f"--bad {opts.bad} ({bad[:10]}) passes the check {opts.check}: nothing to bisect")
    lo, hi = -1, len(commits) - 1  # commits[lo] passes (lo == -1: good), commits[hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if test(commits[mid]).status == "pass":
            lo = mid
        else:
            hi = mid
    session.progress(Phase(done=expected, total=expected))
    first_bad_commit = commits[hi]
    last_good_commit = good if lo == -1 else commits[lo]
    fb_step, fb_result = tested[first_bad_commit]
    lg_step, lg_result = tested[last_good_commit]
    appeared: tuple[dict[str, Any], ...] = ()
    if fb_result is not None and lg_result is not None:
        from profiler.analysis.checks import appeared_modules

        appeared = appeared_modules(lg_result.modules, fb_result.modules)
    return BisectReport(
        check=opts.check, good=good, bad=bad, first_bad=fb_step, last_good=lg_step,
        steps=tuple(tested[c][0] for c in order), commits=len(commits), appeared=appeared,
        install=tuple(tuple(a) for a in installs), machine=read_machine(session=session),
    )


def check_at_commit(git, repo: str, commit: str, installs, check: str, config: str, root: str,
                    session: Session):
    """The check's report at `commit`, run in a temporary worktree after its install steps:
    (report, None), or (None, why it could not be built or run). `bisect` and `history record`
    both measure a commit this way."""
    from profiler.inputs.documents import read_document
    from profiler.model.check import CheckReport

    where = os.path.join(root, commit[:12])
    out = os.path.join(root, f"{commit[:12]}.json")
    git.add_worktree(repo, commit, where, session=session)
    try:
        for argv in installs:
            proc = git.run_install(argv, where, session=session)
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or [""])[-1]
                return None, f"install step {shlex.join(argv)} exited {proc.returncode}: {last}"
        proc = git.run_check(check, config, where, out, session=session)
        if not os.path.exists(out):
            last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            return None, last
        report = CheckReport.from_dict(read_document(out, ["check"], "check result"))
        os.unlink(out)
        return report, None
    finally:
        git.remove_worktree(repo, where, session=session)


def _test_commit(git, repo: str, commit: str, installs, check: str, config: str, root: str, session: Session):
    title = git.subject(repo, commit, session=session)
    report, why = check_at_commit(git, repo, commit, installs, check, config, root, session)
    if report is None:
        return BisectStep(commit, title, "error", failing=(why,)), None
    result = report.results[0]
    failing = tuple(f.message for f in result.findings if f.status == "fail") or ((result.error,) if result.error else ())
    return BisectStep(commit, title, result.status, result.wall_ms, result.import_ms, result.instructions, failing), result
