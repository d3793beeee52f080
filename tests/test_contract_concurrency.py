"""The contract when importprof is killed or runs twice at once: what a SIGKILL leaves (the next
invocation removes a dead one's folder, never a live one's) and the caches two invocations
share (one builds, the other waits; the artefact is whole, no temporary left)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from _battery import GOOD_DOC, REPO, SLOW_TARGET, in_subprocess


# ------------------------------------------------------------------ what a SIGKILL leaves
# SIGKILL (the OOM killer, `kill -9`, a cancelled CI job) gives importprof no chance to remove
# its invocation folder (importprof-PID-START-*): the next invocation removes the folders of
# importprof processes that no longer run, never a live one's.
def _start(args, tmp: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "IMPORTPROF_NO_HELP_CACHE": "1"}
    return subprocess.Popen([sys.executable, "-m", "profiler", *args], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, **kw)


def _folder_of(proc: subprocess.Popen, tmp: Path) -> Path:
    """The invocation folder of `proc`, once it is made (and its first run has started)."""
    import time

    for _ in range(600):
        found = [p for p in tmp.glob(f"importprof-{proc.pid}-*") if any(p.iterdir())]
        if found:
            return found[0]
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    raise AssertionError(f"no folder of importprof {proc.pid} in {os.listdir(tmp)}")


@pytest.mark.slow
@pytest.mark.parametrize("command", [("startup", "--runs", "50", "--warmup", "0"), ("imports", "--runs", "50"), ("trace",)])
def test_a_killed_runs_folder_is_removed_by_the_next_and_a_live_ones_kept(command, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    live = _start(["startup", "--runs", "100", "--warmup", "0", *SLOW_TARGET], tmp)
    killed = _start([*command, *SLOW_TARGET], tmp)
    try:
        left = _folder_of(killed, tmp)
        live_folder = _folder_of(live, tmp)
        os.killpg(killed.pid, signal.SIGKILL)  # importprof and the run it started
        killed.wait()
        assert left.is_dir()  # SIGKILL: nothing could remove it
        rc, _, err = in_subprocess(["show", GOOD_DOC, "--format", "json"], tmp_path, tmp)
        assert rc == 0, err
        assert not left.exists(), os.listdir(tmp)
        assert live_folder.is_dir() and live.poll() is None  # a live invocation's folder is kept
    finally:
        for proc in (live, killed):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
    assert not live_folder.exists()  # SIGTERM: it removed its own


def test_a_reused_pid_does_not_keep_a_dead_runs_folder(tmp_path):
    """A folder records its process's start time beside the PID: a PID now running another
    process (PIDs are reused) does not keep it; the same PID and start time does."""
    from profiler.liveness import start_time as _start_time
    from profiler.workflows.session import _remove_stale

    me, started = os.getpid(), _start_time(os.getpid())
    assert started and started > 0
    reused = tmp_path / f"importprof-{me}-{started + 1}-abcd1234"  # this PID, another process's start
    mine = tmp_path / f"importprof-{me}-{started}-abcd1234"  # this very process's
    older = tmp_path / f"importprof-{me}-abcd1234"  # an older importprof's name: kept while the PID runs
    gone = tmp_path / "importprof-999999999-5-abcd1234"  # no such PID
    other = tmp_path / "importprof-cache"  # not an invocation's
    for d in (reused, mine, older, gone, other):
        (d / "sub").mkdir(parents=True)
    link = tmp_path / "importprof-999999998-5-link0000"  # a symlink named like one: never followed
    link.symlink_to(other)
    _remove_stale(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, older.name, other.name, link.name])
    assert (other / "sub").is_dir()


# ------------------------------------------------------------------ caches two invocations share
# Each cached artefact, started twice at once on an empty cache (moved into tmp_path by its
# variable): both succeed, one builds while the other waits, the artefact is whole and no
# temporary of a build is left beside it.
def _together(code: str, env: dict, n: int = 2, args=()) -> list[subprocess.CompletedProcess]:
    """`n` processes running `code` started at once (each waits for a go file, then runs)."""
    import time

    go = Path(env["GO_FILE"])
    wait = f"import os, sys, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
    full = {**os.environ, "PYTHONPATH": str(REPO), "IMPORTPROF_NO_HELP_CACHE": "", **env}
    procs = [subprocess.Popen([sys.executable, "-c", wait + code, *args], env=full, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO) for _ in range(n)]
    time.sleep(0.3)
    go.touch()
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=900)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


def _no_temporaries(folder: Path) -> None:
    left = [p.name for p in folder.rglob("*") if p.name.endswith(".tmp") or ".building-" in p.name]
    assert not left, left


BUILDER = """
from profiler.cachelock import cached
dest, lock = sys.argv[1], sys.argv[2] or None
def make(tmp):
    with open(sys.argv[3], "a") as log:
        log.write("built\\n")
    with open(tmp, "w") as fh:  # written in two pieces, a pause between: a reader must never see one
        fh.write("first half;")
        fh.flush()
        time.sleep(float(sys.argv[4]))
        fh.write("second half\\n")
