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
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
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
GOOD_LOG = str(FIXTURES / "importtime" / "cryptography_fernet.log")
GOOD_DOC = str(FIXTURES / "report" / "imports.json")
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

OUTPUT_COMMANDS = {
    "show": ("show", GOOD_DOC),
    "diff": ("diff", GOOD_DOC, GOOD_DOC),
    "why-report": ("why", "json", "--report", GOOD_DOC),
    "imports-from-log": ("imports", "--from-log", GOOD_LOG),
    "trace-from-log": ("trace", "--from-log", str(FIXTURES / "strace" / "multiproc.log")),
    "report-from": ("report", "--from", GOOD_DOC),
    # these would measure: the output is checked first, so they fail at once
    "startup": ("startup", "--runs", "1", "--warmup", "0"),
    "imports": ("imports", "--runs", "1", "--warmup", "0"),
    "trace": ("trace",),
    "why": ("why", "json", "--runs", "1"),
    "site": ("site", "--runs", "1"),
    "report": ("report", "--runs", "1", "--warmup", "0"),
    "compare": ("compare", "--workload", "hello", "--runs", "1", "--warmup", "0", "--syscalls", "off"),
    "lazy": ("lazy", "--runs", "1", "--warmup", "0"),
    "doctor": ("doctor",),
    "pythons": ("pythons",),
    "check": ("check",),
    "bisect": ("bisect", "--good", "HEAD~1", "--bad", "HEAD", "--check", "x"),
}


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


def _stdin_for(kind: str | None, folder: Path):
    if kind is None:
        return open(os.devnull)
    if kind == "closed":
        return None  # what Python makes of a closed descriptor 0
    if kind == "zero":
        return open("/dev/zero")
    big = folder / "big-stdin"
    big.write_bytes(b"x" * ((2 << 20) + 1))
    return open(big)


def _in_process(args: list[str], cwd: Path, tmp: Path, env=(), stdin: str | None = None) -> tuple[int, str, str]:
    from profiler.commands import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)}
    old_cwd, old_tmp, old_env = os.getcwd(), tempfile.tempdir, os.environ.get("TMPDIR")
    old_extra = {k: os.environ.get(k) for k, _ in env}
    old_stdin = sys.stdin
    os.chdir(cwd)
    tempfile.tempdir = str(tmp)
    os.environ["TMPDIR"] = str(tmp)
    os.environ.update(dict(env))
    sys.stdin = _stdin_for(stdin, tmp.parent)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except BaseException:  # what main() let out: the traceback a user would see
                import traceback

                err.write("Traceback (most recent call last):\n" + traceback.format_exc())
                rc = 1
    finally:
        if sys.stdin is not None:
            sys.stdin.close()
        sys.stdin = old_stdin
        for k, v in old_extra.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.chdir(old_cwd)
        tempfile.tempdir = old_tmp
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        for s, h in handlers.items():
            signal.signal(s, h)
    out.flush()
    return rc, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue()


def _subprocess(args: list[str], cwd: Path, tmp: Path, env=(), stdin: str | None = None) -> tuple[int, str, str]:
    full = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(Path(__file__).resolve().parent.parent), **dict(env)}
    source = _stdin_for(stdin, tmp.parent)
    try:
        proc = subprocess.run([sys.executable, "-m", "profiler", *args], cwd=cwd, env=full, capture_output=True, text=True,
                              stdin=source if source is not None else subprocess.DEVNULL, timeout=300,
                              preexec_fn=(lambda: os.close(0)) if stdin == "closed" else None)
    finally:
        if source is not None:
            source.close()
    return proc.returncode, proc.stdout, proc.stderr


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
    rc, stdout, stderr = (_subprocess if through_subprocess else _in_process)(args, cwd, tmp, case.env, case.stdin)
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


# ------------------------------------------------------------------ the OS's side of writing
# Never destroy what is not importprof's: a device or a pipe is written in place (never renamed
# over), a FIFO nobody reads, a socket or a disk is refused, and an output folder importprof did
# not make is refused unless --force, which replaces only importprof's own files.
def _call(args: list[str], root: Path, **kw) -> tuple[int, str, str]:
    cwd, tmp = root / "work", root / "tmp"
    for d in (cwd, tmp):
        d.mkdir(exist_ok=True)
    rc, out, err = _in_process(args, cwd, tmp, **kw)
    assert "Traceback" not in err, err
    assert os.listdir(tmp) == [], f"left in the temporary folder: {os.listdir(tmp)}"
    return rc, out, err


