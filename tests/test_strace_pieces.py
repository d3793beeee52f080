"""A strace log read a piece at a time (parse_strace_pieces, what trace --from-log reads): the
same log as read whole, whatever the cuts, with only the arguments a summary reads, and a
summary's records kept as columns."""

from __future__ import annotations

import json

import pytest

from profiler.analysis.attribution import summarize_trace
from profiler.parse.strace import parse_strace

from _strace_logs import LOGS, QUICK_LOGS, read_logs, shift_clock


@pytest.fixture(scope="module")
def logs(fixtures):
    return read_logs(fixtures)


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
    for variant in (shift_clock(text, 86400 - middle), text.replace("\n", "\r\n"), text[: len(text) * 2 // 3]):
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
    for variant in (text, text[: len(text) * 2 // 3], shift_clock(text, 86400 - times[len(times) // 2])):
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
