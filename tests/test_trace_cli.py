"""`importprof trace` end to end: the real strace, real interpreters, real failures."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from conftest import assert_one_line_error

STRACE = "/usr/bin/strace"
pytestmark = pytest.mark.skipif(not os.path.exists(STRACE), reason="strace is not installed (make setup installs it)")


def _owners_of(log_text: str, needle: str) -> list:
    """For each successful open whose -y path ends with needle: the module whose import
    boundaries (from the `import time:` writes, or a saved log's markers) surround it (None
    outside imports)."""
    from profiler.analysis.import_boundaries import with_import_boundaries
    from profiler.parse.strace import parse_strace

    stack: list[str] = []
    owners = []
    for c in with_import_boundaries(parse_strace(log_text))[0].syscalls:
        p = c.path or ""
        if p.startswith("/.importprof-mark/b/"):
            stack.append(p.rsplit("/", 1)[1])
        elif p.startswith(("/.importprof-mark/e/", "/.importprof-mark/f/")):
            stack.pop()
        elif c.name == "openat" and c.ret_path and c.ret_path.endswith(needle):
            owners.append(stack[-1] if stack else None)
    return owners


def test_attribution_on_a_real_run(cli, real_python, tmp_path):
    log = tmp_path / "t.strace"
    res = cli("trace", "--python", real_python, "--variant", "no-site", "--keep-log", log, "--format", "json", "-c", "import json, csv")
    assert res.returncode == 0, res
    doc = res.json()
    assert list(doc) == ["schema", "machine", "syscalls", "modules", "filesystem", "processes", "harness", "warnings"]
    assert doc["schema"] == "importprof.trace/1" and doc["machine"]
    mods = {m["name"]: m for m in doc["modules"]}
    for name in ("json", "json.decoder", "csv"):
        assert mods[name]["opened"] >= 1, name
        assert mods[name]["bytes_read"] > 0, name
    # each owns its own .pyc open (nested imports' syscalls go to the inner module)
    text = log.read_text()
    assert [o for o in _owners_of(text, "json/__pycache__/__init__.cpython-311.pyc") if o] == ["json"]
    assert [o for o in _owners_of(text, "json/__pycache__/decoder.cpython-311.pyc") if o] == ["json.decoder"]
    assert _owners_of(text, "__pycache__/csv.cpython-311.pyc") == ["csv"]
    # the `import time:` writes are importprof's: counted nowhere, the module rows add up to
    # the syscall total, which is every other call of the log
    total = sum(s["count"] for s in doc["syscalls"])
    assert sum(m["syscalls"] for m in doc["modules"]) == total
    own = text.count('"import time:')
    assert own > 0 and doc["harness"]["importprof_syscalls"] == own
    assert "/.importprof-mark/" not in text  # no hook ran inside the program
    assert total == len([ln for ln in text.splitlines() if "(" in ln and "resumed>" not in ln]) - own
    assert doc["processes"][0]["attribution"] == "importtime"
    assert doc["processes"][0]["exit_code"] == 0
    # the saved log gives the same summary again
    again = cli("trace", "--from-log", log, "--format", "json")
    assert again.returncode == 0, again
    assert again.json()["modules"] == doc["modules"] and again.json()["syscalls"] == doc["syscalls"]


def test_table_and_site_imports_attributed(cli, real_python):
    res = cli("trace", "--python", real_python, "-c", "pass")
    assert res.returncode == 0, res
    assert "Syscalls per imported module" in res.stdout and "time in syscalls" in res.stdout
    assert "\x1b[" not in res.stdout  # plain text when not a terminal
    # hooks are installed before site: site and what it imports (.pth files...) are attributed
    doc = cli("trace", "--python", real_python, "--format", "json", "-c", "pass").json()
    assert "site" in {m["name"] for m in doc["modules"]}


def test_variants_side_by_side(cli, real_python, tmp_path):
    out = tmp_path / "v.json"
    keep = tmp_path / "log.strace"
    res = cli("trace", "--python", real_python, "--variant", "default,no-site", "--keep-log", keep, "-o", out, "-c", "import json")
    assert res.returncode == 0, res
    assert "Syscalls per variant" in res.stdout and "no-site" in res.stdout
    doc = json.loads(out.read_text())
    assert list(doc) == ["schema", "machine", "variants", "warnings"]
    assert [v["variant"] for v in doc["variants"]] == ["default", "no-site"]
    for v in doc["variants"]:
        assert list(v) == ["variant", "syscalls", "modules", "filesystem", "processes", "harness"]
    default, nosite = doc["variants"]
    names_default = {m["name"] for m in default["modules"]}
    names_nosite = {m["name"] for m in nosite["modules"]}
    assert "site" in names_default and "site" not in names_nosite
    assert "json" in names_default and "json" in names_nosite
    assert (tmp_path / "log.default.strace").exists() and (tmp_path / "log.no-site.strace").exists()


def test_chrome_format(cli, real_python):
    res = cli("trace", "--python", real_python, "--variant", "no-site", "--format", "chrome", "-c", "import json")
    assert res.returncode == 0, res
    ev = json.loads(res.stdout)["traceEvents"]
    assert any(e.get("cat") == "import" and e["name"] == "json" for e in ev)
    assert any(e.get("cat") == "syscall" and e["name"] == "openat" for e in ev)


def test_command_target_and_from_log_without_markers(cli, tmp_path, fixtures):
    res = cli("trace", "--format", "json", "--", "/bin/sh", "-c", "cat /etc/hostname >/dev/null")
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["modules"] == []
    assert {p["command"] for p in doc["processes"]} >= {"/bin/sh", "/usr/bin/cat"}
    assert "no per-module attribution" in res.stderr
    assert any("no per-module attribution" in w for w in doc["warnings"])  # the report page shows them
    res = cli("trace", "--from-log", fixtures / "strace" / "truncated.log")
    assert res.returncode == 0, res
    assert "truncated line" in res.stderr and "Processes and threads" in res.stdout


def test_io_footgun_lines_vs_blocks(cli, real_python, tmp_path):
    """README: iterating a big binary file by lines reads it in buffer-sized (4 KiB here) reads;
    1 MiB blocks need a few hundredth as many syscalls. The histogram shows it."""
    size = 8 * 2**20
    data = tmp_path / "big.bin"
    data.write_bytes(os.urandom(size))
    by_lines = f"n = 0\nfor line in open({str(data)!r}, 'rb'):\n    n += 1"
    by_blocks = f"f = open({str(data)!r}, 'rb')\nwhile f.read(1 << 20):\n    pass"
    docs = {}
    for name, code in (("lines", by_lines), ("blocks", by_blocks)):
        res = cli("trace", "--python", real_python, "--variant", "no-site", "--format", "json", "-c", code)
        assert res.returncode == 0, res
        docs[name] = res.json()["filesystem"]

    def file_entry(fs):
        return next(f for f in fs["files"] if f["name"] == str(data))

    def biggest_bucket(fs):
        return max(fs["read_sizes"], key=lambda b: b["bytes"])

    assert file_entry(docs["lines"])["bytes_read"] == size == file_entry(docs["blocks"])["bytes_read"]
    lines_bucket, blocks_bucket = biggest_bucket(docs["lines"]), biggest_bucket(docs["blocks"])
    assert lines_bucket["max_bytes"] < 2**16  # buffer-sized reads (st_blksize / 8 KiB)
    assert blocks_bucket["min_bytes"] == 2**20  # 1 MiB reads
    assert lines_bucket["count"] >= size // lines_bucket["max_bytes"]
    assert blocks_bucket["count"] == size // 2**20
    # the rest of the process (start-up, imports) reads the same in both
    extra = docs["lines"]["reads"] - docs["blocks"]["reads"]
    assert extra >= size // (lines_bucket["max_bytes"] + 1) - size // 2**20


# --- failures: one line, exit 3 ---------------------------------------------------------


def test_strace_missing(cli, real_python, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    res = cli("trace", "--python", real_python, env={"PATH": str(empty)})
    assert_one_line_error(res, 3, "strace not found", "apt-get install strace")


SECCOMP_WRAPPER = textwrap.dedent(
    r'''
    """Run argv under a seccomp filter that makes ptrace(2) fail with EPERM (as a container's
    default seccomp profile does), then exec it: everything it starts inherits the filter."""
    import ctypes, os, platform, struct, sys

    NR_PTRACE = {"x86_64": 101, "aarch64": 117}[platform.machine()]
    libc = ctypes.CDLL(None, use_errno=True)

    def insn(code, k, jt=0, jf=0):
        return struct.pack("HBBI", code, jt, jf, k)

    prog = (
        insn(0x20, 0)                      # ld [nr]
        + insn(0x15, NR_PTRACE, 0, 1)      # jeq ptrace ? next : skip
        + insn(0x06, 0x00050000 | 1)       # ret ERRNO(EPERM)
        + insn(0x06, 0x7FFF0000)           # ret ALLOW
    )
    buf = ctypes.create_string_buffer(prog)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog) // 8, ctypes.addressof(buf))
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        sys.exit("prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        sys.exit("prctl(PR_SET_SECCOMP) failed: errno %d" % ctypes.get_errno())
    os.execv(sys.argv[1], sys.argv[1:])
    '''
)


def test_ptrace_denied_by_a_real_seccomp_filter(real_python, tmp_path):
    import subprocess

    wrapper = tmp_path / "no_ptrace.py"
    wrapper.write_text(SECCOMP_WRAPPER)
    proc = subprocess.run(
        [real_python, str(wrapper), sys.executable, "-m", "profiler", "trace", "--python", real_python, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "prctl" in proc.stderr and proc.returncode == 1 and "importprof" not in proc.stderr:
        pytest.skip(f"cannot install a seccomp filter here: {proc.stderr.strip()}")

    class Res:
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr

        def __repr__(self):
            return f"rc={proc.returncode}\n{proc.stderr}"

    line = assert_one_line_error(Res, 3, "ptrace not permitted", "seccomp")
    assert "Seccomp: 2" in line


def test_target_fails(cli, real_python):
    res = cli("trace", "--python", real_python, "--variant", "no-site", "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(4)")
    assert_one_line_error(res, 3, "target failed", "exit code 4")
    assert "boom" in res.stderr


def test_bad_inputs(cli, tmp_path, fixtures):
    assert_one_line_error(cli("trace", "--from-log", tmp_path / "nope.log"), 2, "cannot read strace log")
    junk = tmp_path / "junk.log"
    junk.write_text("hello\nworld\n")
    assert_one_line_error(cli("trace", "--from-log", junk), 2, "no strace records")
    assert_one_line_error(cli("trace", "--from-log", fixtures / "strace" / "multiproc.log", "--variant", "no-site"), 2, "--from-log")
    assert_one_line_error(cli("trace", "--variant", "bogus"), 2, "unknown variant")


def test_command_python_attributed_from_lookups(cli, real_python):
    """Issue 10.5: `trace -- python3 -S -c "import json, csv"` attributes (was: "traced without
    import markers: no per-module attribution")."""
    for argv in ((real_python,), ("python3",)):  # python3: through the pyenv shim's shells too
        res = cli("trace", "--format", "json", "--", *argv, "-S", "-c", "import json, csv")
        assert res.returncode == 0, res
        doc = res.json()
        # (the untraced runs' busy-machine warning may come: they go through the timing pipeline)
        assert "no per-module attribution" not in res.stderr and not any("attribution" in w for w in doc["warnings"])
        py = [p for p in doc["processes"] if p["python"]]
        assert len(py) == 1 and py[0]["attribution"] == "lookups" and py[0]["argv"][-1] == "import json, csv"
        assert all(p["attribution"] is None for p in doc["processes"] if not p["python"])
        mods = {m["name"]: m for m in doc["modules"]}
        for name in ("json", "json.decoder", "json.scanner", "csv", "_csv", "re"):
            assert mods[name]["opened"] >= 1 and mods[name]["processes"] == 1, name
        assert sum(m["syscalls"] for m in doc["modules"]) == sum(s["count"] for s in doc["syscalls"])
        assert {m["name"] for m in py[0]["modules"]} - {"(outside imports)"} == set(mods) - {"(outside imports)"}


def test_lookups_agree_with_markers(fixtures):
    """The same real run read both ways: without its marker lines, the inference finds every
    module that opened a file, with that file."""
    from profiler.analysis.attribution import summarize_trace
    from profiler.parse.strace import parse_strace

    text = (fixtures / "strace" / "markers-json-csv.log").read_text()
    marked = summarize_trace(parse_strace(text))
    inferred = summarize_trace(parse_strace("".join(ln for ln in text.splitlines(True) if "/.importprof-mark/" not in ln)))
    assert marked.processes[0].attribution == "markers" and inferred.processes[0].attribution == "lookups"
    got = {m.name: m for m in inferred.modules}
    for m in marked.modules:
        if m.opened and m.name != "(outside imports)":
            assert got[m.name].opened >= m.opened, m.name
    assert inferred.total_syscalls == marked.total_syscalls
    # the timeline gets the inferred imports as spans too (first lookup to the open of the file)
    spans = {s.name: s for s in inferred.spans}
    assert spans["csv"].begin_s <= spans["csv"].end_s and spans["json.decoder"].depth == 0
    from profiler.model.syscall_trace import TraceReport
    from profiler.render.chrome_syscalls import render_chrome_syscalls

    events = json.loads(render_chrome_syscalls(TraceReport((inferred,), machine={})))["traceEvents"]
    assert "csv" in {e["name"] for e in events if e.get("cat") == "import"}


HARNESS = """
import subprocess, sys
# as test suites do: interpreters in a loop, output captured, some with -S, -I, -E, one nested
for mod in ("json", "csv"):
    subprocess.run([sys.executable, "-c", "import " + mod], capture_output=True, check=True)
subprocess.run([sys.executable, "-S", "-c", "import fractions"], check=True)
subprocess.run([sys.executable, "-I", "-c", "import email.message"], check=True)
subprocess.run([sys.executable, "-E", "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import decimal'], check=True)  # a long line, cut in tables"], check=True)
"""


def test_harness_processes_and_headline(cli, real_python, tmp_path):
    """Issue 10.5/10.6 (trace side): every Python process of a harness, any flags, children and
    grandchildren, attributed; argv whole in JSON, shortened in the table; the headline."""
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    out = tmp_path / "t.json"
    res = cli("trace", "-o", out, "--", real_python, script)
    assert res.returncode == 0, res
    doc = json.loads(out.read_text())
    py = {p["pid"]: p for p in doc["processes"] if p["python"]}
    assert len(py) == 7 and all(p["attribution"] == "lookups" for p in py.values())
    by_code = {p["argv"][-1]: p for p in py.values()}
    root = by_code[str(script)]
    expect = {"import json": "json", "import csv": "csv", "import fractions": "fractions", "import email.message": "email.message", "import decimal": "decimal"}
    for code, module in expect.items():
        p = by_code[code]
        assert module in {m["name"] for m in p["modules"]}, (code, [m["name"] for m in p["modules"]])
        assert p["wall_s"] > 0 and p["exit_code"] == 0
    nested = by_code["import decimal"]
    middle = py[nested["parent"]]
    assert middle["argv"][1] == "-E" and middle["parent"] == root["pid"] and middle["argv"][-1].endswith("cut in tables")
    mods = {m["name"]: m for m in doc["modules"]}
    assert mods["encodings"]["processes"] == 7 and mods["email.message"]["processes"] == 1
    assert mods["decimal"]["processes"] == 2  # its own process and the one importing fractions
    assert mods["json"]["cumulative_syscalls"] >= mods["json"]["syscalls"]
    h = doc["harness"]
    assert h["python_processes"] == 7 and h["processes"] >= 7 and h["attribution"] == {"markers": 0, "lookups": 7}
    assert 0 < h["python_busy_s"] <= h["wall_s"] and 0 < h["python_share"] <= 1
    assert h["python_wall_s"] >= h["python_busy_s"]  # nested interpreters overlap
    # the table: headline, a processes column, argv shortened in the middle
    assert "7 Python processes of" in res.stdout and "% )" not in res.stdout
    assert middle["argv"][-1] not in res.stdout and "…ine, cut in tables" in res.stdout
    assert "processes" in res.stdout.split("Syscalls per imported module")[1].split("\n")[2]


def test_program_traceback_without_importprof_frames(cli, real_python, tmp_path):
    """Issue 11.5: the program's traceback is python's own: no launch.py / hook_markers.py frames."""
    res = cli("trace", "--python", real_python, "-c", "import nonexistent_mod")
    assert res.returncode == 3, res
    assert "No module named 'nonexistent_mod'" in res.stderr and 'File "<string>", line 1, in <module>' in res.stderr
    assert "launch.py" not in res.stderr and "hook_markers" not in res.stderr and "_find_and_load" not in res.stderr
    script = tmp_path / "chained.py"
    script.write_text("def f():\n    import json\n    raise ValueError('inner')\ntry:\n    f()\nexcept ValueError as e:\n    raise KeyError('outer') from e\n")
    res = cli("trace", "--python", real_python, script)
    assert res.returncode == 3, res
    assert "ValueError: inner" in res.stderr and "KeyError: 'outer'" in res.stderr and "direct cause" in res.stderr
    assert "launch.py" not in res.stderr and "hook_" not in res.stderr
    assert f'File "{script}", line 7, in <module>' in res.stderr  # the program's own frames stay
    # a KeyboardInterrupt too: python's traceback, and death by SIGINT as python's
    res = cli("trace", "--python", real_python, "-c", "raise KeyboardInterrupt")
    assert res.returncode == 3 and "killed by signal 2" in res.stderr, res
    assert "KeyboardInterrupt" in res.stderr and "launch.py" not in res.stderr


def test_failed_imports_are_not_modules(cli, real_python):
    """Issue 11.4 (trace side): nt, _winapi (shutil tries them on Linux) are failed imports."""
    res = cli("trace", "--python", real_python, "--format", "json", "-c", "import shutil")
    assert res.returncode == 0, res
    mods = {m["name"]: m for m in res.json()["modules"]}
    assert mods["nt"]["failed_import"] and mods["nt"]["syscalls"] > 0  # its cost is real
    assert not mods["shutil"]["failed_import"] and not mods["os"]["failed_import"]
    table = cli("trace", "--python", real_python, "--top", "200", "-c", "import shutil").stdout
    assert "nt (import failed)" in table and "shutil (import failed)" not in table
    side = cli("trace", "--python", real_python, "--variant", "default,no-site", "-c", "import shutil").stdout
    assert "failed imports" in side


def test_cumulative_syscalls_are_the_subtree(fixtures):
    """Issue 11.13 (trace side): cumulative = every non-marker call between the module's own
    begin and end markers (its nested imports included); self <= cumulative."""
    from profiler.analysis.attribution import summarize_trace
    from profiler.parse.strace import parse_strace

    log = parse_strace((fixtures / "strace" / "markers-json-csv.log").read_text())
    r = summarize_trace(log)
    mods = {m.name: m for m in r.modules}
    for name in ("json", "json.decoder", "re", "csv", "collections"):
        inside = 0
        depth = None
        for c in log.syscalls:
            if c.path and c.path.startswith("/.importprof-mark/"):
                kind, mod = c.path.split("/")[2:4]
                if mod == name and kind == "b":
                    depth = 0
                elif mod == name and depth is not None:
                    break
                continue
            if depth is not None:
                inside += 1
        assert mods[name].cumulative_syscalls == inside, name
        assert mods[name].syscalls <= mods[name].cumulative_syscalls
    assert mods["json"].cumulative_syscalls > mods["json"].syscalls + mods["json.decoder"].syscalls


def test_a_failing_variant_is_an_entry_not_an_abort(cli, real_python, tmp_path):
    """Issue 10.1's rule in trace: with several variants, one whose target fails becomes a failed
    entry (error line, exit codes, the cause when known) and the others are traced; exit 3 only
    when every variant fails (or the one asked alone does). -I drops the script's folder as
    python does (the launcher honours sys.flags.safe_path)."""
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("import json\n")
    (tmp_path / "app.py").write_text("import mylib\nprint('ok')\n")
    res = cli("trace", "--python", real_python, "--variant", "default,isolated", "--format", "json", "app.py", cwd=tmp_path)
    assert res.returncode == 0, res
    doc = res.json()
    by = {v["variant"]: v for v in doc["variants"]}
    assert "failed" not in by["default"] and "mylib" in {m["name"] for m in by["default"]["modules"]}
    assert by["isolated"]["failed"] and by["isolated"]["exit_codes"] == [1] and "No module named 'mylib'" in by["isolated"]["error"]
    assert any("isolated: failed" in w and "-I drops the script's folder" in w for w in doc["warnings"])
    table = cli("trace", "--python", real_python, "--variant", "default,isolated", "app.py", cwd=tmp_path)
    assert table.returncode == 0 and "failed: exited with code 1" in table.stdout
    alone = cli("trace", "--python", real_python, "--variant", "isolated", "app.py", cwd=tmp_path)
    assert_one_line_error(alone, 3)
    every = cli("trace", "--python", real_python, "--variant", "default,isolated", "-c", "import nonexistent_mod")
    assert_one_line_error(every, 3, "every variant")


def test_no_site_keeps_the_paths_the_target_needs(cli, tmp_path):
    """`no-site` means one thing everywhere: -S plus the sys.path entries site would add (an
    installed package still imports); plain -S is `no-site-bare`."""
    venv_python = os.path.join(os.path.dirname(sys.executable), "python")
    res = cli("trace", "--python", venv_python, "--variant", "no-site,no-site-bare", "--format", "json", "-c", "import typer")
    assert res.returncode == 0, res
    by = {v["variant"]: v for v in res.json()["variants"]}
    assert "failed" not in by["no-site"] and "typer" in {m["name"] for m in by["no-site"]["modules"]}
    assert "site" not in {m["name"] for m in by["no-site"]["modules"]}  # site's work is skipped
    assert by["no-site-bare"]["failed"] and "No module named 'typer'" in by["no-site-bare"]["error"]


def test_from_log_of_a_plain_strace_log(cli, real_python, tmp_path):
    """A user's own log, made the plain way (`strace -f -o FILE CMD`: no times, durations or fd
    paths): trace --from-log summarizes it as the careful pure-Python path does, with the
    Python children attributed from their lookups; past the input limit it is one line, before
    any of it is read, and no -o file."""
    import subprocess

    from profiler.analysis.attribution import summarize_trace
    from profiler.parse.strace import parse_strace

    log = tmp_path / "run.strace"
    sh = f"{real_python} -c 'import json, csv' & {real_python} -c 'import email.utils' & wait"
    done = subprocess.run([STRACE, "-f", "-o", str(log), "--", "/bin/sh", "-c", sh], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    text = log.read_text(errors="replace")
    assert "<unfinished ...>" in text and " <0." not in text
    res = cli("trace", "--from-log", log, "--format", "json")
    assert res.returncode == 0, res
    doc = res.json()
    careful = summarize_trace(parse_strace(text, fast=False), "default", fast=False).body()
    assert json.dumps({k: doc[k] for k in careful}, sort_keys=True) == json.dumps(json.loads(json.dumps(careful)), sort_keys=True)
    assert sum(1 for p in doc["processes"] if p["attribution"] == "lookups") == 2
    assert {"json", "csv", "email.utils"} <= {m["name"] for m in doc["modules"]}
    big = tmp_path / "big.strace"
    big.write_text(text * (2 * 2**20 // len(text) + 1))
    out = tmp_path / "out.json"
    assert_one_line_error(cli("trace", "--from-log", big, "-o", out, env={"IMPORTPROF_MAX_INPUT_MB": "1"}), 2, "larger than 1 MiB", "IMPORTPROF_MAX_INPUT_MB")
    assert not out.exists()


def _strace_c_total(path) -> int:
    """The calls column of `strace -c`'s total row (strace's own count of the calls)."""
    for line in open(path):
        if line.rstrip().endswith("total"):
            return int(line.split()[3])
    raise AssertionError(f"no total row in strace -c output: {open(path).read()[-500:]}")


def test_counts_agree_with_plain_strace(cli, tmp_path):
    """Issue 32.3: `trace` counts what the program does. A real program (pip --version, its
    #! line naming the venv's interpreter) traced by importprof and by plain `strace -f -c`
    (strace counting the calls itself): the totals agree within 3 % or 150 calls (strace's own
    run-to-run spread is a few calls), the `import time:` writes that give the boundaries are
    left out and said so, and no module row is importprof's."""
    import subprocess

    pip = os.path.join(os.path.dirname(sys.executable), "pip")
    if not os.path.exists(pip):
        pytest.skip("no pip in importprof's venv")
    counted = tmp_path / "c.txt"
    done = subprocess.run([STRACE, "-f", "-c", "-o", str(counted), "--", pip, "--version"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    plain = _strace_c_total(counted)
    res = cli("trace", "--format", "json", pip, "--version")
    assert res.returncode == 0, res
    doc = res.json()
    total = sum(s["count"] for s in doc["syscalls"])
    assert abs(total - plain) <= max(150, 0.03 * plain), (total, plain)
    assert doc["harness"]["importprof_syscalls"] > 100  # one write per import, left out
    assert [p["attribution"] for p in doc["processes"] if p["python"]] == ["importtime"]
    names = {m["name"] for m in doc["modules"]}
    assert "pip" in names and not any(n.startswith(("profiler", "importprof")) for n in names)
    assert sum(m["syscalls"] for m in doc["modules"]) == total
    table = cli("trace", pip, "--version").stdout
    assert "The counts are exact" in table and "`import time:` writes" in table


def test_saved_markers_log_is_not_called_exact(cli, fixtures):
    """A saved log of the old markers hook still reads (--from-log), but its counts hold what
    the hook made CPython do: the table does not call them exact."""
    res = cli("trace", "--from-log", fixtures / "strace" / "markers-json-csv.log")
    assert res.returncode == 0, res
    assert "import markers" in res.stdout and "The counts are exact" not in res.stdout
    assert "markers hook made the program do" in res.stdout


def test_from_log_stdin_equals_the_file(cli, tmp_path, fixtures):
    """`trace --from-log -` reads standard input a piece at a time, as a file is read: the same
    document from a pipe as from the file (the variant named `stdin`), and for a log with a lone
    \\r (read whole, from the copy of stdin made as it was read) the same as that file gives."""
    log = fixtures / "strace" / "parallel-importtime.log"
    text = log.read_text()
    odd = tmp_path / "odd.strace"
    odd.write_text(text.replace("\n", "\r", 1), newline="")
    for path in (log, odd):
        want, got = cli("trace", "--from-log", path, "--format", "json"), cli("trace", "--from-log", "-", "--format", "json", input=path.read_bytes().decode())
        assert want.returncode == 0 and got.returncode == 0, (want, got)
        a, b = want.json(), got.json()
        a.pop("machine"), b.pop("machine")
        assert a == b and a["modules"]
    table = cli("trace", "--from-log", "-", input=text)
    assert table.returncode == 0 and "Syscalls per imported module" in table.stdout
    assert_one_line_error(cli("trace", "--from-log", "-", input="hello\nworld\n"), 2, "stdin holds no strace records")


def test_stdin_pieces_and_their_copy(tmp_path, fixtures, monkeypatch):
    """stdin_text_chunks: pieces that join to stdin's text (a UTF-8 character cut by a piece
    boundary whole in the next), and the copy it makes byte for byte what was read."""
    from profiler.inputs.bounded import stdin_text_chunks

    src = tmp_path / "in.strace"
    src.write_bytes((fixtures / "strace" / "multiproc.log").read_bytes() + "é€😀\n".encode() * 3000)
    copy = tmp_path / "copy"
    with open(src, "rb") as f:
        monkeypatch.setattr("sys.stdin", f)
        pieces = list(stdin_text_chunks("log", copy_to=str(copy), chunk_bytes=4097))
    assert len(pieces) > 10
    assert "".join(pieces) == src.read_text(encoding="utf-8")
    assert copy.read_bytes() == src.read_bytes()
