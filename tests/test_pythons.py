"""Interpreters of every version: discovery, capabilities, `importprof pythons` (real
interpreters from pyenv; a version this machine lacks is skipped with the reason)."""

from __future__ import annotations

import json
import subprocess

import pytest

pytestmark = pytest.mark.slow  # real interpreters, every test

from tests._interpreters import pyenv_python

pytestmark = pytest.mark.slow  # every test here runs real interpreters


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.9", "3.10", "3.12", "3.13"])
def test_a_hook_that_writes_at_exit_does_not_crash_the_interpreter(version, tmp_path):
    # 3.7-3.9 call the atexit module back through a borrowed pointer: the launcher once let it
    # be freed, and every hook writing at exit ended in a segfault (exit -11).
    from profiler.capture.bootstrap import bootstrap_argv
    from profiler.model.target import Target

    out = tmp_path / "modules.json"
    argv = bootstrap_argv(pyenv_python(version), [], Target("code", "import json; print('ok')"),
                          ["oxidized_modules"], {"oxidized_modules_out": str(out)})
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    names = {m["name"] for m in json.loads(out.read_text())["modules"]}
    assert "json" in names


@pytest.mark.parametrize("version", ["3.7", "3.9", "3.10", "3.13"])
def test_a_hook_writes_at_exit_even_when_the_program_imports_atexit(version, tmp_path):
    # before 3.10 a second atexit module (the program's own import, once the launcher hid the
    # first) took over the exit callbacks: the hook's never ran (exit 0, no file written)
    from profiler.capture.bootstrap import bootstrap_argv
    from profiler.model.target import Target

    out = tmp_path / "modules.json"
    code = "import atexit, logging; atexit.register(print, 'program exit'); print('ok')"
    argv = bootstrap_argv(pyenv_python(version), [], Target("code", code),
                          ["oxidized_modules"], {"oxidized_modules_out": str(out)})
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\nprogram exit\n"
    assert "logging" in {m["name"] for m in json.loads(out.read_text())["modules"]}


# --- discovery -------------------------------------------------------------------------------

import os

from profiler.capture.interpreter import candidates, expand_spec, resolve_python, resolve_pythons
from profiler.errors import BadInput
from profiler.model.interpreter import require, supported_commands, supported_variants
from tests._interpreters import PYENV_ROOT, find_pyenv_python
from tests.conftest import assert_one_line_error

PYENV_VERSIONS = sorted(os.listdir(os.path.join(PYENV_ROOT, "versions"))) if os.path.isdir(os.path.join(PYENV_ROOT, "versions")) else []


def _need_pyenv():
    if not PYENV_VERSIONS:
        pytest.skip(f"pyenv has no versions under {PYENV_ROOT} (pyenv install 3.12)")


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_the_identification_probe_runs_on_old_pythons(version):
    interp = resolve_python(pyenv_python(version), session=Session())
    assert interp.version.startswith(version + ".")
    assert interp.implementation == "cpython"
    assert interp.enable_shared is True  # pyenv builds here are --enable-shared
    assert interp.include and os.path.isfile(os.path.join(interp.include, "Python.h"))
    assert not interp.is_venv


def test_pyenv_star_finds_every_pyenv_version_once():
    _need_pyenv()
    found = resolve_pythons(["pyenv:*"], session=Session())
    assert sorted(i.version for i in found) == sorted(v for v in PYENV_VERSIONS)
    assert all(i.source == "pyenv" for i in found)
    assert [i.version_tuple for i in found] == sorted(i.version_tuple for i in found)


def test_a_version_prefix_is_matched_by_components():
    _need_pyenv()
    [one] = resolve_pythons(["pyenv:3.12"], session=Session()) if find_pyenv_python("3.12") else pytest.skip("no pyenv 3.12")
    assert one.version.startswith("3.12.")
    # 3.1 is not a prefix of 3.12 (components, not characters)
    with pytest.raises(BadInput, match=r"pyenv:3\.1: no pyenv interpreter matches 3\.1 \(installed: "):
        resolve_pythons(["pyenv:3.1"], session=Session())


def test_all_lists_pyenv_and_the_system_pythons_each_once():
    _need_pyenv()
    found = resolve_pythons(["all"], session=Session())
    reals = [(os.path.realpath(i.path), i.prefix) for i in found]
    assert len(reals) == len(set(reals))
    versions = {i.version for i in found}
    assert set(PYENV_VERSIONS) <= versions
    if os.path.exists("/usr/bin/python3.11"):
        assert "/usr/bin/python3.11" in [i.path for i in found]
    # python3 on PATH (a pyenv shim here) is one of them, not an extra row
    shim_real = os.path.realpath(resolve_python("python3", session=Session()).path)
    assert sum(os.path.realpath(i.path) == shim_real for i in found) == 1


