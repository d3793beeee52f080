"""The pure parts of `importprof lazy --apply`: the PEP 810 codemod (golden files: the input's
first line names the lines to make lazy; the expected output per style sits beside it), its
idempotence and minimality, the static reasons and the filter module. No process is started
here except the compile check by a real 3.15, marked slow."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from profiler.analysis.lazy_edit import SourceError, apply_lazy, import_statements, resolve_from
from profiler.analysis.lazy_filter import filter_module
from profiler.analysis.lazy_static import importer_reasons, module_reasons, statement_reasons
from profiler.session import Session

GOLDEN = Path(__file__).parent / "fixtures" / "lazy_edit"
CASES = sorted(p for p in GOLDEN.glob("*.py") if ".expected." not in p.name)
STYLES = ("lazy-modules", "keyword")


def _case(path: Path):
    src = path.read_bytes()
    lines = [int(x) for x in src.splitlines()[0].split(b":")[1].split()]
    package = "mypkg.subpkg" if "package" in path.name else None
    return src, lines, package


def _expected(path: Path, style: str) -> bytes:
    return (GOLDEN / f"{path.stem}.expected.{style}.py").read_bytes()


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_golden(path, style):
    src, lines, package = _case(path)
    assert apply_lazy(src, lines, style=style, package=package).source == _expected(path, style)


def _only_insertions(old: bytes, new: bytes) -> bool:
    """Every byte of the old file is still there, in order: the edit only inserted."""
    it = iter(new)
    return all(b in it for b in old)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_edits_only_insert_and_a_second_run_changes_nothing(path, style):
    src, lines, package = _case(path)
    first = apply_lazy(src, lines, style=style, package=package)
    if path.stem == "after_decl" and style == "lazy-modules":
        # the one edit that is not an insertion: the declaration moves up to reach an earlier import
        strip = lambda b: b"".join(ln for ln in b.splitlines(True) if not ln.startswith(b"__lazy_modules__ ="))  # noqa: E731
        assert strip(first.source) == strip(src)
    else:
        assert _only_insertions(src, first.source)
    if style == "lazy-modules":
        added = first.source.count(b"\n") - src.count(b"\n")
        assert added <= 1 and first.source.count(b"__lazy_modules__ =") == max(1, src.count(b"__lazy_modules__ ="))
    # the same statements, found again in the edited file by what they import
    wanted = {s.modules for s in import_statements(src, package) if any(s.line <= ln <= s.end_line for ln in lines)}
    again_lines = [s.line for s in import_statements(first.source, package) if s.modules in wanted]
    second = apply_lazy(first.source, again_lines, style=style, package=package)
    assert second.source == first.source and not second.changed
    made = {m for _, ms in first.applied for m in ms}
    assert made <= {m for _, ms in second.already for m in ms}


def test_what_pep_810_cannot_defer_is_skipped_with_the_reason():
    src, lines, _ = _case(GOLDEN / "basic.py")
    e = apply_lazy(src, lines)
    assert dict(e.skipped) == {
        3: "a __future__ import",
        17: "inside a try block (kept eager by PEP 810)",
        20: "a star import (never lazy)",
        24: "inside a function (runs when called)",
    }
    assert [ln for ln, _ in e.applied] == [5, 6, 7, 14]


def test_the_declaration_comes_before_the_first_import_it_names():
    src = b'"""doc"""\nimport os\nX = 1\nimport json\n'
    out = apply_lazy(src, [4]).source
    assert out == b'"""doc"""\nimport os\nX = 1\n__lazy_modules__ = ["json"]\nimport json\n'
    tree = ast.parse(out)
    assert isinstance(tree.body[0], ast.Expr)  # the docstring stays the docstring


def test_line_endings_and_encoding_are_kept():
    src = "# -*- coding: latin-1 -*-\r\nimport json\r\nNAME = 'caf\xe9'\r\n".encode("latin-1")
    out = apply_lazy(src, [2]).source
    assert out == "# -*- coding: latin-1 -*-\r\n__lazy_modules__ = [\"json\"]\r\nimport json\r\nNAME = 'caf\xe9'\r\n".encode("latin-1")
    assert apply_lazy(src, [2], style="keyword").source == src.replace(b"import json", b"lazy import json")


def test_a_file_that_does_not_parse_is_an_error_naming_the_line():
    with pytest.raises(SourceError, match="line 2"):
        apply_lazy(b"import json\ndef (:\n", [1])


def test_a_declaration_that_is_not_a_literal_is_left_to_the_user():
    src = b"__lazy_modules__ = NAMES\nimport json\n"
    e = apply_lazy(src, [2])
    assert e.source == src and "not a literal" in e.skipped[0][1]


def test_relative_imports_resolve_against_the_package():
    assert resolve_from("sub", 1, "pkg.inner") == "pkg.inner.sub"
    assert resolve_from(None, 1, "pkg") == "pkg"
    assert resolve_from("x", 2, "pkg.inner") == "pkg.x"
    assert resolve_from("x", 3, "pkg.inner") is None
    assert resolve_from("x", 1, None) is None


@pytest.mark.slow
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_the_keyword_output_compiles_on_a_real_315(path):
    from tests._interpreters import pyenv_python
    from profiler.capture.lazy_apply import compile_with

    py = pyenv_python("3.15")
    for style in STYLES:
        assert compile_with(py, str(path), _expected(path, style), session=Session()) is None


# ------------------------------------------------------------------ static reasons

IMPORTER = b'''\
import sys
import app.plugin
import app.registry
import json as j
from decimal import Decimal
import fractions
__all__ = ["fractions"]
PRICE = Decimal(1)


def main():
    return j.dumps(app.registry.names())
'''


def _reasons(line):
    stmt = next(s for s in import_statements(IMPORTER) if s.line == line)
    return [(r.kind, r.text) for r in importer_reasons(IMPORTER, stmt)]


def test_importer_reasons():
    assert _reasons(1) == [("unused", "`sys` never used: imported for its side effect")]
    assert _reasons(2) == [("unused", "`app.plugin` never used: imported for its side effect")]
    assert _reasons(3) == []  # used in a function only: deferred, the intended case
    assert _reasons(4) == []
    assert _reasons(5) == [("module-level", "`Decimal` is used at module level (line 8): a lazy import loads it at once")]
    assert _reasons(6) == []  # re-exported through __all__


def test_module_reasons_name_each_side_effect():
    src = b'''\
import atexit, codecs, signal, sys, threading, os
from app.registry import register
register("hello")
atexit.register(print, "bye")
codecs.register(lambda name: None)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
threading.Thread(target=print).start()
os.getcwd = lambda: "/"
sys.excepthook = None


def later():
    atexit.register(print)
'''
    texts = [r.text for r in module_reasons(src)]
    assert texts == [
        "its top level calls app.registry.register() and drops the result (a registration?) (line 3)",
        "its top level registers an atexit handler (line 4)",
        "its top level registers a codec search function (line 5)",
        "its top level installs a signal handler (line 6)",
        "its top level starts a thread (line 7)",
        "its top level monkeypatches os.getcwd (line 8)",
        "its top level changes sys.excepthook (line 9)",
    ]
    assert module_reasons(b"import json\nX = json.dumps(1)\n\ndef f():\n    json.loads('1')\n") == []


def test_statement_reasons_say_the_chain():
    stmt = import_statements(b"import app.report\n")[0]
    found = statement_reasons(b"import app.report\ndef f():\n    return app.report\n", stmt,
                              [("app.report", b"import app.db\n"), ("app.db", b"import atexit\natexit.register(print)\n")])
    assert [r.text for r in found] == ["app.report -> app.db: its top level registers an atexit handler (line 2)"]


def test_filter_module_keeps_exactly_the_eager_set():
    text = filter_module(["b.c", "a", "a"], target="app.py", python="3.15.2")
    ns: dict = {}
    exec(compile(text, "filter.py", "exec"), ns)  # on this interpreter: no PEP 810, it only defines
    assert ns["EAGER"] == frozenset({"a", "b.c"})
    assert ns["keep_lazy"]("app", "json", None) is True
    assert ns["keep_lazy"]("app", "b.c", None) is False


# ------------------------------------------------------------------ the workflow's pure helpers


def test_requires_python_is_read_from_the_project_upwards(tmp_path):
    from profiler.compose.lazy_apply_state import lower_bound, requires_python
    from tests.conftest import write_tree

    root = write_tree(tmp_path, {"pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.10, <4"\n',
                                 "src/pkg/__init__.py": ""})
    spec, where = requires_python(str(root / "src" / "pkg"))
    assert spec == ">=3.10, <4" and where == str(root / "pyproject.toml")
    assert lower_bound(spec) == (3, 10)
    assert lower_bound("~=3.15") == (3, 15)
    assert lower_bound(">3.14") == (3, 15)
    assert lower_bound("<4") is None


def test_outputs_that_change_between_two_runs_are_compared_as_much_as_they_allow():
    from profiler.model.lazy import ProgramOutput
    from profiler.compose.lazy_apply_state import Job as _Job
    from profiler.compose.lazy_apply_verify import EXACT, EXIT_ONLY, MASKED, _differences, comparison_modes

    same, timed, scored, noisy = (_Job("py", n, ()) for n in ("same", "timed", "scored", "noisy"))
    first = {same: ProgramOutput("ok\n", "", 0), timed: ProgramOutput("", "Ran 5 tests in 0.12s\n", 0),
             scored: ProgramOutput("", "5 checks, load 0.12\n", 0), noisy: ProgramOutput("seed a\n", "", 0)}
    second = {same: ProgramOutput("ok\n", "", 0), timed: ProgramOutput("", "Ran 5 tests in 0.31s\n", 0),
              scored: ProgramOutput("", "5 checks, load 0.31\n", 0), noisy: ProgramOutput("seed b\n", "", 0)}
    modes = comparison_modes(first, second)
    # a duration is never a difference (analysis.lazy.DURATION): the test runner's output stays exact
    assert modes == {same: EXACT, timed: EXACT, scored: MASKED, noisy: EXIT_ONLY}
    after = {same: ProgramOutput("ok\n", "", 0), timed: ProgramOutput("", "Ran 4 tests in 0.2s\n", 0),
             scored: ProgramOutput("", "4 checks, load 0.2\n", 0), noisy: ProgramOutput("seed c\n", "", 1)}
    diffs = _differences(first, after, modes)
    assert diffs[same] is None
    assert diffs[timed] == "stderr line 1: 'Ran 4 tests in 0.2s' instead of 'Ran 5 tests in 0.12s'"  # counts still count
    assert diffs[scored] == "stderr line 1: '4 checks, load #' instead of '5 checks, load #'"
    assert diffs[noisy] == "exit code 1 instead of 0"
    assert _differences(first, {**after, timed: ProgramOutput("", "Ran 5 tests in 9.9s\n", 0),
                                scored: ProgramOutput("", "5 checks, load 9.9\n", 0)}, modes) == {
        same: None, timed: None, scored: None, noisy: "exit code 1 instead of 0"}


def test_code_that_never_runs_on_import_is_no_reason():
    src = b'''import sys, time
from app.registry import register
if __name__ == "__main__":
    register("demo")
    time.sleep(1)
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    sys.excepthook = None
'''
    assert module_reasons(src) == []


def test_a_package_init_reexports_what_it_imports_from():
    src = b"from ._impl import helper\nimport app.plugin\n"
    stmts = import_statements(src, "app")
    assert importer_reasons(src, stmts[0], "app/__init__.py") == []
    assert [r.kind for r in importer_reasons(src, stmts[1], "app/__init__.py")] == ["unused"]


def test_only_the_imported_modules_own_side_effects_block():
    from profiler.analysis.lazy_static import blocking

    stmt = import_statements(b"import app.report\n")[0]
    found = statement_reasons(b"import app.report\ndef f():\n    return app.report\n", stmt,
                              [("app.report", b"import atexit\natexit.register(print)\n"),
                               ("app.db", b"import atexit\natexit.register(print)\n")])
    assert [r.via for r in found] == [None, "app.report -> app.db"]
    assert blocking(found) == found[:1]


def test_original_lines_maps_an_edited_file_back():
    from profiler.analysis.lazy_edit import apply_lazy, original_lines

    src = b"import os\nimport json\n\nimport decimal\nX = 1\n"
    edited = apply_lazy(src, [2, 4]).source
    assert edited.startswith(b"import os\n__lazy_modules__ = ")
    m = original_lines(src, edited)
    assert m[1] == 1 and 2 not in m and m[3] == 2 and m[5] == 4 and m[6] == 5
    kw = apply_lazy(src, [2], style="keyword").source
    assert original_lines(src, kw) == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
