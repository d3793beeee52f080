"""The pure strace parser and summaries, on real logs captured here (tests/fixtures/strace/README.md)."""

from __future__ import annotations

import json
import os
import re

import pytest

from profiler.analysis.attribution import OUTSIDE, summarize_trace
from profiler.analysis.syscalls import call_path, read_size_bucket
from profiler.errors import BadInput
from profiler.model.syscall_trace import TraceReport
from profiler.parse.strace import decode_string, fd_path, parse_strace, split_args

from conftest import lane

LOGS = ("multiproc", "truncated", "markers-json-csv", "parallel", "importtime-json-csv", "parallel-importtime")
# the quick lane (make test-fast) reads two of them: one with markers' truncation, one of -X importtime
QUICK_LOGS = lane(LOGS, ("truncated", "importtime-json-csv"))


@pytest.fixture(scope="module")
def logs(fixtures):
    return {name: (fixtures / "strace" / f"{name}.log").read_text() for name in LOGS}


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


@pytest.mark.parametrize("name", QUICK_LOGS)
def test_fast_path_equals_general_path(logs, name):
    """Issue 15: the fast parser (one regular expression over the text, arguments split on
    demand) gives exactly the general line-by-line path's records, on every real log and on
    the same logs with CRLF, odd line breaks and as an iterable of lines."""
    text = logs[name]
    slow = parse_strace(text, fast=False)
    # the same log passing midnight half way
    midnight = text.replace("04:38:56.9", "00:00:00.9").replace("04:43:02.6", "00:00:00.6").replace("04:38:5", "23:59:5").replace("04:43:02", "23:59:59")
    variants = (text, text.replace("\n", "\r\n"), "noise\x0cline\n" + text, text.splitlines(True), midnight)
    for variant in variants:
        ref = slow if variant is text or isinstance(variant, list) else parse_strace(variant, fast=False)
        for native in (True, False):  # the native fast path (make setup builds it) and the pure-Python one
            fast = parse_strace(variant, native=native)
            assert fast == ref
            assert [c.args for c in fast.syscalls] == [c.args for c in ref.syscalls]
            assert [(c.time_s, c.path, c.fd_path, c.path_cut, c.argv) for c in fast.syscalls] == [
                (c.time_s, c.path, c.fd_path, c.path_cut, c.argv) for c in ref.syscalls
            ]
    assert any(c.time_s > 86400 for c in parse_strace(midnight).syscalls) or "04:38:5" not in text


def test_the_native_parser_is_built_where_cargo_is():
    import shutil

    from profiler.parse.strace import _native

    if shutil.which("cargo") or os.path.exists(os.path.expanduser("~/.cargo/bin/cargo")):
        assert _native() is not None, "make setup builds profiler/parse/_strace_native.abi3.so (scripts/setup.d/25-native-parser.sh)"


def test_fast_path_keeps_strictness():
    good = '12 04:38:56.794694 read(3</x>, "a", 1) = 1 <0.000066>\n'
    assert parse_strace(good).syscalls[0].fd_path == "/x"
    with pytest.raises(BadInput, match="line 2"):
        parse_strace(good + good.replace("<0.000066>", "<0.0x1>") + good)
    # a cut last line is never taken by the fast path: it is the truncated end
    log = parse_strace(good + good[:-1])
    assert len(log.syscalls) == 2 and not log.truncated_last_line  # whole, just no newline
    log = parse_strace(good + good[:30])
    assert len(log.syscalls) == 1 and log.truncated_last_line


