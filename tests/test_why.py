"""`importprof why MODULE`: chains from the entry point, from a real run, a log or a report."""

from __future__ import annotations

from conftest import assert_one_line_error
from profiler.session import Session


def test_why_from_a_real_run(cli, real_python):
    res = cli("why", "json.decoder", "--python", real_python, "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.why/1" and doc["module"] == "json.decoder"
    (chain,) = doc["chains"]
    assert [h["name"] for h in chain["hops"]] == ["json", "json.decoder"]
    assert all(h["cumulative_us"] >= h["self_us"] >= 0 for h in chain["hops"])


def test_why_from_log_and_report(cli, fixtures, tmp_path):
    log = fixtures / "importtime" / "boto3.log"
    res = cli("why", "urllib3.util.url", "--from-log", log)
    assert res.returncode == 0, res
    assert "who imports urllib3.util.url" in res.stdout
    lines = [ln for ln in res.stdout.splitlines() if "boto3" in ln or "urllib3" in ln]
    assert "| boto3 " in lines[1] and lines[-1].split("|")[1].strip().endswith("urllib3.util.url")
    rep = tmp_path / "r.json"
    assert cli("imports", "--from-log", log, "-o", rep).returncode == 0
    res2 = cli("why", "urllib3.util.url", "--report", rep, "--format", "json")
    hops = res2.json()["chains"][0]["hops"]
    assert hops[0]["name"] == "boto3" and hops[-1]["name"] == "urllib3.util.url"
    # each process that imported it has its own chain
    res3 = cli("why", "json", "--from-log", fixtures / "importtime" / "command_subprocesses.log", "--format", "json")
    assert {c["process"] for c in res3.json()["chains"]} >= {1}


def test_why_command_target(cli, real_python):
    res = cli("why", "csv", "--format", "json", "--", real_python, "-c", "import csv")
    assert res.returncode == 0, res
    assert res.json()["chains"][0]["hops"][-1]["name"] == "csv"


def test_options_after_module_are_read_as_options(cli, fixtures):
    log = fixtures / "importtime" / "boto3.log"
    res = cli("why", "urllib3", "--format=json", "-r1", "--from-log", log)  # glued forms too
    assert res.returncode == 0, res
    assert res.json()["module"] == "urllib3"
    # an option `why` does not have is a usage error, not the start of a SCRIPT target
    assert_one_line_error(cli("why", "json", "--warmup", "1", "-c", "pass"), 2, "--warmup")


def test_why_failures(cli, fixtures, real_python):
    log = fixtures / "importtime" / "boto3.log"
    assert_one_line_error(cli("why", "pandas", "--from-log", log), 1, "pandas is not imported")
    assert_one_line_error(cli("why", "json", "--from-log", log, "--report", log), 2, "give one of")
    assert_one_line_error(cli("why", "json", "--report", log), 2, "not JSON")
    assert_one_line_error(cli("why", "json", "--python", real_python, "-c", "raise SystemExit(2)"), 3, "code 2")


def test_why_all_lists_every_importer_shortest_first(real_python, tmp_path):
    """Issue 11.13: every module with an import statement of MODULE, not only the one that
    loaded it (-X importtime prints nothing for an import of a loaded module)."""
    from profiler.model.target import Target
    from profiler.render.console_imports import render_why_table
    from profiler.compose.why import WhyOptions, why

    target = Target("code", "import json\nimport re\n")
    answer = why(WhyOptions(module="re", target=target, python=real_python, all=True), session=Session())
    assert {"json.decoder", "json.encoder", "json.scanner", "__main__"} <= set(answer.importers)
    lengths = [len(c.hops) for c in answer.chains]
    assert lengths == sorted(lengths) and len(answer.chains) >= 4
    assert sum(c.loaded for c in answer.chains) == 1  # one chain loaded it; the others found it loaded
    paths = {tuple(h.name for h in c.hops): c for c in answer.chains}
    assert ("__main__", "re") in paths and ("json", "json.decoder", "re") in paths
    last = paths[("json", "json.decoder", "re")].hops[-1]
    assert last.extra["already_imported"] and last.cumulative_us == 0
    doc = answer.to_dict()
    assert doc["importers"] == list(answer.importers) and {c["loaded"] for c in doc["chains"]} == {True, False}
    out = render_why_table(answer, tty=False)
    assert f"every import of re: {len(answer.chains)} chains, shortest first" in out
    assert "json → json.decoder → re" in out and "the chain that loaded re" in out
    plain = why(WhyOptions(module="re", target=target, python=real_python), session=Session())
    assert plain.importers is None and all(c.loaded for c in plain.chains) and len(plain.chains) == 1


def test_why_all_on_the_command_line(cli, real_python):
    res = cli("why", "re", "--all", "--python", real_python, "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert {"json.decoder", "json.encoder"} <= set(doc["importers"])
    assert sum(c["loaded"] for c in doc["chains"]) == 1 and len(doc["chains"]) >= 3
    res = cli("why", "re", "--all", "--python", real_python, "-c", "import json")
    assert "every import of re:" in res.stdout and "json → json.decoder → re" in res.stdout, res


def test_all_without_a_run_is_refused_before_anything_runs(cli, fixtures):
    from conftest import assert_one_line_error

    res = cli("why", "json", "--all", "--from-log", fixtures / "importtime" / "boto3.log")
    assert_one_line_error(res, 2, "--all needs a run of a Python target")
