"""The contract, against a generated battery of bad inputs: every command, every
option that reads a file (empty, binary, truncated, CRLF, huge, wrong-schema, wrong types,
NaN, deeply nested, UTF-16, missing, a directory) and every option that names a program
(missing, a directory, not executable, ENOEXEC), numbers out of range, outputs that cannot be
written. For each case:

- exit code in {1, 2, 3} (a case marked "either" may also succeed: a CRLF or truncated log is
  valid input, read tolerantly),
- exactly one `importprof: error:` line on failure (none on success), no `Traceback`,
- no new file in the working folder or the temporary folder, except the requested output,
- the file named by -o unchanged when the command failed.

Cases run through `profiler.commands.main()` in this process (the real command line, ~20 ms a
case instead of a ~300 ms interpreter start); `test_a_sample_through_the_real_entry_point` runs
one case per command as a real subprocess, and IMPORTPROF_BATTERY_SUBPROCESS=1 runs them all
that way. Every case has a fresh folder, so the module is parallel-safe.

The contract's other tests: the OS's side of writing (test_contract_outputs.py), streams and
progress (test_contract_streams.py), a SIGKILL and two invocations at once
(test_contract_concurrency.py); what they share is in tests/_battery.py.
"""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from _battery import FIXTURES, GOOD_DOC, GOOD_LOG, OUTPUT_COMMANDS, REPO, call, in_process, in_subprocess, one_error

SENTINEL = b'{"keep": "this output must survive a failure"}\n'
SUBPROCESS = os.environ.get("IMPORTPROF_BATTERY_SUBPROCESS") == "1"


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # placeholders: {f} bad input, {good} a valid imports doc, {p} a bad program, {out} the -o file
    outcome: str = "fail"  # "fail": exit 1/2/3; "either": 0 is fine too
    input_kind: str | None = None
    input_format: str = "json"  # what a valid file of this option looks like: json | importtime | strace
    program_kind: str | None = None
    env: tuple[tuple[str, str], ...] = ()  # extra environment for the run
    stdin: str | None = None  # None: /dev/null; "closed" (<&-), "zero" (</dev/zero), "big" (more than the input limit)
    needle: str | None = None  # the error line must name it (the option the case is about)


# ------------------------------------------------------------------ bad files
def _valid(fmt: str) -> bytes:
    return {
        "json": (FIXTURES / "report" / "imports.json").read_bytes(),
        "importtime": (FIXTURES / "importtime" / "cryptography_fernet.log").read_bytes(),
        "strace": (FIXTURES / "strace" / "multiproc.log").read_bytes(),
    }[fmt]


