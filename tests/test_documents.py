"""Saved documents are validated where they are read: one JSON schema per kind in
profiler/schemas/, the first offending place named, NaN/Infinity refused, and every reader
(show, diff either side, why --report, report --from / --include) refuses a document of the
right `schema` but the wrong shape with one error line, before writing anything."""

from __future__ import annotations

import json

import pytest

from _inproc import run_main
from conftest import assert_one_line_error

REPORT_FIXTURES = ["startup", "imports", "trace", "site", "compare", "why"]


@pytest.fixture
def inproc():
    """The command line in-process (these commands read files; nothing is spawned)."""
    return run_main


def _fixture(fixtures, kind):
    return json.loads((fixtures / "report" / f"{kind}.json").read_text())


def test_every_schema_is_a_valid_json_schema():
    from jsonschema import Draft202012Validator

    from profiler.inputs.documents import kinds
    from profiler.inputs.schema_compiler import schema

    assert {"startup", "imports", "trace", "site", "compare", "diff", "report", "why"} <= set(kinds())
    for kind in kinds():
        s = schema(kind)
        Draft202012Validator.check_schema(s)
        assert s["properties"]["schema"] == {"const": f"importprof.{kind}/1"}


@pytest.mark.parametrize("kind", REPORT_FIXTURES)
def test_the_saved_fixtures_conform(fixtures, kind):
    from profiler.inputs.schema_problems import first_problem

    assert first_problem(_fixture(fixtures, kind), kind) is None


def test_documents_importprof_writes_conform(inproc, fixtures, tmp_path):
    """What the quick commands write reads back (the schemas describe the real output)."""
    from profiler.inputs.documents import read_document

    doc = str(fixtures / "report" / "imports.json")
    made = {
        "imports": ["imports", "--from-log", fixtures / "importtime" / "boto3.log"],
        "show": ["show", doc],
        "diff": ["diff", doc, doc],
        "why": ["why", "json", "--report", doc],
        "trace": ["trace", "--from-log", fixtures / "strace" / "multiproc.log"],
        "report": ["report", "--from", doc, fixtures / "report" / "trace.json", fixtures / "report" / "startup.json"],
    }
    for name, args in made.items():
        out = tmp_path / f"{name}.json"
        res = inproc(*args, "--format", "json", "-o", out)
        assert res.returncode == 0, res
        read_document(str(out))


