"""Import boundaries from `-X importtime`'s writes (analysis/import_boundaries.py), on small
logs written as strace writes them; the real logs are in test_strace_parse.py (fixtures
importtime-json-csv and parallel-importtime) and test_trace_cli.py."""

from __future__ import annotations

import json

from profiler.analysis.attribution import OUTSIDE, summarize_trace
from profiler.analysis.import_boundaries import HEADER, importtime_entry, with_import_boundaries
from profiler.parse.strace import parse_strace


def _write(t: str, entry: str, pid: int = 100) -> str:
    text = f"import time: {entry}\\n"
    return f'{pid} 10:00:{t} write(2</dev/null>, "{text}", {len(entry) + 14}) = {len(entry) + 14} <0.000010>'


def _line(self_us: int, cum_us: int, depth: int, name: str) -> str:
    return f"{self_us:9d} | {cum_us:10d} | {'  ' * depth}{name}"


HEADER_LINE = "self [us] | cumulative | imported package"

# a (0.000900-0.003500) imports b (0.001900-0.002500); a getpid after both is outside
NESTED = "\n".join([
    _write("00.000100", HEADER_LINE),
    '100 10:00:00.001000 newfstatat(AT_FDCWD</w>, "/lib", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0 <0.000010>',
    '100 10:00:00.001100 openat(AT_FDCWD</w>, "/lib/__pycache__/a.cpython-311.pyc", O_RDONLY|O_CLOEXEC) = 3</lib/__pycache__/a.cpython-311.pyc> <0.000010>',
    '100 10:00:00.002000 openat(AT_FDCWD</w>, "/lib/__pycache__/b.cpython-311.pyc", O_RDONLY|O_CLOEXEC) = 4</lib/__pycache__/b.cpython-311.pyc> <0.000010>',
    _write("00.002500", _line(600, 600, 1, "b")),
    '100 10:00:00.003000 read(3</lib/__pycache__/a.cpython-311.pyc>, "abc", 4096) = 3 <0.000010>',
    _write("00.003500", _line(2000, 2600, 0, "a")),
    "100 10:00:00.004000 getpid() = 100 <0.000010>",
    "100 10:00:00.004100 +++ exited with 0 +++",
]) + "\n"


def _rows(result, pid=None):
    return {m.name: (m.syscalls, m.cumulative_syscalls) for m in result.modules}


def test_entry_of_a_write():
    log = parse_strace(NESTED)
    entries = [importtime_entry(c) for c in log.syscalls]
    assert entries[0] is HEADER
    assert entries[4] == (600, 1, "b", False) and entries[6] == (2600, 0, "a", False)
    assert entries[1] is None and entries[7] is None  # not a write / not importtime's


def test_nested_imports_from_their_writes():
    log = parse_strace(NESTED)
    marked, own, pids = with_import_boundaries(log)
    assert own == 3 and pids == {100}
    paths = [c.path for c in marked.syscalls if c.path and c.path.startswith("/.importprof-mark/")]
    assert paths == ["/.importprof-mark/b/a", "/.importprof-mark/b/b", "/.importprof-mark/e/b", "/.importprof-mark/e/a"]
    r = summarize_trace(log)
    # the writes count nowhere: 5 calls of the program, a's lookup, open and read, b's open
    assert r.total_syscalls == 5 and r.harness["importprof_syscalls"] == 3
    assert _rows(r) == {"a": (3, 4), "b": (1, 1), OUTSIDE: (1, 1)}
    assert r.processes[0].attribution == "importtime" and r.harness["attribution"]["importtime"] == 1
    spans = {s.name: s for s in r.spans}
    assert round(spans["a"].begin_s - 36000, 6) == 0.0009 and spans["b"].depth == 1
    # every way of summarizing gives the same
    want = json.dumps(r.body(), sort_keys=True)
    assert json.dumps(summarize_trace(log, fast=False).body(), sort_keys=True) == want
    assert json.dumps(summarize_trace(log, native=False).body(), sort_keys=True) == want
    assert json.dumps(summarize_trace(log, fast=False, native=False).body(), sort_keys=True) == want


def test_a_start_is_clamped_to_the_import_written_before():
    """A cumulative time that reaches back past the previous sibling's end (strace's lag on one
    write) does not take the sibling's calls: siblings do not overlap."""
    text = NESTED.replace(_write("00.002500", _line(600, 600, 1, "b")), "\n".join([
        _write("00.002500", _line(600, 600, 1, "b")),
        '100 10:00:00.002700 openat(AT_FDCWD</w>, "/lib/__pycache__/c.cpython-311.pyc", O_RDONLY|O_CLOEXEC) = 5</lib/__pycache__/c.cpython-311.pyc> <0.000010>',
        _write("00.002800", _line(1500, 1500, 1, "c")),  # claims to start at 0.001300, before b's end
    ]))
    r = summarize_trace(parse_strace(text))
    assert _rows(r) == {"a": (3, 5), "b": (1, 1), "c": (1, 1), OUTSIDE: (1, 1)}


