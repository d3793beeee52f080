"""3.12+: import boundaries, failures and sites from sys.monitoring, nothing replaced (issue 41).

Where the phase split is not asked (`imports`' outcome run, import sites for `why`/`lazy`,
`--lazy-candidates`), the phases hook records each import from sys.monitoring's events on
importlib's own `_find_and_load` code object instead of wrapping it. Its records must be the
wrapper's, field for field (name, failed, parent, depth, site, launcher), on every interpreter
that has sys.monitoring, and the program must see importlib's own functions."""

from __future__ import annotations

import subprocess

import pytest

from profiler.capture.bootstrap import bootstrap_argv
from profiler.capture.phases import run_instrumented
from profiler.model.target import Target
from profiler.model.words import TargetKind
from profiler.parse.phases import parse_phase_records
from tests._interpreters import pyenv_python
from profiler.session import Session

pytestmark = pytest.mark.slow

PROGRAM = (
    "try:\n    import nosuchmod\nexcept ImportError:\n    pass\n"
    "import json, email.parser\nfrom xml import dom\n"
    "import importlib; importlib.import_module('csv')\n"
)


@pytest.mark.parametrize("version", ["3.12", "3.13", "3.14", "3.15"])
def test_monitoring_records_equal_the_wrappers(version):
    python = pyenv_python(version)
    target = Target(TargetKind.CODE, PROGRAM)
    got = {}
    for split in (True, False):
        run = run_instrumented(python, (), target, ("phases", "import_sites", "site"), split=split, session=Session())
        got[split] = [(m.name, m.failed, m.parent, m.depth, m.site and (m.site.file, m.site.line, m.site.importer), m.launcher)
                      for m in parse_phase_records(run.phases)]
    assert got[False] == got[True]
    names = [r[0] for r in got[False]]
    assert "json" in names and "csv" in names
    assert [r[1] for r in got[False] if r[0] == "nosuchmod"] == [True]


@pytest.mark.parametrize("version", ["3.12", "3.15"])
def test_nothing_replaced_under_monitoring(version, tmp_path):
    """The program reads importlib's own `_find_and_load` (no __wrapped__) when the split is not
    asked; with it (--phases), the wrapper stays (the phase split wraps the loaders)."""
    python = pyenv_python(version)
    code = "import _frozen_importlib as b; print(hasattr(b._find_and_load, '__wrapped__'))"
    seen = {}
    for split in (True, False):
        options = {"phases_path": str(tmp_path / f"p{split}.out"), "errors_path": str(tmp_path / "e.out")}
        if not split:
            options["phases_split"] = False
        argv = bootstrap_argv(python, [], Target(TargetKind.CODE, code), ("phases",), options)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        seen[split] = p.stdout.strip()
    assert seen == {True: "True", False: "False"}