def _error(rc: int, err: str, code: int, *needles: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("importprof: error:")]
    assert rc == code and len(lines) == 1, f"exit {rc}\n{err}"
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


READING = {k: v for k, v in OUTPUT_COMMANDS.items() if k in ("show", "diff", "why-report", "imports-from-log", "trace-from-log", "report-from")}


@pytest.mark.parametrize("name", list(READING))
def test_an_output_fifo_nobody_reads_is_refused_at_once(name, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rc, _, err = _call([*READING[name], "-o", str(fifo)], tmp_path)
    _error(rc, err, 2, "FIFO", "no program reads")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("name", list(OUTPUT_COMMANDS))
def test_an_output_socket_is_refused_before_anything_runs(name, tmp_path):
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        rc, _, err = _call([*OUTPUT_COMMANDS[name], "-o", str(path)], tmp_path)
    _error(rc, err, 2, "socket")
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def _char_device(folder: Path) -> Path:
    """A character device of our own (the null device's numbers), as the issue's reproduction
    makes it; renaming a file over the real /dev/null would break the machine."""
    node = folder / "node"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD): the device cases run where it is allowed")
    return node


@pytest.mark.parametrize("name", list(READING))
def test_an_output_device_is_written_in_place(name, tmp_path):
    node = _char_device(tmp_path)
    rc, _, err = _call([*READING[name], "-o", str(node)], tmp_path)
    assert rc == 0, err
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the device was replaced by a file"


FOLDER_WRITERS = {
    "build": (("build", "-o", "{dir}", "-c", "pass"), "build.json", "traditional"),
    "pack": (("pack", "-o", "{dir}", "-c", "pass"), "pack.json", "in-memory"),
    "compare": (("compare", "--workload", "hello", "--runs", "1", "--syscalls", "off", "--build-dir", "{dir}"), "build.json", "traditional"),
}


def _users_folder(root: Path, report: str, entry: str) -> tuple[Path, dict]:
    folder = root / "mine"
    (folder / entry).mkdir(parents=True)
    (folder / entry / "keep.txt").write_text("x\n")
    (folder / report).write_text("mine\n")
    (folder / "notes.txt").write_text("other\n")
    return folder, _snapshot(folder)


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_folder_importprof_did_not_make_is_refused(name, tmp_path):
    args, report, entry = FOLDER_WRITERS[name]
    folder, before = _users_folder(tmp_path, report, entry)
    rc, _, err = _call([a.format(dir=folder) for a in args], tmp_path)
    _error(rc, err, 2, "did not make", "--force")
    assert _snapshot(folder) == before


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_force_never_replaces_what_is_not_importprofs(name, tmp_path):
    args, report, entry = FOLDER_WRITERS[name]
    folder, before = _users_folder(tmp_path, report, entry)
    rc, _, err = _call([args[0], "--force", *[a.format(dir=folder) for a in args[1:]]], tmp_path)
    _error(rc, err, 2, report, entry, "not importprof's")
    assert _snapshot(folder) == before