print(cached(dest, make, lock_path=lock))
"""


@pytest.mark.slow
@pytest.mark.parametrize("shared_lock", [False, True], ids=["own-lock", "one-lock-for-every-key"])
def test_two_builders_at_once_build_once(shared_lock, tmp_path):
    """The lock and publish every cache uses (profiler/cachelock.py), as the oxidized launcher
    uses it (one lock for every key) and the others (a lock beside the artefact): two real
    processes on an empty cache, one builds, the other waits and uses what was published."""
    cache = tmp_path / "cache"
    dest, log = cache / "key" / "artefact", tmp_path / "builds.log"
    lock = str(cache / "build.lock") if shared_lock else ""
    if shared_lock:
        cache.mkdir()
    runs = _together(BUILDER, {"GO_FILE": str(tmp_path / "go")}, args=(str(dest), lock, str(log), "0.5"))
    assert [r.returncode for r in runs] == [0, 0], runs
    assert {r.stdout.strip() for r in runs} == {str(dest)}
    assert dest.read_text() == "first half;second half\n"
    assert log.read_text() == "built\n"  # once: the second found it published
    _no_temporaries(cache)


@pytest.mark.slow
def test_a_builder_killed_mid_build_leaves_nothing_used_or_kept(tmp_path):
    """SIGKILL while building: the lock goes with the process, the half-written temporary is
    never used, and the next builder removes it and builds."""
    import time

    dest, log = tmp_path / "cache" / "artefact", tmp_path / "builds.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    go = tmp_path / "go"
    go.touch()
    code = "import os, sys, time\n" + BUILDER
    killed = subprocess.Popen([sys.executable, "-c", code, str(dest), "", str(log), "60"], env=env, cwd=REPO)
    for _ in range(600):
        if list(dest.parent.glob("artefact.*.tmp")) and log.exists():
            break
        time.sleep(0.05)
    killed.kill()
    killed.wait()
    assert not dest.exists() and list(dest.parent.glob("artefact.*.tmp"))  # half-built, not published
    proc = subprocess.run([sys.executable, "-c", code, str(dest), "", str(log), "0"], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert dest.read_text() == "first half;second half\n"
    _no_temporaries(dest.parent)


@pytest.mark.slow
def test_the_spawner_built_by_two_at_once(tmp_path):
    runs = _together("from profiler.capture.spawner import spawner_path\nfrom profiler.session import Session\nprint(spawner_path(Session()))",
                     {"GO_FILE": str(tmp_path / "go"), "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert [r.returncode for r in runs] == [0, 0], runs
    (path,) = {r.stdout.strip() for r in runs}
    assert path.startswith(str(tmp_path / "xdg")) and os.access(path, os.X_OK)
    assert Path(path).read_bytes()[:4] == b"\x7fELF"
    proc = subprocess.run([path], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc  # a whole program: it runs (with no request, it has nothing to do)
    _no_temporaries(tmp_path / "xdg")


@pytest.mark.slow
def test_the_frozen_launcher_built_by_two_at_once(real_python, tmp_path):
    code = ("from profiler.capture.frozen import launcher_object\n"
            "from profiler.capture.interpreter import resolve_python\n"
            "from profiler.session import Session\n"
            "session = Session()  # its notes on stderr\n"
            "print(launcher_object(resolve_python(sys.argv[1], session=session), session=session))")
    cache = tmp_path / "cache"
    runs = _together(code, {"GO_FILE": str(tmp_path / "go"), "IMPORTPROF_CACHE": str(cache)}, args=(real_python,))
    if any(r.returncode for r in runs) and "Python.h" in "".join(r.stderr for r in runs):
        pytest.skip("no Python.h for this interpreter")
    assert [r.returncode for r in runs] == [0, 0], runs
    (obj,) = {r.stdout.strip() for r in runs}
    assert obj.startswith(str(cache))
    head = Path(obj).read_bytes()
    assert head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little") == 1  # a whole relocatable object
    assert sum(r.stderr.count("compiling the frozen launcher") for r in runs) == 1  # one compiled, one waited
    _no_temporaries(cache)


@pytest.mark.slow
def test_the_help_cache_written_by_two_at_once(tmp_path):
    """Two `--help` at once, of the same width and of two widths (two keys: each removes the
    other's older folder, never one being written): both print typer's help, and what the cache
    keeps is whole."""
    xdg = tmp_path / "xdg"
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(xdg)}
    expected = {}
    for columns in ("80", "120"):
        expected[columns] = subprocess.run([sys.executable, "-m", "profiler", "--help"], capture_output=True, text=True,
                                           env={**env, "COLUMNS": columns, "IMPORTPROF_NO_HELP_CACHE": "1"}).stdout
    for widths in (("80", "80"), ("80", "120")):
        shutil_rm(xdg)
        procs = [subprocess.Popen([sys.executable, "-m", "profiler", "--help"], env={**env, "COLUMNS": c},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in widths]
        for c, p in zip(widths, procs):
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0 and out == expected[c], err
        for c in widths:  # the cache answers now, exactly as typer would
            again = subprocess.run([sys.executable, "-m", "profiler", "--help"], capture_output=True, text=True,
                                   env={**env, "COLUMNS": c})
            assert again.stdout == expected[c]
        _no_temporaries(xdg)


def shutil_rm(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow
def test_the_real_program_venv_built_by_two_at_once(real_python, tmp_path):
    code = ("sys.path.insert(0, 'tests')\n"
            "from _realprograms import build_real_venv\n"
            "print(build_real_venv(sys.argv[1], []))")
    cache = tmp_path / "venvs"
    runs = _together(code, {"GO_FILE": str(tmp_path / "go"), "IMPORTPROF_TEST_VENVS": str(cache)}, args=(real_python,))
    assert [r.returncode for r in runs] == [0, 0], runs
    (venv,) = {r.stdout.strip() for r in runs}
    proc = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import sys; print(sys.prefix)"],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == venv  # whole, and where it was published
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == [os.path.basename(venv)]
    _no_temporaries(cache)


@pytest.mark.slow
def test_the_pack_cache_written_by_two_at_once(real_python, tmp_path):
    """The bytecode cache the packers share (bootstrap/pack_cache.py): two packers marshalling
    the same files at once read back what marshal makes, and leave no temporary."""
    code = ("sys.path.insert(0, 'profiler/bootstrap')\n"
            "import marshal, glob\n"
            "from pack_cache import cached_marshal\n"
            "files = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), 'json', '*.py')))\n"
            "for f in files:\n"
            "    data = cached_marshal(f, sys.argv[1], lambda: marshal.dumps(compile(open(f, 'rb').read(), f, 'exec')))\n"
            "    assert marshal.loads(data).co_filename == f\n"
            "print(len(files))")
    cache = tmp_path / "bytecode"
    runs = _together(code, {"GO_FILE": str(tmp_path / "go")}, n=3, args=(str(cache),))
    assert [r.returncode for r in runs] == [0, 0, 0], runs
    assert int(runs[0].stdout) > 3
    _no_temporaries(cache)


@pytest.mark.slow
def test_compares_default_build_folder_used_by_two_at_once(tmp_path):
    """Two `compare` of one target at once share its default build folder in the cache (and the
    frozen launcher's object, built there from empty): the second waits for the first's build and
    measurement instead of rebuilding the folder under it; both reports are whole."""
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO), "IMPORTPROF_CACHE": str(cache), "IMPORTPROF_VERBOSE": "1"}
    args = ["compare", "--workload", "hello", "--variant", "traditional,frozen", "--runs", "2", "--warmup", "0",
            "--syscalls", "off", "--format", "json", "-o"]
    procs = [subprocess.Popen([sys.executable, "-m", "profiler", *args, str(tmp_path / f"out{i}.json")], env=env, cwd=tmp_path,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in (1, 2)]
    errs = [p.communicate(timeout=900)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    for i in (1, 2):
        doc = json.loads((tmp_path / f"out{i}.json").read_text())
        assert {r["variant"]: r.get("failed", False) for r in doc["results"]} == {"traditional": False, "frozen": False}, doc
    said = "".join(errs)
    assert said.count("compiling the frozen launcher") == 1, said
    assert said.count("another importprof compare is using") <= 1, said
    _no_temporaries(cache)
