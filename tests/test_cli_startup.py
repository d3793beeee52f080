"""importprof's own start: what each fast path imports (frozen sets: a heavy module added to one
fails here), the shell completion scripts (loaded into a real bash, zsh and fish), the top-level
--help by question, and the help cache that serves both."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.helpcache import cache_name, hash_text

REPO = Path(__file__).resolve().parent.parent
ENTRY = "import sys; from profiler.cli import app; sys.exit(app())"

# what each fast path imports beyond a bare `python -c pass` of the same interpreter (the modules
# `-c` itself loads are subtracted). Adding a module to one of these sets is a decision about
# importprof's start: measure it (benchmarks/bench_startup.py) before changing the set.
FAST_PATHS = {
    ("--version",): {"profiler", "profiler.cli", "profiler.version"},
    ("-V",): {"profiler", "profiler.cli", "profiler.version"},
    ("--help",): {"profiler", "profiler.cli", "profiler.helpcache"},
    ("startup", "--help"): {"profiler", "profiler.cli", "profiler.helpcache"},
    ("imports", "-h"): {"profiler", "profiler.cli", "profiler.helpcache"},
    ("completion", "bash"): {"profiler", "profiler.cli", "profiler.helpcache"},
}


def _modules_of(args, env) -> set[str]:
    code = ("import sys, io, contextlib; before = set(sys.modules); from profiler.cli import app\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out): rc = app(sys.argv[1:])\n"
            "sys.stderr.write('MODULES=' + ' '.join(sorted(set(sys.modules) - before)))\n"
            "sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.rsplit("MODULES=", 1)[1].split())


@pytest.fixture()
def cached_env(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    for args in FAST_PATHS:  # fill the cache (the first run renders through typer)
        subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, env=env, check=True, timeout=300)
    return env


@pytest.mark.slow
def test_each_fast_path_imports_its_frozen_set(cached_env):
    # what the interpreter and the probe (io, contextlib) loaded before is not counted
    for args, expected in FAST_PATHS.items():
        got = _modules_of(list(args), cached_env)
        assert got == expected, (args, sorted(got - expected), sorted(expected - got))


@pytest.mark.slow
def test_the_console_script_imports_neither_re_nor_more_than_the_entry(tmp_path):
    """bin/importprof is scripts/importprof (not an entry point, whose wrapper imports re)."""
    text = (REPO / "scripts" / "importprof").read_text()
    assert "import re" not in text and "from profiler.cli import app" in text
    proc = subprocess.run([sys.executable, "-X", "importtime", str(REPO / "scripts" / "importprof"), "--version"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("importprof "), proc.stderr
    names = {ln.rsplit("|", 1)[1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:") and ln.count("|") == 2}
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, timeout=300).stderr
    bare_names = {ln.rsplit("|", 1)[1].strip() for ln in bare.splitlines() if ln.startswith("import time:") and ln.count("|") == 2}
    assert names - bare_names == {"profiler", "profiler.cli", "profiler.version"}, sorted(names - bare_names)


def test_version_says_whether_the_native_parser_is_installed(tmp_path):
    from profiler import version

    line = version.version_line()
    assert line.startswith("importprof ") and line.endswith("\n")
    assert line.endswith(f"(native strace parser: {'yes' if version.native_parser_installed() else 'no'})\n")
    # the answer follows the files: both modules are needed
    here = Path(version.__file__).parent
    have = all(any(p.name.startswith(prefix) and p.name.endswith(".so") for p in (here / pkg).iterdir())
               for pkg, prefix in version.NATIVE_MODULES)
    assert version.native_parser_installed() == have


@pytest.mark.slow
def test_cache_names_and_the_stable_hash():
    assert cache_name(["--help"]) == "" and cache_name(["-h"]) == ""
    assert cache_name(["startup", "--help"]) == "startup"
    assert cache_name(["completion", "bash"]) == "completion.bash"
    assert cache_name(["completion", "tcsh"]) is None and cache_name(["completion"]) is None
    assert cache_name(["startup"]) is None and cache_name(["--help", "startup"]) is None
    # stable across processes (str hashes are not), different for different texts
    code = "from profiler.helpcache import hash_text; print(hash_text('importprof|0.1.0|x.py:123'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED="12345")).stdout.strip()
    assert int(other) == hash_text("importprof|0.1.0|x.py:123")
    assert hash_text("a") != hash_text("a\0") != hash_text("b")
    assert 0 <= hash_text("x" * 5000) < 2 ** 61


def test_the_help_lists_every_command_under_one_question():
    from profiler.commands import QUESTIONS, command_names

    placed = [n for _, members in QUESTIONS for n in members]
    assert sorted(placed) == sorted(command_names()), "each command answers exactly one question in --help"
    assert all(q.endswith("?") for q, _ in QUESTIONS)


@pytest.mark.slow
def test_the_help_shows_the_questions_and_is_cached_exactly(tmp_path):
    from profiler.commands import QUESTIONS

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), COLUMNS="80")
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    typer_text = subprocess.run([sys.executable, "-m", "profiler", "--help"], capture_output=True, text=True,
                                env=dict(env, IMPORTPROF_NO_HELP_CACHE="1"), check=True).stdout
    subprocess.run([sys.executable, "-m", "profiler", "--help"], capture_output=True, env=env, check=True)
    cached = subprocess.run([sys.executable, "-m", "profiler", "--help"], capture_output=True, text=True, env=env, check=True).stdout
    assert cached == typer_text
    lines = typer_text.splitlines()
    positions = [lines.index(q) for q, _ in QUESTIONS]
    assert positions == sorted(positions)
    # each command sits under its question, indented as click lists commands
    for question, members in QUESTIONS:
        block = lines[lines.index(question) + 1:]
        block = block[: next((i for i, ln in enumerate(block) if not ln.strip()), len(block))]
        assert [ln.split()[0] for ln in block if ln.startswith("  ") and not ln.startswith("   ")] == list(members), question


# ------------------------------------------------------------------ shell completion
def _script(shell: str, env=None) -> str:
    proc = subprocess.run([sys.executable, "-m", "profiler", "completion", shell], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_bash_completes_commands_options_and_values_from_the_static_script(tmp_path):
    bash = shutil.which("bash")
    assert bash, "bash is part of the base system"
    script = tmp_path / "importprof.bash"
    script.write_text(_script("bash"))
    # COMP_WORDS as bash fills them at Tab; the script must not run importprof (PATH without it)
    probe = r'''
source "$1"
complete -p importprof
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _importprof; echo "${COMPREPLY[*]}"; }
t importprof sta
t importprof ""
t importprof startup --vari
t importprof startup --variant no-s
t importprof startup --variant default,no-s
t importprof trace --format ""
t importprof build --variant in
t importprof imports -r ""
t importprof startup -- python -c
t importprof completion --h
'''
    proc = subprocess.run([bash, "--norc", "--noprofile", "-c", probe, "probe", str(script)], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "complete -o default -F _importprof importprof"
    assert out[1] == "startup"
    assert {"startup", "imports", "trace", "completion", "--help", "--version"} <= set(out[2].split())
    assert out[3] == "--variant"
    assert out[4].split() == ["no-site", "no-site-bare"]
    assert out[5].split() == ["default,no-site", "default,no-site-bare"]
    assert out[6].split() == ["json", "chrome"]
    assert out[7].split() == ["in-memory"]
    assert out[8] == ""  # a number: nothing offered (bash falls back to file names)
    assert out[9] == ""  # the program's own words
    assert out[10] == "--help"
    assert proc.stderr == ""


@pytest.mark.slow
def test_zsh_loads_the_script_and_registers_it(tmp_path):
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed")
    script = tmp_path / "_importprof"
    script.write_text(_script("zsh"))
    assert subprocess.run([zsh, "-n", str(script)], capture_output=True).returncode == 0
    probe = 'autoload -Uz compinit && compinit -u -d "$HOME/.zcompdump" && source "$1" && print -r -- "$_comps[importprof]"'
    proc = subprocess.run([zsh, "-f", "-c", probe, "probe", str(script)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "_importprof", proc.stdout + proc.stderr


@pytest.mark.slow
def test_fish_completes_from_the_script(tmp_path):
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed")
    script = tmp_path / "importprof.fish"
    script.write_text(_script("fish"))
    probe = ('source $argv[1]; complete -C "importprof sta"; echo ---; complete -C "importprof startup --vari"; '
             'echo ---; complete -C "importprof trace --format "')
    proc = subprocess.run([fish, "--no-config", "-c", probe, str(script)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, second, third = (part.strip().splitlines() for part in proc.stdout.split("---"))
    assert [ln.split("\t")[0] for ln in first] == ["startup"]
    assert [ln.split("\t")[0] for ln in second] == ["--variant"]
    assert sorted(ln.split("\t")[0] for ln in third) == ["chrome", "json"]


@pytest.mark.slow
def test_completion_is_served_from_the_help_cache_and_follows_a_change(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    fresh = _script("bash", dict(env, IMPORTPROF_NO_HELP_CACHE="1"))
    first = _script("bash", env)  # through typer, then cached
    code = ("import sys; from profiler.cli import app; rc = app(['completion', 'bash']); "
            "sys.stderr.write('TYPER=' + str('typer' in sys.modules))")
    cached = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert cached.returncode == 0 and cached.stderr.endswith("TYPER=False"), cached.stderr
    assert fresh == first == cached.stdout
    folders = [p for p in (tmp_path / "importprof" / "help").iterdir() if not p.name.startswith(".")]
    assert len(folders) == 1 and (folders[0] / "completion.bash.txt").read_text() == fresh


@pytest.mark.slow
def test_the_cache_key_follows_what_writes_the_help_and_the_scripts(tmp_path):
    """A copy of the package: touching what the help texts and scripts are written from (the
    CLI modules, a new command, the variants, the formats registry) gives a new cache folder."""
    pkg = tmp_path / "src" / "profiler"
    shutil.copytree(REPO / "profiler", pkg, ignore=shutil.ignore_patterns("__pycache__", "*.so", "oxidized_builds"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "src"), XDG_CACHE_HOME=str(tmp_path / "cache"), COLUMNS="80")

    def key() -> str:
        code = "import profiler.helpcache as h; print(h.cache_dir())"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=tmp_path).stdout
        assert out.startswith(str(tmp_path / "cache")), out
        return out.strip()

    keys = [key()]
    assert key() == keys[0]  # stable
    for touched in ("cli.py", "commands/__init__.py", "model/variant.py", "render/__init__.py", "render/completion.py"):
        st = (pkg / touched).stat()
        os.utime(pkg / touched, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        keys.append(key())
    (pkg / "commands" / "newcommand.py").write_text("")
    keys.append(key())
    assert len(set(keys)) == len(keys), keys
    assert key() != subprocess.run([sys.executable, "-c", "import profiler.helpcache as h; print(h.cache_dir())"],
                                   capture_output=True, text=True, env=dict(env, COLUMNS="60"), check=True, cwd=tmp_path).stdout.strip()


def test_a_bad_shell_is_a_usage_error(cli):
    from conftest import assert_one_line_error

    assert_one_line_error(cli("completion", "tcsh"), 2, "unknown shell 'tcsh'")


# ------------------------------------------------------------------ imports --from-log FILE
# the command lines answered without typer (commands/__init__.py: fast_path): what they load
FROM_LOG_PROFILER = {
    "profiler", "profiler.analysis", "profiler.analysis.imports_aggregate", "profiler.analysis.imports_views", "profiler.capture",
    "profiler.capture.machine", "profiler.cli",
    "profiler.commands", "profiler.commands._common", "profiler.commands._imports_run", "profiler.errors", "profiler.helpcache", "profiler.inputs", "profiler.inputs.bounded",
    "profiler.model", "profiler.model.document", "profiler.model.import_columns",
    "profiler.model.import_records", "profiler.model.import_tree", "profiler.model.imports_report",
    "profiler.model.log_source", "profiler.model.run_options", "profiler.model.target",
    "profiler.model.words", "profiler.parse", "profiler.parse.importtime", "profiler.render", "profiler.render.console",
    "profiler.render.console_imports", "profiler.render.console_phases", "profiler.render.text", "profiler.session",
    "profiler.sinks", "profiler.workflows", "profiler.workflows.imports", "profiler.workflows.session",
    "profiler.workflows.targets",
}
# the standard library's top-level packages it may load (a new one here is a decision: measure it)
# (not tempfile and shutil, nor random, bz2, lzma and zlib that they load: the invocation makes no
# temporary folder for a command that starts nothing and writes only stdout, and sinks imports them
# where a file is written)
FROM_LOG_STDLIB = {
    "__future__", "_ast", "_bisect", "_opcode", "_sre", "_typing", "_weakrefset", "array", "ast", "bisect",
    "collections", "copy", "copyreg", "dataclasses", "dis", "enum", "errno", "gc", "importlib", "inspect",
    "linecache", "opcode", "re", "shlex", "signal", "threading", "token", "tokenize", "typing",
    "unicodedata", "warnings", "weakref",
}
# each --format: its renderer instead of the table's (console, console_phases; the folds of
# imports_views stay where the format draws the tree), and the standard modules it adds (json to
# write json). Only json writes the machine facts, read with psutil (and the standard modules
# psutil and platform load): the only other package any of these paths may import (typer,
# click, rich, jsonschema... fail the test)
FROM_LOG_TABLE = {"profiler.render.console", "profiler.render.console_phases"}
WRITES_JSON = {"json", "_json"}
MACHINE_STDLIB = {"_datetime", "_locale", "_posixsubprocess", "_socket", "_struct", "base64", "binascii", "datetime",
                  "fcntl", "fnmatch", "glob", "locale", "math", "platform", "pwd", "resource", "select", "selectors", "socket", "struct",
                  "subprocess"}
FROM_LOG_FORMATS = {  # --format: (importprof's modules added, left out; packages; standard modules added)
    None: (set(), set(), set(), set()),
    "json": ({"profiler.render.report_json"}, FROM_LOG_TABLE | {"profiler.analysis.imports_views"}, {"psutil"},
             WRITES_JSON | MACHINE_STDLIB),
    "chrome": ({"profiler.render.chrome_imports"}, FROM_LOG_TABLE, set(), WRITES_JSON),
    "speedscope": ({"profiler.render.speedscope"}, FROM_LOG_TABLE, set(), WRITES_JSON),
    "folded": ({"profiler.render.folded"}, FROM_LOG_TABLE, set(), set()),
}


LOGS = REPO / "tests" / "fixtures" / "importtime"


@pytest.fixture(scope="module")
def pip_log(tmp_path_factory) -> Path:
    """One run of the real pip (`pip --version`) under -X importtime."""
    path = tmp_path_factory.mktemp("pip") / "pip.log"
    with open(path, "w") as fh:
        subprocess.run([sys.executable, "-X", "importtime", "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                       stderr=fh, check=True, timeout=300)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FROM_LOG_FORMATS))
def test_imports_from_log_loads_no_typer_no_psutil_and_its_frozen_set(pip_log, fmt):
    """`imports --from-log FILE` (the table) and each `--format FMT` of it: the frozen set of
    importprof's modules, standard modules only (psutil for json's machine facts)."""
    added, left, packages, stdlib_added = FROM_LOG_FORMATS[fmt]
    got = _modules_of(["imports", "--from-log", str(pip_log), *(["--format", fmt] if fmt else [])], dict(os.environ))
    expected = (FROM_LOG_PROFILER - left) | added
    own = {m for m in got if m.startswith("profiler")}
    assert own == expected, (fmt, sorted(own ^ expected))
    others = {m.split(".")[0] for m in got if not m.startswith("profiler")}
    assert not others - set(sys.stdlib_module_names) - packages, sorted(others - set(sys.stdlib_module_names))  # typer, psutil...
    stdlib = FROM_LOG_STDLIB | stdlib_added
    assert others - packages <= stdlib, (fmt, sorted(others - packages - stdlib))


def _both(args_fast, args_typer, cwd, stdin=None):
    runs = []
    for args in (args_fast, args_typer):
        proc = subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], capture_output=True, text=True,
                              cwd=cwd, timeout=300, stdin=stdin)
        runs.append((proc.returncode, proc.stdout, proc.stderr))
    return runs


@pytest.mark.slow
def test_imports_from_log_answers_as_typer_would(pip_log, tmp_path):
    """`imports --from-log FILE` (the fast path) against `imports --from-log=FILE` (typer's path):
    the same stdout, stderr and exit code on real logs, noisy and broken ones, and missing files."""
    empty = tmp_path / "empty.log"
    empty.write_text("")
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"\x00\xff not a log\n" * 10)
    bad = tmp_path / "bad.log"
    bad.write_text("import time: self [us] | cumulative | imported package\nimport time:  12x | 40 | json\n")
    cases = [pip_log, *sorted(LOGS.glob("*.log")), empty, junk, bad, tmp_path / "missing.log", tmp_path,
             "startup", "a file name with spaces.log"]
    exits = set()
    for path in cases:
        fast, typer_path = _both(["imports", "--from-log", path], ["imports", f"--from-log={path}"], tmp_path)
        assert fast == typer_path, path
        exits.add(fast[0])
        assert "Traceback" not in fast[2]
    assert {0, 2} <= exits  # tables and one-line errors were both compared


# what a json document's machine facts say of the moment it was read (each run's own)
VOLATILE_MACHINE = ("load_average", "cpu_percent", "cpu_frequency", "memory_available_bytes")


def _same_document(fast: str, typer_path: str) -> bool:
    """Two json documents equal but for the machine facts that change from read to read (their
    keys, in order, and every other byte of the text alike)."""
    import json
    import re

    docs = [json.loads(text) for text in (fast, typer_path)]
    for doc in docs:
        for key in VOLATILE_MACHINE:
            doc["machine"][key] = None
    masked = [re.sub(r'\n  "machine": \{.*?\n  \}', "", text, flags=re.S) for text in (fast, typer_path)]
    return docs[0] == docs[1] and list(docs[0]["machine"]) == list(docs[1]["machine"]) and masked[0] == masked[1]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "chrome", "speedscope", "folded"])
def test_imports_from_log_in_each_format_answers_as_typer_would(pip_log, tmp_path, fmt):
    """`imports --from-log FILE --format FMT` and `--format FMT --from-log FILE` (the fast path)
    against `--from-log=FILE --format=FMT` (typer's path): the same stdout (json: but the machine's
    load and free memory of the moment), stderr and exit code on a real log, a broken one and a
    missing file."""
    bad = tmp_path / "bad.log"
    bad.write_text("import time: self [us] | cumulative | imported package\nimport time:  12x | 40 | json\n")
    for path in (pip_log, LOGS / sorted(p.name for p in LOGS.glob("*.log"))[0], bad, tmp_path / "missing.log"):
        typer_args = ["imports", f"--from-log={path}", f"--format={fmt}"]
        for fast_args in (["imports", "--from-log", path, "--format", fmt], ["imports", "--format", fmt, "--from-log", path]):
            fast, typer_path = _both(fast_args, typer_args, tmp_path)
            assert fast[0] == typer_path[0] and fast[2] == typer_path[2], (path, fast_args, fast, typer_path)
            if fmt == "json" and fast[0] == 0:
                assert _same_document(fast[1], typer_path[1]), path
            else:
                assert fast[1] == typer_path[1], (path, fast_args)
            assert "Traceback" not in fast[2]


def test_the_fast_path_takes_only_its_exact_spelling():
    from profiler.commands import fast_path

    assert fast_path(["imports", "--from-log", "x.log"]) is not None
    for fmt in ("json", "chrome", "speedscope", "folded"):
        assert fast_path(["imports", "--from-log", "x.log", "--format", fmt]) is not None
        assert fast_path(["imports", "--format", fmt, "--from-log", "x.log"]) is not None
    for args in (["imports", "--from-log", "-"], ["imports", "--from-log=x.log"], ["imports", "--from-log", ""],
                 ["imports", "--from-log", "x.log", "--view", "top"], ["imports", "--from-log", "--help"],
                 ["imports", "x.log"], ["trace", "--from-log", "x.log"], ["imports"], [],
                 ["imports", "--from-log", "x.log", "--format", "html"], ["imports", "--from-log", "x.log", "--format=json"],
                 ["imports", "--from-log", "x.log", "--format", "-"], ["imports", "--from-log", "x.log", "--from-log", "y.log"],
                 ["imports", "--format", "json", "--format", "json"], ["imports", "--from-log", "x.log", "-o", "out.json"],
                 ["imports", "--from-log", "x.log", "--format"]):
        assert fast_path(args) is None, args


def test_the_fast_paths_defaults_are_the_commands():
    from profiler.commands import IMPORTS_DEFAULTS, load_command

    params = {p.name: p.default for p in load_command("imports").params}
    assert {k: params[k] for k in IMPORTS_DEFAULTS} == IMPORTS_DEFAULTS
    # every other option of the command defaults to "not given"
    rest = {k: v for k, v in params.items() if k not in IMPORTS_DEFAULTS and k != "from_log"}
    assert all(v in (None, False, ()) for v in rest.values()), rest