def test_duplicates_by_real_executable_are_measured_once(debian_python):
    found = resolve_pythons(["/usr/bin/python3", debian_python, "/usr/bin/python3"], session=Session())
    if os.path.realpath("/usr/bin/python3") != os.path.realpath(debian_python):
        pytest.skip("/usr/bin/python3 is not python3.11 on this machine")
    assert len(found) == 1


def test_a_venv_is_kept_beside_its_base_interpreter(tmp_path):
    import subprocess

    base = pyenv_python("3.12")
    venv = tmp_path / "v312"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    found = resolve_pythons([str(venv / "bin" / "python"), base], session=Session())
    assert [i.path for i in found] == [str(venv / "bin" / "python"), base]
    assert found[0].is_venv and not found[1].is_venv
    # the active venv is found by `venv` and by `all`
    import subprocess as sp

    code = ("from profiler.capture.interpreter import resolve_pythons as r; from profiler.session import Session; "
            "print([i.path for i in r(['venv'], session=Session())])")
    out = sp.run([__import__("sys").executable, "-c", code], env={**os.environ, "VIRTUAL_ENV": str(venv)},
                 capture_output=True, text=True, check=True).stdout
    assert str(venv / "bin" / "python") in out


def test_a_shim_is_resolved_to_the_interpreter_it_runs(tmp_path):
    real = pyenv_python("3.13")
    shim = tmp_path / "python"
    shim.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    [interp] = resolve_pythons([str(shim)], session=Session())
    assert interp.path == real and interp.requested == str(shim)


def test_a_private_pyenv_root_is_searched(tmp_path, monkeypatch):
    # PYENV_ROOT is honoured; a version folder whose interpreter does not start is skipped
    # with a warning, the others are kept
    real = pyenv_python("3.10")
    good = tmp_path / "versions" / "3.10.99" / "bin"
    good.mkdir(parents=True)
    (good / "python").symlink_to(real)
    bad = tmp_path / "versions" / "3.11.99" / "bin"
    bad.mkdir(parents=True)
    (bad / "python").write_text("#!/bin/sh\nexit 1\n")
    (bad / "python").chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    assert candidates("pyenv", "3.11") == [str(bad / "python")]
    warnings = []
    found = resolve_pythons(["pyenv:*"], warn=warnings.append, session=Session())
    assert [i.version[:4] for i in found] == ["3.10"]
    assert len(warnings) == 1 and "3.11.99" in warnings[0]
    with pytest.raises(BadInput, match="names 1|no working"):
        resolve_pythons(["pyenv:3.11"], session=Session())  # the only match does not start: nothing left
    assert expand_spec("/x/python") == [("/x/python", None)]


def test_one_python_where_one_is_taken():
    [v312] = [find_pyenv_python("3.12")] if find_pyenv_python("3.12") else pytest.skip("no pyenv 3.12")
    assert resolve_python("pyenv:3.12", session=Session()).path == resolve_python(v312, session=Session()).path
    with pytest.raises(BadInput, match="names .* interpreters .*this command takes one"):
        resolve_python("pyenv:*", session=Session())


# --- capabilities ----------------------------------------------------------------------------

def test_capabilities_follow_the_version():
    py27 = resolve_python(pyenv_python("2.7"), session=Session())
    py36 = resolve_python(pyenv_python("3.6"), session=Session())
    py37 = resolve_python(pyenv_python("3.7"), session=Session())
    py310 = resolve_python(pyenv_python("3.10"), session=Session())
    py311 = resolve_python(pyenv_python("3.11"), session=Session())
    py313 = resolve_python(pyenv_python("3.13"), session=Session())
    assert not py27.supports("importtime") and py37.supports("importtime")
    assert not py27.supports("isolated") and py36.supports("isolated")
    assert not py310.supports("frozen_modules") and py311.supports("frozen_modules")
    assert py311.supports("oxidized") and not py313.supports("oxidized")
    assert py313.supports("frozen") and not py37.supports("frozen")
    assert supported_commands(py27)["startup"] is None
    assert "3.7+" in supported_commands(py27)["imports"]
    assert supported_variants(py313)["in-memory"] and supported_variants(py313)["frozen"] is None
    with pytest.raises(BadInput) as err:
        require(py36, "imports")
    assert str(err.value) == f"{py36.path}: `imports` is unavailable: -X importtime: needs Python 3.7+ (this is {py36.version})"
    with pytest.raises(BadInput, match="variant in-memory is unavailable: .*python-oxidized-importer 0.9.*3.8 to 3.11"):
        require(py313, "in-memory")
    require(py37, "importtime")  # no error