# ------------------------------------------------------------------ the messages
def _mutate(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


IMPORTS_CASES = [
    (("modules", 3, "self_us"), "12", "modules[3].self_us: expected integer (got string '12')"),
    (("modules", 3, "self_us"), 1.5, "modules[3].self_us: expected integer"),
    (("modules", 2, "depth"), -1, "modules[2].depth: expected >= 0 (got -1)"),
    (("runs",), "3", "runs: expected integer"),
    (("modules", 0, "self_us_runs"), "1,2,3", "modules[0].self_us_runs: expected array"),
    (("modules", 1, "name"), KeyError, "modules[1].name: missing"),
    (("modules", 4, "parent"), "no.such.module", "modules[4].parent: 'no.such.module' is not a module"),
    (("modules",), {"a": 1}, "modules: expected array (got object)"),
    (("cached",), [{"name": 3}], "cached[0].name: expected string"),
    (("groups",), [{"name": "x", "self_us": None, "cumulative_us": 1, "modules": 1}], "groups[0].self_us: expected integer"),
]


@pytest.mark.parametrize("path,value,message", IMPORTS_CASES, ids=[c[2].split(":")[0] for c in IMPORTS_CASES])
def test_imports_readers_name_the_first_offending_place(inproc, fixtures, tmp_path, path, value, message):
    good = str(fixtures / "report" / "imports.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_mutate(_fixture(fixtures, "imports"), path, value)))
    out = tmp_path / "out.json"
    for args in (["show", bad], ["diff", good, bad], ["diff", bad, good], ["why", "json", "--report", bad], ["report", "--from", bad]):
        res = inproc(*args, "-o", out)
        line = assert_one_line_error(res, 2, str(bad), message)
        assert "importprof.imports/1" in line, line
        assert not out.exists()


@pytest.mark.parametrize(
    "kind,path,value,message",
    [
        ("trace", ("variants", 0, "syscalls"), "lots", "variants[0].syscalls: expected array (got string 'lots')"),
        ("trace", ("variants", 1, "syscalls", 0, "count"), "7", "variants[1].syscalls[0].count: expected integer"),
        ("trace", ("variants",), KeyError, "syscalls or variants: missing"),
        ("startup", ("results", 0, "mean"), "fast", "results[0].mean: expected number or null"),
        ("startup", ("results", 1, "times"), [0.1, -1], "results[1].times[1]: expected >= 0"),
        ("startup", ("relative", 0, "ratio"), "2x", "relative[0].ratio: expected number or null"),
        ("compare", ("rows", 0, "peak_rss_bytes"), "1 MB", "rows[0].peak_rss_bytes: expected integer or null"),
        ("compare", ("syscalls", 0, "families"), {"stat": 3}, "syscalls[0].families: expected array"),
        ("site", ("pth", 0, "seconds"), None, "pth[0].seconds: expected number (got null)"),
        ("why", ("chains", 0, "hops", 1, "self_us"), "x", "chains[0].hops[1].self_us: expected integer"),
        ("imports", ("schema",), "importprof.imports/2", "importprof.imports/2' is a version this importprof does not read"),
    ],
)
def test_report_from_and_include_refuse_a_bad_document_before_writing(inproc, fixtures, tmp_path, kind, path, value, message):
    bad = tmp_path / f"{kind}.json"
    bad.write_text(json.dumps(_mutate(_fixture(fixtures, kind), path, value)))
    out = tmp_path / "page.html"
    res = inproc("report", "--from", bad, "-o", out)
    assert_one_line_error(res, 2, str(bad), message)
    assert not out.exists()
    marker = tmp_path / "ran"
    res = inproc("report", "--include", bad, "-o", out, "-c", f"open({str(marker)!r}, 'w')")
    assert_one_line_error(res, 2, str(bad), message)
    assert not out.exists() and not marker.exists()


def test_a_bundle_is_checked_document_by_document(inproc, fixtures, tmp_path):
    trace = _mutate(_fixture(fixtures, "trace"), ("variants", 0, "syscalls"), "lots")
    bundle = {"schema": "importprof.report/1", "documents": [{"source": "a", "doc": _fixture(fixtures, "imports")}, {"source": "b", "doc": trace}]}
    bad = tmp_path / "bundle.json"
    bad.write_text(json.dumps(bundle))
    res = inproc("report", "--from", bad, "-o", tmp_path / "page.html")
    assert_one_line_error(res, 2, "documents[1]", "variants[0].syscalls: expected array")


def test_a_hyperfine_file_is_checked_as_startup_results(inproc, tmp_path):
    bad = tmp_path / "hf.json"
    bad.write_text(json.dumps({"results": [{"command": "x", "mean": "slow", "times": []}]}))
    res = inproc("report", "--from", bad, "-o", tmp_path / "page.html")
    assert_one_line_error(res, 2, "results[0].mean: expected number or null")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused(inproc, fixtures, tmp_path, token):
    text = (fixtures / "report" / "imports.json").read_text()
    doc = json.loads(text)
    doc["total_us"] = "@@"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc).replace('"@@"', token))
    for args in (["show", bad], ["diff", bad, bad], ["why", "json", "--report", bad], ["report", "--from", bad]):
        res = inproc(*args)
        assert_one_line_error(res, 2, str(bad), "not valid JSON")


def test_deeply_nested_json_is_one_line(inproc, tmp_path):
    bad = tmp_path / "deep.json"
    bad.write_text('{"schema": "importprof.imports/1", "modules": ' + "[" * 100_000 + "]" * 100_000 + "}")
    res = inproc("show", bad)
    assert_one_line_error(res, 2, str(bad), "nested")


def test_the_readme_publishes_every_schema():
    from profiler.inputs.documents import kinds

    from test_readme import pages_text

    readme = pages_text()  # docs/guarantees.md
    for kind in kinds():
        assert f"profiler/schemas/{kind}.json" in readme, kind
