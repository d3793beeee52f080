"""Fuzzing every parser and every document reader: whatever the input, the only
exception that may come out is the project's own error family (ImportprofError, printed as one
`importprof: error:` line by main()). Inputs are real fixtures cut and mutated (so the deep
paths run) plus generated and random text.

Examples per target: FUZZ_EXAMPLES for the parsers and the validator (default 2000), half as
many for the readers driven through the real command line in-process (show, diff, why
--report, report --from: ~5 ms each). `IMPORTPROF_FUZZ_EXAMPLES=50000 pytest tests/test_fuzz.py`
for a long hunt. The number actually run is printed at the end of the module (pytest -s) and
checked to be at least 90% of the target. About a minute on an idle 2-core machine: marked slow
(`make test` runs it, `make test-fast` does not).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiler.errors import ImportprofError

from _mutations import mutate, small

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FUZZ_EXAMPLES = int(os.environ.get("IMPORTPROF_FUZZ_EXAMPLES", "2000"))

CLI_EXAMPLES = max(1, FUZZ_EXAMPLES // 2)
RUN: dict[str, int] = {}
pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,  # nothing written into the tree; failures print their example
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FUZZ_CLI = settings(FUZZ, max_examples=CLI_EXAMPLES)
CLI_TARGETS = {"show", "diff", "why --report", "report --from"}


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    total = sum(RUN.values())
    print(f"\nfuzz examples run: {total} ({', '.join(f'{k} {v}' for k, v in sorted(RUN.items()))})")


def _count(name: str) -> None:
    RUN[name] = RUN.get(name, 0) + 1


def survives(call, *args, **kwargs):
    """Run `call`; ImportprofError is the contract's way to fail. Anything else fails the test."""
    try:
        return call(*args, **kwargs)
    except ImportprofError as exc:
        assert str(exc).strip() and "\n" not in exc.message, f"an error must be one non-empty line: {exc.message!r}"
        return None


# ------------------------------------------------------------------ text mutation
def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)


ODD = ["", " ", "|", "  |  ", "-1", "0", "²3", "٣", "1e9", "99999999999999999999999", "NaN", "\x00", "\ufffd", "\r",
       "\r\n", "\n", "(", ")", "[", "]", "{", "}", "<", ">", '"', "\\", "\\x", "...", "<unfinished ...>", "<... ",
       " resumed>", "+++ exited with 1 +++", "+++ killed by SIGKILL +++", "--- SIGCHLD {si_signo=SIGCHLD} ---",
       "= -1 ENOENT (No such file or directory)", "= ?", "import time:", "import time: self [us] | cumulative | imported package",
       "/.importprof-mark/", "begin", "end", "\t", "é", "😀", "0x7f", " = 0 <0.000010>"]


