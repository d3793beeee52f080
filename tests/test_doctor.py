"""`importprof doctor`: findings priced from real runs (no mocks), and its pure rules."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from profiler.analysis.doctor import failed_lookups_by_entry, no_pyc_finding, sort_findings
from profiler.model.doctor import DoctorReport, Finding
from profiler.model.import_records import ModuleRecord
from profiler.model.syscall_trace import Syscall
from tests.conftest import assert_one_line_error, write_tree
from profiler.session import Session

APP = {
    "app.py": "import mylib.a\nimport mylib.b\nprint(mylib.a.X + mylib.b.Y)\n",
    "mylib/__init__.py": "",
    "mylib/a.py": "X = 1\n" + "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(200)),
    "mylib/b.py": "Y = 2\n",
}


def _fresh_app(root: Path) -> Path:
    return write_tree(root, APP)


def test_no_pyc_on_a_fresh_app_with_dont_write_bytecode(cli, real_python, tmp_path):
    app = _fresh_app(tmp_path)
    res = cli("doctor", "--python", real_python, "--runs", "2", "--timing-runs", "3", "--no-trace", "--lazy", "--format", "json",
              "app.py", cwd=app, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert res.returncode == 0, res
    d = res.json()
    assert d["schema"] == "importprof.doctor/1" and isinstance(d["machine"], dict)
    no_pyc = [f for f in d["findings"] if f["kind"] == "no-pyc"]
    assert len(no_pyc) == 1, d["findings"]
    f = no_pyc[0]
    assert f["cost_us"] > 0 and f["estimate"] is False
    assert "mylib.a" in f["where"] and "mylib.b" in f["where"]
    assert "PYTHONDONTWRITEBYTECODE" in f["title"] and "compileall" in f["fix"]
    for item in d["findings"]:
        assert set(item) >= {"kind", "title", "where", "cost_us", "fix"}
    costs = [item["cost_us"] for item in d["findings"]]
    assert costs == sorted(costs, reverse=True)
    assert not list(app.rglob("*.pyc"))  # the doctor did not "fix" it behind our back
    kinds = {c["kind"]: c for c in d["checks"]}
    assert kinds["failed-lookups"]["ran"] is False and kinds["no-pyc"]["ran"] is True
    # timed, never the estimate; the note says what the verdict rests on (3.11: the emulation)
    assert kinds["lazy"]["ran"] is True and "estimate" not in kinds["lazy"]["note"]
    assert "emulation of PEP 810" in kinds["lazy"]["note"]
    assert all(f["estimate"] is False for f in d["findings"] if f["kind"] == "lazy")
    assert DoctorReport.from_dict(d).findings[0].kind == d["findings"][0]["kind"]


def test_no_pyc_absent_once_pyc_files_are_written(cli, real_python, tmp_path):
    app = _fresh_app(tmp_path)
    env = {k: "" for k in ("PYTHONDONTWRITEBYTECODE",)}
    res = cli("doctor", "--python", real_python, "--runs", "1", "--timing-runs", "2", "--no-trace", "--format", "json", "app.py",
              cwd=app, env=env)
    assert res.returncode == 0, res
    assert not [f for f in res.json()["findings"] if f["kind"] == "no-pyc"]


def _certifi_pth(python: str) -> list[str]:
    import subprocess

    site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True).stdout.strip()
    return [p for p in glob.glob(os.path.join(site, "*.pth")) if "import certifi" in Path(p).read_text(errors="replace")]


def test_certifi_pth_on_this_machines_python3(cli, real_python, tmp_path):
    pths = _certifi_pth(real_python)
    if not pths:
        pytest.skip(f"no .pth file importing certifi in {real_python}'s site-packages")
    res = cli("doctor", "--python", real_python, "--runs", "1", "--timing-runs", "3", "--format", "json", cwd=tmp_path)
    assert res.returncode == 0, res
    d = res.json()
    pth = [f for f in d["findings"] if f["kind"] == "pth-import" and f["where"].startswith(tuple(pths))]
    assert pth, d["findings"]
    assert pth[0]["cost_us"] > 0 and "certifi" in pth[0]["title"]
    assert "PEP 829" in pth[0]["fix"] and ".start" in pth[0]["fix"]
    assert d["target"] == "-c pass"
    kinds = {c["kind"]: c["ran"] for c in d["checks"]}
    assert kinds["failed-lookups"] is True  # strace ran
    assert any(f["kind"] == "site" for f in d["findings"])  # the certifi .pth alone outweighs a bare start


def test_doctor_table_and_command_target(cli, real_python, tmp_path):
    assert_one_line_error(cli("doctor", "--", "echo", "hi"), 2, "python target")


def test_failed_lookups_grouped_by_sys_path_entry():
    def call(path, errno="ENOENT", d=0.001, name="newfstatat"):
        return Syscall(1, None, name, (), -1, errno, None, d, 1, path=path)

    calls = [
        call("/app/json.py"), call("/app/json/__init__.py"), call("/lib/python3.11/foo.py"),
        call("/lib/python3.11/json/__init__.py", errno=None), call("/elsewhere/x.py"),
        call("/lib/python3.11/site-packages/bar.py", d=0.01),
    ]
    got = failed_lookups_by_entry(calls, ["/app", "/lib/python3.11", "/lib/python3.11/site-packages", ""])
    assert got[0] == (2, "/lib/python3.11/site-packages", 1, 0.01)  # longest entry wins
    assert (0, "/app", 2, pytest.approx(0.002)) in got
    assert (1, "/lib/python3.11", 1, 0.001) in got
    assert len(got) == 3  # /elsewhere is under no entry


def test_no_pyc_finding_prices_the_compile_phase_only():
    mods = [
        ModuleRecord("a", 100, 100, None, 0, 0, 1, (100,), (100,), extra={"compiled": True, "unmarshal_us": 70, "read_us": 10}),
        ModuleRecord("b", 50, 50, None, 0, 0, 1, (50,), (50,), extra={"compiled": False, "unmarshal_us": 5}),
    ]
    f = no_pyc_finding(mods, {"env_dont_write_bytecode": True})
    assert f.cost_us == 70 and f.where == "a" and "PYTHONDONTWRITEBYTECODE" in f.title
    assert no_pyc_finding(mods[1:], {}) is None
    # compiling re-timed without the hook (CPU time), when doctor has it, is the figure
    timed = no_pyc_finding(mods, {"env_dont_write_bytecode": True}, compile_us=55)
    assert timed.cost_us == 55 and "without a hook" in timed.measured_by


def test_sort_findings_costliest_first_measured_before_estimates():
    a = Finding("lazy", "t", "w", 100, "f", estimate=True)
    b = Finding("site", "t", "w", 100, "f")
    c = Finding("no-pyc", "t", "w", 300, "f")
    assert sort_findings([a, b, c]) == [c, b, a]


def test_frozen_off_needs_3_11_and_a_non_frozen_os():
    from profiler.analysis.doctor import frozen_off, frozen_off_finding

    off = {"version": [3, 13, 0], "os_origin": "/py/lib/python3.13/os.py", "env_frozen": "off"}
    assert frozen_off(off) and not frozen_off({**off, "os_origin": "frozen"}) and not frozen_off({**off, "version": [3, 10, 4]})
    f = frozen_off_finding(off, 0.0017)
    assert f.cost_us == 1700 and "PYTHON_FROZEN_MODULES=off" in f.title and f.where == "/py/lib/python3.13"
    assert frozen_off_finding(off, -0.001) is None  # no saving measured: no finding


def test_frozen_off_found_on_a_real_interpreter(cli, tmp_path):
    from tests._interpreters import pyenv_python

    python = pyenv_python("3.13")
    res = cli("doctor", "--python", python, "--runs", "1", "--timing-runs", "3", "--no-trace", "--format", "json",
              cwd=tmp_path, env={"PYTHON_FROZEN_MODULES": "off"})
    assert res.returncode == 0, res
    checks = {c["kind"]: c for c in res.json()["checks"]}
    assert checks["frozen-off"]["ran"] and checks["frozen-off"]["note"] == ""  # detected (its cost may be noise)


def test_doctor_advice_fits_the_entry_and_a_pth_processed_twice_is_one_finding():
    """QA: in a venv, site processes its site-packages twice (one .pth, two findings before), and
    failed-lookups advised moving the stdlib later and removing the program's own site-packages."""
    from profiler.analysis.doctor import lookup_advice, pth_findings
    from profiler.model.site import PthFile, PthLine, SiteReport

    path = ["/app", "/py/lib/python311.zip", "/py/lib/python3.11", "/py/lib/python3.11/lib-dynload", "/venv/lib/python3.11/site-packages"]
    assert "standard library is searched before site-packages" in lookup_advice(2, path[2], path)
    assert "standard library" in lookup_advice(1, path[1], path)
    assert "nothing comes after this entry" in lookup_advice(4, path[4], path)
    assert "put this entry later" in lookup_advice(0, path[0], path)
    line = PthLine(lineno=1, text="import _distutils_hack", seconds=0.0004)
    pth = PthFile(path="/venv/lib/python3.11/site-packages/distutils-precedence.pth", seconds=0.0005, lines=(line,))
    report = SiteReport(machine={}, python="/venv/bin/python", python_version="3.11.7", runs=1, seconds=0.002,
                        pth=(pth, pth), sitecustomize=None, usercustomize=None, user_site=None, sys_path_added=1)
    findings = pth_findings(report)
    assert len(findings) == 1 and "processed 2 times" in findings[0].title and findings[0].cost_us == 1000


