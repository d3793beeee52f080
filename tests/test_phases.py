"""Import phases (imports --phases): the bootstrap hook in real interpreters, the parser and the
accounting on real records."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from profiler.analysis.phases import children_index, drop_launcher, phases_by_name, subtree
from profiler.capture.phases import run_instrumented
from profiler.errors import BadInput
from profiler.model.target import Target
from profiler.parse.phases import parse_calls, parse_phase_records
from profiler.session import Session

SITE_FIXTURES = Path(__file__).parent / "fixtures" / "site"


def check_accounting(mods):
    """The invariant of every record: find + read + unmarshal + exec + Σ children's cumulative
    == cumulative; the records that break it, as (name, cumulative, what adds up)."""
    kids = children_index(mods)
    bad = []
    for m in mods:
        got = m.self_us + sum(c.cumulative_us for c in kids.get(m.index, ()))
        if got != m.cumulative_us:
            bad.append((m.name, m.cumulative_us, got))
    return bad


def _env():
    env = dict(os.environ)
    for k in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH"):
        env.pop(k, None)
    return env


def _project(tmp_path: Path) -> Path:
    pkg = tmp_path / "proj" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import alpha\n")
    (pkg / "alpha.py").write_text("import pkg.beta\nVALUE = sum(range(1000))\n")
    (pkg / "beta.py").write_text("import json\nimport decimal\nX = 1\n")
    return tmp_path / "proj"


def _run(python, cwd, code, *, flags=(), fresh=False, hooks=("phases",)):
    res = run_instrumented(python, flags, Target("code", code), hooks, fresh_pycache=fresh, cwd=str(cwd), env=_env(), session=Session())
    return parse_phase_records(res.phases)


def test_accounting_is_exact_to_the_microsecond(real_python, tmp_path):
    proj = _project(tmp_path)
    mods = _run(real_python, proj, "import pkg, email.mime.text")
    names = {m.name for m in mods}
    assert {"pkg", "pkg.alpha", "pkg.beta", "decimal", "email.mime.text"} <= names
    # the invariant, on every record of this run: phases + children's cumulative == cumulative
    assert check_accounting(mods) == []
    by = phases_by_name(mods)
    assert by["pkg.alpha"].parent == by["pkg"].index
    assert by["pkg.beta"].parent == by["pkg.alpha"].index
    # a source module has a real find, read and unmarshal (pyc or compile) and exec
    alpha = by["pkg.alpha"]
    assert alpha.find_us > 0 and alpha.read_us > 0 and alpha.unmarshal_us > 0 and alpha.exec_us > 0
    assert alpha.origin.endswith("alpha.py")
    # a subtree's self times add up to the root's cumulative
    assert sum(m.self_us for m in subtree(mods, by["pkg"])) == by["pkg"].cumulative_us


def test_missing_and_stale_pyc_show_compiled(real_python, tmp_path):
    proj = _project(tmp_path)
    cache = tmp_path / "cache"
    flags = ("-X", f"pycache_prefix={cache}")
    first = phases_by_name(_run(real_python, proj, "import pkg", flags=flags))
    assert first["pkg.alpha"].compiled is True  # no .pyc yet: compiled from source
    assert list(cache.rglob("alpha*.pyc")), "the first run wrote the .pyc"
    second = phases_by_name(_run(real_python, proj, "import pkg", flags=flags))
    assert second["pkg.alpha"].compiled is False  # a valid .pyc: unmarshalled
    # stale: the source changes (size and mtime differ from what the .pyc recorded)
    alpha = proj / "pkg" / "alpha.py"
    alpha.write_text("import pkg.beta\nVALUE = sum(range(2000))  # changed\n")
    st = alpha.stat()
    os.utime(alpha, (st.st_atime, st.st_mtime + 10))
    third = phases_by_name(_run(real_python, proj, "import pkg", flags=flags))
    assert third["pkg.alpha"].compiled is True
    assert third["pkg.beta"].compiled is False  # untouched module still uses its .pyc
    # cold-pyc style run: a fresh empty cache for the run compiles everything from source
    cold = phases_by_name(_run(real_python, proj, "import pkg", fresh=True))
    assert cold["pkg.beta"].compiled is True


def test_import_sites_name_file_and_line(real_python, tmp_path):
    proj = _project(tmp_path)
    (proj / "main.py").write_text("import os\n\n\nimport pkg  # line 4\n")
    res = run_instrumented(
        real_python, (), Target("script", str(proj / "main.py")), ("phases", "import_sites"), cwd=str(proj), env=_env(), session=Session()
    )
    by = phases_by_name(parse_phase_records(res.phases))
    assert by["pkg"].site.file == str(proj / "main.py") and by["pkg"].site.line == 4
    assert by["pkg"].site.importer == "__main__"
    assert by["pkg.alpha"].site.file.endswith(os.path.join("pkg", "__init__.py"))
    assert by["pkg.alpha"].site.line == 1
    assert by["pkg.beta"].site.file.endswith("alpha.py") and by["pkg.beta"].site.line == 1
    assert by["decimal"].site.file.endswith("beta.py") and by["decimal"].site.line == 2


def test_failed_import_is_recorded_and_accounted(real_python, tmp_path):
    mods = _run(real_python, tmp_path, "try:\n import no_such_module_xyz\nexcept ImportError:\n pass\nimport decimal")
    by = phases_by_name(mods)
    assert by["no_such_module_xyz"].failed is True
    assert by["decimal"].failed is False
    assert check_accounting(mods) == []


def test_debian_interpreter_too(debian_python, tmp_path):
    mods = _run(debian_python, tmp_path, "import decimal, fractions")
    assert check_accounting(mods) == []
    assert "fractions" in phases_by_name(mods)


def test_parse_real_fixture_holds_the_invariant():
    mods = parse_phase_records((SITE_FIXTURES / "base-3.11.7.phases.jsonl").read_text())
    assert len(mods) > 50
    assert check_accounting(mods) == []
    by = phases_by_name(mods)
    assert by["email.message"].site.importer == "__main__"
    assert by["certifi"].context[0] == "pth"
    assert all(not m.launcher for m in drop_launcher(mods))


def test_parse_tolerates_truncated_last_line_and_names_bad_lines():
    text = (SITE_FIXTURES / "base-3.11.7.phases.jsonl").read_text()
    lines = text.splitlines(keepends=True)
    truncated = "".join(lines[:5]) + lines[5][:20]
    assert len(parse_phase_records(truncated)) == 5
    broken = "".join(lines[:3]) + "{not json\n" + "".join(lines[3:6])
    with pytest.raises(BadInput, match="line 4"):
        parse_phase_records(broken)
    bad_number = lines[0].replace('"cumulative_us": ', '"cumulative_us": "x", "_": ')
    with pytest.raises(BadInput, match="line 1"):
        parse_phase_records(bad_number)
    assert parse_calls('"json"\n"os"\n') == frozenset({"json", "os"})
    with pytest.raises(BadInput):
        parse_calls("3\n")


@pytest.mark.parametrize("hooks", [("phases",), ("phases", "import_sites", "site")])
def test_site_main_is_charged_to_the_site_record(real_python, tmp_path, hooks):
    """Issue 11.3: under the launcher `site.main()` runs after `import site` returned; a plain
    run executes it inside that import (-X importtime's `site` row holds it). So its time and
    its imports (sitecustomize at least) belong to the `site` record: the phases of `site` add
    up to its self time instead of a few µs."""
    mods = _run(real_python, tmp_path, "pass", hooks=hooks)
    assert check_accounting(mods) == []
    by = phases_by_name(mods)
    site = by["site"]
    assert by["sitecustomize"].parent == site.index  # imported by site.main(); was -1
    kids = [m for m in mods if m.parent == site.index]
    assert site.cumulative_us >= sum(m.cumulative_us for m in kids) > 0
    assert site.exec_us > 0
    no_site = _run(real_python, tmp_path, "pass", flags=("-S",))
    assert "site" not in {m.name for m in no_site}
