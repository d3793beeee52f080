"""`compare --harness "CMD" TARGET` (compose/compare_harness.py, capture/harness_runs.py): a real
harness (a Python script starting the program several times) run against each variant's real
built program; bad input refused before anything is built."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import REPO, assert_one_line_error

pytestmark = pytest.mark.slow

# the program: prints its arguments; `more` imports a module its own run does not (difflib), and
# says through which loader it came; `probe` prints whether site ran
PROGRAM = textwrap.dedent(
    """
    import sys
    args = sys.argv[1:]
    if "more" in args:
        import difflib
        with open(args[-1], "a") as fh:
            loader = difflib.__spec__.loader  # FrozenImporter is its own loader: a class
            fh.write(getattr(loader, "__name__", type(loader).__name__) + "\\n")
    if "probe" in args:
        print("no_site", sys.flags.no_site)
    print("prog", len(args))
    """
)

# the harness: checks the name it reaches the program by (as Mercurial's does), starts it
# N times (one of them with `more`), prints a summary line with a duration in it
HARNESS = textwrap.dedent(
    """
    import os, subprocess, sys, time
    prog, n, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    assert os.path.basename(prog) == "prog.py", prog
    t0 = time.time()
    last = ""
    for i in range(n):
        # which variant's program: the folder the program script is in (VARIANT/bin/prog.py)
        variant = os.path.basename(os.path.dirname(os.path.dirname(prog)))
        extra = ["more", log + "." + variant] if i == 0 else (["probe"] if "--probe" in sys.argv else [])
        out = subprocess.run([prog, str(i), *extra], capture_output=True, text=True,
                             cwd="/" if "--elsewhere" in sys.argv else None)
        if out.returncode or out.stderr:  # the recording run's program says nothing more than the others
            sys.exit("program failed: " + out.stderr)
        last = out.stdout.strip().splitlines()[0]
    print(last)
    print("# ran %d launches in %.3fs" % (n, time.time() - t0))
    print("harness done", file=sys.stderr)
    """
)


@pytest.fixture
def harness_files(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "harness.py").write_text(HARNESS)
    return tmp_path


def test_bad_harness_commands_are_one_line_exit_2(cli, real_python, harness_files):
    prog = str(harness_files / "prog.py")
    assert_one_line_error(cli("compare", "--python", real_python, "--harness", "echo hello", prog), 2, "{program}")
    assert_one_line_error(cli("compare", "--python", real_python, "--harness", "sh -c 'unclosed {program}", prog), 2,
                          "cannot split")
    assert_one_line_error(cli("compare", "--python", real_python, "--record-with", "x {program}", prog), 2, "--harness")
    assert_one_line_error(cli("compare", "--python", real_python, "--syscalls", "on", "--harness", "x {program}", prog), 2,
                          "--syscalls")
    assert_one_line_error(cli("compare", "--python", real_python, "--harness", "x {program}", "--workload", "hello"), 2,
                          "--harness")


def test_a_harness_failing_with_traditional_is_exit_3_and_not_timed(cli, real_python, harness_files, tmp_path):
    out = tmp_path / "out.json"
    res = cli("compare", "--python", real_python, "--build-dir", str(tmp_path / "b"), "-o", str(out),
              "--harness", f"{real_python} -c 'import sys; sys.exit(4)' {{program}}", str(harness_files / "prog.py"))
    assert_one_line_error(res, 3, "harness failed with the traditional variant", "exit 4")
    assert not out.exists() and not (tmp_path / "b").exists()  # nothing built, nothing written


def test_a_hanging_harness_obeys_timeout(cli, real_python, harness_files, tmp_path):
    res = cli("compare", "--python", real_python, "--timeout", "2", "--build-dir", str(tmp_path / "b"),
              "--harness", f"{real_python} -c 'import time; time.sleep(60)' {{program}}", str(harness_files / "prog.py"),
              timeout=120)
    assert_one_line_error(res, 3, "the harness (recording", "within 2 s (--timeout)")


def test_harness_times_each_variant_and_packs_what_it_imports(cli, real_python, harness_files, tmp_path):
    log = tmp_path / "loaders.log"
    out = tmp_path / "compare.json"
    res = cli("compare", "--python", real_python, "--variant", "in-memory,frozen", "--runs", "2",
              "--build-dir", str(tmp_path / "b"), "--export-json", str(out),
              # the script named relative to the working folder, the harness starting it from another
              "--harness", f"{real_python} harness.py {{program}} 4 {log} --elsewhere", "prog.py",
              cwd=str(harness_files))
    assert res.returncode == 0, res
    doc = json.loads(out.read_text())
    import jsonschema

    jsonschema.validate(doc, json.loads((REPO / "profiler" / "schemas" / "compare.json").read_text()))
    h = doc["harness"]
    assert h["program"] == "prog.py" and h["shell"] is False
    assert h["program_processes"] == 4  # every launch of the program recorded, the harness itself not
    assert h["processes"] is None or h["processes"] >= 5
    assert h["modules_added"] >= 1  # difflib: imported only by a launch the target's own run is not
    by = {v["variant"]: v for v in h["variants"]}
    assert set(by) == {"traditional", "in-memory", "frozen"}
    for v in by.values():
        assert v["same_as_traditional"] and v["exit_codes"] == [0, 0] and v["launches"] == [4, 4], v
        assert v["summary"] == ["prog 1", "# ran 4 launches in <time>", "stderr: harness done"]
    rows = {r["variant"]: r for r in doc["rows"]}
    assert all(rows[n]["cpu_s"] > 0 and rows[n]["pct_of_traditional"] is not None for n in by)
    assert not any(r.get("failed") for r in doc["results"])
    # the module only the harness's launches import came from each pack, not from the filesystem
    loaders = {n: set((tmp_path / f"loaders.log.{n}").read_text().split()) for n in ("in-memory", "frozen")}
    assert loaders["in-memory"] == {"OxidizedFinder"}, loaders
    assert loaders["frozen"] == {"FrozenImporter"}, loaders
    assert "harness.py" in res.stdout and "as traditional" in res.stdout
    # the table's pack / fallback of a packing variant is its processes' in the harness: the
    # modules they loaded from files outside the variant's own folder, as strace sees them
    origins = {o["variant"]: o for o in h["origins"]}
    assert set(origins) == {"traditional", "in-memory", "frozen"}
    for name in ("in-memory", "frozen"):
        o = origins[name]
        assert o["processes"] == 4 and o["exit_code"] == 0 and o["packed_modules"] > 0, o
        assert (rows[name]["packed_modules"], rows[name]["fallback_modules"]) == (o["packed_modules"], o["fallback_modules"])
        assert all(f["reason"] for f in o["fallback"])
        opened = _modules_read_from_files(harness_files, tmp_path / "b" / name, real_python, tmp_path / f"strace-{name}")
        assert {f["name"] for f in o["fallback"]} == opened and o["fallback_modules"] == len(opened), (name, o, opened)
    assert origins["frozen"]["fallback_modules"] >= 1  # its extension modules (difflib's _heapq): FrozenImporter serves bytecode only
    assert origins["traditional"]["packed_modules"] == 0 and origins["traditional"]["fallback_modules"] > 0
    assert "from files, not from its pack" in res.stdout


def _modules_read_from_files(harness_files, variant_dir, python, work) -> set:
    """The harness run under strace with the built variant's own command (its variant.json):
    the modules its program processes opened a file of (.py, .pyc, .so) outside the variant's
    folder, named by their path below the interpreter's sys.path."""
    import os
    import shlex
    import shutil
    import subprocess

    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (make setup installs it)")
    v = json.loads((variant_dir / "variant.json").read_text())
    bindir = work / variant_dir.name / "bin"
    bindir.mkdir(parents=True)
    script = bindir / "prog.py"
    exports = "".join(f"export {k}={shlex.quote(val)}\n" for k, val in v["env"].items())
    script.write_text(f"#!/bin/sh\n{exports}exec {shlex.join(v['argv'])} \"$@\"\n")
    script.chmod(0o755)
    log = work / "strace.log"
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve,openat", "-o", str(log), python, "harness.py", str(script), "4",
                    str(work / "l.log"), "--elsewhere"], cwd=str(harness_files), check=True, capture_output=True, timeout=120)
    roots = json.loads(subprocess.run([python, "-c", "import json, sys; print(json.dumps(sys.path))"], capture_output=True,
                                      text=True, check=True, cwd="/").stdout)
    roots = sorted({r for r in roots if r and os.path.isabs(r)}, key=len, reverse=True)
    program, names = set(), set()
    exe = v["argv"][0]
    pending: dict = {}  # pid -> (call, path) of a call strace printed <unfinished ...> (another process's came between)
    for line in log.read_text().splitlines():
        pid, _, call = line.partition(" ")
        call = call.lstrip()  # strace pads a pid shorter than 5 digits: "4181  execve(..."
        if call.startswith(("execve(", "openat(")) and "<unfinished" in call:
            pending[pid] = (call.split("(")[0], call.split('"')[1])
            continue
        if call.startswith("<... ") and pid in pending:
            name, path = pending.pop(pid)
            call = f'{name}("{path}"{call.partition("resumed>")[2]}'  # ") = 3", ") = -1 ENOENT (...)"
        if not call.startswith(("execve(", "openat(")) or "= -1" in call:
            continue
        path = call.split('"')[1]
        if call.startswith("execve("):
            if path == exe:
                program.add(pid)
            continue
        if pid in program:
            if not path.endswith((".py", ".pyc", ".so")) or path.startswith(str(variant_dir) + "/") or path == v["argv"][-1]:
                continue
            root = next(r for r in roots if path.startswith(r + "/"))
            rel = path[len(root) + 1:].replace("/__pycache__/", "/").split(".")[0]
            names.add(rel.replace("/", ".").removesuffix(".__init__"))
    assert program, "no process ran the variant's executable"
    return names