# --- savings counted honestly, and doctor --verify ------------------------------------------

def test_no_finding_exceeds_the_measured_whole_start_up():
    from profiler.analysis.doctor import cap_findings

    big = Finding("in-memory", "estimate: finding and reading 300 modules' files", "w", 120_000, "f", estimate=True)
    small = Finding("no-pyc", "t", "w", 2_000, "f")
    capped = cap_findings([big, small], 0.1148)
    assert [f.cost_us for f in capped] == [114_800, 2_000]
    assert "at most the whole start-up: 114.8 ms measured, 120.0 ms estimated" in capped[0].title
    assert cap_findings([big], None) == [big]  # nothing measured: nothing to cap against


def test_lazy_saving_is_the_timed_difference_or_the_emulations_prediction():
    from profiler.analysis.doctor import lazy_finding, lazy_saving_us
    from profiler.model.lazy import AvoidedModule, LazyReport
    from profiler.model.measurement import TimingResult

    avoided = (AvoidedModule("flake8.checker", cumulative_us=58_600, self_us=1_200), AvoidedModule("multiprocessing.pool", 9_000, 800))
    report = LazyReport(results=(), must_stay_eager=(), avoided=avoided, identical_output=True, modules_eager=10,
                        modules_lazy=8, statements=(), avoided_us=67_600)
    assert lazy_saving_us(report) is None and lazy_finding(report) is None  # not timed: no finding, no estimate
    timed = [TimingResult(command="x", mean=m, stddev=0.0, median=m, user=0.0, system=0.0, min=m, max=m, times=(m,), memory_usage_byte=(None,),
                          exit_codes=(0,), variant=v) for v, m in (("eager", 0.1), ("lazy", 0.0925))]
    from dataclasses import replace

    assert lazy_saving_us(replace(report, results=tuple(timed))) == 7_500
    # under the emulation the lazy side is lazy's prediction: the emulated run without the
    # emulation's own cost (here 4 ms of launcher and bindings), as `importprof lazy` reports it
    from profiler.model.lazy import Prediction

    predicted = replace(report, results=tuple(timed), prediction=Prediction(lazy_mean=0.0885, ratio=0.885, overhead_s=0.004))
    assert lazy_saving_us(predicted) == 11_500
    assert lazy_finding(predicted).cost_us == 11_500