@pytest.mark.slow
@pytest.mark.parametrize("name", ["build", "pack"])
def test_force_writes_beside_the_users_files(name, tmp_path):
    """With --force in a folder of the user's, importprof's files land beside the user's, which
    stay as they were; the marker lists what importprof wrote, and a second run needs --force again."""
    args, report, _entry = FOLDER_WRITERS[name]
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("other\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "keep.txt").write_text("x\n")
    before = _snapshot(folder)
    extra = ("--variant", "traditional") if name == "build" else ()
    rc, _, err = _call([args[0], "--force", *extra, *[a.format(dir=folder) for a in args[1:]]], tmp_path)
    assert rc == 0, err
    after = _snapshot(folder)
    assert {k: v for k, v in after.items() if k in before} == before
    assert report in after and ".importprof-output" in after
    rc, _, err = _call([a.format(dir=folder) for a in args], tmp_path)
    _error(rc, err, 2, "--force")


@pytest.mark.slow
def test_keep_log_on_a_device_is_written_in_place(tmp_path):
    node = _char_device(tmp_path)
    rc, _, err = _call(["trace", "--keep-log", str(node), "-c", "pass"], tmp_path)
    assert rc == 0, err
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the device was replaced by a file"


@pytest.mark.slow
def test_keep_log_into_a_fifo_is_copied_to_its_reader(tmp_path):
    import threading

    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        rc, _, err = _call(["trace", "--keep-log", str(fifo), "-c", "pass"], tmp_path)
    finally:
        if reader.is_alive():  # the command failed before opening it: let the reader go
            with open(fifo, "wb"):
                pass
        reader.join()
    assert rc == 0, err
    assert b"execve(" in got[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ------------------------------------------------------------------ streams (the real entry point)
# A closed stdout is silence (as a closed pipe), an ASCII locale gets '?' for what it cannot
# carry, file names that are not UTF-8 round-trip into documents and pages.
STREAM_COMMANDS = {**READING, "pythons": ("pythons",), "startup": ("startup", "--runs", "1", "--warmup", "0", "--variant", "default")}


def _entry(args, cwd: Path, env=None, close=None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "IMPORTPROF_NO_HELP_CACHE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "profiler", *args], cwd=cwd, env=full,
                          stdout=None if close == 1 else subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300,
                          preexec_fn=(lambda: os.close(close)) if close is not None else None)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STREAM_COMMANDS))
def test_a_closed_stdout_is_silence(name, tmp_path):
    proc = _entry(STREAM_COMMANDS[name], tmp_path, close=1)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0 and "Traceback" not in err and "error" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STREAM_COMMANDS))
def test_an_ascii_locale_gets_replacements_not_a_traceback(name, tmp_path):
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}
    proc = _entry(STREAM_COMMANDS[name], tmp_path, env=env)
    err = proc.stderr.decode("ascii", "replace")
    assert proc.returncode == 0 and "Traceback" not in err, err
    proc.stdout.decode("ascii")  # nothing the stream could not carry got through


