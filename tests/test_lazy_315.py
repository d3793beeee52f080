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