def test_the_lazy_finding_never_points_at_a_statement_that_saved_nothing_alone():
    """awscli's `aws:19` (`from awscli.clidriver import main`, called at once) saves nothing
    measured alone: `importprof lazy` lists it "not recommended", so doctor must not point
    there. Statements come ordered as lazy orders them: measured savings, unmeasured, nothing."""
    from dataclasses import replace

    from profiler.analysis.doctor import lazy_finding
    from profiler.model.lazy import AvoidedModule, LazyReport, StatementSaving

    avoided = (AvoidedModule("botocore.session", cumulative_us=90_000, self_us=4_000),)
    nothing = StatementSaving(site="aws:19", modules=("awscli.clidriver",), cumulative_us=300_000, saving_us=0)
    saves = StatementSaving(site="awscli/handlers.py:12", modules=("botocore.session",), cumulative_us=9_000,
                            saving_us=3_500, saving_modules=("botocore.session",))
    unmeasured = StatementSaving(site="awscli/plugin.py:3", modules=("x",), cumulative_us=500)
    from profiler.model.measurement import TimingResult

    timed = tuple(TimingResult(command="x", mean=m, stddev=0.0, median=m, user=0.0, system=0.0, min=m, max=m, times=(m,),
                               memory_usage_byte=(None,), exit_codes=(0,), variant=v) for v, m in (("eager", 0.1), ("lazy", 0.09)))
    report = LazyReport(results=timed, must_stay_eager=(), avoided=avoided, identical_output=True, modules_eager=10,
                        modules_lazy=8, statements=(saves, unmeasured, nothing), avoided_us=90_000, target="aws --version")
    assert lazy_finding(report).where == "awscli/handlers.py:12"
    assert lazy_finding(replace(report, statements=(unmeasured, nothing))).where == "awscli/plugin.py:3"
    assert lazy_finding(replace(report, statements=(nothing,))).where == "aws --version"


