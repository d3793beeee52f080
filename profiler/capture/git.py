"""git for `importprof bisect`: revisions, temporary worktrees, the project's install step and
one `importprof check` run inside a worktree (each an argument list, never a shell)."""

from __future__ import annotations

import math
import shutil
import sys
from typing import Sequence

from profiler.capture.process import Completed, run
from profiler.errors import BadInput, ToolFailed, ToolMissing
from profiler.session import Session


def _git(args: Sequence[str], cwd: str, what: str = "git", *, session: Session) -> str:
    if shutil.which("git") is None:
        raise ToolMissing("bisect needs git (apt-get install -y git)")
    proc = run(["git", *args], cwd=cwd, timeout=math.inf, what=what, session=session)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise BadInput(f"git {' '.join(args[:2])}: {last}")
    return proc.stdout


def toplevel(cwd: str, session: Session) -> str:
    return _git(["rev-parse", "--show-toplevel"], cwd, session=session).strip()


def resolve_rev(repo: str, rev: str, session: Session) -> str:
    """REV → its full commit hash (a bad revision is one clear line)."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], repo, session=session).strip()
    except BadInput:
        raise BadInput(f"not a commit in {repo}: {rev}") from None


def commits_between(repo: str, good: str, bad: str, session: Session) -> list[str]:
    """The commits after GOOD up to BAD on the ancestry path, oldest first (BAD last)."""
    out = _git(["rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}"], repo, session=session)
    return out.split()


def is_ancestor(repo: str, a: str, b: str, session: Session) -> bool:
    proc = run(["git", "merge-base", "--is-ancestor", a, b], cwd=repo, timeout=math.inf, what="git", session=session)
    return proc.returncode == 0


def subject(repo: str, commit: str, session: Session) -> str:
    return _git(["log", "-1", "--format=%s", commit], repo, session=session).strip()


def add_worktree(repo: str, commit: str, path: str, session: Session) -> None:
    _git(["worktree", "add", "--detach", "--quiet", path, commit], repo, "git worktree", session=session)


def remove_worktree(repo: str, path: str, session: Session) -> None:
    run(["git", "worktree", "remove", "--force", path], cwd=repo, timeout=math.inf, what="git", session=session)
    shutil.rmtree(path, ignore_errors=True)
    run(["git", "worktree", "prune"], cwd=repo, timeout=math.inf, what="git", session=session)


def run_install(argv: Sequence[str], cwd: str, session: Session) -> Completed:
    """The project's install step, run in the worktree (no time limit: a build may be long)."""
    return run(list(argv), cwd=cwd, timeout=math.inf, missing=BadInput, what="the install step", session=session)


def run_check(name: str, config: str, cwd: str, output: str, session: Session) -> Completed:
    """`importprof check NAME --config CONFIG --format json -o OUTPUT` with the worktree as the
    current directory (the targets run there), by the interpreter running importprof now."""
    argv = [sys.executable, "-m", "profiler", "check", name, "--config", config, "--format", "json", "-o", output]
    proc = run(argv, cwd=cwd, timeout=math.inf, what="importprof check", session=session)
    if proc.returncode not in (0, 1, 2, 3):
        raise ToolFailed(f"importprof check ended with exit {proc.returncode} in {cwd}")
    return proc


# ---------------------------------------------------------------- `history`'s git
def head_of(cwd: str, session: Session) -> tuple[str, str, bool] | None:
    """(the repository's top folder, HEAD's commit, whether tracked files differ from it), or
    None outside a git repository (or without git, or before the first commit)."""
    if shutil.which("git") is None:
        return None
    proc = run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=cwd, timeout=math.inf, what="git", session=session)
    if proc.returncode != 0:
        return None
    top, commit = proc.stdout.split()[:2]
    status = run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, timeout=math.inf, what="git", session=session)
    return top, commit, bool(status.stdout.strip())


def commit_facts(repo: str, commits: Sequence[str], session: Session) -> dict[str, tuple[int, str]]:
    """commit → (committer timestamp, subject), for every commit given (one git call)."""
    if not commits:
        return {}
    out = _git(["show", "-s", "--format=%H%x00%ct%x00%s", *commits, "--"], repo, session=session)
    facts = {}
    for line in out.splitlines():
        parts = line.split("\x00")
        if len(parts) == 3 and parts[1].isdigit():
            facts[parts[0]] = (int(parts[1]), parts[2])
    return facts


def first_parent_commits(repo: str, since: str, until: str, session: Session) -> list[str]:
    """The commits after SINCE up to UNTIL along UNTIL's first parents, oldest first."""
    return _git(["rev-list", "--reverse", "--first-parent", f"{since}..{until}"], repo, session=session).split()


def commit_order(repo: str, session: Session) -> dict[str, int]:
    """Every commit reachable from HEAD → its position, oldest first (topological): how a
    history's points are ordered where the repository is at hand."""
    out = _git(["rev-list", "--topo-order", "--reverse", "HEAD"], repo, session=session)
    return {c: i for i, c in enumerate(out.split())}
