"""Issue 6 through the CLI: `imports --phases`, `imports --lazy-candidates`, `why` file:line,
on small projects written here and run by the real interpreter."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_one_line_error


def _project(tmp: Path) -> Path:
    (tmp / "app").mkdir()
    (tmp / "app" / "__init__.py").write_text("")
    (tmp / "app" / "models.py").write_text('"""models"""\n\nimport app.helpers\n\ndef build():\n    return app.helpers.X\n')
    (tmp / "app" / "helpers.py").write_text("X = 1\n\n\nimport tomllib  # line 4\n")
    (tmp / "app" / "unused.py").write_text("import fractions\n\ndef never():\n    return 0\n")
    (tmp / "main.py").write_text("import os\nfrom app import models\nimport app.unused\n\nmodels.build()\n")
    return tmp


def test_imports_phases_json_keys(cli, tmp_path):
    proj = _project(tmp_path)
    res = cli("imports", "--phases", "--runs", "1", "--warmup", "0", "--format", "json", proj / "main.py", cwd=proj)
    assert res.returncode == 0, res
    mods = res.json()["modules"]
    for m in mods:
        for key in ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled"):
            assert key in m, m
    by = {m["name"]: m for m in mods}
    models = by["app.models"]
    assert all(isinstance(models[k], int) for k in ("find_us", "read_us", "unmarshal_us", "exec_us"))
    assert isinstance(models["compiled"], bool)
    assert models["phase_cumulative_us"] >= models["find_us"] + models["exec_us"]


def test_imports_phases_table_columns(cli, tmp_path):
    proj = _project(tmp_path)
    res = cli("imports", "--phases", "--runs", "1", "--warmup", "0", "--view", "top", proj / "main.py", cwd=proj)
    assert res.returncode == 0, res
    header = next(ln for ln in res.stdout.splitlines() if "unmarshal" in ln)
    for col in ("find", "read", "unmarshal", "exec", "compiled"):
        assert col in header


def test_imports_lazy_candidates(cli, tmp_path):
    proj = _project(tmp_path)
    res = cli("imports", "--lazy-candidates", "--runs", "1", "--warmup", "0", "--format", "json", proj / "main.py", cwd=proj)
    assert res.returncode == 0, res
    by = {m["name"]: m for m in res.json()["modules"]}
    assert by["app.unused"]["lazy_candidate"] is True
    assert by["app.unused"]["site"].endswith("main.py:3")
    assert by["app.models"]["lazy_candidate"] is False  # models.build() was called
    table = cli("imports", "--lazy-candidates", "--runs", "1", "--warmup", "0", "--view", "top", proj / "main.py", cwd=proj)
    assert table.returncode == 0, table
    assert "lazy-import candidates" in table.stdout and "app.unused" in table.stdout


def test_why_gives_file_and_line_per_hop(cli, tmp_path):
    proj = _project(tmp_path)
    res = cli("why", "--format", "json", "tomllib", proj / "main.py", cwd=proj)
    assert res.returncode == 0, res
    hops = {h["name"]: h for h in res.json()["chains"][0]["hops"]}
    assert hops["app.models"]["site"] == f"{proj / 'main.py'}:2"
    assert hops["app.helpers"]["site"] == f"{proj / 'app' / 'models.py'}:3"
    assert hops["tomllib"]["site"] == f"{proj / 'app' / 'helpers.py'}:4"
    table = cli("why", "tomllib", proj / "main.py", cwd=proj)
    assert table.returncode == 0, table
    # a table in a pipe is never cut (ARCHITECTURE.md): the whole path, as in the JSON above
    assert f"{proj / 'app' / 'helpers.py'}:4" in table.stdout


def test_phases_need_a_python_target(cli, tmp_path):
    res = cli("imports", "--phases", "--runs", "1", "--", "true")
    assert_one_line_error(res, 2, "python target")
    res = cli("imports", "--lazy-candidates", "--from-log", tmp_path / "missing.log")
    assert_one_line_error(res, 2, "--from-log")
