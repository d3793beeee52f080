"""`importprof lazy` on Python 3.15: the real mechanism (PEP 810's `-X lazy_imports=all`), the
must-stay-eager set found by bisection through `sys.set_lazy_imports_filter`, and the `lazy`
statements to write, each measured alone; and the emulation on 3.11/3.14 agreeing with 3.15 on
what a program imports. Real interpreters (skipped with the reason where 3.15 or 3.14 is
absent: `make setup` provisions them), no timing thresholds."""

from __future__ import annotations

import os

import pytest

from profiler.capture.lazy import run_lazy
from profiler.model.target import Target
from profiler.model.words import WarningKind
from profiler.parse.lazy import parse_lazy_record
from tests._interpreters import pyenv_python
from tests.conftest import write_tree
from tests.test_lazy_cli import APP, HEAVY
from profiler.session import Session

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("lazyapp315"), APP)


@pytest.fixture(scope="module")
def doc315(app, cli):
    python = pyenv_python("3.15")
    res = cli("lazy", "--python", python, "--runs", "3", "--warmup", "1", "--profile-runs", "1", "--format", "json", "app.py", cwd=app)
    assert res.returncode == 0, res
    return res.json()


def test_315_bisects_through_the_filter_and_names_the_statements(doc315):
    d = doc315
    assert d["mode"] == "-X lazy_imports=all" and d["python_version"].startswith("3.15")
    assert [m["name"] for m in d["must_stay_eager"]] == ["mylib.plugin_hello"]
    assert d["identical_output"] is True
    assert HEAVY <= {a["name"] for a in d["avoided"]}
    by_site = {s["site"]: s for s in d["statements"]}
    st = by_site["app.py:4"]
    assert st["suggestion"] == "lazy import mylib.report" and st["importer"] == "__main__"
    assert st["identical_output"] is True and "mylib.report" in st["saving_modules"]
    assert 0 < st["saving_us"] <= d["avoided_us"] <= d["total_self_us"]
    p = d["prediction"]  # nothing emulated: the measured lazy time (the filter's launcher taken out)
    assert p["counts"] == {} and "nothing emulated" in p["how"]
    lazy_mean = {r["variant"]: r["mean"] for r in d["results"]}["lazy"]
    assert abs(p["lazy_mean"] - max(0.0, lazy_mean - p["launcher_s"])) < 1e-9


@pytest.mark.parametrize("prefix", ["3.11", "3.14"])
def test_the_emulation_imports_what_315_imports(prefix, app):
    """The same program: the modules executed under the emulation and under 3.15's own lazy
    imports (the app's own modules; the stdlib differs between versions)."""
    real = pyenv_python("3.15")
    emulated = pyenv_python(prefix)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    seen = {}
    for python in (real, emulated):
        import subprocess

        version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        out = run_lazy(python, version, Target("script", str(app / "app.py")), lazy=True, cwd=str(app), env=env, session=Session())
        assert out.returncode == 0, out.stderr
        rec = parse_lazy_record(out.record)
        seen[python] = (out.stdout, {n for n in rec.executed_names if n.startswith("mylib")},
                        {n for n in ("asyncio", "decimal", "json", "argparse") if n in rec.executed_names})
    assert seen[real] == seen[emulated]
    assert seen[real][1] == {"mylib", "mylib.registry"}  # plugin_hello and report never ran


def test_a_statement_measured_alone_leaves_lazy_what_the_bare_run_leaves_lazy(tmp_path):
    """On 3.15 a one-statement run goes through the filter for every import (-X lazy_imports=all):
    the filter leaves lazy what the sources write lazy (3.15's stdlib has `lazy import`s of its
    own), so the program starts with no more modules than bare (a cffi program: 110 before it
    under the old filter, 43 bare)."""
    import subprocess
    import sys

    py = pyenv_python("3.15")
    seen = tmp_path / "seen.txt"
    (tmp_path / "app.py").write_text(
        "import os, sys\nstart = len(sys.modules)\nimport json, csv, decimal\n"
        "open(os.environ['SEEN'], 'a').write('%d %d\\n' % ('lazy_imports=all' in ' '.join(sys.orig_argv), start))\n")
    env = {**os.environ, "SEEN": str(seen)}
    subprocess.run([py, "app.py"], cwd=tmp_path, env=env, check=True)
    bare = int(seen.read_text().split()[1])
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    p = subprocess.run([exe, "lazy", "--python", py, "--runs", "1", "--warmup", "0", "app.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "measuring the costliest import statement alone" in p.stderr or "one at a time" in p.stderr, p.stderr
    lazy_starts = [int(b) for a, b in (ln.split() for ln in seen.read_text().splitlines()[1:]) if a == "1"]
    assert lazy_starts and max(lazy_starts) <= bare + 2, (bare, lazy_starts)


def test_written_lazy_reads_what_a_source_writes_lazy():
    from profiler.analysis.lazy import written_lazy

    src = ('__lazy_modules__ = ["pkg.other", \'json\']\nlazy from pkg import sub\nlazy import a.b as c, d\n'
           "lazy from .x import y\nimport lazy_thing\nx = 'lazy import nothing'\n")
    assert written_lazy("p.q.mod", False, src) == [("p.q.mod", "a.b"), ("p.q.mod", "d"), ("p.q.mod", "pkg"),
                                                    ("p.q.mod", "p.q.x"), ("p.q.mod", "pkg.other"), ("p.q.mod", "json")]
    assert written_lazy("p.q", True, "lazy from . import y\n") == [("p.q", "p.q")]
    assert written_lazy("m", False, "import os\n") == []


@pytest.mark.parametrize("prefix", ["3.11", "3.15"])
def test_the_plain_check_runs_the_program_in_the_users_environment(prefix, tmp_path):
    """The bare runs of the check on the real 3.15 (the cross-check from 3.11, the reference on
    3.15) get the environment every other run gets: a program reading a variable the user set
    ran there with only importprof's two variables, raised KeyError and was called "does not run
    on 3.15" (from 3.11) or different from its launcher run (on 3.15)."""
    import subprocess
    import sys

    (tmp_path / "app.py").write_text('import os\nimport json, decimal\nprint("seen", os.environ["IMPORTPROF_SEEN"])\n')
    env = {**os.environ, "IMPORTPROF_SEEN": "7"}
    exe = os.path.join(os.path.dirname(sys.executable), "importprof")
    p = subprocess.run([exe, "lazy", "--python", pyenv_python(prefix), "--runs", "1", "--warmup", "0", "--format", "json",
                        "app.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import json

    d = json.loads(p.stdout)
    plain = d["plain_check"]
    assert plain["python_version"].startswith("3.15") and plain["skipped"] is None, plain
    assert plain["identical"] is True and plain["reference"] is None, plain
    assert not any(w.startswith(WarningKind.BARE_DIFFERS.value) for w in d["warnings"]), d["warnings"]
