"""The pure strace parser and summaries, on real logs captured here (tests/fixtures/strace/README.md):
the records, the views and documents made of them. The fast paths against the careful one:
test_strace_native.py; a log read in pieces: test_strace_pieces.py."""

from __future__ import annotations

import json
import os

import pytest

from profiler.analysis.attribution import OUTSIDE, summarize_trace
from profiler.analysis.syscalls import call_path, read_size_bucket
from profiler.errors import BadInput
from profiler.model.syscall_trace import TraceReport
from profiler.parse.strace import decode_string, fd_path, parse_strace, split_args

from _strace_logs import LOGS, read_logs


@pytest.fixture(scope="module")
def logs(fixtures):
    return read_logs(fixtures)


@pytest.mark.parametrize("name", LOGS)
def test_golden_summary(fixtures, logs, name):
    body = summarize_trace(parse_strace(logs[name]), variant=name).body()
    golden = fixtures / "strace" / f"{name}.golden.json"
    if os.environ.get("IMPORTPROF_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(body, indent=1) + "\n")
    assert json.loads(json.dumps(body)) == json.loads(golden.read_text())


def test_multiprocess_log(logs):
    log = parse_strace(logs["multiproc"])
    text_lines = logs["multiproc"].splitlines()
    assert log.lines == len(text_lines) and log.noise == 0 and not log.truncated_last_line
    assert set(log.pids) == {12540, 12541, 12542, 12543}
    # every line is one record: a completed call, a call resumed later, or a process event
    starts = sum(1 for ln in text_lines if "resumed>" not in ln and "+++" not in ln and " --- " not in ln)
    assert len(log.syscalls) == starts
    assert log.unfinished == 0  # every <unfinished ...> got its <... resumed>
    events = [(e.pid, e.kind, e.value) for e in log.events]
    assert (12542, "exit", "3") in events
    assert (12543, "killed", "SIGKILL") in events
    assert [e.value for e in log.events if e.kind == "signal"] == ["SIGCHLD", "SIGCHLD"]

    # an <unfinished ...> / <... resumed> pair becomes one call, started at the first line
    miss = [c for c in log.syscalls if c.args[1:2] == ('"/nonexistent/thread"',)]
    assert len(miss) == 1
    c = miss[0]
    assert (c.pid, c.name, c.line, c.ret, c.errno) == (12541, "newfstatat", 715, -1, "ENOENT")
    assert c.duration_s == pytest.approx(0.000094)  # from line 718, the resumed half
    assert c.time_s == pytest.approx(4 * 3600 + 38 * 60 + 56.947596)  # from line 715, the start
    assert call_path(c) == "/nonexistent/thread"

    # -y: the fd path of an argument and of a returned fd
    opens = [c for c in log.syscalls if c.name == "openat" and c.ret_path == "/etc/hostname"]
    assert len(opens) == 1 and opens[0].ret >= 3
    reads = [c for c in log.syscalls if c.name == "read" and fd_path(c.args[0]) == "/etc/hostname" and c.ret]
    assert reads and reads[0].ret == len(decode_string(reads[0].args[1])[0].encode())

    # quoted strings: escapes decoded, `...` truncation reported
    elf = next(c for c in log.syscalls if c.name == "read" and c.args[1].startswith('"\\177ELF'))
    data, truncated = decode_string(elf.args[1])
    assert truncated and data.startswith("\x7fELF") and len(data.encode("latin-1", "replace")) == 32
    tab = next(c for c in log.syscalls if c.name == "write" and "tab" in c.args[1])
    assert decode_string(tab.args[1]) == ("tab\there\n", False)

    # exit_group(...) = ? has no return value
    exits = [c for c in log.syscalls if c.name == "exit_group"]
    assert exits and all(c.ret is None and c.errno is None for c in exits)


def test_process_view(logs):
    r = summarize_trace(parse_strace(logs["multiproc"]))
    by_pid = {p.pid: p for p in r.processes}
    assert by_pid[12541].parent == 12540 and by_pid[12541].name.endswith("thread")
    assert by_pid[12542].command == "/bin/sh" and by_pid[12542].exit_code == 3
    assert by_pid[12543].signal == "SIGKILL" and by_pid[12543].exit_code is None
    assert sum(p.syscalls for p in r.processes) == r.total_syscalls
    # no markers in this log: the Python process is attributed from its lookups, the shells not
    assert r.attributed and r.modules
    assert {p.pid: p.attribution for p in r.processes} == {12540: "lookups", 12541: "lookups", 12542: None, 12543: None}
    assert by_pid[12542].argv == ("/bin/sh", "-c", 'echo "tab\there"; exit 3') and not by_pid[12542].python
    assert by_pid[12540].python and by_pid[12540].argv[1:3] == ("-S", "-c")
    assert by_pid[12540].wall_s > by_pid[12542].wall_s > 0
    assert r.harness["processes"] == 3 and r.harness["python_processes"] == 1  # the thread is no process
    mods = {m.name: m for m in r.modules}
    for name in ("threading", "subprocess", "encodings", "_posixsubprocess"):
        assert mods[name].opened >= 1 and mods[name].imports == 1, name
    assert sum(m.syscalls for m in r.modules) == r.total_syscalls


def test_filesystem_view(logs):
    log = parse_strace(logs["multiproc"])
    r = summarize_trace(log)
    fs = r.filesystem
    reads = [c for c in log.syscalls if c.name in ("read", "pread64") and c.ret is not None and c.ret >= 0]
    assert fs["reads"] == len(reads) and fs["bytes_read"] == sum(c.ret for c in reads)
    assert sum(b["count"] for b in fs["read_sizes"]) == fs["reads"]
    assert sum(b["bytes"] for b in fs["read_sizes"]) == fs["bytes_read"]
    for b in fs["read_sizes"]:
        assert read_size_bucket(b["min_bytes"]) == (b["min_bytes"], b["max_bytes"])
    fams = {f["name"]: f for f in fs["families"]}
    assert fams["stat"]["count"] == sum(1 for c in log.syscalls if c.name in ("newfstatat", "fstat", "statx"))
    assert fams["getdents"]["count"] == sum(1 for c in log.syscalls if c.name == "getdents64")
    enoent = [c for c in log.syscalls if c.errno in ("ENOENT", "ENOTDIR") and call_path(c)]
    assert fs["lookups_failed"] == len(enoent)
    full = __import__("profiler.analysis.syscalls", fromlist=["x"]).filesystem_view(log.syscalls, top=1000)
    assert {"name": "/nonexistent", "count": 1} in full["failed_lookup_dirs"]
    assert "/etc/hostname" in {f["name"] for f in full["files"]}


def test_truncated_last_line(logs):
    log = parse_strace(logs["truncated"])
    assert log.truncated_last_line
    assert not logs["truncated"].endswith("\n")
    # the thread's lookup started on line 715 and never resumed before the cut
    unfinished = [c for c in log.syscalls if c.unfinished]
    assert [c.line for c in unfinished if c.pid == 12541] == [715]
    assert [c.args[1] for c in unfinished if c.pid == 12541] == ['"/nonexistent/thread"']
    # the main thread's futex (line 714) lost its resumed half to the cut: kept as unfinished
    assert [c.line for c in unfinished if c.pid == 12540] == [714]
    # everything completed before the cut parses exactly as in the whole log
    full = {c.line: c for c in parse_strace(logs["multiproc"]).syscalls}
    done = [c for c in log.syscalls if not c.unfinished]
    assert done and all(full[c.line] == c for c in done)


def test_markers_attribution(logs):
    log = parse_strace(logs["markers-json-csv"])
    r = summarize_trace(log)
    assert r.attributed
    markers = [c for c in log.syscalls if "/.importprof-mark/" in "".join(c.args[:2])]
    assert markers and len(markers) % 2 == 0
    # marker calls are excluded from every count
    assert r.total_syscalls == len(log.syscalls) - len(markers)
    assert sum(m.syscalls for m in r.modules) == r.total_syscalls
    mods = {m.name: m for m in r.modules}
    for name, pyc in (("json", "json/__pycache__/__init__."), ("json.decoder", "json/__pycache__/decoder."), ("csv", "__pycache__/csv.")):
        assert mods[name].opened >= 1
        # the .pyc open happened between this module's own markers, not a nested one's
        owner = _owner_of_open(log, pyc)
        assert owner == name, (name, owner)
    assert OUTSIDE in mods
    spans = {s.name: s for s in r.spans}
    assert spans["json.decoder"].depth > spans["json"].depth
    assert spans["json"].begin_s <= spans["json.decoder"].begin_s <= spans["json.decoder"].end_s <= spans["json"].end_s


def _owner_of_open(log, needle):
    stack = []
    for c in log.syscalls:
        a = "".join(c.args[:2])
        if "/.importprof-mark/b/" in a:
            stack.append(decode_string(c.args[1])[0].rsplit("/", 1)[1])
        elif "/.importprof-mark/e/" in a:
            stack.pop()
        elif c.name == "openat" and c.ret_path and needle in c.ret_path and c.ret_path.endswith(".pyc") and stack:
            return stack[-1]
    return None


def test_split_args_on_real_lines(logs):
    line = next(ln for ln in logs["multiproc"].splitlines() if "clone3(" in ln)
    body = line[line.index("clone3("):]
    args, end = split_args(body, body.index("(") + 1)
    assert len(args) == 2 and args[0].startswith("{flags=CLONE_VM") and args[1] == "88"
    assert body[end:].strip().startswith("= 12541")


def test_noise_and_bad_numbers(logs):
    text = logs["multiproc"].splitlines()
    noisy = "\r\n".join(["program output, not strace", *text[:50], "more output"]) + "\r\n"
    log = parse_strace(noisy)
    assert log.noise == 2 and len(log.syscalls) == len(parse_strace("\n".join(text[:50]) + "\n").syscalls)
    bad = text[10].rsplit("<", 1)[0] + "<0.0x1>"
    with pytest.raises(BadInput, match="line 2"):
        parse_strace(text[9] + "\n" + bad + "\n" + text[11] + "\n")


def test_json_shape_one_and_several(logs):
    r1 = summarize_trace(parse_strace(logs["markers-json-csv"]), "no-site")
    r2 = summarize_trace(parse_strace(logs["multiproc"]), "default")
    one = TraceReport((r1,), machine={"cpus": 2}).to_dict()
    assert list(one) == ["schema", "machine", "syscalls", "modules", "filesystem", "processes", "harness", "warnings"]
    assert one["schema"] == "importprof.trace/1"
    assert set(one["syscalls"][0]) == {"name", "count", "errors", "seconds"}
    assert set(one["modules"][0]) == {"name", "syscalls", "failed", "opened", "bytes_read", "seconds", "cumulative_syscalls", "processes", "failed_import"}
    several = TraceReport((r1, r2), machine={}).to_dict()
    assert list(several) == ["schema", "machine", "variants", "warnings"]
    assert [v["variant"] for v in several["variants"]] == ["no-site", "default"]
    assert all(list(v) == ["variant", "syscalls", "modules", "filesystem", "processes", "harness"] for v in several["variants"])


def test_chrome_render(logs):
    from profiler.render.chrome_syscalls import render_chrome_syscalls

    r = summarize_trace(parse_strace(logs["markers-json-csv"]), "no-site")
    doc = json.loads(render_chrome_syscalls(TraceReport((r,), machine={})))
    ev = doc["traceEvents"]
    imports = [e for e in ev if e.get("cat") == "import"]
    calls = [e for e in ev if e.get("cat") == "syscall"]
    assert len(imports) == len(r.spans) and len(calls) == r.total_syscalls
    assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in imports + calls)
    json_span = next(e for e in imports if e["name"] == "json")
    inside = [e for e in calls if json_span["ts"] <= e["ts"] <= json_span["ts"] + json_span["dur"]]
    assert any(e["name"] == "openat" for e in inside)