def test_a_variant_whose_harness_ends_otherwise_is_a_failed_row(cli, real_python, harness_files, tmp_path):
    res = cli("compare", "--python", real_python, "--variant", "no-site", "--runs", "1", "--format", "json",
              "--build-dir", str(tmp_path / "b"),
              "--harness", f"{real_python} harness.py {{program}} 2 {tmp_path / 'l.log'} --probe", str(harness_files / "prog.py"),
              cwd=str(harness_files))
    assert res.returncode == 0, res
    doc = res.json()
    by = {v["variant"]: v for v in doc["harness"]["variants"]}
    assert by["traditional"]["same_as_traditional"]
    assert not by["no-site"]["same_as_traditional"]
    assert "no_site 1" in by["no-site"]["difference"] and "no_site 0" in by["no-site"]["difference"]
    failed = {r["variant"]: r for r in doc["results"] if r.get("failed")}
    assert set(failed) == {"no-site"} and "summary differs" in failed["no-site"]["error"]


def test_build_record_with_packs_what_the_command_imports(cli, real_python, harness_files, tmp_path):
    out = tmp_path / "b"
    res = cli("build", "--python", real_python, "--variant", "in-memory", "-o", str(out),
              "--record-with", f"{real_python} harness.py {{program}} 2 {tmp_path / 'l.log'}", str(harness_files / "prog.py"),
              cwd=str(harness_files))
    assert res.returncode == 0, res
    assert b"difflib" in (out / "in-memory" / "packed-resources").read_bytes()  # only the recorded launches import it
    plain = tmp_path / "plain"
    res = cli("build", "--python", real_python, "--variant", "in-memory", "-o", str(plain), str(harness_files / "prog.py"))
    assert res.returncode == 0, res
    assert b"difflib" not in (plain / "in-memory" / "packed-resources").read_bytes()
    bad = cli("build", "--python", real_python, "-o", str(tmp_path / "c"), "--record-with",
              f"{real_python} -c 'import sys; sys.exit(2)' {{program}}", str(harness_files / "prog.py"))
    assert_one_line_error(bad, 3, "--record-with", "exit 2", "nothing built")
    assert_one_line_error(cli("build", "--python", real_python, "--record-with", "true", str(harness_files / "prog.py")), 2,
                          "{program}")


