"""Every command on CPython 3.14 and 3.15 (Debian sid's builds, provisioned by
scripts/setup.d/10-python-sid.sh and exposed as pyenv versions; skipped with the reason where
`make setup` could not get them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests._interpreters import pyenv_python

pytestmark = pytest.mark.slow  # real interpreters, every test

NEW = ["3.14", "3.15"]


@pytest.mark.parametrize("version", NEW)
def test_the_interpreter_is_a_relocated_real_executable(version):
    py = pyenv_python(version)
    prefix = os.path.dirname(os.path.dirname(py))
    code = ("import sys, sysconfig, json; v = sysconfig.get_config_var; print(json.dumps([sys.executable, sys.prefix, "
            "sys.path, v('INCLUDEPY'), v('LIBDIR'), v('LDLIBRARY'), v('Py_ENABLE_SHARED')]))")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    exe, sys_prefix, path, include, libdir, ldlibrary, shared = json.loads(out)
    with open(os.path.realpath(py), "rb") as fh:
        assert fh.read(4) == b"\x7fELF"  # sys.executable names the interpreter itself, not a wrapper
    assert exe == py and sys_prefix == prefix
    assert os.path.join(prefix, "lib", f"python{version}") in path
    real = os.path.realpath(prefix)
    assert os.path.isfile(os.path.join(include, "Python.h")) and os.path.realpath(include).startswith(real)
    assert os.path.isfile(os.path.join(libdir, ldlibrary)) and os.path.realpath(libdir).startswith(real)
    assert shared == 1


@pytest.mark.parametrize("version", NEW)
def test_a_venv_with_pip_installs_a_package(version, tmp_path):
    py = pyenv_python(version)
    venv = tmp_path / "venv"
    subprocess.run([py, "-m", "venv", str(venv)], check=True, timeout=300)
    wheel_src = tmp_path / "pkg"
    (wheel_src / "tinypkg").mkdir(parents=True)
    (wheel_src / "tinypkg" / "__init__.py").write_text("VALUE = 42\n")
    (wheel_src / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "tinypkg"\nversion = "1.0"\n')
    # a local project, no registry: pip builds it with the setuptools ensurepip does not bring,
    # so build isolation is off and setuptools comes from the venv's own wheel directory
    vpy = str(venv / "bin" / "python")
    wheels = sysconfig_var(py, "WHEEL_PKG_DIR")
    proc = subprocess.run([vpy, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
                           "--disable-pip-version-check", "setuptools"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([vpy, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                           "--disable-pip-version-check", str(wheel_src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([vpy, "-c", "import sys, tinypkg; print(tinypkg.VALUE, sys.prefix != sys.base_prefix)"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out == "42 True\n"


def sysconfig_var(py: str, name: str) -> str:
    return subprocess.run([py, "-c", f"import sysconfig; print(sysconfig.get_config_var({name!r}))"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def test_pythons_lists_both_and_all_includes_them(cli):
    paths = [pyenv_python(v) for v in NEW]
    res = cli("pythons", "--format", "json")
    assert res.returncode == 0, res
    found = {p["path"]: p for p in res.json()["pythons"]}
    for path, version in zip(paths, NEW):
        assert found[path]["version"].startswith(version + ".")
        assert found[path]["source"] == "pyenv"
        assert {"name": "frozen", "supported": True, "reason": None} in found[path]["variants"]
    res = cli("startup", "--python", "all", "-r", "1", "--variant", "default", "--format", "json", "-c", "pass")
    assert res.returncode == 0, res
    assert set(paths) <= {r["python"] for r in res.json()["results"]}


@pytest.mark.parametrize("version", NEW)
def test_startup(cli, version):
    res = cli("startup", "--python", f"pyenv:{version}", "-r", "2", "--variant", "default,no-site,no-frozen",
              "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    rows = res.json()["results"]
    assert {r["variant"] for r in rows} == {"default", "no-site", "no-frozen"}
    assert all(r["python_version"].startswith(version + ".") and r["mean"] > 0 for r in rows)


@pytest.mark.parametrize("version", NEW)
def test_imports(cli, version):
    res = cli("imports", "--python", f"pyenv:{version}", "-r", "1", "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".")
    mods = {m["name"]: m for m in doc["modules"]}
    assert mods["json"]["cumulative_us"] >= mods["json"]["self_us"] >= 0 and "json.decoder" in mods


@pytest.mark.parametrize("version", NEW)
def test_importtime_2_cached_rows_of_a_real_log_parse(version):
    from profiler.parse.importtime import parse_importtime

    py = pyenv_python(version)
    log = subprocess.run([py, "-X", "importtime=2", "-c", "import json, json.decoder, re"],
                         capture_output=True, text=True, check=True, timeout=60).stderr
    parsed = parse_importtime(log, source=f"{py} -X importtime=2")
    rows = [r for p in parsed.processes for r in p.rows]
    cached = [r for r in rows if r.cached]
    assert cached and all(r.self_us is None for r in cached)  # 3.14+ report modules found in sys.modules
    assert {"json", "json.decoder", "re"} <= {r.name for r in rows if not r.cached}


@pytest.mark.parametrize("version", NEW)
def test_trace(cli, version):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (make setup installs it)")
    res = cli("trace", "--python", f"pyenv:{version}", "--format", "json", "-c", "import json")
    if res.returncode == 3 and "ptrace" in res.stderr:
        pytest.skip("strace cannot trace here")
    assert res.returncode == 0, res
    names = {m["name"]: m for m in res.json()["modules"]}
    assert "json" in names and names["json"]["syscalls"] > 0


@pytest.mark.parametrize("version", NEW)
def test_site(cli, version):
    res = cli("site", "--python", f"pyenv:{version}", "-r", "1", "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".") and doc["seconds"] > 0


@pytest.mark.parametrize("version", NEW)
def test_doctor(cli, version):
    res = cli("doctor", "--python", f"pyenv:{version}", "-r", "1", "--timing-runs", "3", "--format", "json",
              "-c", "import json, argparse")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["python_version"].startswith(version + ".") and doc["findings"]


@pytest.mark.parametrize("version", NEW)
def test_lazy(cli, version):
    res = cli("lazy", "--python", f"pyenv:{version}", "-r", "3", "--format", "json",
              "-c", "import json, argparse")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["identical_output"] and doc["modules_lazy"] <= doc["modules_eager"]
    if version == "3.15":
        assert doc["mode"] == "-X lazy_imports=all"  # the real mechanism, not the emulation


@pytest.mark.parametrize("version", NEW)
def test_build_frozen(cli, version, tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (make setup installs it)")
    app = tmp_path / "app.py"
    app.write_text("import json, argparse\nprint(json.dumps({'ok': 1}))\n")
    out = tmp_path / "build"
    res = cli("build", "--python", f"pyenv:{version}", "--variant", "frozen", "-o", out, app)
    assert res.returncode == 0, res
    exe = out / "frozen" / "importprof-frozen"
    proc = subprocess.run([str(exe), "-S", "-c", "import sys, json; print(sys.version_info[:2], json.__spec__.origin)"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"({version.replace('.', ', ')}) frozen\n"
