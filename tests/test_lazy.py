"""Lazy-import candidates (imports --lazy-candidates): a small program written here, run under the real
interpreter with the `calls` hook."""

from __future__ import annotations

import os
from pathlib import Path

from profiler.analysis.lazy import lazy_candidates
from profiler.capture.phases import run_instrumented
from profiler.model.target import Target
from profiler.parse.phases import parse_calls, parse_phase_records
from profiler.session import Session


def _program(tmp: Path) -> Path:
    (tmp / "used_mod.py").write_text("import fractions\n\ndef f():\n    return 1\n")
    (tmp / "unused_mod.py").write_text("import tomllib\n\ndef g():\n    return 2\n")
    (tmp / "const_mod.py").write_text("LIMIT = 10\n")
    (tmp / "klass_mod.py").write_text("class K:\n    def __init__(self):\n        self.x = 1\n")
    (tmp / "self_call_mod.py").write_text("def h():\n    return 3\n\nh()  # called while importing only\n")
    (tmp / "prog.py").write_text(
        "import used_mod\nimport unused_mod\nimport const_mod\nimport klass_mod\nimport self_call_mod\n"
        "import math\n\n"
        "used_mod.f()\nklass_mod.K()\nprint(const_mod.LIMIT, math.sqrt(4))\n"
    )
    return tmp / "prog.py"


def test_lazy_candidates_on_a_small_program(real_python, tmp_path):
    prog = _program(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = run_instrumented(real_python, (), Target("script", str(prog)), ("phases", "import_sites", "calls"), cwd=str(tmp_path), env=env, session=Session())
    mods = parse_phase_records(res.phases)
    used = parse_calls(res.calls)
    assert {"used_mod", "klass_mod", "math"} <= used  # a function, a method, a C function
    cands = {c.name: c for c in lazy_candidates(mods, used)}
    assert "unused_mod" in cands and "used_mod" not in cands and "klass_mod" not in cands
    assert "math" not in cands
    assert "self_call_mod" in cands  # calls during its own import do not count
    assert "const_mod" in cands  # the documented limit: reading a constant is not a call
    assert "tomllib" in cands  # imported by unused_mod, never called
    unused = cands["unused_mod"]
    assert unused.site.file == str(prog) and unused.site.line == 2
    assert unused.cumulative_us >= cands["tomllib"].cumulative_us
    assert unused.subtree_used is False
    ordered = lazy_candidates(mods, used)
    assert [c.cumulative_us for c in ordered] == sorted((c.cumulative_us for c in ordered), reverse=True)