def test_a_verified_finding_keeps_its_estimate_beside_the_measured_saving():
    from dataclasses import replace

    from profiler.analysis.doctor import saving_us, verified
    from profiler.render.console_doctor import render_doctor_table

    assert saving_us(0.120, 0.095) == 25_000 and saving_us(0.1, None) is None
    assert saving_us(0.1, 0.104) == -4_000  # a fix that made it slower says so
    f = verified(Finding("pth-import", "x.pth runs 1 import line", "/sp/x.pth:1", 17_588, "fix"), 25_528, "with and without x.pth")
    d = f.to_dict()
    assert (d["cost_us"], d["estimated_us"], d["measured_us"], d["verify"]) == (17_588, 17_588, 25_528, "with and without x.pth")
    assert Finding.from_dict(d) == f
    unverified = Finding("failed-lookups", "t", "w", 574, "fix")
    assert Finding.from_dict(unverified.to_dict()) == unverified and unverified.to_dict()["measured_us"] is None
    report = DoctorReport(findings=(f, unverified), target="-m pip --version", python="/v/bin/python", python_version="3.11.7",
                          startup_s=0.5931, verified=True)
    assert DoctorReport.from_dict(report.to_dict()) == report
    table = render_doctor_table(report)
    assert "Estimated" in table and "Measured" in table
    assert "pth-import, estimated 17.6 ms, measured 25.5 ms" in table and "verified: with and without x.pth" in table
    assert "failed-lookups, estimated 574 µs, measured -" in table
    why_not = verified(unverified, None, "not verified: no scratch fix for this kind")
    assert "\n   not verified: no scratch fix" in render_doctor_table(replace(report, findings=(why_not,)))
    plain = render_doctor_table(replace_verified(report))
    assert "Measured" not in plain and "Cost (estimated)" in plain and "every figure is an estimate" in plain