# --- importprof pythons ----------------------------------------------------------------------

def test_pythons_lists_every_interpreter_found(cli):
    _need_pyenv()
    res = cli("pythons", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["schema"] == "importprof.pythons/1" and "machine" in doc
    rows = doc["pythons"]
    assert set(PYENV_VERSIONS) <= {r["version"] for r in rows}
    for r in rows:
        assert r["name"] == r["path"] and r["implementation"] == "cpython"
        assert isinstance(r["enable_shared"], bool)
        cmds = {c["name"]: c for c in r["commands"]}
        assert cmds["startup"]["supported"] is True
        if r["version"].startswith("2.7"):
            assert cmds["imports"]["supported"] is False and "3.7+" in cmds["imports"]["reason"]
    table = cli("pythons")
    assert table.returncode == 0, table
    for v in PYENV_VERSIONS:
        assert v in table.stdout
    assert "--enable-shared" in table.stdout and "not available:" in table.stdout


def test_pythons_with_specs_and_a_spec_that_matches_nothing(cli):
    _need_pyenv()
    res = cli("pythons", "--python", "pyenv:3.13", "--python", "pyenv:3.13", "--format", "json")
    assert res.returncode == 0, res
    assert [r["version"][:4] for r in res.json()["pythons"]] == ["3.13"]
    bad = cli("pythons", "--python", "pyenv:9.9")
    assert_one_line_error(bad, 2, "pyenv:9.9", "no pyenv interpreter matches 9.9")


# --- the commands on several versions --------------------------------------------------------

import shutil  # noqa: E402
from profiler.session import Session

MATRIX = ["3.8", "3.12", "3.13"]


@pytest.mark.parametrize("version", MATRIX)
def test_imports_on_each_version(cli, version):
    res = cli("imports", "--python", pyenv_python(version), "-r", "1", "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".")
    mods = {m["name"]: m for m in doc["modules"]}
    assert "json" in mods and mods["json"]["cumulative_us"] >= mods["json"]["self_us"] >= 0


@pytest.mark.parametrize("version", MATRIX)
def test_imports_phases_and_lazy_candidates_on_each_version(cli, version):
    py = pyenv_python(version)
    res = cli("imports", "--phases", "--python", py, "-r", "1", "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    mods = {m["name"]: m for m in res.json()["modules"]}
    assert mods["json.decoder"]["exec_us"] is not None and mods["json.decoder"]["exec_us"] >= 0
    lazy = cli("imports", "--lazy-candidates", "--python", py, "-r", "1", "-c", "import json")
    assert lazy.returncode == 0, lazy


@pytest.mark.parametrize("version", MATRIX)
def test_why_on_each_version(cli, version):
    res = cli("why", "--python", pyenv_python(version), "-r", "1", "--format", "json", "re", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".") and doc["module"] == "re"
    hops = [h["name"] for h in doc["chains"][0]["hops"]]
    assert hops[0] == "json" and hops[-1] == "re"


@pytest.mark.parametrize("version", MATRIX)
def test_trace_on_each_version(cli, version):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (make setup installs it)")
    res = cli("trace", "--python", pyenv_python(version), "--format", "json", "-c", "import json")
    if res.returncode == 3 and "ptrace" in res.stderr:
        pytest.skip("strace cannot trace here")
    assert res.returncode == 0, res
    names = {m["name"]: m for m in res.json()["modules"]}
    assert "json" in names and names["json"]["syscalls"] > 0  # attributed from -X importtime's boundaries


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_trace_counts_a_python_without_importtime(cli, version):
    """2.7 and 3.6 have no -X importtime: traced bare, counted, modules inferred from lookups."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (make setup installs it)")
    res = cli("trace", "--python", pyenv_python(version), "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert sum(s["count"] for s in doc["syscalls"]) > 100
    assert [p["attribution"] for p in doc["processes"] if p["python"]] == ["lookups"]
    assert "importprof_syscalls" not in doc["harness"]


@pytest.mark.parametrize("version,command", [("2.7", "imports"), ("3.6", "imports"), ("2.7", "why"), ("3.6", "why")])
def test_a_python_that_cannot_serve_a_command_is_refused_in_one_line(cli, version, command):
    py = pyenv_python(version)
    args = {"imports": ("imports", "--python", py, "-c", "pass"), "trace": ("trace", "--python", py, "-c", "pass"),
            "why": ("why", "--python", py, "json", "-c", "import json")}[command]
    assert_one_line_error(cli(*args), 2, "is unavailable", "needs Python 3.7+", version)


def test_startup_on_every_interpreter_found(cli):
    _need_pyenv()
    res = cli("startup", "--python", "all", "-r", "1", "--variant", "default", "--format", "json", "-c", "pass")
    assert res.returncode == 0, res
    versions = [r["python_version"] for r in res.json()["results"]]
    assert set(PYENV_VERSIONS) <= set(versions)  # 2.7 included: timing needs nothing inside it
    assert len(versions) == len(set(zip(versions, [r["python"] for r in res.json()["results"]])))


def test_startup_leaves_out_the_variants_an_old_python_lacks(cli):
    res = cli("startup", "--python", pyenv_python("2.7"), "--python", "pyenv:3.13", "-r", "1", "--format", "json", "-c", "pass")
    assert res.returncode == 0, res
    doc = res.json()
    rows = {(r["variant"], r["python_version"][:4]) for r in doc["results"]}
    assert {("default", "2.7."), ("no-site", "2.7."), ("no-frozen", "3.13"), ("isolated", "3.13")} <= rows
    assert ("isolated", "2.7.") not in rows and ("no-frozen", "2.7.") not in rows
    assert any("variant no-frozen left out" in n and "3.11+" in n for n in doc["notes"])
    assert not any(r.get("failed") for r in doc["results"])


def test_asdf_and_uv_installs_are_found(tmp_path, monkeypatch):
    # their layouts, with real interpreters linked in: asdf installs/python/VERSION/bin/python,
    # uv cpython-VERSION-PLATFORM/bin/python3
    real = pyenv_python("3.12")
    asdf = tmp_path / "asdf" / "installs" / "python" / "3.12.1" / "bin"
    asdf.mkdir(parents=True)
    (asdf / "python").symlink_to(real)
    uv = tmp_path / "uv" / "cpython-3.12.1-linux-x86_64-gnu" / "bin"
    uv.mkdir(parents=True)
    (uv / "python3").symlink_to(real)
    monkeypatch.setenv("ASDF_DATA_DIR", str(tmp_path / "asdf"))
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(tmp_path / "uv"))
    assert candidates("asdf", "3.12") == [str(asdf / "python")]
    assert candidates("uv", "3.12") == [str(uv / "python3")]
    assert candidates("uv", "3.13") == []
    found = resolve_pythons(["asdf:3.12", "uv:*"], session=Session())
    assert len(found) == 1 and found[0].version.startswith("3.12.")  # one real executable, measured once
    assert found[0].source == "asdf"


def test_lazy_and_doctor_refuse_a_3_7_in_one_line_and_report_leaves_their_part_out(cli, tmp_path):
    py = pyenv_python("3.7")
    for command in ("lazy", "doctor"):
        assert_one_line_error(cli(command, "--python", py, "-c", "pass"), 2, "is unavailable", "3.8+")
    page = tmp_path / "r.html"
    res = cli("report", "--python", py, "--runs", "1", "--import-runs", "1", "--skip", "trace", "--format", "json",
              "-o", page, "-c", "pass")
    assert res.returncode == 0, res
    skipped = {s["part"]: s["reason"] for s in json.loads(page.read_text())["skipped"]}
    assert "3.8+" in skipped["doctor"]


def test_a_comma_list_given_to_python_says_to_repeat_the_option():
    """--variant takes a comma list, --python does not: `--python pyenv:3.11,3.13` names the
    option repeated, each part under the spec's source (the installed list stays)."""
    _need_pyenv()
    with pytest.raises(BadInput) as why:
        resolve_pythons(["pyenv:3.11,3.13"], session=Session())
    assert str(why.value).endswith("; --python names one interpreter: repeat it (--python pyenv:3.11 --python pyenv:3.13)")
    assert "(installed: " in str(why.value)
    with pytest.raises(BadInput, match=r"repeat it \(--python pyenv:3\.11 --python pyenv:3\.13\)$"):
        resolve_pythons(["pyenv:3.11,pyenv:3.13"], session=Session())
    with pytest.raises(BadInput) as single:
        resolve_pythons(["pyenv:9.9"], session=Session())
    assert "repeat it" not in str(single.value)
