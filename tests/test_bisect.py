"""`importprof bisect`: a real git repository built here, a regression planted in one commit,
found by the real CLI in temporary worktrees (with and without an install step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_one_line_error, write_tree

pytestmark = pytest.mark.slow


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, message: str, files: dict) -> str:
    write_tree(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


CHECK = """
[tool.importprof.checks.cli]
target = ["-m", "mypkg", "--version"]
forbid = ["decimal"]
runs = 2
"""


def planted_repo(root: Path, pkg: str = "mypkg", config: str = CHECK) -> tuple[Path, dict]:
    """Eight commits; the fifth makes mypkg import fractions (and decimal through it)."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = {}
    shas["base"] = commit(repo, "base", {
        "pyproject.toml": f'[project]\nname = "mypkg"\nversion = "0"\n\n{config}',
        f"{pkg}/__init__.py": "import json\n",
        f"{pkg}/__main__.py": "import mypkg\nprint('mypkg 1.0')\n",
    })
    git(repo, "tag", "v1")
    for i in range(1, 4):
        shas[f"change {i}"] = commit(repo, f"change {i}", {f"{pkg}/notes_{i}.py": f"NOTE = {i}\n"})
    shas["regression"] = commit(repo, "format prices", {f"{pkg}/__init__.py": "import json\nimport fractions\n"})
    for i in range(4, 7):
        shas[f"change {i}"] = commit(repo, f"change {i}", {f"{pkg}/notes_{i}.py": f"NOTE = {i}\n"})
    return repo, shas


def test_bisect_finds_the_planted_commit_and_what_it_added(cli, tmp_path):
    repo, shas = planted_repo(tmp_path)
    res = cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "cli", cwd=repo)
    assert res.returncode == 0, res
    assert f"first bad commit: {shas['regression']} format prices" in res.stdout, res
    appeared = next(ln for ln in res.stdout.splitlines() if "modules that appeared at start-up" in ln)
    assert "fractions" in appeared and "decimal" in appeared, appeared
    assert "mypkg -> fractions -> decimal" in res.stdout
    # a bisection, not a walk: good, bad and log2(7) commits between
    tested = [ln for ln in res.stdout.splitlines() if ln.startswith("| ") and ln[2:12] in {s[:10] for s in shas.values()}]
    assert 3 <= len(tested) <= 5, res.stdout
    assert "worktree" not in git(repo, "worktree", "list").split("\n", 1)[-1] or git(repo, "worktree", "list").count("\n") == 0

    out = cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "cli", "-o", "b.json", cwd=repo)
    assert out.returncode == 0, out
    from profiler.inputs.documents import read_document

    doc = read_document(str(repo / "b.json"), ["bisect"])  # validated against schemas/bisect.json
    assert doc["first_bad"]["commit"] == shas["regression"]
    assert doc["last_good"]["commit"] == shas["change 3"]
    assert doc["commits"] == 7
    assert {"fractions", "decimal"} <= {m["name"] for m in doc["appeared"]}
    assert doc["added"]["import_ms"] is not None
    assert git(repo, "status", "--porcelain") == "?? b.json"  # the tree is left as it was


def test_bisect_refuses_what_cannot_be_bisected(cli, tmp_path):
    repo, shas = planted_repo(tmp_path)
    assert_one_line_error(cli("bisect", "--good", "HEAD", "--bad", "v1", "--check", "cli", cwd=repo), 2, "not an ancestor")
    assert_one_line_error(cli("bisect", "--good", "nope", "--bad", "HEAD", "--check", "cli", cwd=repo), 2, "not a commit", "nope")
    assert_one_line_error(cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "x", cwd=repo), 2, "no check named 'x'")
    assert_one_line_error(cli("bisect", "--good", "v1", "--bad", shas["change 2"], "--check", "cli", cwd=repo), 2,
                          "passes the check cli")
    assert_one_line_error(cli("bisect", "--good", shas["regression"], "--bad", "HEAD", "--check", "cli", cwd=repo), 2,
                          "does not pass the check cli")


def test_bisect_runs_the_install_step_in_each_worktree(cli, tmp_path):
    """A src layout: mypkg imports only once installed, so the check passes only where the
    install step ran; the install is pip building and installing the worktree's project."""
    from _realprograms import real_venv, venv_python

    venv = real_venv(sys.executable, ["setuptools>=70.1"])  # builds wheels without the `wheel` package
    py = venv_python(venv)
    site = tmp_path / "site"
    config = f"""
[tool.importprof.checks.cli]
target = ["-c", "import sys; sys.path.insert(0, {str(site)!r}); import mypkg"]
python = "{py}"
forbid = ["decimal"]
runs = 1

[tool.setuptools.packages.find]
where = ["src"]
"""
    repo, shas = planted_repo(tmp_path, pkg="src/mypkg", config=config)
    install = f"{py} -m pip install -q --no-deps --no-build-isolation --no-index --upgrade --target {site} ."
    res = cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "cli", "--install", install, "-o", "b.json", cwd=repo)
    assert res.returncode == 0, res
    doc = json.loads((repo / "b.json").read_text())
    assert doc["first_bad"]["commit"] == shas["regression"]
    assert doc["install"] == [install.split()]
    # without the install step nothing imports mypkg: the good revision fails
    assert_one_line_error(cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "cli", cwd=repo), 2, "does not pass")
    failing = cli("bisect", "--good", "v1", "--bad", "HEAD", "--check", "cli", "--install", f"{py} -c 'raise SystemExit(4)'", cwd=repo)
    assert_one_line_error(failing, 2, "does not pass", "install step", "exited 4")


def test_the_readme_bisect_line_runs(cli, tmp_path):
    """README's bisect example (its own test: it needs a git history), with README's check."""
    from test_readme import console_lines

    text = next(t for _, t in console_lines() if t.startswith("importprof bisect"))
    import shlex

    argv = shlex.split(text, comments=True)[1:]
    from test_readme import pages_text

    readme = pages_text()  # the check page's pyproject.toml example
    toml = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    check = argv[argv.index("--check") + 1]
    assert f"[tool.importprof.checks.{check}]" in toml
    repo, shas = planted_repo(tmp_path, config=toml.replace("mylib", "mypkg"))
    res = cli(*argv, cwd=repo)
    assert res.returncode == 0, res
    assert f"first bad commit: {shas['regression']}" in res.stdout