def test_a_measured_saving_within_the_timings_spread_is_shown_as_noise():
    # doctor --verify on black --version (3.11, load 7 on 2 cores): the .pth fix "measured
    # -82.6 ms" for an estimated 1.1 ms, printed as a measured loss; it is the spread's doing
    from profiler.analysis.doctor import spread_us, verified
    from profiler.render.console_doctor import render_doctor_table

    assert spread_us(0.3, 0.4) == 500_000 and spread_us(0.3, None) is None
    pth = verified(Finding("pth-import", "x.pth runs 1 import line", "/sp/x.pth:1", 1_100, "fix"), -82_600,
                   "with and without x.pth", spread_us(0.2904, 0.3101))
    assert pth.measured_spread_us == 424_846 and pth.measured_noise
    lazy = verified(Finding("lazy", "lazy imports", "app.py:3", 49_800, "fix", estimate=True), 35_800, "eager vs lazy",
                    spread_us(0.0051, 0.0042))
    assert not lazy.measured_noise
    d = pth.to_dict()
    assert d["measured_spread_us"] == 424_846 and "measured_noise" not in d and Finding.from_dict(d) == pth
    assert verified(pth, None, "not verified: a run failed", 1_000).measured_spread_us is None
    report = DoctorReport(findings=(lazy, pth), target="app.py", python="/v/bin/python", python_version="3.11.7",
                          startup_s=0.3118, verified=True)
    assert DoctorReport.from_dict(report.to_dict()) == report
    table = render_doctor_table(report)
    assert "pth-import, estimated 1.1 ms, measured noise (-82.6 ms ± 424.8 ms)" in table
    assert "lazy, estimated 49.8 ms (est.), measured 35.8 ms:" in table
    assert "noise: the difference is smaller than the two timings' spread" in table


def test_verified_savings_are_shown_beside_the_whole_of_their_own_run():
    # doctor --verify -c pass on 3.11 under load: "start-up as is: 39.6 ms" (the first timed run)
    # beside a measured pth saving of 39.3 ms and site 39.0 ms (the verification's run, where as
    # is took longer): read together they said the fix leaves 0.3 ms; by hand (hyperfine, side by
    # side) no .pth saves 73 % of start-up
    from profiler.analysis.doctor import verified
    from profiler.render.console_doctor import render_doctor_table

    f = verified(Finding("pth-import", "x.pth runs 1 import line", "/sp/x.pth:1", 21_500, "fix"), 39_300, "with and without x.pth")
    report = DoctorReport(findings=(f,), target="-c pass", python="/py", python_version="3.11.7", startup_s=0.0396,
                          verified=True, verify_startup_s=0.0532)
    assert DoctorReport.from_dict(report.to_dict()) == report and report.to_dict()["verify_startup_s"] == 0.0532
    head = render_doctor_table(report).splitlines()[0]
    assert "start-up as is: 39.6 ms (mean); as is in the verification run: 53.2 ms (mean; the measured savings are from that run)" in head
    from dataclasses import replace

    assert "verification run" not in render_doctor_table(replace(report, verified=False, verify_startup_s=None))


def test_in_memory_is_verified_against_the_same_launcher_without_site_in_both():
    # importprof compare's means on -c pass, 3.11 (its .pth costs ~70 ms): traditional runs site,
    # the launcher variants never do; traditional vs in-memory "measured" 74.6 ms for a 7.3 ms estimate
    from profiler.analysis.doctor import in_memory_verified

    f = Finding("in-memory", "finding and reading 82 modules' files", "sys.path finders", 7_300, "fix", estimate=True)
    timed = {"traditional": (0.0881, 0.010), "oxidized": (0.0191, 0.002), "in-memory": (0.0135, 0.0015)}
    v = in_memory_verified(f, timed)
    assert v.measured_us == 5_600 and v.measured_spread_us == 2_500 and "oxidized vs in-memory" in v.verify
    gone = in_memory_verified(f, {"traditional": (0.0881, 0.01), "in-memory": (0.0135, 0.0015)})
    assert gone.measured_us is None and gone.verify == "not verified: a variant failed to run"


def replace_verified(report):
    from dataclasses import replace

    return replace(report, verified=False, findings=tuple(replace(f, measured_us=None, verify="") for f in report.findings))


def _site_packages_listing(venv: Path) -> dict:
    return {str(p.relative_to(venv)): p.stat().st_mtime_ns for p in venv.rglob("*") if "__pycache__" not in p.parts}