@st.composite
def mutated_text(draw, sources: list[list[str]]):
    """A window of a real file's lines with a few random edits (insert, delete, replace,
    duplicate, cut), CRLF or not, the last line maybe truncated."""
    lines = draw(st.sampled_from(sources))
    start = draw(st.integers(0, max(0, len(lines) - 1)))
    window = list(lines[start : start + draw(st.integers(0, 40))])
    for _ in range(draw(st.integers(0, 6))):
        action = draw(st.sampled_from(["insert", "delete", "replace", "dup", "chars", "swap"]))
        if not window:
            window.append(draw(st.sampled_from(ODD)) + "\n")
            continue
        i = draw(st.integers(0, len(window) - 1))
        if action == "insert":
            window.insert(i, draw(st.one_of(st.sampled_from(ODD), st.text(max_size=40))) + "\n")
        elif action == "delete":
            del window[i]
        elif action == "replace":
            line = window[i]
            a = draw(st.integers(0, len(line)))
            b = draw(st.integers(a, min(len(line), a + 12)))
            window[i] = line[:a] + draw(st.one_of(st.sampled_from(ODD), st.text(max_size=8))) + line[b:]
        elif action == "dup":
            window.insert(i, window[i])
        elif action == "chars":
            line = window[i]
            window[i] = "".join(c if draw(st.integers(0, 9)) else draw(st.characters()) for c in line[:200])
        else:
            j = draw(st.integers(0, len(window) - 1))
            window[i], window[j] = window[j], window[i]
    text = "".join(window)
    if draw(st.booleans()):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if text and draw(st.integers(0, 4)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


def _as_read(text: str) -> str:
    """What a reader hands a parser: bytes decoded as UTF-8 with errors replaced (inputs.bounded.read_text,
    process output), so never a lone surrogate."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def text_inputs(*paths: Path):
    sources = [_lines(p) for p in paths]
    return st.one_of(mutated_text(sources), st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace"))).map(_as_read)


# ------------------------------------------------------------------ JSON mutation
json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(["", "0", "-1", "1.5", "x"]),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def mutated_json(draw, base: object):
    """`base` with 1-4 edits at random places (tests/_mutations.py: mutate), each choice drawn:
    any JSON value of json_values (NaN and huge numbers included), any short text for a key."""
    return mutate(base, lambda lo, hi: draw(st.integers(lo, hi)), lambda items: draw(st.sampled_from(items)),
                  lambda: draw(json_values), lambda: draw(st.text(max_size=8)))


def _dump(doc) -> str:
    return json.dumps(doc, allow_nan=True)


# ------------------------------------------------------------------ in-process command line
_APP = None


def run_cli(*args: str) -> int:
    """The real command line in this process (no spawn per example): main()'s contract is
    that only ImportprofError (and click's usage errors) come out of the app."""
    global _APP
    if _APP is None:
        from profiler.commands import build_app

        _APP = build_app()
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            _APP(args=list(args), prog_name="importprof", standalone_mode=False)
        except ImportprofError as exc:
            assert exc.message.strip() and "\n" not in exc.message, exc.message
            return exc.exit_code
        except Exception as exc:  # click's own usage errors are fine; anything else is a crash
            if type(exc).__module__.startswith(("click", "typer")) and hasattr(exc, "exit_code"):
                return exc.exit_code
            raise
    return 0


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="importprof-fuzz-") as d:
        yield Path(d)


# ================================================================== parsers
IMPORTTIME_LOGS = sorted((FIXTURES / "importtime").glob("*.log"))
STRACE_LOGS = sorted((FIXTURES / "strace").glob("*.log"))


@FUZZ
@given(text_inputs(*IMPORTTIME_LOGS))
def test_fuzz_importtime_log_to_report(text):
    """parse → aggregate → every imports view and format (what `imports --from-log` does)."""
    _count("importtime")
    from profiler.parse.importtime import parse_importtime
    from profiler.workflows.imports import report_from_logs

    log = survives(parse_importtime, text, source="fuzz")
    if log is None:
        return
    report = survives(report_from_logs, [log], machine={}, python=None, python_version=None, target=None, source="log")
    if report is None:
        return
    _render_imports(report)


def _render_imports(report):
    from profiler.render import get_renderer

    for fmt in ("json", "folded", "speedscope", "chrome"):
        survives(get_renderer(fmt), report)


@FUZZ
@given(text_inputs(*STRACE_LOGS))
def test_fuzz_strace_log_to_summary(text):
    """parse → attribute → summarize → json (what `trace --from-log` does), and the process
    tree reader of the harness."""
    _count("strace")
    from profiler.model.syscall_trace import TraceReport
    from profiler.render import get_renderer
    from profiler.workflows.trace import summarize_log_text

    result = survives(summarize_log_text, text, "fuzz", source="fuzz")
    if result is not None:
        survives(get_renderer("json"), TraceReport(results=(result,), machine={}))
    from profiler.parse.processes import parse_processes

    survives(parse_processes, text)


def _strace_form(text: str, pid: str, clock: str, durations: bool, paths: bool) -> str:
    """The log in another form strace writes: pid "keep" | "none" (no -f) | "bracket" (`[pid N]`,
    -f to stderr); clock "keep" (-tt) | "none" | "t" | "ttt"; without -T durations; without -y
    paths."""
    import re

    if not durations:
        text = re.sub(r" <\d+\.\d+>(\r?)$", r"\1", text, flags=re.M)
    if not paths:
        text = re.sub(r"(?<=[0-9D])<[^<>\n]*>", "", text)

    def move(m) -> str:
        p = m.group(1) or ""
        if clock == "none":
            return p
        if clock == "t":
            return f"{p}{m.group(2)}:{m.group(3)}:{m.group(4)} "
        if clock == "ttt":
            return f"{p}{1700000000 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))}.{m.group(5)} "
        return m.group()

    text = re.sub(r"^(\d+ +)?(\d+):(\d\d):(\d\d)\.(\d+) ", move, text, flags=re.M)
    if pid == "none":
        text = re.sub(r"^\d+ +", "", text, flags=re.M)
    elif pid == "bracket":
        text = re.sub(r"^(\d+) +", lambda m: f"[pid {int(m.group(1)):5d}] ", text, flags=re.M)
    return text


_FORMED: dict[tuple, list[list[str]]] = {}


@st.composite
def strace_forms(draw):
    """A real log in one of strace's forms, edited (the form made before or after the edits)."""
    form = (draw(st.sampled_from(["keep", "none", "bracket"])), draw(st.sampled_from(["keep", "none", "t", "ttt"])),
            draw(st.booleans()), draw(st.booleans()))
    if draw(st.booleans()):
        if form not in _FORMED:
            _FORMED[form] = [_strace_form("".join(_lines(p)), *form).splitlines(keepends=True) for p in STRACE_LOGS]
        return _as_read(draw(mutated_text(_FORMED[form])))
    return _strace_form(draw(text_inputs(*STRACE_LOGS)), *form)


@FUZZ
@given(strace_forms())
def test_fuzz_strace_native_equals_careful(text):
    """The native parser (and the pure-Python fast path) give the careful line-by-line parse of
    any text, in every form strace writes: the same records, events and counts, or the same
    refusal."""
    _count("strace native")
    from profiler.errors import BadInput
    from profiler.parse.strace import _native, parse_strace

    try:
        ref = parse_strace(text, fast=False)
    except BadInput:
        with pytest.raises(BadInput):
            parse_strace(text, native=False)
        if _native() is None:
            pytest.skip("native strace parser not built (make setup builds it): only Python vs careful compared")
        with pytest.raises(BadInput):
            parse_strace(text, native=True)
        return
    _same_parse(parse_strace(text, native=False), ref)
    if _native() is None:
        pytest.skip("native strace parser not built (make setup builds it): only Python vs careful compared")
    _same_parse(parse_strace(text, native=True), ref)


def _same_parse(got, ref) -> None:
    assert got == ref and got.events == ref.events
    assert (got.lines, got.noise, got.truncated_last_line, got.unfinished) == (ref.lines, ref.noise, ref.truncated_last_line, ref.unfinished)
    assert [(c.time_s, c.line, c.duration_s, c.unfinished, c.path, c.fd_path, c.path_cut, c.argv) for c in got.syscalls] == [
        (c.time_s, c.line, c.duration_s, c.unfinished, c.path, c.fd_path, c.path_cut, c.argv) for c in ref.syscalls]


HYPERFINE = json.loads((FIXTURES / "hyperfine" / "hyperfine-1.20-python.json").read_text())


@FUZZ
@given(st.one_of(mutated_json(HYPERFINE).map(_dump), text_inputs(FIXTURES / "hyperfine" / "hyperfine-1.20-python.json")))
def test_fuzz_hyperfine_json(text):
    _count("hyperfine")
    from profiler.parse.hyperfine_json import parse_hyperfine_json

    survives(parse_hyperfine_json, text)


SITE_RECORD = json.loads((FIXTURES / "site" / "base-3.11.7.site.json").read_text())
PHASE_LINES = (FIXTURES / "site" / "base-3.11.7.phases.jsonl").read_text().splitlines()


@FUZZ
@given(
    st.one_of(mutated_json(SITE_RECORD).map(_dump), st.text(max_size=200)),
    st.one_of(
        st.lists(st.sampled_from(PHASE_LINES), max_size=12).map("\n".join),
        mutated_json([json.loads(ln) for ln in PHASE_LINES[:10]]).map(lambda d: "\n".join(map(_dump, d)) if isinstance(d, list) else _dump(d)),
        text_inputs(FIXTURES / "site" / "base-3.11.7.phases.jsonl"),
    ),
)
def test_fuzz_site_and_phase_records(site_text, phases_text):
    """The bootstrap hooks' records → the site report (what `site` does with them)."""
    _count("site+phases")
    from profiler.analysis.site import build_site_report
    from profiler.parse.phases import parse_calls, parse_phase_records
    from profiler.parse.site import parse_site_record
    from profiler.render import get_renderer

    run = survives(parse_site_record, site_text)
    phases = survives(parse_phase_records, phases_text)
    survives(parse_calls, phases_text)
    if run is not None and phases is not None:
        report = survives(build_site_report, [(run, phases)], {}, "/usr/bin/python3", "3.11.7")
        if report is not None:
            survives(get_renderer("json"), report)


@FUZZ
@given(st.one_of(st.text(max_size=200), mutated_json({"lazy": True, "python": "3.11", "startup": ["a"], "executed": [["a", "b", 1]],
                                                       "pending": ["c"], "eager": [["d", "r", 3]], "loads": [["e", "t", "a", 4]]}).map(_dump)))
def test_fuzz_lazy_record(text):
    _count("lazy")
    from profiler.parse.lazy import parse_lazy_record

    survives(parse_lazy_record, text)


@FUZZ
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
                 mutated_json({"schema": "importprof.imports/1", "modules": []}).map(_dump)))