@pytest.mark.parametrize("name", LOGS)
def test_the_json_text_is_the_document(logs, name):
    # TraceReport.to_json writes its lists of records an item a line (model.document.document_json):
    # the same document as json.dumps(to_dict()), for one variant and for several
    from profiler.model.syscall_trace import TraceReport

    result = summarize_trace(parse_strace(logs[name]), variant=name)
    for report in (TraceReport((result,), {"cpus": 2}, ("a warning",)), TraceReport((result, result), {}, ())):
        text = report.to_json()
        assert json.loads(text) == json.loads(json.dumps(report.to_dict()))
        assert text.endswith("}\n")


def test_document_json_writes_what_json_dumps_reads():
    from profiler.model.document import document_json

    keys = {"schema": "x/1", "empty": [], "items": [{"a": "é\n", "b": [1, 2]}, {"a": None}], "nested": {"k": [1, {"z": 2}]}}
    lines = {"items": (json.dumps(x, ensure_ascii=False) for x in keys["items"]), "empty": iter(())}
    text = document_json(keys, lines)
    assert json.loads(text) == keys
    assert text.splitlines()[:2] == ["{", '  "schema": "x/1",'] and '"empty": []' in text
    assert document_json(keys) == json.dumps(keys, indent=2, ensure_ascii=False) + "\n"


def test_chrome_written_in_pieces_is_json_dumps_of_the_document(logs, monkeypatch):
    """trace --format chrome writes its events as it makes them (pieces of about 0.5 MB; a
    65 MB log's events were a 487 MB list before): the bytes are json.dumps' of the whole
    document, as when it was made at once, for one variant and for several."""
    from profiler.render import chrome_syscalls

    monkeypatch.setattr(chrome_syscalls, "_PIECE", 4096)
    results = tuple(summarize_trace(parse_strace(logs[name]), name) for name in LOGS)
    for report in (TraceReport(results[:1], machine={}), TraceReport(results, machine={}), TraceReport((), machine={})):
        pieces = list(chrome_syscalls.render_chrome_syscalls_chunks(report))
        text = "".join(pieces)
        assert text == json.dumps(json.loads(text)) + "\n"
        assert text == chrome_syscalls.render_chrome_syscalls(report)
        if report.results:
            assert len(pieces) > 3
            doc = json.loads(text)
            assert {e["cat"] for e in doc["traceEvents"] if "cat" in e} >= {"import", "syscall", "process"}