def test_verify_on_pip_from_a_real_venv(cli, real_python, tmp_path):
    """doctor --verify on `pip --version` (pip from PyPI in a real venv): the .pth, lazy and
    in-memory fixes are applied in scratch overlays and timed; the venv is left as it was."""
    from tests._realprograms import real_venv, venv_python

    venv = real_venv(real_python, ["pip==25.3"])
    before = _site_packages_listing(venv)
    # its own temporary folder: other tests' doctor --verify may run at the same time (make test's workers)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    res = cli("doctor", "--verify", "--python", venv_python(venv), "--runs", "1", "--timing-runs", "3", "--no-trace",
              "--format", "json", "-m", "pip", "--version", cwd=tmp_path, env={"TMPDIR": str(tmp)})
    assert res.returncode == 0, res
    d = res.json()
    assert d["verified"] is True
    by_kind = {f["kind"]: f for f in d["findings"]}
    pth = by_kind["pth-import"]  # the venv's setuptools ships distutils-precedence.pth
    assert pth["where"].endswith("distutils-precedence.pth:1") and isinstance(pth["measured_us"], int)
    assert "with and without distutils-precedence.pth" in pth["verify"]
    assert isinstance(by_kind["lazy"]["measured_us"], int) and "eager vs lazy" in by_kind["lazy"]["verify"]
    mem = by_kind["in-memory"]
    # PyOxidizer's importer serves 3.8 to 3.11: there the in-memory fix is timed, elsewhere it says why not
    if (3, 8) <= tuple(int(x) for x in d["python_version"].split(".")[:2]) <= (3, 11):
        assert isinstance(mem["measured_us"], int) and "oxidized vs in-memory" in mem["verify"], mem
    else:
        assert mem["measured_us"] is None and mem["verify"].startswith("not verified: "), mem
    for f in d["findings"]:
        assert f["estimated_us"] == f["cost_us"] <= d["startup_s"] * 1e6 + 1
        assert f["verify"], f  # measured, or why not
    assert _site_packages_listing(venv) == before  # never the user's files
    assert not glob.glob(os.path.join(tmp, "importprof-doctor-verify-*"))  # the scratch overlays are gone


