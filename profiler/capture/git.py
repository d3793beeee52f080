"""git for `importprof bisect`: revisions, temporary worktrees, the project's install step and
one `importprof check` run inside a worktree (each an argument list, never a shell)."""

from __future__ import annotations

import math
import shutil
import sys
from typing import Sequence

from profiler.capture.process import Completed, run
from profiler.errors import BadInput, ToolFailed, ToolMissing
from profiler.runcontext import RunContext


def _git(args: Sequence[str], cwd: str, what: str = "git", context: RunContext | None = None) -> str:
    if shutil.which("git") is None:
        raise ToolMissing("bisect needs git (apt-get install -y git)")
    proc = run(["git", *args], cwd=cwd, timeout=math.inf, what=what, context=context)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise BadInput(f"git {' '.join(args[:2])}: {last}")
    return proc.stdout


def toplevel(cwd: str, context: RunContext | None = None) -> str:
    return _git(["rev-parse", "--show-toplevel"], cwd, context=context).strip()


def resolve_rev(repo: str, rev: str, context: RunContext | None = None) -> str:
    """REV → its full commit hash (a bad revision is one clear line)."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], repo, context=context).strip()
    except BadInput:
        raise BadInput(f"not a commit in {repo}: {rev}") from None


def commits_between(repo: str, good: str, bad: str, context: RunContext | None = None) -> list[str]:
    """The commits after GOOD up to BAD on the ancestry path, oldest first (BAD last)."""
    out = _git(["rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}"], repo, context=context)
    return out.split()


def is_ancestor(repo: str, a: str, b: str, context: RunContext | None = None) -> bool:
    proc = run(["git", "merge-base", "--is-ancestor", a, b], cwd=repo, timeout=math.inf, what="git", context=context)
    return proc.returncode == 0


def subject(repo: str, commit: str, context: RunContext | None = None) -> str:
    return _git(["log", "-1", "--format=%s", commit], repo, context=context).strip()


def add_worktree(repo: str, commit: str, path: str, context: RunContext | None = None) -> None:
    _git(["worktree", "add", "--detach", "--quiet", path, commit], repo, "git worktree", context=context)


def remove_worktree(repo: str, path: str, context: RunContext | None = None) -> None:
    run(["git", "worktree", "remove", "--force", path], cwd=repo, timeout=math.inf, what="git", context=context)
    shutil.rmtree(path, ignore_errors=True)
    run(["git", "worktree", "prune"], cwd=repo, timeout=math.inf, what="git", context=context)


def run_install(argv: Sequence[str], cwd: str, context: RunContext | None = None) -> Completed:
    """The project's install step, run in the worktree (no time limit: a build may be long)."""
    return run(list(argv), cwd=cwd, timeout=math.inf, missing=BadInput, what="the install step", context=context)


def run_check(name: str, config: str, cwd: str, output: str, context: RunContext | None = None) -> Completed:
    """`importprof check NAME --config CONFIG --format json -o OUTPUT` with the worktree as the
    current directory (the targets run there), by the interpreter running importprof now."""
    argv = [sys.executable, "-m", "profiler", "check", name, "--config", config, "--format", "json", "-o", output]
    proc = run(argv, cwd=cwd, timeout=math.inf, what="importprof check", context=context)
    if proc.returncode not in (0, 1, 2, 3):
        raise ToolFailed(f"importprof check ended with exit {proc.returncode} in {cwd}")
    return proc


# ---------------------------------------------------------------- `history`'s git
def head_of(cwd: str, context: RunContext | None = None) -> tuple[str, str, bool] | None:
    """(the repository's top folder, HEAD's commit, whether tracked files differ from it), or
    None outside a git repository (or without git, or before the first commit)."""
    if shutil.which("git") is None:
        return None
    proc = run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=cwd, timeout=math.inf, what="git", context=context)
    if proc.returncode != 0:
        return None
    top, commit = proc.stdout.split()[:2]
    status = run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, timeout=math.inf, what="git", context=context)
    return top, commit, bool(status.stdout.strip())


def commit_facts(repo: str, commits: Sequence[str], context: RunContext | None = None) -> dict[str, tuple[int, str]]:
    """commit → (committer timestamp, subject), for every commit given (one git call)."""
    if not commits:
        return {}
    out = _git(["show", "-s", "--format=%H%x00%ct%x00%s", *commits, "--"], repo, context=context)
    facts = {}
    for line in out.splitlines():
        parts = line.split("\x00")
        if len(parts) == 3 and parts[1].isdigit():
            facts[parts[0]] = (int(parts[1]), parts[2])
    return facts


def first_parent_commits(repo: str, since: str, until: str, context: RunContext | None = None) -> list[str]:
    """The commits after SINCE up to UNTIL along UNTIL's first parents, oldest first."""
    return _git(["rev-list", "--reverse", "--first-parent", f"{since}..{until}"], repo, context=context).split()


def commit_order(repo: str, context: RunContext | None = None) -> dict[str, int]:
    """Every commit reachable from HEAD → its position, oldest first (topological): how a
    history's points are ordered where the repository is at hand."""
    out = _git(["rev-list", "--topo-order", "--reverse", "HEAD"], repo, context=context)
    return {c: i for i, c in enumerate(out.split())}