@pytest.mark.slow
def test_file_names_that_are_not_utf8_round_trip(tmp_path):
    bad = os.fsencode(tmp_path) + b"/bad\xff.json"
    Path(os.fsdecode(bad)).write_bytes(Path(GOOD_DOC).read_bytes())
    page, doc = os.fsencode(tmp_path) + b"/page\xfe.html", os.fsencode(tmp_path) + b"/out\xfe.json"
    for args in (["report", "--from", os.fsdecode(bad), "-o", os.fsdecode(page)],
                 ["report", "--from", os.fsdecode(bad), "--format", "json", "-o", os.fsdecode(doc)],
                 ["diff", os.fsdecode(bad), os.fsdecode(bad)]):
        proc = _entry(args, tmp_path)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert b"bad\xff.json" in Path(os.fsdecode(page)).read_bytes()
    assert b"bad\xff.json" in Path(os.fsdecode(doc)).read_bytes()  # the name's own bytes, not U+FFFD
    proc = _entry(["show", os.fsdecode(bad), "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr


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
    rc, _, err = _call([args[0], "--timeout", "1", *args[1:]], tmp_path)
    _error(rc, err, 3, "did not finish within 1 s")


def test_every_command_taking_a_script_has_a_fifo_case():
    """A new command that runs a SCRIPT joins SCRIPT_FIFO (the cases above), so a FIFO given
    as its SCRIPT is held to the contract too."""
    from profiler.commands import command_names

    takes_script = {name for name in command_names() if _options_of(name)[1]}
    assert takes_script <= {k.split()[0] for k in SCRIPT_FIFO}, takes_script - set(SCRIPT_FIFO)


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


SLOW_TARGET = ("-c", "import time; time.sleep(0.2)")


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
        rc, _, err = _subprocess(["show", GOOD_DOC, "--format", "json"], tmp_path, tmp)
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


# ------------------------------------------------------------------ progress in a log
PROGRESS_COMMANDS = {
    "startup": ("startup", "--runs", "4", "--warmup", "1", "--variant", "default,no-site", *SLOW_TARGET),
    "imports": ("imports", "--runs", "6", "--warmup", "1", *SLOW_TARGET),
    "trace": ("trace", "--variant", "default,no-site", *SLOW_TARGET),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PROGRESS_COMMANDS))
def test_progress_in_a_log_is_one_line_per_phase(name, tmp_path):
    """stderr not a terminal (a CI log): no counts, no bar, each phase's line at most once."""
    import re

    proc = _entry(PROGRESS_COMMANDS[name], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    lines = [ln for ln in err.splitlines() if ln.startswith("importprof: ") and not ln.startswith(("importprof: warning", "importprof: note"))]
    progress = [ln for ln in lines if re.match(r"importprof: (measuring|importing|tracing)", ln)]
    assert progress, err  # the command ran for more than a second: its phase was said
    assert len(progress) == len(set(progress)), err
    assert not re.search(r"\(\d+/\d+\)|\brun \d+\b|\r|\x1b\[", err), err  # no counts, no fragments, no bar


@pytest.mark.slow
def test_progress_on_a_terminal_is_a_bar(tmp_path):
    """stderr a terminal: the bar is drawn there (and no plain phase lines)."""
    import pty

    import threading

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "IMPORTPROF_NO_HELP_CACHE": "1",
           "COLUMNS": "100", "TERM": "xterm"}
    chunks: list[bytes] = []

    def drain():  # read as it is drawn: a full terminal buffer would stop the writer
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the last writer closed its side
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.run([sys.executable, "-m", "profiler", *PROGRESS_COMMANDS["startup"]], cwd=tmp_path, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, timeout=300)
    finally:
        os.close(slave)
        reader.join(30)
        os.close(master)
    drawn = b"".join(chunks)
    assert proc.returncode == 0
    text = drawn.decode("utf-8", "replace")
    assert "measuring" in text and "\x1b[" in text, text[-2000:]
    assert "importprof: measuring" not in text, text[-2000:]


def test_plain_progress_says_each_phase_once(monkeypatch, capsys):
    """The plain lines, driven as the workflows drive them: an announced phase once, counts never,
    a part's counted updates under its announced name, nothing before the first second."""
    from profiler.commands._common import Progress

    clock = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    with Progress("report") as bar:
        bar.update(0, 0, "startup")
        bar.update(0, 0, "startup: 2 commands, 10 runs each")
        clock[0] = 2.0
        for i in range(1, 21):
            bar.update(i, 20, "startup: default" if i % 2 else "startup: no-site")
        bar.update(0, 0, "imports")
        for i in range(1, 6):
            bar.update(i, 5, f"imports: run {i}")
        bar.update(5, 5, "")
    with Progress("checking") as bar:
        clock[0] = 10.0
        for name in ("cli", "cli", "api"):
            bar.update(1, 3, f"{name}: imports")
            bar.update(1, 3, f"{name}: wall time")
    with Progress("quick") as bar:
        bar.update(0, 0, "1 command")
        bar.update(1, 1, "default")
    err = capsys.readouterr().err.splitlines()
    assert err == ["importprof: report: startup: 2 commands, 10 runs each", "importprof: report: imports",
                   "importprof: checking: cli", "importprof: checking: api"], err


# ------------------------------------------------------------------ caches two invocations share
# Each cached artefact, started twice at once on an empty cache (moved into tmp_path by its
# variable): both succeed, one builds while the other waits, the artefact is whole and no
# temporary of a build is left beside it.
REPO = Path(__file__).resolve().parent.parent


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
    runs = _together("from profiler.capture.spawner import spawner_path\nprint(spawner_path())",
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
            "print(launcher_object(resolve_python(sys.argv[1]), info=lambda m: print(m, file=sys.stderr)))")
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


def test_a_checks_fifo_script_is_refused_at_once(tmp_path):
    """A check's target in pyproject.toml is a SCRIPT like any other: a FIFO is refused before
    anything waits on it (it was waited on until --timeout, 60 s)."""
    work = tmp_path / "work"
    work.mkdir()
    os.mkfifo(work / "app.py")
    (work / "pyproject.toml").write_text('[tool.importprof.checks.x]\ntarget = ["app.py"]\nbudget_ms = 100\n')
    rc, _, err = _call(["check"], tmp_path)
    _error(rc, err, 2, "check x could not run", "not a regular file")


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