def make_input(kind: str, fmt: str, folder: Path) -> str:
    path = folder / f"input-{kind}"
    valid = _valid(fmt)
    if kind == "missing":
        return str(folder / "no-such-file.json")
    if kind == "directory":
        path.mkdir()
        return str(path)
    if kind in DEVICES:  # never end: refused, not read until memory runs out
        return DEVICES[kind]
    if kind == "fifo":  # a named pipe no program writes to: refused at once, never waited on
        os.mkfifo(path)
        return str(path)
    data = {
        "empty": lambda: b"",
        "binary": lambda: bytes(random.Random(7).randrange(256) for _ in range(4096)),
        "truncated": lambda: valid[: len(valid) // 2],
        "crlf": lambda: valid.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
        "huge": lambda: b"x" * (8 << 20),
        "wrong-schema": lambda: (FIXTURES / "report" / "trace.json").read_bytes().replace(b"importprof.trace/1", b"importprof.imports/1"),
        "wrong-types": lambda: _wrong_types(),
        "nan": lambda: valid.replace(b'"total_us": ', b'"total_us": NaN, "x": ', 1) if fmt == "json" else b'{"a": NaN}',
        "deep": lambda: b'{"schema": "importprof.imports/1", "modules": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        "utf16": lambda: valid.decode("utf-8").encode("utf-16"),
        "other-json": lambda: b'{"schema": "importprof.nothing/1"}',
        "over-limit": lambda: (valid * (1 + (2 << 20) // len(valid)))[: (2 << 20) + 1],  # with a limit of 1 MiB
        "digits": lambda: _digits(fmt, valid),
        "huge-int": lambda: _imports_doc(lambda mods: mods[1].update(depth=2**63)),
        "bad-depth": lambda: _imports_doc(lambda mods: mods[1].update(depth=len(mods) + 5)),
        "deep-chain": lambda: _deep_chain(fmt),
    }[kind]()
    path.write_bytes(data)
    return str(path)


DEVICES = {"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom"}


def _digits(fmt: str, valid: bytes) -> bytes:
    """A number past Python's int digit limit (4300) where the format has one."""
    big = b"9" * 5000
    if fmt == "json":
        return valid.replace(b'"self_us": ', b'"self_us": ' + big + b', "x": ', 1)
    if fmt == "importtime":
        return b"import time: self [us] | cumulative | imported package\nimport time: " + big + b" | 10 | foo\n"
    return big + b" 10:00:00.000000 execve(\"/bin/true\", [\"true\"], 0x0 /* 0 vars */) = 0 <0.000100>\n"


def _imports_doc(change) -> bytes:
    doc = json.loads((FIXTURES / "report" / "imports.json").read_text())
    change(doc["modules"])
    return json.dumps(doc).encode()


def _deep_chain(fmt: str, n: int = 1000) -> bytes:
    """An import chain `n` deep: valid input, read and drawn without recursion."""
    if fmt == "importtime":
        rows = [f"import time: {10:>9} | {10 * (n - i):>10} | {'  ' * i}m{i}" for i in reversed(range(n))]
        return ("import time: self [us] | cumulative | imported package\n" + "\n".join(rows) + "\n").encode()

    def chain(mods):
        base = dict(mods[0], self_us=10, self_us_runs=[10, 10, 10], self_us_spread=0, cumulative_us_spread=0)
        mods[:] = [dict(base, name=f"m{i}", parent=None if i == 0 else f"m{i - 1}", depth=i, cumulative_us=10 * (n - i),
                        cumulative_us_runs=[10 * (n - i)] * 3) for i in range(n)]

    return _imports_doc(chain)


def _wrong_types() -> bytes:
    doc = json.loads((FIXTURES / "report" / "imports.json").read_text())
    doc["modules"][3]["self_us"] = "12"
    doc["runs"] = "three"
    return json.dumps(doc).encode()


# the OS's side of reading (devices, FIFOs, the size limit) and numbers no field can hold
OS_KINDS = ["dev-zero", "dev-urandom", "fifo", "over-limit", "digits"]
JSON_KINDS = ["empty", "binary", "truncated", "crlf", "huge", "wrong-schema", "wrong-types", "nan", "deep", "utf16", "other-json", "missing",
              "directory", *OS_KINDS, "huge-int", "bad-depth", "deep-chain"]
LOG_KINDS = ["empty", "binary", "truncated", "crlf", "huge", "wrong-types", "nan", "utf16", "missing", "directory", *OS_KINDS]
TOLERATED = {"crlf", "truncated", "deep-chain"}  # valid input for a tolerant log parser; JSON with CRLF is still JSON
LIMITED = (("IMPORTPROF_MAX_INPUT_MB", "1"),)  # the "over-limit" kinds run with a 1 MiB input limit
NEEDLES = {"over-limit": "IMPORTPROF_MAX_INPUT_MB", "dev-zero": "device", "dev-urandom": "device", "fifo": "FIFO"}

JSON_READERS = {
    "show": ("show", "{f}", "-o", "{out}"),
    "diff-old": ("diff", "{f}", "{good}", "-o", "{out}"),
    "diff-new": ("diff", "{good}", "{f}", "-o", "{out}"),
    "why-report": ("why", "json", "--report", "{f}", "-o", "{out}"),
    "report-from": ("report", "--from", "{f}", "-o", "{out}"),
    "report-include": ("report", "--include", "{f}", "-o", "{out}", "-c", "pass"),
}
LOG_READERS = {
    "imports-from-log": (("imports", "--from-log", "{f}", "-o", "{out}"), "importtime"),
    "why-from-log": (("why", "json", "--from-log", "{f}", "-o", "{out}"), "importtime"),
    "trace-from-log": (("trace", "--from-log", "{f}", "-o", "{out}"), "strace"),
}


def _reader_cases() -> list[Case]:
    cases = []
    for name, args in JSON_READERS.items():
        for kind in JSON_KINDS:
            if name == "report-include" and kind in ("crlf", "deep-chain"):
                continue  # valid: it would run a whole live report (report --from reads it the same way)
            cases.append(Case(f"{name}[{kind}]", args, "either" if kind in ("crlf", "deep-chain") else "fail", kind, "json",
                              env=LIMITED if kind == "over-limit" else (), needle=NEEDLES.get(kind)))
    for name, (args, fmt) in LOG_READERS.items():
        for kind in LOG_KINDS:
            tolerated = kind in TOLERATED or (kind == "digits" and fmt == "strace")  # a pid of 5,000 digits: noise
            cases.append(Case(f"{name}[{kind}]", args, "either" if tolerated else "fail", kind, fmt,
                              env=LIMITED if kind == "over-limit" else (), needle=NEEDLES.get(kind)))
        if fmt == "importtime":
            cases.append(Case(f"{name}[deep-chain]", args, "either", "deep-chain", fmt))
    # `-` reads standard input: closed (<&-), a device that never ends, more than the limit
    for name, (args, fmt) in LOG_READERS.items():
        if fmt != "importtime":
            continue  # trace --from-log takes a file (/dev/stdin is a file: the device cases above)
        dash = tuple("-" if a == "{f}" else a for a in args)
        cases.append(Case(f"{name}-stdin[closed]", dash, stdin="closed", needle="closed"))
        cases.append(Case(f"{name}-stdin[dev-zero]", dash, stdin="zero", needle="device"))
        cases.append(Case(f"{name}-stdin[over-limit]", dash, stdin="big", env=LIMITED, needle="IMPORTPROF_MAX_INPUT_MB"))
    return cases


# ------------------------------------------------------------------ bad programs
def make_program(kind: str, folder: Path) -> str:
    path = folder / f"prog-{kind}"
    if kind == "missing":
        return str(folder / "no-such-python")
    if kind == "directory":
        path.mkdir()
    elif kind == "not-executable":
        path.write_text("#!/bin/sh\nexit 0\n")
        path.chmod(0o644)
    elif kind == "enoexec":
        path.write_bytes(b"\x7fELF\x02garbage, not a program" + bytes(range(32)))
        path.chmod(0o755)
    elif kind == "not-python":
        path.write_text("#!/bin/sh\necho hello\n")
        path.chmod(0o755)
    elif kind == "garbage-script":
        path.write_bytes(b"\x00\x01 this is not python \xff\xfe")
    elif kind == "fifo":  # a named pipe no program writes to: refused at once, never waited on
        os.mkfifo(path)
    return str(path)


PROGRAM_KINDS = ["missing", "directory", "not-executable", "enoexec"]
PYTHON_OPTIONS = {
    "startup": ("startup", "--runs", "1", "--warmup", "0", "--python", "{p}", "-o", "{out}"),
    "imports": ("imports", "--runs", "1", "--warmup", "0", "--python", "{p}", "-o", "{out}"),
    "trace": ("trace", "--python", "{p}", "-o", "{out}"),
    "why": ("why", "json", "--runs", "1", "--python", "{p}", "-o", "{out}"),
    "site": ("site", "--runs", "1", "--python", "{p}", "-o", "{out}"),
    "report": ("report", "--runs", "1", "--warmup", "0", "--python", "{p}", "-o", "{out}"),
    "compare": ("compare", "--workload", "hello", "--runs", "1", "--warmup", "0", "--syscalls", "off", "--python", "{p}", "-o", "{out}"),
    "pack": ("pack", "--python", "{p}", "-o", "{out}.d", "-c", "pass"),
    "build": ("build", "--python", "{p}", "-o", "{out}.d", "-c", "pass"),
    "lazy": ("lazy", "--runs", "1", "--warmup", "0", "--python", "{p}", "-o", "{out}"),
    "doctor": ("doctor", "--python", "{p}", "-o", "{out}"),
}
COMMAND_TARGETS = {
    "startup": ("startup", "--runs", "1", "--warmup", "0", "-o", "{out}", "--", "{p}"),
    "imports": ("imports", "--runs", "1", "--warmup", "0", "-o", "{out}", "--", "{p}"),
    "trace": ("trace", "-o", "{out}", "--", "{p}"),
}
SCRIPT_TARGETS = {
    "startup": ("startup", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "imports": ("imports", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "why": ("why", "json", "--runs", "1", "-o", "{out}", "{p}"),
    "trace": ("trace", "-o", "{out}", "{p}"),
}


# Every command that takes a SCRIPT (and --vs, which names one): a FIFO as the SCRIPT is refused
# before anything waits on it (reading its #! line would wait for a writer; python would wait
# until --timeout), as a device is.
SCRIPT_FIFO = {
    "startup": ("startup", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "imports": ("imports", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "why": ("why", "json", "--runs", "1", "-o", "{out}", "{p}"),
    "trace": ("trace", "-o", "{out}", "{p}"),
    "report": ("report", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "compare": ("compare", "--runs", "1", "--warmup", "0", "--syscalls", "off", "-o", "{out}", "{p}"),
    "lazy": ("lazy", "--runs", "1", "--warmup", "0", "-o", "{out}", "{p}"),
    "doctor": ("doctor", "-o", "{out}", "{p}"),
    "pack": ("pack", "-o", "{out}.d", "{p}"),
    "build": ("build", "-o", "{out}.d", "{p}"),
    "startup --vs": ("startup", "--runs", "1", "--warmup", "0", "-o", "{out}", "--vs", "{p}"),
}


def _program_cases() -> list[Case]:
    cases = []
    for name, args in PYTHON_OPTIONS.items():
        for kind in PROGRAM_KINDS + ["not-python"]:
            cases.append(Case(f"{name}--python[{kind}]", args, program_kind=kind))
    for name, args in COMMAND_TARGETS.items():
        for kind in PROGRAM_KINDS:
            cases.append(Case(f"{name}--COMMAND[{kind}]", args, program_kind=kind))
    for name, args in SCRIPT_TARGETS.items():
        for kind in ["missing", "directory", "garbage-script"]:
            cases.append(Case(f"{name}-SCRIPT[{kind}]", args, program_kind=kind))
    for name, args in SCRIPT_FIFO.items():
        cases.append(Case(f"{name}-SCRIPT[fifo]", args, program_kind="fifo", needle="not a regular file"))
    # pyproject files: check's and bisect's --config, read before anything runs
    for name, args in (("check", ("check", "--config", "{f}")),
                       ("bisect", ("bisect", "--good", "HEAD~1", "--bad", "HEAD", "--check", "x", "--config", "{f}"))):
        cases.append(Case(f"{name}--config[fifo]", args, input_kind="fifo", input_format="json", needle="FIFO"))
    return cases


# ------------------------------------------------------------------ numbers and outputs
NUMBER_CASES = [
    ("imports", "--from-log", GOOD_LOG, "--min-ms", "nan"),
    ("imports", "--from-log", GOOD_LOG, "--min-ms", "-1"),
    ("imports", "--from-log", GOOD_LOG, "--budget", "nan"),
    ("imports", "--from-log", GOOD_LOG, "--budget", "inf"),
    ("imports", "--from-log", GOOD_LOG, "--budget", "-5"),
    ("imports", "--from-log", GOOD_LOG, "--top", "0"),
    ("imports", "--from-log", GOOD_LOG, "--runs", "0"),
    ("show", GOOD_DOC, "--min-ms", "inf"),
    ("show", GOOD_DOC, "--top", "-1"),
    ("diff", GOOD_DOC, GOOD_DOC, "--fail-over", "nan"),
    ("diff", GOOD_DOC, GOOD_DOC, "--fail-over", "-1"),
    ("diff", GOOD_DOC, GOOD_DOC, "--fail-over-pct", "nan"),
    ("diff", GOOD_DOC, GOOD_DOC, "--fail-over-pct", "1e999"),
    ("diff", GOOD_DOC, GOOD_DOC, "--top", "0"),
    ("trace", "--from-log", str(FIXTURES / "strace" / "multiproc.log"), "--top", "0"),
    ("startup", "--runs", "0"),
    ("startup", "--runs", "nan"),
    ("startup", "--warmup", "-1"),
    ("site", "--runs", "0"),
    ("why", "json", "--runs", "0"),
    ("report", "--runs", "0"),
    ("report", "--import-runs", "0"),
    ("compare", "--runs", "0"),
    ("compare", "--launches", "0"),
    ("lazy", "--runs", "0"),
    ("lazy", "--top", "0"),
    ("doctor", "--timing-runs", "0"),
    ("check", "--min-ms", "nan"),
    ("check", "--min-ms", "-1"),
    ("startup", "--metric", "instructions", "--instruction-runs", "0"),
    ("imports", "--metric", "instructions", "--instruction-runs", "0"),
]


def _output_cases() -> list[Case]:
    cases = []
    for name, args in OUTPUT_COMMANDS.items():
        cases.append(Case(f"{name}-o[directory]", args + ("-o", "{dir}")))
        cases.append(Case(f"{name}-o[missing-folder]", args + ("-o", "{nofolder}")))
        cases.append(Case(f"{name}-o[file-as-folder]", args + ("-o", "{out}/x.json")))
    for name in ("startup", "compare"):
        for opt in ("--export-json", "--export-markdown"):
            cases.append(Case(f"{name}{opt}[directory]", OUTPUT_COMMANDS[name] + (opt, "{dir}", "-o", "{out}")))
    cases.append(Case("trace--keep-log[directory]", ("trace", "--keep-log", "{dir}", "-o", "{out}")))
    for name, args in (("pack", ("pack", "-o")), ("build", ("build", "-o")), ("compare", OUTPUT_COMMANDS["compare"] + ("--build-dir",))):
        target = () if name == "compare" else ("-c", "pass")
        cases.append(Case(f"{name}-dir[file]", args + ("{out}",) + target))
        cases.append(Case(f"{name}-dir[under-a-file]", args + ("{out}/sub",) + target))
    return cases


# ------------------------------------------------------------------ values the OS or a run cannot take
# Generated from every command's own options, so a new command or option is covered as it lands:
# an empty path, an interpreter spec naming nothing, a count that is not a whole number or past
# the stated ceiling, a --timeout no platform can wait for. Each is a usage error naming the
# option, before anything runs.
BAD_COUNTS = ("1e30", "3.0", "-0.0", "100001")
BAD_TIMEOUTS = ("1e20", "1e30", "inf")


def _options_of(name: str):
    from profiler.commands import load_command
    from profiler.commands._target import TargetCommand

    cmd = load_command(name)
    options = [p for p in cmd.params if getattr(p, "param_type_name", "") == "option"]
    return options, isinstance(cmd, TargetCommand)


def _value_cases() -> list[Case]:
    from profiler.commands import command_names

    cases = []
    for name in command_names():
        base = OUTPUT_COMMANDS.get(name, (name,))
        options, runs_targets = _options_of(name)
        for p in options:
            opt = max(p.opts, key=len)  # the long spelling
            if opt == "--python":
                for value in ("", "pyenv:"):
                    cases.append(Case(f"values:{name} {opt} {value!r}", base + (opt, value), needle=opt))
            elif p.metavar == "N":
                for value in BAD_COUNTS:
                    cases.append(Case(f"values:{name} {opt} {value}", base + (opt, value), needle=opt))
            elif p.metavar in ("FILE", "DIR"):
                cases.append(Case(f"values:{name} {opt} ''", base + (opt, "")))
        if runs_targets or any("--timeout" in p.opts for p in options):
            for value in BAD_TIMEOUTS:
                cases.append(Case(f"values:{name} --timeout {value}", base + ("--timeout", value), needle="--timeout"))
    return cases


CASES = (
    _reader_cases()
    + _program_cases()
    + [Case("numbers:" + " ".join(a[:1] + a[-2:]), a + ("-o", "{out}")) for a in NUMBER_CASES]
    + _output_cases()
    + _value_cases()
)


# ------------------------------------------------------------------ running a case
def _fill(args, values: dict) -> list[str]:
    return [a.format(**values) for a in args]


def run_case(case: Case, root: Path, through_subprocess: bool = SUBPROCESS) -> None:
    inputs, cwd, tmp = root / "inputs", root / "work", root / "tmp"
    for d in (inputs, cwd, tmp):
        d.mkdir()
    out = cwd / "out.json"
    out.write_bytes(SENTINEL)
    (cwd / "a-directory").mkdir()
    values = {
        "out": str(out),
        "good": GOOD_DOC,
        "dir": str(cwd / "a-directory"),
        "nofolder": str(cwd / "no-such-folder" / "out.json"),
        "f": make_input(case.input_kind, case.input_format, inputs) if case.input_kind else "",
        "p": make_program(case.program_kind, inputs) if case.program_kind else "",
    }
    before = sorted(os.listdir(cwd))
    args = _fill(case.args, values)
    rc, stdout, stderr = (in_subprocess if through_subprocess else in_process)(args, cwd, tmp, case.env, case.stdin)
    shown = f"importprof {' '.join(args)}\nexit {rc}\n--stderr--\n{stderr[-3000:]}\n--stdout--\n{stdout[-1500:]}"

    assert "Traceback" not in stderr, shown
    errors = [ln for ln in stderr.splitlines() if ln.startswith("importprof: error:")]
    if case.outcome == "fail" or rc != 0:
        assert rc in (1, 2, 3), shown
        assert len(errors) == 1, shown
        assert case.needle is None or case.needle in errors[0], f"the error line does not name {case.needle!r}\n{shown}"
        assert out.read_bytes() == SENTINEL, f"the -o file changed although the command failed\n{shown}"
    else:
        assert rc == 0 and not errors, shown
    after = sorted(os.listdir(cwd))
    new = set(after) - set(before)
    assert not (new - {"out.json"}), f"new files in the working folder: {sorted(new)}\n{shown}"
    assert sorted(os.listdir(cwd / "a-directory")) == [], shown
    assert os.listdir(tmp) == [], f"left in the temporary folder: {os.listdir(tmp)}\n{shown}"


MEASURING = ("startup", "imports", "trace", "why", "site", "report", "compare", "lazy", "doctor", "pythons", "pack", "build")


def _spawns(case: Case) -> bool:
    """Cases that start a program or an interpreter (make test-fast skips them)."""
    if case.program_kind:
        return True
    head = case.id.split("[", 1)[0]
    return any(head.startswith(m) for m in MEASURING) and not case.id.startswith(("numbers:", "values:")) and "from-log" not in head


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if _spawns(c) else []) for c in CASES])
def test_contract(case, tmp_path):
    run_case(case, tmp_path)


SAMPLE = ["show[binary]", "diff-new[wrong-types]", "why-report[nan]", "report-from[deep]", "report-include[wrong-schema]",
          "imports-from-log[empty]", "trace-from-log[utf16]", "startup--python[enoexec]", "trace--COMMAND[not-executable]",
          "pack--python[missing]", "numbers:diff --fail-over nan", "site-o[directory]", "build-dir[under-a-file]"]


@pytest.mark.slow
@pytest.mark.parametrize("case_id", SAMPLE)
def test_a_sample_through_the_real_entry_point(case_id, tmp_path):
    """The same contract with a real interpreter start (python -m profiler): what main()
    returns is what the process exits with, nothing printed after it."""
    case = next(c for c in CASES if c.id == case_id)
    run_case(case, tmp_path, through_subprocess=True)


def test_the_battery_is_large():
    assert len(CASES) >= 250, len(CASES)


# ------------------------------------------------------------------ an interpreter that never answers
@pytest.mark.slow
@pytest.mark.parametrize("name", [*PYTHON_OPTIONS, "pythons"])
def test_timeout_bounds_the_interpreter_probe(name, tmp_path):
    """--timeout bounds every process, the probe that asks --python for its facts included."""
    hang = tmp_path / "hang.sh"
    hang.write_text("#!/bin/sh\nexec sleep 300\n")
    hang.chmod(0o755)
    spelled = PYTHON_OPTIONS.get(name, ("pythons", "--python", "{p}"))
    args = [a.format(p=hang, out=tmp_path / "work" / "out.json") for a in spelled]
    rc, _, err = call([args[0], "--timeout", "1", *args[1:]], tmp_path)
    one_error(rc, err, 3, "did not finish within 1 s")


# ------------------------------------------------------------------ a SCRIPT that is a FIFO
def test_every_command_taking_a_script_has_a_fifo_case():
    """A new command that runs a SCRIPT joins SCRIPT_FIFO (the cases above), so a FIFO given
    as its SCRIPT is held to the contract too."""
    from profiler.commands import command_names

    takes_script = {name for name in command_names() if _options_of(name)[1]}
    assert takes_script <= {k.split()[0] for k in SCRIPT_FIFO}, takes_script - set(SCRIPT_FIFO)


def test_a_checks_fifo_script_is_refused_at_once(tmp_path):
    """A check's target in pyproject.toml is a SCRIPT like any other: a FIFO is refused before
    anything waits on it (it was waited on until --timeout, 60 s)."""
    work = tmp_path / "work"
    work.mkdir()
    os.mkfifo(work / "app.py")
    (work / "pyproject.toml").write_text('[tool.importprof.checks.x]\ntarget = ["app.py"]\nbudget_ms = 100\n')
    rc, _, err = call(["check"], tmp_path)
    one_error(rc, err, 2, "check x could not run", "not a regular file")


@pytest.mark.slow
def test_lazy_apply_leaves_a_fifo_module_alone(tmp_path):
    """`lazy --apply DIR` reads the modules under DIR: a FIFO named like one is left alone, not
    waited on (the run hung until killed), and stays a FIFO."""
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "__init__.py").write_text("import json\nfrom pkg import other\n")
    os.mkfifo(work / "pkg" / "other.py")
    os.mkfifo(work / "pyproject.toml")  # and the project file looked up for requires-python
    proc = subprocess.run([sys.executable, "-m", "profiler", "lazy", "--apply", "pkg", "--runs", "1", "--timeout", "20",
                           "-c", "import json"], cwd=work, env={**os.environ, "PYTHONPATH": str(REPO)},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1, 2, 3), proc.stderr
    assert stat.S_ISFIFO(os.lstat(work / "pkg" / "other.py").st_mode)
    assert (work / "pkg" / "__init__.py").read_text() == "import json\nfrom pkg import other\n"
