"""A saved importprof document given where the program goes (`importprof why click report.json`,
`--report` forgotten) is one usage line naming what reads it, before anything runs; it used to
be run as a Python script and blamed on the target ("ended in a traceback ... name 'null' is not
defined", exit 3)."""

from __future__ import annotations

import json

import pytest

from conftest import assert_one_line_error
from profiler.errors import UsageError
from profiler.model.target import Target
from profiler.workflows.targets import check_target, document_kind_in


def test_document_kind_in_reads_the_schema_importprof_writes_first():
    assert document_kind_in(b'{\n  "schema": "importprof.imports/1",\n  "machine": {') == "importprof.imports/1"
    assert document_kind_in(b' {"schema":"importprof.lazy_apply/2"}') == "importprof.lazy_apply/2"
    assert document_kind_in(b'{"schema": "other.tool/1"}') is None
    assert document_kind_in(b'{"machine": {}, "schema": "importprof.imports/1"}') is None
    assert document_kind_in(b"import json\n") is None
    assert document_kind_in(b"") is None


def _saved(tmp_path, name="black.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"schema": "importprof.imports/1", "machine": {"min_mhz": None}}, indent=2))
    return path


def test_a_saved_report_as_the_script_is_a_usage_error_naming_what_reads_it(tmp_path):
    path = _saved(tmp_path)
    with pytest.raises(UsageError) as why:
        check_target(Target("script", str(path)), "importprof why")
    assert str(why.value) == (f"{path} is a saved importprof document (importprof.imports/1), not a Python"
                              " script to run (importprof why MODULE --report FILE reads it)")
    with pytest.raises(UsageError, match=r"importprof show FILE, diff OLD NEW"):
        check_target(Target("script", str(path)), "importprof imports")


def test_a_python_script_named_json_or_json_of_another_tool_still_runs(tmp_path):
    script = tmp_path / "gen.json"
    script.write_text("print('{}')\n")
    other = tmp_path / "data.json"
    other.write_text('{"schema": "other.tool/1"}')
    for path in (script, other):
        assert check_target(Target("script", str(path)), "importprof why") is None


def test_why_with_report_forgotten_is_one_line_exit_2(cli, tmp_path):
    path = _saved(tmp_path)
    res = cli("why", "click", str(path), cwd=tmp_path)
    assert_one_line_error(res, 2, "saved importprof document", "--report")
    assert "NameError" not in res.stderr