def test_fuzz_strict_json(text):
    _count("json")
    from profiler.inputs.strict_json import parse_json

    survives(parse_json, text, "fuzz")


# ================================================================== document readers (the CLI)
def _fixture(kind: str) -> dict:
    return small(json.loads((FIXTURES / "report" / f"{kind}.json").read_text()))


IMPORTS_DOC = _fixture("imports")


@FUZZ_CLI
@given(mutated_json(IMPORTS_DOC), st.sampled_from(["tree", "top"]), st.sampled_from([None, "json", "folded", "speedscope", "chrome"]))
def test_fuzz_show(scratch, doc, view, fmt):
    _count("show")
    path = scratch / "show.json"
    path.write_text(_dump(doc))
    args = ["show", str(path), "--view", view, "--min-ms", "0"] + (["--format", fmt] if fmt else [])
    assert run_cli(*args) in (0, 2)


@FUZZ_CLI
@given(mutated_json(IMPORTS_DOC), st.booleans(), st.sampled_from([[], ["--format", "json", "--fail-over", "0"], ["--top", "1"]]))
def test_fuzz_diff(scratch, doc, new_side, options):
    _count("diff")
    bad, good = scratch / "diff-bad.json", scratch / "diff-good.json"
    bad.write_text(_dump(doc))
    if not good.exists():
        good.write_text(_dump(IMPORTS_DOC))
    pair = (good, bad) if new_side else (bad, good)
    assert run_cli("diff", *map(str, pair), *options) in (0, 1, 2)


