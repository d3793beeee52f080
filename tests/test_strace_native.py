"""The strace parser's fast paths (the pure-Python one and the native one, profiler/native/)
give the careful line-by-line path's records, events and summaries, on the real logs captured
here, cut, shuffled, passing midnight, and in every form strace writes."""

from __future__ import annotations

import json
import os
import re

import pytest

from profiler.analysis.attribution import summarize_trace
from profiler.errors import BadInput
from profiler.parse.strace import parse_strace

from _strace_logs import LOGS, QUICK_LOGS, read_logs, shift_clock


@pytest.fixture(scope="module")
def logs(fixtures):
    return read_logs(fixtures)


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


# a line break inside a -y decoration or a quoted string (a mutated log: test_fuzz found the
# first, a CRLF inside `= 3<...>`): the whole-text regular expression took the next line into
# the decoration, one record of two lines, where the line-by-line parse has a record and noise
BROKEN_INSIDE = {
    "decoration of the result": ('1 04:38:56.903004 openat(AT_FDCWD</t>, "/x/a.pyc", O_RDONLY) = 3<{br}/x/a.pyc> <0.000082>\n'
                                 '1 04:38:56.903173 close(3</x/a.pyc>) = 0 <0.000074>\n'),
    "decoration of an argument": ('1 04:38:56.903173 close(3</x/a{br}.pyc>) = 0 <0.000074>\n'
                                  '1 04:38:56.903200 close(3</x/a.pyc>) = 0 <0.000074>\n'),
    "quoted string": ('1 04:38:56.903004 openat(AT_FDCWD</t>, "/x/a{br}.pyc", O_RDONLY) = 3</x/a.pyc> <0.000082>\n'
                      '1 04:38:56.903173 close(3</x/a.pyc>) = 0 <0.000074>\n'),
}


@pytest.mark.parametrize("br", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("where", sorted(BROKEN_INSIDE))
def test_a_line_break_inside_a_record_splits_it_in_every_path(where, br):
    text = BROKEN_INSIDE[where].format(br=br)
    ref = parse_strace(text, fast=False)
    assert ref.lines == 3 and ref.noise >= 1, ref  # the broken record: noise (one half or both)
    for native in (False, True):  # the pure-Python fast path, then the native one (where built)
        got = parse_strace(text, native=native)
        assert (got, got.noise, got.lines) == (ref, ref.noise, ref.lines)
        assert [(c.line, c.path, c.fd_path) for c in got.syscalls] == [(c.line, c.path, c.fd_path) for c in ref.syscalls]


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
    passing = shift_clock(text, 86400 - middle)  # the middle record starts at 00:00:00
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