def test_a_failure_of_the_module_recorder_is_importprofs_not_the_harness(cli, real_python, harness_files, tmp_path):
    # a program that leaves the recorder's `posix` out of sys.modules: the recorder fails at exit
    # in each process of the packing variant's untimed run. Said as importprof's, the variant's
    # pack / fallback not recorded; nothing on the program's stderr, which the harness checks
    # (it exits 1 on any), so the harness ran as with traditional
    (harness_files / "prog.py").write_text("import sys\nsys.modules.pop('posix', None)\nprint('prog', len(sys.argv))\n")
    res = cli("compare", "--python", real_python, "--variant", "in-memory", "--runs", "1", "--format", "json",
              "--build-dir", str(tmp_path / "b"),
              "--harness", f"{real_python} harness.py {{program}} 2 {tmp_path / 'l.log'}", "prog.py", cwd=str(harness_files))
    assert res.returncode == 0, res
    doc = res.json()
    assert [o["variant"] for o in doc["harness"]["origins"]] == ["traditional"], doc["harness"]["origins"]
    rows = {r["variant"]: r for r in doc["rows"]}
    assert rows["in-memory"]["packed_modules"] is None
    said = [w for w in doc["warnings"] if "in-memory" in w and "not recorded" in w]
    assert said and "importprof's own code failed" in said[0] and "exited" not in said[0], doc["warnings"]


