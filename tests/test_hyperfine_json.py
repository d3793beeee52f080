"""hyperfine's export read into the model: a file hyperfine writes in the test, and a stored one."""

import json
import shutil
import subprocess

import pytest

from profiler.capture.hyperfine import parse_version
from profiler.errors import BadInput
from profiler.model.measurement import CommandSpec
from profiler.parse.hyperfine_json import parse_hyperfine_json


def test_file_written_by_real_hyperfine(tmp_path, real_python):
    hf = shutil.which("hyperfine")
    assert hf, "hyperfine missing: make setup installs it"
    out = tmp_path / "h.json"
    subprocess.run([hf, "-N", "--runs", "3", "--warmup", "0", "--style", "none", "--export-json", str(out),
                    "-n", "no-site", f"{real_python} -S -c pass", "/bin/true"], check=True, capture_output=True)
    spec = CommandSpec(argv=(real_python, "-S", "-c", "pass"), variant="no-site", python=real_python, python_version="3.11.7", flags=("-S",), key="no-site")
    results = parse_hyperfine_json(out.read_text(), {"no-site": spec})
    assert [r.key for r in results] == ["no-site", "/bin/true"]
    r = results[0]
    assert r.command == f"{real_python} -S -c pass" and r.variant == "no-site" and r.flags == ("-S",)
    assert len(r.times) == 3 and r.min <= r.median <= r.max
    assert len(r.memory_usage_byte) == 3 and r.exit_codes == (0, 0, 0)
    assert r.engine == "hyperfine"
    # our export keeps hyperfine's fields: hyperfine's own readers still work on it
    raw = json.loads(out.read_text())["results"][0]
    mine = r.to_dict()
    for key in ("mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes", "memory_usage_byte"):
        assert mine[key] == raw[key]


def test_stored_fixture(fixtures):
    text = (fixtures / "hyperfine" / "hyperfine-1.20-python.json").read_text()
    results = parse_hyperfine_json(text)
    assert [r.key for r in results] == ["no-site", "default"]
    assert all(len(r.times) == 5 for r in results)
    assert results[0].mean < results[1].mean  # -S skips site (and this machine's certifi .pth)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"results": 3}', '{"results": [{"command": "x"}]}'])
def test_garbage_is_bad_input(text):
    with pytest.raises(BadInput):
        parse_hyperfine_json(text)


def test_version_parse():
    assert parse_version("hyperfine 1.20.0\n") == (1, 20, 0)
    assert parse_version("hyperfine 1.15.0") < (1, 20)
    assert parse_version("nonsense") is None
