"""Inputs that once ended in a traceback (issue 43: 100,000 mutated logs and documents through
the command line): a strace log holding a 45-digit pid (read, as the same log read whole is)
and a saved imports report whose module has some phases null (one `importprof: error:` line,
exit 2). The real command line, in this process (they read files; nothing is spawned)."""

from __future__ import annotations

import json

import pytest

from _inproc import run_main
from conftest import FIXTURES, assert_one_line_error

BIG = "123456789012345678901234567890123456789012345"  # 45 digits
STRACE = FIXTURES / "strace" / "multiproc.log"
FILLER = '12540 04:38:56.789479 access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory) <0.000057>\n'


def _strace_lines():
    return STRACE.read_text().splitlines(True)


def _held_across_batches(tmp_path):
    """The log that reached the native parse_lines with a 45-digit pid (OverflowError "int too
    big to convert"): an unfinished call of that pid read by the general path, still held when
    the next batch of lines (2 Mi characters) goes to the native parser."""
    lines = _strace_lines()
    body = [lines[0]] + [FILLER] * 40_000
    body.append(f"{BIG} 04:38:56.789500 read(3</x>,  <unfinished ...>\n")
    body += [FILLER] * 40_000
    body.append(f'{BIG} 04:38:56.789600 <... read resumed>"", 10) = 0 <0.000010>\n')
    log = tmp_path / "held.strace"
    log.write_text("".join(body + lines[1:]))
    assert log.stat().st_size > 2 * (2 << 20)  # the pid's unfinished call in the first batch, its end in a later one
    return log


def test_a_45_digit_pid_held_across_the_readers_batches_is_read_as_whole(tmp_path):
    """A pid past 64 bits is read by the general path (tests/test_strace_parse.py: the native
    pass gives way to Python); read a piece at a time, the log gives the records the careful
    parser gives the whole text, and the command its summary."""
    from profiler.inputs.bounded import read_text_chunks
    from profiler.parse.strace import parse_strace, parse_strace_pieces

    log = _held_across_batches(tmp_path)
    pieces = parse_strace_pieces(read_text_chunks(str(log), "strace log"), keep_args=None)
    careful = parse_strace(log.read_text(), native=False)
    assert pieces == careful and pieces.events == careful.events
    assert any(c.pid == int(BIG) and c.name == "read" for c in careful.syscalls)
    res = run_main("trace", "--from-log", log, "--format", "json")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res
    assert res.json()["schema"] == "importprof.trace/1"


@pytest.mark.parametrize("key", ["find_us", "read_us", "exec_us"])
@pytest.mark.parametrize("layout", ["indented", "compact"])
def test_a_module_with_some_phases_null_is_one_line(tmp_path, key, layout):
    """A saved imports report whose module has `"find_us": null` beside its other phases passed
    validation and ended in a TypeError in render/console_phases.py: importprof writes a
    module's four phases together (all numbers, or all null), so the reader refuses it."""
    doc = json.loads((FIXTURES / "report" / "imports.json").read_text())
    i, m = next((i, m) for i, m in enumerate(doc["modules"]) if m.get("find_us") is not None)
    m[key] = None
    path = tmp_path / "imports.json"
    path.write_text(json.dumps(doc, indent=2) if layout == "indented" else json.dumps(doc, separators=(",", ":")))
    for args in (("show",), ("show", "--view", "top"), ("show", "--format", "json")):
        res = run_main(*args, path)
        assert_one_line_error(res, 2, f"modules[{i}].{key}: null", "phases are all numbers or all null")
    # the same report with that module's phases all null is a report importprof writes: shown
    for k in ("find_us", "read_us", "unmarshal_us", "exec_us", "compiled", "phase_cumulative_us"):
        m[k] = None
    path.write_text(json.dumps(doc, indent=2))
    res = run_main("show", path)
    assert res.returncode == 0 and m["name"] in res.stdout, res
