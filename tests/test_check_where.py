"""Where users run `importprof check`: the README's pre-commit config with the real pre-commit
(importprof's own .pre-commit-hooks.yaml, installed by pre-commit from this repository's HEAD),
the pytest plugin (`pytest --importprof-checks`), and the README's GitHub Actions workflow
checked with actionlint."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from _wheel import build_env
from conftest import REPO, write_tree

pytestmark = pytest.mark.slow


def readme_section() -> str:
    from test_readme import pages_text

    text = pages_text()  # docs/commands/check.md
    return text.split("<!-- section: check -->", 1)[1].split("<!-- /section: check -->", 1)[0]


def yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", readme_section(), re.S)


PROJECT = {
    "mypkg/__init__.py": "import json\n",
    "mypkg/__main__.py": "import mypkg\nprint('mypkg 1.0')\n",
    "pyproject.toml": """[project]
name = "mypkg"

[tool.importprof.checks.cli]
target = ["-m", "mypkg"]
forbid = ["decimal"]
runs = 1

[tool.importprof.checks.json-only]
target = ["-c", "import json"]
budget_ms = 60000
runs = 1
""",
}
PLANTED = {"mypkg/__init__.py": "import json\nimport fractions\n"}


def _git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_the_readme_pre_commit_config_runs_the_hook_with_the_real_pre_commit(tmp_path):
    pre_commit = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    config = yaml_blocks()[0]
    assert "id: importprof-check" in config
    head = _git(REPO, "rev-parse", "HEAD")
    assert "importprof-check" in _git(REPO, "show", f"{head}:.pre-commit-hooks.yaml")
    # the README's config, pointed at this repository's HEAD (a path is a git URL to pre-commit)
    config = re.sub(r"repo: \S+", f"repo: {REPO}", config)
    config = re.sub(r"rev: \S+", f"rev: {head}", config)
    write_tree(tmp_path, {**PROJECT, ".pre-commit-config.yaml": config})
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    home = Path.home() / ".cache" / "importprof" / "pre-commit"  # pre-commit's store: one install per revision
    # its install of the hook builds importprof's native parser: cargo's target folder is the
    # wheel tests' (build_env), so a new revision compiles importprof's crate, not its dependencies
    env = dict(build_env(), PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")

    def run():
        return subprocess.run([pre_commit, "run", "importprof-check", "--all-files"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=1800)

    ok = run()
    if ok.returncode == 3 and re.search(r"pip|network|resolve|connection", ok.stdout + ok.stderr, re.I):
        pytest.skip(f"pre-commit could not install importprof's hook environment: {(ok.stdout + ok.stderr).strip()[-300:]}")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"importprof check .*Passed", ok.stdout), ok.stdout
    write_tree(tmp_path, PLANTED)
    _git(tmp_path, "add", "-A")
    bad = run()
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert re.search(r"importprof check .*Failed", bad.stdout), bad.stdout
    assert "decimal is imported at start-up: mypkg -> fractions -> decimal" in bad.stdout
    assert "1 of 2 checks failed: cli" in bad.stdout


def test_pytest_runs_the_checks_as_tests(tmp_path):
    write_tree(tmp_path, {**PROJECT, **PLANTED})
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    off = subprocess.run(base, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert off.returncode == 5, off.stdout  # without the option the plugin adds nothing: no tests
    res = subprocess.run([*base, "--importprof-checks", "--junitxml", "j.xml"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "FAILED pyproject.toml::importprof::cli" in res.stdout, res.stdout
    assert "decimal is imported at start-up: mypkg -> fractions -> decimal" in res.stdout
    assert "1 failed, 1 passed" in res.stdout
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")}
    assert set(cases) == {"cli", "json-only"}  # junit names a test by what follows the last "::"
    assert cases["cli"].find("failure") is not None and cases["json-only"].find("failure") is None
    # -k picks checks like tests; another file through --importprof-config
    (tmp_path / "other.toml").write_text('[tool.importprof.checks.other]\ntarget = ["-c", "pass"]\nruns = 1\n')
    other = subprocess.run([*base, "--importprof-checks", "--importprof-config", "other.toml", "-k", "other"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert other.returncode == 0 and "1 passed" in other.stdout, other.stdout
    (tmp_path / "other.toml").write_text('[tool.importprof.checks.other]\nbudget = 1\n')
    bad = subprocess.run([*base, "--importprof-checks", "--importprof-config", "other.toml"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 4 and "unknown key 'budget'" in bad.stderr, bad.stdout + bad.stderr


def _actionlint() -> str:
    found = shutil.which("actionlint")
    if found is None:
        gopath = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True).stdout.strip() if shutil.which("go") else ""
        for d in (os.environ.get("GOBIN"), os.path.join(gopath, "bin") if gopath else None, os.path.expanduser("~/go/bin")):
            if d and os.access(os.path.join(d, "actionlint"), os.X_OK):
                return os.path.join(d, "actionlint")
        pytest.skip("actionlint is not installed (scripts/setup.d/40-actionlint.sh: go install github.com/rhysd/actionlint/cmd/actionlint)")
    return found


def test_the_readme_github_actions_workflow_passes_actionlint(tmp_path):
    actionlint = _actionlint()
    workflow = next(b for b in yaml_blocks() if "jobs:" in b)
    assert "importprof check --format junit -o importprof-junit.xml" in workflow
    wf = tmp_path / ".github" / "workflows" / "importprof.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(workflow)
    res = subprocess.run([actionlint, "-no-color", str(wf)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    # the same file broken (a job without runs-on) is refused: actionlint really reads it
    wf.write_text(workflow.replace("    runs-on: ubuntu-latest\n", ""))
    broken = subprocess.run([actionlint, "-no-color", str(wf)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert broken.returncode == 1 and "runs-on" in broken.stdout, broken.stdout