def test_an_import_that_found_nothing_is_a_failed_import():
    """`import time:` lines are written for imports that raised too: a leaf import whose calls
    are stats that found nothing of its name (nt on Linux) is a failed import; a builtin (no
    call at all) is not."""
    text = "\n".join([
        '100 10:00:00.001000 newfstatat(AT_FDCWD</w>, "/lib", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0 <0.000010>',
        '100 10:00:00.001100 newfstatat(AT_FDCWD</w>, "/lib/lib-dynload", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0 <0.000010>',
        _write("00.001200", _line(300, 300, 0, "nt")),
        _write("00.001300", _line(5, 5, 0, "_signal")),
        '100 10:00:00.001400 newfstatat(AT_FDCWD</w>, "/lib", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0 <0.000010>',
        '100 10:00:00.001500 newfstatat(AT_FDCWD</w>, "/lib/json", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0 <0.000010>',
        _write("00.001600", _line(300, 300, 0, "json")),
    ]) + "\n"
    r = summarize_trace(parse_strace(text))
    mods = {m.name: m for m in r.modules}
    assert mods["nt"].failed_import and mods["nt"].syscalls == 2
    assert not mods["json"].failed_import and mods["json"].syscalls == 2
    assert not mods["_signal"].failed_import


def test_a_line_cut_by_strace_and_a_log_without_writes():
    cut = '100 10:00:00.002500 write(2</dev/null>, "import time:       600 |        600 |   very.long.na"..., 200) = 200 <0.000010>'
    text = NESTED.replace(_write("00.002500", _line(600, 600, 1, "b")), cut)
    r = summarize_trace(parse_strace(text))
    assert _rows(r)["very.long.na..."] == (1, 1)
    plain = parse_strace("\n".join(ln for ln in NESTED.splitlines() if "import time" not in ln) + "\n")
    assert with_import_boundaries(plain) == (plain, 0, frozenset())
    assert summarize_trace(plain).harness.get("importprof_syscalls") is None


def test_a_write_stamped_late_keeps_the_module_its_own_lookups():
    """strace stamped b's write late (a busy machine): its cumulative time reaches back only to
    0.002400, after b's .pyc was opened. The open names b: it is b's, not a's."""
    text = NESTED.replace(_line(600, 600, 1, "b"), _line(100, 100, 1, "b"))
    r = summarize_trace(parse_strace(text))
    assert _rows(r) == {"a": (3, 4), "b": (1, 1), OUTSIDE: (1, 1)}


_STAT_DIR = '100 10:00:00.{t} newfstatat(AT_FDCWD</w>, "{p}", {{st_mode=S_IFDIR|0755, st_size=4096, ...}}, 0) = 0 <0.000010>'


def test_a_failed_import_whose_write_strace_stamped_late_is_still_failed():
    """From a real log (`trace --keep-log`, CPython 3.11.7, `-c "import json"`: 1 run in 40 on a
    busy 2-core machine, 2026-12-03), its calls and times, paths shortened: `nt`'s three stats of the sys.path folders, then its write
    stamped 0.000417 s after the last of them, with a cumulative time of 312 µs: the computed start
    falls after its own stats, and nt was counted a found import (3 failed imports instead of 4).
    Nothing of its pid between the computed start and the write, and the finder's stats just
    before it, after the site's .pth read: they are nt's, and it failed."""
    text = "\n".join([
        _write("00.398036", _line(180, 180, 0, "_winapi")),
        '100 10:00:00.398100 read(3</lib/site-packages/distutils-precedence.pth>, "", 8192) = 0 <0.000009>',
        _STAT_DIR.format(t="398598", p="/lib/python3.11"),
        _STAT_DIR.format(t="398647", p="/lib/python3.11/lib-dynload"),
        _STAT_DIR.format(t="398689", p="/lib/python3.11/site-packages"),
        _write("00.399106", _line(312, 312, 0, "nt")),
    ]) + "\n"
    mods = {m.name: m for m in summarize_trace(parse_strace(text)).modules}
    assert mods["nt"].failed_import and mods["nt"].syscalls == 3, mods["nt"]


def test_a_builtin_after_a_check_of_a_path_or_of_stdin_is_no_failed_import():
    """The same shape with what is not the finder's look at the sys.path folders: the
    interpreter's fstat of stdin (an empty path) before `_abc`, one check of a path before
    `_signal`, a folder statted twice before `_io`: builtins, found without a call."""
    text = "\n".join([
        _write("00.100000", _line(180, 180, 0, "first")),
        '100 10:00:00.100100 newfstatat(0</dev/null>, "", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}, AT_EMPTY_PATH) = 0 <0.000012>',
        '100 10:00:00.100110 newfstatat(0</dev/null>, "", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}, AT_EMPTY_PATH) = 0 <0.000012>',
        _write("00.100500", _line(44, 44, 0, "_abc")),
        _STAT_DIR.format(t="100600", p="/etc"),
        _write("00.101000", _line(44, 44, 0, "_signal")),
        _STAT_DIR.format(t="101100", p="/lib"),
        _STAT_DIR.format(t="101200", p="/lib"),
        _write("00.101600", _line(44, 44, 0, "_io")),
    ]) + "\n"
    mods = {m.name: m for m in summarize_trace(parse_strace(text)).modules}
    assert not any(mods[n].failed_import for n in ("_abc", "_signal", "_io")), mods
