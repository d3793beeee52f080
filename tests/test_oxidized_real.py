"""Oxidized, in-memory and frozen builds of real programs from the registry (pip, black,
httpie, pygments, sphinx, pytest: tests/_oxidized_programs.py), in a cached venv on CPython
3.11 (every variant: 3.11 has them all). Each is built by the real `importprof build`, whose
own check runs every variant and compares its exit code, stdout, stderr and the files the
target names with traditional's; here every variant must pass that check and take its modules
from its own pack, not from the fallback path finder. One `compare` of a real program is the
README's table, run from the README's own command line."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._interpreters import pyenv_python
from tests._oxidized_programs import FILES, PROGRAMS, REQUIREMENTS, REQUIREMENTS_FROZEN_ONLY, UNFORMATTED, write_workdir
from tests._realprograms import real_venv, venv_python

pytestmark = pytest.mark.slow

VARIANTS = ["traditional", "no-site", "oxidized", "filesystem", "in-memory", "frozen"]


@pytest.fixture(scope="module")
def venv() -> Path:
    return real_venv(pyenv_python("3.11"), list(REQUIREMENTS))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def builds(venv, cli, tmp_path_factory):
    """program → (its work folder, the build's CLI result): each program built once per session."""
    made = {}

    def build(program):
        if program not in made:
            root = tmp_path_factory.mktemp("real")
            work = write_workdir(root / "work")
            argv = PROGRAMS[program](str(venv / "bin"))
            made[program] = work, cli("build", "--python", venv_python(venv), "-o", root / "b", "--format", "json", *argv,
                                      cwd=work, timeout=900)
        return made[program]

    return build


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_real_program_builds_in_every_variant_and_behaves_as_traditional(program, builds):
    work, res = builds(program)
    assert res.returncode == 0, res
    from profiler.inputs.schema_problems import first_problem

    assert first_problem(res.json(), "build") is None  # profiler/schemas/build.json describes it
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert list(v) == VARIANTS
    assert {n: x["error"] for n, x in v.items() if x["failed"]} == {}
    assert len({x["output_sha256"] for x in v.values()}) == 1 and len({x["exit_code"] for x in v.values()}) == 1
    # where the modules came from in each check run: the packing variants from their pack
    for name in ("filesystem", "in-memory"):
        assert v[name]["packed_modules"] > 20 * max(1, v[name]["fallback_modules"]), v[name]
    assert v["frozen"]["packed_modules"] > v["frozen"]["fallback_modules"]  # extension modules stay files
    assert v["no-site"]["packed_modules"] == 0 and v["no-site"]["fallback_modules"] > 50
    if program == "black (formats a file)":
        # black rewrote the file in every variant, the same way; the build put it back each time
        formatted = _sha(FILES["formatted.py"])
        assert {x["files_sha256"][str(work / "unformatted.py")] for x in v.values()} == {formatted}
        assert (work / "unformatted.py").read_text() == UNFORMATTED
    # each program does its job here (a program failing the same way everywhere would be
    # identical too, and prove nothing): black --check passes a formatted file
    assert v["traditional"]["exit_code"] == 0, v["traditional"]
    if program == "pytest (a small suite)":  # the suite passes inside the in-memory launcher
        expected = ("suite/test_small.py::test_one call passed\nsuite/test_small.py::test_two call passed\n"
                    "pytest exit 0\n")
        assert v["in-memory"]["output_sha256"] == _sha(expected)


@pytest.mark.parametrize("program", ["black --check"])  # mypyc-compiled: the frozen variant's hardest case
def test_real_program_on_3_13_builds_every_variant_it_has(program, cli, tmp_path):
    # 3.13 has no oxidized variants (python-oxidized-importer 0.9): traditional, no-site, frozen
    venv = real_venv(pyenv_python("3.13"), list(REQUIREMENTS_FROZEN_ONLY))
    work = write_workdir(tmp_path / "work")
    res = cli("build", "--python", venv_python(venv), "-o", tmp_path / "b", "--format", "json",
              *PROGRAMS[program](str(venv / "bin")), cwd=work, timeout=900)
    assert res.returncode == 0, res
    doc = res.json()
    v = {x["variant"]: x for x in doc["variants"]}
    assert list(v) == ["traditional", "no-site", "frozen"]
    assert {n: x["error"] for n, x in v.items() if x["failed"]} == {}
    assert v["frozen"]["packed_modules"] > v["frozen"]["fallback_modules"] > 0
    assert any("unavailable on 3.13" in w for w in doc["warnings"])


def test_a_difference_in_a_file_the_program_writes_is_a_failed_row(cli, real_python, tmp_path):
    # writes its module's loader into the file it is given: the in-memory variant leaves another
    # text there than traditional, and only the file shows it (stdout and exit code agree)
    (tmp_path / "mod1.py").write_text("X = 1\n")
    (tmp_path / "writer.py").write_text(
        "import sys, mod1\nopen(sys.argv[1], 'w').write('line 1\\n' + type(mod1.__loader__).__name__ + '\\n')\n")
    (tmp_path / "out.txt").write_text("original\n")
    res = cli("build", "--python", real_python, "-o", tmp_path / "b", "--format", "json", "--variant", "no-site,in-memory",
              str(tmp_path / "writer.py"), "out.txt", cwd=tmp_path)
    assert res.returncode == 0, res
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert not v["no-site"]["failed"]
    assert v["in-memory"]["error"] == (f"{tmp_path / 'out.txt'} differs at line 2 after the run: "
                                       "traditional 'SourceFileLoader', in-memory 'OxidizedFinder'")
    assert (tmp_path / "out.txt").read_text() == "original\n"  # put back after each run


def test_package_data_and_metadata_read_alike_in_every_variant(venv, cli, tmp_path):
    # package data three ways (pkgutil.get_data, importlib.resources, an open beside __file__),
    # importlib.metadata (version, entry points: what plugin discovery reads), for a program's
    # own package and for distributions in the venv
    app = tmp_path / "app"
    (app / "pkg" / "sub").mkdir(parents=True)
    (app / "pkg" / "__init__.py").write_text("")
    (app / "pkg" / "data.txt").write_text("data\n")
    (app / "pkg" / "sub" / "deep.json").write_text('{"deep": 1}\n')
    (app / "main.py").write_text(
        "import importlib.metadata as md, importlib.resources, os, pkgutil\nimport pkg, pygments, certifi\n"
        "print(pkgutil.get_data('pkg', 'data.txt'), pkgutil.get_data('pkg', 'sub/deep.json'))\n"
        "print(importlib.resources.files('pkg').joinpath('sub/deep.json').read_text().strip())\n"
        "print(open(os.path.join(os.path.dirname(pkg.__file__), 'data.txt')).read().strip())\n"
        "print(len(importlib.resources.files('certifi').joinpath('cacert.pem').read_bytes()) > 1000)\n"
        "print(md.version('pygments'), md.version('black'), sorted(e.name for e in md.entry_points(group='console_scripts')\n"
        "      if e.value.startswith(('black', 'pygments'))))\n"
        "print(sorted({e.name for e in md.entry_points(group='pytest11')}), md.distribution('httpie').read_text('METADATA')[:20])\n")
    res = cli("build", "--python", venv_python(venv), "-o", tmp_path / "b", "--format", "json", "--variant",
              "filesystem,in-memory,frozen", str(app / "main.py"), timeout=900)
    assert res.returncode == 0, res
    v = {x["variant"]: x for x in res.json()["variants"]}
    assert list(v) == ["traditional", "filesystem", "in-memory", "frozen"]
    assert {n: x["error"] for n, x in v.items() if x["failed"]} == {}
    out = subprocess.run(v["in-memory"]["argv"], capture_output=True, text=True, env={**os.environ, **v["in-memory"]["env"]}, timeout=120)
    assert out.stdout.splitlines()[:5] == ["b'data\\n' b'{\"deep\": 1}\\n'", '{"deep": 1}', "data", "True", "2.19.2 25.1.0 "
                                          "['black', 'blackd', 'pygmentize']"], out.stderr


def _readme_compare_line() -> str:
    from test_readme import pages_text

    text = pages_text()  # docs/commands/compare.md
    # (the --harness lines run Mercurial's own tests, minutes to hours: benchmarks/bench_seed.py runs that
    # harness through compare's library, tests/test_compare_harness.py a small one through the CLI)
    lines = [ln[2:] for ln in text.splitlines()
             if ln.startswith("$ importprof compare --python $VENV/bin/python") and "--harness" not in ln]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_readme_real_program_table_comes_from_its_command_line(venv, cli, tmp_path):
    # the README's command (test_readme.py leaves compare to the tests that build), run as written
    line = _readme_compare_line()
    work = write_workdir(tmp_path / "work")
    argv = shlex.split(line.replace("$VENV", str(venv)))
    assert argv[0] == "importprof"
    runs = argv.index("--runs")
    argv[runs + 1] = "2"  # few runs: the figures are the benchmark's business
    res = cli(argv[1], "--build-dir", tmp_path / "b", *argv[2:], cwd=work, timeout=900)
    assert res.returncode == 0, res
    header = next(ln for ln in res.stdout.splitlines() if "variant" in ln and "pack / fallback" in ln)
    assert "vs no-site (wall)" in header
    rows = {m.group(1): ln for ln in res.stdout.splitlines() if (m := re.match(r"^\| (\S+)\s+\|", ln))}
    assert set(VARIANTS) <= set(rows)
    assert not any("failed" in rows[n] for n in VARIANTS), res.stdout
    assert "mostly disk" not in rows["in-memory"]
    from test_readme import pages_text

    readme = pages_text()
    assert line in readme and "| in-memory " in readme.split(line, 1)[1][:4000]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed (make setup installs it)")
def test_in_memory_black_opens_none_of_its_packed_modules(venv, builds, tmp_path):
    work, res = builds("black --check")
    assert res.returncode == 0, res
    v = {x["variant"]: x for x in res.json()["variants"]}["in-memory"]
    assert not v["failed"], v["error"]
    log = tmp_path / "strace.log"
    proc = subprocess.run(["strace", "-f", "-qq", "-e", "trace=%file", "-o", str(log), *v["argv"]], cwd=work,
                          capture_output=True, text=True, env={**os.environ, **v["env"]}, timeout=300)
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip(f"strace cannot trace here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    opened = [ln for ln in log.read_text().splitlines() if "open" in ln and "ENOENT" not in ln]
    site = str(venv / "lib")
    # black's own Python modules, click's, the stdlib's: bytecode from memory, no file opened
    for rel in ("black/__main__.py", "click/core.py", "json/decoder.py", "/black/__pycache__/", "/click/__pycache__/"):
        assert not [ln for ln in opened if rel in ln], rel
    # mypyc's extension modules load from the copies beside the launcher, not from the venv
    assert [ln for ln in opened if "/in-memory/lib/black/" in ln and ".so" in ln]
    assert not [ln for ln in opened if site in ln and ".so" in ln]