@FUZZ_CLI
@given(mutated_json(IMPORTS_DOC), st.sampled_from([m["name"] for m in IMPORTS_DOC["modules"]] + ["nope"]), st.booleans())
def test_fuzz_why_report(scratch, doc, module, as_json):
    _count("why --report")
    path = scratch / "why.json"
    path.write_text(_dump(doc))
    assert run_cli("why", module, "--report", str(path), *(["--format", "json"] if as_json else [])) in (0, 1, 2)


REPORT_KINDS = ["startup", "imports", "trace", "site", "compare", "why"]
DOCS = {k: _fixture(k) for k in REPORT_KINDS}


@FUZZ_CLI
@given(st.sampled_from(REPORT_KINDS).flatmap(lambda k: mutated_json(DOCS[k])), st.sampled_from(["html", "json"]))
def test_fuzz_report_from(scratch, doc, fmt):
    """`report --from` builds the page (and its derived data) from any document it accepts."""
    _count("report --from")
    path = scratch / "doc.json"
    path.write_text(_dump(doc))
    out = scratch / "page.out"
    if out.exists():
        out.unlink()
    rc = run_cli("report", "--from", str(path), "--format", fmt, "-o", str(out))
    assert rc in (0, 2)
    assert out.exists() == (rc == 0)


@FUZZ
@given(mutated_json(small(json.loads((FIXTURES / "report" / "imports.json").read_text()), keep=4)))
def test_fuzz_documents_validate_or_refuse(doc):
    """The validator itself: any value, any kind, one BadInput line or a pass."""
    _count("validate")
    from profiler.inputs.documents import check_document, kinds

    for kind in random.Random(0).sample(kinds(), 3):
        d = dict(doc) if isinstance(doc, dict) else doc
        if isinstance(d, dict):
            d["schema"] = f"importprof.{kind}/1"
        survives(check_document, d, "fuzz")


@FUZZ
@given(st.sampled_from(REPORT_KINDS).flatmap(lambda k: mutated_json(DOCS[k])), st.sampled_from(["startup", "imports", "trace", "site", "compare", "why", "diff", "report"]))
def test_fuzz_fast_check_agrees_with_jsonschema(doc, kind):
    """inputs.schema_compiler.conforms (the compiled fast path) says yes exactly when jsonschema finds no error."""
    _count("conforms")
    from profiler.inputs.schema_compiler import conforms, validator

    assert conforms(doc, kind) == (not any(True for _ in validator(kind).iter_errors(doc)))


def test_enough_examples_ran():
    """Last in the module: every target ran (close to) its examples."""
    expected = {"importtime", "strace", "strace native", "hyperfine", "site+phases", "json", "show", "diff", "why --report", "report --from", "validate", "conforms", "lazy"}
    missing = expected - set(RUN)
    if missing == expected:
        pytest.skip("run with the whole module to count the examples")
    assert not missing, missing
    for name in expected:
        assert RUN[name] >= 0.9 * (CLI_EXAMPLES if name in CLI_TARGETS else FUZZ_EXAMPLES), (name, RUN[name])