def _shift_clock(text: str, seconds: float) -> str:
    """The same log with every -tt time moved by `seconds` (wrapping at midnight)."""
    import re

    def move(m) -> str:
        t = (int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4)) + seconds) % 86400
        return "%s%02d:%02d:%09.6f" % (m.group(1), t // 3600, t % 3600 // 60, t % 60)

    return re.sub(r"(?m)^(\d+ +)(\d+):(\d\d):(\d\d\.\d+)", move, text)


def test_native_joins_the_unfinished_halves(logs):
    """A multi-process log is mostly `<unfinished ...>`/`<... resumed>` halves: the native
    parser joins the usual pairs itself (the general path took every half before) and gives
    the general path's records, also when the log passes midnight between two halves."""
    from profiler.parse.strace_rows import _KINDS, _RECORD, _native

    mod = _native()
    if mod is None:
        pytest.skip("the native parser is not built (make setup builds it)")
    text = logs["parallel"]
    assert text.count("<unfinished ...>") > 300
    rows, general_at, lines, jumps, n, _, _ = mod.parse_lines(text, _KINDS, _RECORD, True)
    assert n == len(text.splitlines())
    unjoined = mod.parse_lines(text, _KINDS, _RECORD, False)
    assert len(general_at) < len(unjoined[1]) - 300 and not jumps
    assert all(rows[i].__class__ is str for i in general_at) and sorted(lines) == lines
    ref = parse_strace(text, fast=False)
    assert parse_strace(text) == ref and parse_strace(text, native=False) == ref
    first = ref.syscalls[0].time_s
    middle = ref.syscalls[len(ref.syscalls) // 2].time_s
    passing = _shift_clock(text, 86400 - middle)  # the middle record starts at 00:00:00
    assert passing != text and "23:59:" in passing and "\n" + str(ref.syscalls[0].pid) in passing
    slow = parse_strace(passing, fast=False)
    assert parse_strace(passing) == slow
    assert slow.syscalls[-1].time_s > 86400 > (slow.syscalls[0].time_s or first)


@pytest.mark.parametrize("name", LOGS)
def test_fast_summary_equals_careful_summary(logs, name):
    """The one-pass summary (owners per call, tallies natively when built) gives the careful
    summary's document and spans (a Python step per call and per view) on every real log;
    the native tallies equal their pure-Python twin's."""
    from profiler.analysis import syscalls

    log = parse_strace(logs[name])
    careful = summarize_trace(log, name, fast=False)
    fast = summarize_trace(log, name)
    assert json.dumps(fast.body(), sort_keys=True) == json.dumps(careful.body(), sort_keys=True)
    assert fast.spans == careful.spans
    _same_summaries(log, name)
    calls = list(log.syscalls)
    owners = [c.pid % 7 - 1 for c in calls]  # some calls owned by nobody (-1)
    py = syscalls.tally_calls(calls, owners, native=False)
    assert py[0] and py[10]
    if syscalls._native_tally() is None:
        pytest.skip("native tallies not built (make setup builds them): only Python vs careful compared")
    assert syscalls.tally_calls(calls, owners) == py
    _skip_without_native()


def _same_summaries(log, name: str) -> bool:
    """The Python one-pass summary (no native code at all) and the careful one (with
    ProcessLayout reading every call in Python) give the same document and spans of `log`;
    when the native module is built, the native one-pass summary (attribute_calls) gives them
    too, and the same harness view. → whether the native summary was compared (callers end
    with _skip_without_native, so a run without the native module says it checked less)."""
    from profiler.analysis.attribution import _native_attribution

    careful = summarize_trace(log, name, fast=False, native=False)
    py = summarize_trace(log, name, native=False)
    want = json.dumps(careful.body(), sort_keys=True)
    assert json.dumps(py.body(), sort_keys=True) == want and py.spans == careful.spans
    assert py.harness == careful.harness
    if _native_attribution() is None:
        return False
    native = summarize_trace(log, name)
    assert json.dumps(native.body(), sort_keys=True) == want
    assert native.spans == careful.spans and native.harness == careful.harness
    return True


def _skip_without_native() -> None:
    """Skip (after the Python-vs-careful checks ran) when the native summary is not built:
    the native-vs-Python comparison did not happen."""
    from profiler.analysis.attribution import _native_attribution

    if _native_attribution() is None:
        pytest.skip("native summary (attribute_calls) not built (make setup builds it): only Python vs careful compared")


@pytest.mark.slow
def test_native_summary_of_a_fresh_multiprocess_log(tmp_path):
    """A log made here as the scale benchmark makes it (strace -f of a shell starting Python
    children at once, most calls split into unfinished/resumed halves, threads, a failing
    import, a script run as __main__, a module's source read again for a traceback): the
    native summary equals the careful pure-Python one."""
    import shutil
    import subprocess
    import sys

    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (make setup installs it)")
    script = tmp_path / "app.py"
    script.write_text("import json, csv, threading\nt = threading.Thread(target=lambda: __import__('decimal'))\n"
                      "t.start(); t.join()\ntry:\n    import no_such_module_here\nexcept ImportError:\n    pass\n"
                      "import traceback, email.utils\ntry:\n    json.loads('{')\nexcept ValueError:\n    traceback.format_exc()\n")
    log_path = tmp_path / "multi.strace"
    py = sys.executable
    sh = (f"{py} {script} & {py} -c 'import logging, argparse' & {py} -S -c 'import tarfile' & "
          f"{py} -I -c 'import http.client' & wait")
    done = subprocess.run([strace, "-f", "-tt", "-T", "-y", "-s", "256", "-o", str(log_path), "--", "/bin/sh", "-c", sh],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    log = parse_strace(log_path.read_text(errors="replace"))
    assert len({c.pid for c in log.syscalls}) >= 5
    r = summarize_trace(log, "multi")
    assert r.attributed and sum(1 for p in r.processes if p.python and not p.thread) == 4
    assert {"json", "csv", "decimal", "tarfile", "http.client", "__main__"} <= {m.name for m in r.modules}
    _same_summaries(log, "multi")
    _skip_without_native()


def test_summary_of_a_value_past_64_bits():
    """A return value no 64-bit integer holds: the native pass gives way to the Python one (the
    same summary as the careful way)."""
    text = ('7 10:00:00.000001 openat(AT_FDCWD</w>, "/x", O_RDONLY) = 3</x> <0.000001>\n'
            '7 10:00:00.000002 read(3</x>, "ab", 99999999999999999999999) = 99999999999999999999999 <0.000001>\n'
            '7 10:00:00.000003 +++ exited with 0 +++\n')
    log = parse_strace(text)
    assert log.syscalls[1].ret == 99999999999999999999999
    r = summarize_trace(log, "big")
    assert r.filesystem["bytes_read"] == 99999999999999999999999
    _same_summaries(log, "big")
    _skip_without_native()


def test_native_events_and_calls_without_duration():
    """Process events and `= ?` calls in every shape the general path reads, around unfinished
    calls: the native parser makes the same records and events, in the same order."""
    text = "".join(f"{ln}\n" for ln in (
        "10 10:00:00.000001 openat(AT_FDCWD</w>, \"/x\", O_RDONLY) = 3</x> <0.000001>",
        "11 10:00:00.000002 futex(0x1, FUTEX_WAIT, 0, NULL <unfinished ...>",
        "10 10:00:00.000003 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=12} ---",
        "11 10:00:00.000004 +++ killed by SIGKILL (core dumped) +++",
        "12 10:00:00.000005 exit_group(0 <unfinished ...>",
        "13 10:00:00.000006 --- stopped by SIGSTOP ---",
        "12 10:00:00.000007 <... exit_group resumed>) = ?",
        "12 10:00:00.000008 +++ exited with -1 +++",
        "13 10:00:00.000009 exit(0)     = ?",
        "13 10:00:00.000010 --- stopped by ! ---",
        "14 10:00:00.000011 --- SIGÄ ---",
        "14 10:00:00.000012 +++ exited with x +++",
        "14 10:00:00.000013 exit_group(3)=?",
        "14 10:00:00.000014 +++ exited with 3 +++",
    ))
    ref = parse_strace(text, fast=False)
    assert [e.kind for e in ref.events] == ["signal", "killed", "signal", "exit", "signal", "signal", "exit"]
    assert [c.name for c in ref.syscalls] == ["openat", "futex", "exit_group", "exit"]  # `=?` is no record
    for native in (True, False):
        got = parse_strace(text, native=native)
        assert got == ref and got.events == ref.events and got.noise == ref.noise == 2
        assert [(c.ret, c.duration_s, c.unfinished, c.line) for c in got.syscalls] == [
            (c.ret, c.duration_s, c.unfinished, c.line) for c in ref.syscalls]


@pytest.mark.parametrize("name", QUICK_LOGS)
def test_native_equals_careful_on_cut_and_shuffled_logs(logs, name):
    """The real logs with lines dropped, swapped, cut short, their markers' begins lost and a
    pid changed (a seeded sample of what a crash, a partial copy or a hand edit leaves): the
    native parse and summary equal the careful ones on each."""
    import random

    rng = random.Random(f"{name}-21")
    lines = logs[name].splitlines(True)
    for _ in range(12):
        text = list(lines)
        for _ in range(rng.randint(1, 12)):
            i = rng.randrange(len(text))
            how = rng.randrange(5)
            if how == 0:
                del text[i]
            elif how == 1:
                j = rng.randrange(len(text))
                text[i], text[j] = text[j], text[i]
            elif how == 2:
                text[i] = text[i][: rng.randrange(len(text[i]) + 1)] + "\n"
            elif how == 3:
                text[i] = text[i].replace("/.importprof-mark/b/", "/.importprof-mark/x/")
            else:
                head, sep, rest = text[i].partition(" ")
                text[i] = (str(int(head) + 1) if head.isdigit() else head) + sep + rest
        joined = "".join(text)
        try:
            careful_log = parse_strace(joined, fast=False)
        except BadInput:
            with pytest.raises(BadInput):
                parse_strace(joined)
            continue
        log = parse_strace(joined)
        assert log == careful_log and log.events == careful_log.events
        if log.syscalls:
            _same_summaries(log, name)
    _skip_without_native()


@pytest.mark.parametrize("name", LOGS)
def test_native_summary_of_other_log_forms(logs, name):
    """The real logs without timestamps, without pids, with -ttt times and with pids past 64
    bits (the native pass gives way to Python): the native summary equals the careful one."""
    import re

    text = logs[name]
    forms = (
        re.sub(r"^(\d+) +\d+:\d\d:\d\d\.\d+ ", r"\1 ", text, flags=re.M),
        re.sub(r"^\d+ +", "", text, flags=re.M),
        re.sub(r"^(\d+) +(\d+):(\d\d):(\d\d\.\d+) ",
               lambda m: f"{m.group(1)} {1700000000 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4)):.6f} ",
               text, flags=re.M),
        re.sub(r"^\d+ ", "9" * 25 + " ", text, count=3, flags=re.M),
    )
    for form in forms:
        assert form != text
        _same_summaries(parse_strace(form), name)
    _skip_without_native()


# strace's own forms of a log (what a user's `strace -o run.strace CMD` gives), by their flags;
# None: written to stderr instead of a file (`[pid N]` heads, the first process without one)
STRACE_FORMS = {
    "plain -f -o": ["-f"],
    "one process, no -f": [],
    "-tt without -T": ["-f", "-tt"],
    "-t": ["-f", "-t"],
    "-ttt -T": ["-f", "-ttt", "-T"],
    "-y without -tt": ["-f", "-y"],
    "-T without -tt": ["-f", "-T"],
    "-tt -T -y -s 256": ["-f", "-tt", "-T", "-y", "-s", "256"],
    "stderr -f": None,
    "stderr -f -tt -T -y": ["-tt", "-T", "-y"],
}


@pytest.fixture(scope="module")
def form_logs(tmp_path_factory):
    """One real log per form of STRACE_FORMS: a shell starting two Python children at once (a
    thread, a failing import), so most calls are split into unfinished/resumed halves, with
    signals and exits; the one-process form traces one Python."""
    import shutil
    import subprocess
    import sys

    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (make setup installs it)")
    d = tmp_path_factory.mktemp("forms")
    script = d / "app.py"
    script.write_text("import json, csv, threading\nt = threading.Thread(target=lambda: __import__('decimal'))\n"
                      "t.start(); t.join()\ntry:\n    import no_such_module_here\nexcept ImportError:\n    pass\n")
    py = sys.executable
    shell = ["/bin/sh", "-c", f"{py} {script} & {py} -c 'import logging, email.utils' & wait"]
    out = {}
    for name, flags in STRACE_FORMS.items():
        target = [py, str(script)] if name.startswith("one process") else shell
        if name.startswith("stderr"):
            done = subprocess.run([strace, "-f", *(flags or []), "--", *target], capture_output=True, text=True, errors="replace")
            text = done.stderr
        else:
            path = d / "log.strace"
            done = subprocess.run([strace, *flags, "-o", str(path), "--", *target], capture_output=True, text=True)
            text = path.read_text(errors="replace")
        assert done.returncode == 0, done.stderr[-500:]
        out[name] = text
    return out


@pytest.mark.parametrize("name", STRACE_FORMS)
def test_native_reads_every_strace_form(form_logs, name):
    """A real log in each form strace writes (with or without pids, `[pid N]` heads on stderr,
    -t/-tt/-ttt times or none, -T or not, -y or not): the native parser takes (nearly) every
    line itself and gives the careful line-by-line records, events and counts, as the
    pure-Python fast path does; the summaries are the careful one."""
    from profiler.parse.strace_rows import _KINDS, _RECORD, _native

    text = form_logs[name]
    ref = parse_strace(text, fast=False)
    assert len(ref.syscalls) > 500
    if name.startswith("stderr"):
        assert "[pid " in text
    else:
        assert text.count("<unfinished ...>") > 10 or name.startswith("one process")
    for native in (True, False):
        got = parse_strace(text, native=native)
        assert got == ref and got.events == ref.events
        assert (got.lines, got.noise, got.truncated_last_line, got.unfinished) == (ref.lines, ref.noise, ref.truncated_last_line, ref.unfinished)
        assert [(c.time_s, c.line, c.ret, c.errno, c.ret_path, c.duration_s, c.path, c.fd_path, c.path_cut, c.argv) for c in got.syscalls] == [
            (c.time_s, c.line, c.ret, c.errno, c.ret_path, c.duration_s, c.path, c.fd_path, c.path_cut, c.argv) for c in ref.syscalls]
    mod = _native()
    if mod is not None:
        rows, general_at, _, jumps, n, events, _ = mod.parse_lines(text, _KINDS, _RECORD, True, None)
        # the general path's lines: the events (not asked for natively here), the program's own
        # output on stderr, a few halves left unpaired
        assert len(general_at) - len(ref.events) - ref.noise < n // 50 and not jumps
    _same_summaries(ref, name)
    _skip_without_native()


def test_a_native_build_of_another_version_is_not_used(logs, monkeypatch):
    """A native module built before its sources changed (parse_lines' arguments or results
    of another version, until make setup rebuilds it) is not called: the pure-Python fast path
    gives the records."""
    from profiler.parse import strace_rows

    mod = strace_rows._native()
    if mod is None:
        pytest.skip("the native parser is not built (make setup builds it)")
    monkeypatch.setattr(mod, "PARSE_LINES_VERSION", strace_rows._PARSE_LINES_VERSION - 1)
    assert strace_rows._native() is None
    plain = re.sub(r"^(\d+) +\d+:\d\d:\d\d\.\d+ (.*?)(?: <\d+\.\d+>)?$", r"\1 \2", logs["parallel"], flags=re.M)
    assert parse_strace(plain) == parse_strace(plain, fast=False)


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


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("name", QUICK_LOGS)
def test_a_log_read_in_pieces_is_the_same_log(logs, name, monkeypatch):
    """parse_strace_pieces (what trace --from-log reads, 256 KiB at a time) gives the StraceLog
    of the whole text, whatever the cuts: inside a line, inside an unfinished/resumed pair,
    before a process's exit; also when the log passes midnight (in a piece or at a cut), with
    CRLF line ends, and with its last line cut."""
    from profiler.parse import strace as strace_module
    from profiler.parse.strace import parse_strace_pieces

    monkeypatch.setattr(strace_module, "_BATCH", 1)  # every piece parsed as it comes (2 MiB at once in use)
    text = logs[name]
    whole = parse_strace(text)
    for size in (997, 4096, 65536, len(text) + 1):
        assert parse_strace_pieces(_pieces(text, size)) == whole, size
    ref = parse_strace(text)
    times = [c.time_s for c in ref.syscalls if c.time_s is not None]
    middle = times[len(times) // 2]
    for variant in (_shift_clock(text, 86400 - middle), text.replace("\n", "\r\n"), text[: len(text) * 2 // 3]):
        want = parse_strace(variant)
        for size in (997, 65536):
            assert parse_strace_pieces(_pieces(variant, size)) == want, size


def test_odd_line_breaks_ask_for_the_whole_log():
    from profiler.parse.strace import OddLineBreaks, _native, parse_strace_pieces

    if _native() is None:
        pytest.skip("without the native parser the pieces are joined and read whole")
    text = '1 10:00:00.000001 getpid() = 1 <0.000001>\n1 10:00:00.000002 getpid()\x0b = 1 <0.000001>\n'
    with pytest.raises(OddLineBreaks):
        parse_strace_pieces([text])
    assert parse_strace(text).lines == 3  # str.splitlines' count: the whole-text way reads it


@pytest.mark.parametrize("name", LOGS)
def test_records_without_the_arguments_no_summary_reads(logs, name):
    """trace --from-log (but for chrome) keeps only the arguments a summary reads
    (attribution.ARGS_READ): the records of other calls get () and every way of summarizing
    gives the same document, spans and harness view as from the whole records."""
    from profiler.analysis.attribution import ARGS_READ, _native_attribution
    from profiler.parse.strace import _native, parse_strace_pieces

    if _native() is None:
        pytest.skip("only the native parser leaves arguments out")
    text = logs[name]
    full = summarize_trace(parse_strace(text), name)
    lean = parse_strace_pieces(_pieces(text, 65536), keep_args=ARGS_READ)
    assert any(c.args == () and c.name not in ARGS_READ for c in lean.syscalls)
    assert all(c.args_text for c in lean.syscalls if c.name in ("openat", "open", "clone", "clone3"))  # those it reads kept
    want = json.dumps(full.body(), sort_keys=True)
    ways = [dict(fast=False, native=False), dict(native=False), dict(fast=False)]
    if _native_attribution() is not None:
        ways.append({})
    for how in ways:
        got = summarize_trace(lean, name, **how)
        assert json.dumps(got.body(), sort_keys=True) == want, how
        assert got.spans == full.spans and got.harness == full.harness, how


@pytest.mark.parametrize("name", QUICK_LOGS)
def test_a_summarys_records_kept_as_columns_are_the_same_records(logs, name, monkeypatch):
    """trace --from-log (but for chrome) keeps a summary's records as columns
    (model.SyscallColumns, moved there piece by piece, the places of calls still waiting for
    their `<... resumed>` filled there later): the same records as a tuple, read one by one, by
    slices and by iteration, whatever the cuts; also for a log cut short and one passing midnight."""
    from profiler.analysis.attribution import ARGS_READ
    from profiler.model.syscall_trace import SyscallColumns
    from profiler.parse import strace as strace_module
    from profiler.parse.strace import _native, parse_strace_pieces

    if _native() is None or not hasattr(_native(), "Calls"):
        pytest.skip("the columns are the native parser's")
    text = logs[name]
    ref = parse_strace(text)
    times = [c.time_s for c in ref.syscalls if c.time_s is not None]
    for variant in (text, text[: len(text) * 2 // 3], _shift_clock(text, 86400 - times[len(times) // 2])):
        for batch in (1, 4096, 2 << 20):
            monkeypatch.setattr(strace_module, "_BATCH", batch)
            monkeypatch.setattr(strace_module, "_COLUMNS", False)
            want = parse_strace_pieces(_pieces(variant, 997), keep_args=ARGS_READ)
            monkeypatch.setattr(strace_module, "_COLUMNS", True)
            got = parse_strace_pieces(_pieces(variant, 997), keep_args=ARGS_READ)
            assert isinstance(got.syscalls, SyscallColumns) and isinstance(want.syscalls, tuple)
            assert got == want, batch
            assert [tuple(c) for c in got.syscalls] == [tuple(c) for c in want.syscalls]
            assert all(type(c) is type(w) for c, w in zip(got.syscalls, want.syscalls))
            n = len(want.syscalls)
            assert got.syscalls[n // 3: n // 2] == want.syscalls[n // 3: n // 2] and got.syscalls[-1] == want.syscalls[-1]
            assert got.syscalls.names() == [c.name for c in want.syscalls]
            assert got.syscalls.times() == [c.time_s for c in want.syscalls]


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