def test_verify_no_pyc_and_site_in_scratch_folders(cli, tmp_path):
    """A fresh app under PYTHONDONTWRITEBYTECODE: no-pyc is verified with the app's bytecode in a
    scratch -X pycache_prefix folder (the app's own folder gets no .pyc); 3.12 has no in-memory
    build, and says so."""
    from tests._interpreters import pyenv_python

    python = pyenv_python("3.12")
    app = _fresh_app(tmp_path)
    # a module read from the stdlib's files (with its .pyc), which an in-memory build would pack
    (app / "app.py").write_text("import json\n" + (app / "app.py").read_text())
    res = cli("doctor", "--verify", "--python", python, "--runs", "1", "--timing-runs", "3", "--no-trace", "--format", "json",
              "app.py", cwd=app, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert res.returncode == 0, res
    d = res.json()
    by_kind = {f["kind"]: f for f in d["findings"]}
    no_pyc = by_kind["no-pyc"]
    assert isinstance(no_pyc["measured_us"], int) and "pycache_prefix" in no_pyc["verify"]
    # the in-memory finding is an estimate on any interpreter; on 3.12 its verification says why there is none
    assert by_kind["in-memory"]["measured_us"] is None and "needs CPython 3.8 to 3.11" in by_kind["in-memory"]["verify"]
    # 3.12 here has no .pth import line, so no site finding to verify (its branch could never run)
    assert "site" not in by_kind
    assert not list(app.rglob("*.pyc"))
    plain = cli("doctor", "--python", python, "--runs", "1", "--timing-runs", "2", "--no-trace", "app.py", cwd=app,
                env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert plain.returncode == 0, plain
    assert "Cost (estimated)" in plain.stdout and "every figure is an estimate" in plain.stdout and "Measured" not in plain.stdout


def _venv_with_a_slow_pth(python: str, root: Path) -> Path:
    """A real venv (no pip) whose site-packages holds a .pth that sleeps at every start and a
    module only site-packages provides."""
    import subprocess

    venv = root / "venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True, timeout=120)
    site_packages = next(venv.glob("lib/python3.*/site-packages"))
    (site_packages / "slow_start.pth").write_text("import time; time.sleep(0.05)\n")
    (site_packages / "only_here.py").write_text("WORD = 'from site-packages'\n")
    # its .pyc written now, so that no run of the program writes into the venv afterwards
    subprocess.run([python, "-m", "compileall", "-q", str(site_packages)], check=True, capture_output=True, timeout=120,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    return venv


def test_verify_times_the_site_fix_with_s_when_the_output_stays_the_same_else_i(cli, tmp_path):
    """The site fix in --verify, on a real temporary site-packages with a slow .pth: a program
    that needs nothing from site-packages prints the same under -S, so the fix is timed as is vs
    -S; one that imports from site-packages does not (no such module under -S), so -I is timed
    (site still runs: the saving is what -I's other switches save). The venv is left as it was."""
    from tests._interpreters import pyenv_python

    venv = _venv_with_a_slow_pth(pyenv_python("3.12"), tmp_path)  # 3.12: no in-memory build to wait for
    python = str(venv / "bin" / "python")
    work = write_tree(tmp_path / "work", {"plain.py": "print('plain')\n",
                                          "needs_site.py": "import only_here\nprint(only_here.WORD)\n"})
    before = _site_packages_listing(venv)

    def verified_site(script: str) -> dict:
        res = cli("doctor", "--verify", "--python", python, "--runs", "1", "--timing-runs", "3", "--no-trace",
                  "--format", "json", script, cwd=work)
        assert res.returncode == 0, res
        d = res.json()
        by_kind = {f["kind"]: f for f in d["findings"]}
        assert "slow_start.pth" in by_kind["pth-import"]["where"]
        return by_kind["site"]

    plain = verified_site("plain.py")
    assert plain["verify"].startswith("as is vs -S (same output); CPU time (user + system) saved: "), plain
    assert isinstance(plain["measured_us"], int) and isinstance(plain["measured_spread_us"], int)
    needs = verified_site("needs_site.py")
    assert needs["verify"].startswith("as is vs -I (same output); CPU time (user + system) saved: "), needs
    assert isinstance(needs["measured_us"], int)
    assert _site_packages_listing(venv) == before


def test_in_memory_estimate_is_the_path_importers_work_timed_without_a_hook(real_python, tmp_path, monkeypatch):
    """The in-memory estimate re-times, in the target's interpreter and without the phases hook,
    what the path importer does for the modules loaded from files (find + get_code minus
    unmarshal); a module without a .pyc is compiled as every start compiles it (packed bytecode
    spares that too), writing nothing; modules nowhere on sys.path are left out; both are said."""
    import subprocess

    from profiler.analysis.doctor import in_memory_finding
    from profiler.capture.doctor import path_import_cost

    app = _fresh_app(tmp_path)
    for name in ("__init__.py", "a.py"):  # mylib.b keeps no .pyc
        subprocess.run([real_python, "-m", "compileall", "-q", str(app / "mylib" / name)], check=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    stdlib = subprocess.run([real_python, "-c", "import json, os, sys; print(os.path.dirname(os.path.dirname(json.__file__)))"],
                            capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    asked = ["json", "json.decoder", "mylib", "mylib.a", "mylib.b", "_json", "no_such_module_here"]
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # the probe itself must write no .pyc
    cost = path_import_cost(real_python, [str(app), stdlib, os.path.join(stdlib, "lib-dynload")], asked, passes=3, session=Session())
    # json, json.decoder, mylib, mylib.a and mylib.b timed, mylib.b compiled; _json an extension module (not packed)
    assert (cost["asked"], cost["located"], cost["compiled"], cost["other"], cost["missing"]) == (7, 5, 1, 1, 1), cost
    assert len(cost["passes"]) == 3 and cost["saved_us"] > 0 and 0 < cost["compile_us"] <= cost["saved_us"]
    assert not list((app / "mylib").glob("__pycache__/b.*.pyc"))
    f = in_memory_finding(cost)
    assert f.kind == "in-memory" and f.estimate and f.cost_us == cost["saved_us"]
    assert "5 modules' files" in f.title and "1 of them compiled from source at every start" in f.title
    assert "left out: 1 not found from the start-up sys.path" in f.title
    assert in_memory_finding({"saved_us": 0, "located": 0, "asked": 2}) is None and in_memory_finding(None) is None
