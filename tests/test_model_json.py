"""JSON round-trips of the startup model (documents written by a real run)."""

import json

from profiler.model.measurement import StartupReport, TimingResult
from profiler.model.target import Target
from profiler.model.variant import BUILTIN_VARIANTS, parse_variants
from profiler.errors import UsageError

import pytest

HYPERFINE_KEYS = {"command", "mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes", "memory_usage_byte"}


def test_startup_report_round_trip_from_a_real_run(cli, real_python, tmp_path):
    out = tmp_path / "s.json"
    res = cli("startup", "--python", real_python, "--runs", "2", "--warmup", "0", "--variant", "default,no-site", "-o", out)
    assert res.returncode == 0, res
    doc = json.loads(out.read_text())
    report = StartupReport.from_dict(doc)
    assert report.to_dict() == doc
    assert doc["schema"] == "importprof.startup/1"
    for r in doc["results"]:
        assert HYPERFINE_KEYS <= set(r)
        assert {"variant", "python", "python_version", "flags"} <= set(r)
        assert TimingResult.from_dict(r).to_dict() == r


def test_from_dict_rejects_other_schemas():
    with pytest.raises(ValueError):
        StartupReport.from_dict({"schema": "importprof.imports/1", "results": []})


def test_variants_parse_comma_and_repeat_and_custom_flags():
    vs = parse_variants(["default,no-site", "isolated", "no-site"], ["-X dev"])
    assert [v.name for v in vs] == ["default", "no-site", "isolated", "-X dev"]
    assert vs[-1].flags == ("-X", "dev")
    assert BUILTIN_VARIANTS["no-frozen"].flags == ("-X", "frozen_modules=off")
    assert BUILTIN_VARIANTS["cold-pyc"].fresh_pycache
    with pytest.raises(UsageError):
        parse_variants(["nope"])


def test_target_round_trip():
    cmd = Target("command", "ls", ("-l",))
    assert cmd.command_argv() == ["ls", "-l"] and not cmd.is_python
    assert Target.from_dict(cmd.to_dict()) == cmd
    assert Target("module", "json.tool", ("in.json",)).python_argv() == ["-m", "json.tool", "in.json"]



def test_module_extras_read_a_saved_phases_report_by_name():
    """--phases keys of a real saved imports report (tests/fixtures/report/imports.json), read
    through ModuleExtras' properties: the values the JSON holds, None where not instrumented."""
    from pathlib import Path

    from profiler.model.imports_report import ImportsReport

    path = Path(__file__).parent / "fixtures" / "report" / "imports.json"
    raw = {m["name"]: m for m in json.loads(path.read_text())["modules"]}
    report = ImportsReport.from_dict(json.loads(path.read_text()))
    site = next(m for m in report.modules if m.name == "site")
    assert site.phase_us == (24, 0, 2, 34) and site.compiled is False and site.read_us == 0
    first = report.modules[0]
    assert first.find_us is None and first.phase_us == (None,) * 4 and not first.compiled
    for m in report.modules:
        r = raw[m.name]
        assert m.phase_us == (r["find_us"], r["read_us"], r["unmarshal_us"], r["exec_us"])
        assert m.compiled is (r["compiled"] is True) and m.lazy_candidate is False and m.kind is None