def test_the_recorder_keeps_an_earlier_process_file_of_the_same_id(real_python, tmp_path):
    # a long harness outlives the process ids: a process given an earlier one's id must not
    # overwrite what that one recorded (here the program writes the earlier file itself)
    import subprocess

    from profiler.capture.harness_runs import read_recorded, write_program

    rec = tmp_path / "rec"
    rec.mkdir()
    code = "import os, sys; open(os.path.join(sys.argv[1], '%d.txt' % os.getpid()), 'w').write('an_earlier_process\\t\\n')"
    script, _ = write_program(str(tmp_path / "p"), "prog", [real_python, "-c", code], record_dir=str(rec))
    subprocess.run([script, str(rec)], check=True, timeout=60)
    n, names = read_recorded(str(rec))
    assert n == 2 and "an_earlier_process" in names and "os" in names, (n, sorted(p.name for p in rec.iterdir()))


def test_the_module_recorder_keeps_an_earlier_process_file_of_the_same_id(real_python, tmp_path):
    # the same for a packing variant's recorder (the oxidized_modules hook with a folder)
    import subprocess

    from profiler.capture.bootstrap import bootstrap_argv
    from profiler.capture.harness_runs import read_origin_records
    from profiler.model.target import Target
    from profiler.model.words import TargetKind

    rec = tmp_path / "rec"
    rec.mkdir()
    code = ("import os, sys; open(os.path.join(sys.argv[1], '%d.json' % os.getpid()), 'w')"
            ".write('{\"modules\": [{\"name\": \"an_earlier_process\"}]}')")
    argv = bootstrap_argv(real_python, [], Target(TargetKind.CODE, code, (str(rec),)), ["oxidized_modules"],
                          {"oxidized_modules_dir": str(rec)})
    subprocess.run(argv, check=True, timeout=60)
    runs = read_origin_records(str(rec))
    names = [{r["name"] for r in records} for records in runs]
    assert len(runs) == 2 and {"an_earlier_process"} in names and any("os" in n for n in names), sorted(p.name for p in rec.iterdir())


@pytest.mark.parametrize("argv", [["build", "--record-with", "run {program}"], ["compare", "--harness", "run {program}"]])
def test_a_harness_run_is_limited_to_an_hour_unless_timeout_says(monkeypatch, harness_files, argv):
    # a test suite outlives one program run's limit (60 s): build --record-with as compare --harness
    from profiler import commands
    from profiler.compose import build as compose_build, compare as compose_compare
    from profiler.compose.compare_harness import HARNESS_TIMEOUT_S
    from profiler.errors import UsageError

    seen = []

    def stop(opts, *, session):
        seen.append(session.timeout_s)
        raise UsageError("stopped here")

    monkeypatch.setattr(compose_build, "build", stop)
    monkeypatch.setattr(compose_compare, "compare", stop)
    prog = str(harness_files / "prog.py")
    assert commands.main([*argv, prog]) == 2
    assert commands.main([*argv, "--timeout", "5", prog]) == 2
    assert seen == [HARNESS_TIMEOUT_S, 5.0]
