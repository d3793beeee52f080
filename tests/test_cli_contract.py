"""The CLI contract and the architecture contract."""

import pytest
import ast
import os
import subprocess
import sys
from pathlib import Path

from conftest import assert_one_line_error

PKG = Path(__file__).resolve().parent.parent / "profiler"


@pytest.mark.slow
def test_version_answers_without_typer():
    code = "import sys; from profiler.cli import app; rc = app(['--version']); print(rc, 'typer' in sys.modules, 'rich' in sys.modules)"
    version, flags = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    # make setup builds the native parser into this checkout: --version says so
    assert version.startswith("importprof ") and version.endswith(" (native strace parser: yes)")
    assert flags.split() == ["0", "False", "False"]


@pytest.mark.slow
def test_help_lists_commands_and_imports_nothing_heavy():
    # --help imports every command module: they may import only typer and the stdlib up front (and the
    # target grammar, profiler/target_grammar.py: shlex and the error class, shared with profiler/api.py)
    code = (
        "import sys; from profiler.cli import app; app(['--help']); "
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('rich', 'psutil', 'jsonschema', 'hypothesis') "
        "or (m.startswith('profiler.') and not m.startswith(('profiler.cli', 'profiler.helpcache', 'profiler.commands', 'profiler.errors', 'profiler.target_grammar'))"
        # main()'s own plumbing: the invocation's temporary folder, children and signals, its session
        # and the render registry's format names (a dict, no renderer), and the variants that
        # write --variant's help (frozen dataclasses: dataclasses, typing and shlex are loaded already)
        # on the document base they are declared on (stdlib only; a class's reader and writer are
        # compiled on first use, not at import)
        " and m not in ('profiler.workflows', 'profiler.workflows.session', 'profiler.liveness', 'profiler.session', 'profiler.render', 'profiler.model',"
        " 'profiler.model.variant', 'profiler.model.document'))]; "
        "sys.stderr.write('HEAVY=' + ','.join(sorted(heavy)))"
    )
    # without the help cache: what is checked is what typer's path imports
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, IMPORTPROF_NO_HELP_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    for command in ("startup", "imports", "trace", "site", "why", "diff", "show", "pack", "build", "compare", "report"):
        assert f"  {command} " in proc.stdout, command
    assert proc.stderr.strip().endswith("HEAVY="), proc.stderr


def test_usage_error_is_one_line(cli):
    assert_one_line_error(cli("startup", "--no-such-option"), 2, "no such option")
    assert_one_line_error(cli("no-such-command"), 2)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_data_flows_one_way():
    for layer in ("parse", "analysis", "render", "model"):
        for f in (PKG / layer).glob("*.py"):
            bad = {m for m in _imports(f) if m == "subprocess" or m.startswith(("profiler.capture", "profiler.workflows", "profiler.compose", "profiler.commands"))}
            assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"


# The workflow modules that are pieces of a pipeline, not a command's workflow: any workflow (and
# any composition) may import them. Every other workflow module is one command's workflow and
# imports none of the others: a workflow that runs another command's workflow is a composition
# and lives in compose/.
PIPELINE_PIECES = {"plan", "measure", "session", "targets", "no_site", "phases", "statements", "frozen",
                   "pyoxidizer_build"}


def test_composition_sits_above_the_single_command_workflows():
    # compose/ holds the workflows that run other commands' workflows (report, doctor, lazy,
    # startup...): they may import workflows (and each other); a workflow never imports compose,
    # nor does anything below it; commands call either
    assert (PKG / "compose").is_dir()
    for layer in ("workflows", "capture", "parse", "analysis", "render", "model", "bootstrap"):
        for f in (PKG / layer).glob("*.py"):
            bad = {m for m in _imports(f) if m.startswith("profiler.compose")}
            assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"
    for f in (PKG / "compose").glob("*.py"):
        bad = {m for m in _imports(f) if m.startswith("profiler.commands")}
        assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"


def test_no_workflow_runs_another_commands_workflow():
    workflows = {f.stem for f in (PKG / "workflows").glob("*.py")} - {"__init__"}
    assert PIPELINE_PIECES <= workflows, PIPELINE_PIECES - workflows
    for f in (PKG / "workflows").glob("*.py"):
        used = {m.split(".")[2] for m in _imports(f) if m.startswith("profiler.workflows.")} - {f.stem}
        bad = used - PIPELINE_PIECES
        assert not bad, (f"{f.relative_to(PKG.parent)} imports the workflows {sorted(bad)}: a workflow that "
                         "runs another command's workflow belongs in profiler/compose/")
    # imported as a package (`from profiler.workflows import imports`) would slip past the check
    for f in (PKG / "workflows").glob("*.py"):
        tree = ast.parse(f.read_text())
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "profiler.workflows"
                    or isinstance(n, ast.ImportFrom) and n.level], f"{f.name}: import workflow modules by their full name"


def test_analysis_never_reads_raw_text():
    # arguments are decoded at the parse boundary; analysis works on the model only
    for f in (PKG / "analysis").glob("*.py"):
        bad = {m for m in _imports(f) if m.startswith("profiler.parse")}
        assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"


# The one edge from render into analysis: the view functions a saved report is drawn with
# (`show` re-renders any saved imports report with --view/--min-ms/--top/--filter, so the cut
# of the tree cannot be made earlier). No statistics, no aggregation: those are the workflow's.
RENDER_VIEW_FUNCTIONS = {"collapse_tree", "filter_modules", "top_modules", "lay_out_timeline", "stacks", "timeline_blocks", "stack_blocks"}


def test_render_computes_nothing_but_views():
    for f in (PKG / "render").glob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(("profiler.analysis", "profiler.parse")):
                names = {a.name for a in node.names}
                assert node.module == "profiler.analysis.imports_views" and names <= RENDER_VIEW_FUNCTIONS, \
                    f"{f.relative_to(PKG.parent)} imports {names} from {node.module}"


def test_bootstrap_is_stdlib_only():
    for f in (PKG / "bootstrap").glob("*.py"):
        bad = {m for m in _imports(f) if m.startswith("profiler")}
        assert not bad, f"{f.name} imports {bad}: it runs inside the measured interpreter"


def test_only_capture_spawns_processes():
    for f in PKG.rglob("*.py"):
        rel = f.relative_to(PKG)
        if rel.parts[0] in ("capture", "bootstrap"):
            continue
        assert "subprocess" not in _imports(f), f"{rel} imports subprocess"


def test_unknown_format_is_refused_before_the_target_runs(cli):
    # the target would fail (exit 3) if it ran: exit 2 proves the format was checked first
    failing = ("-c", "raise SystemExit(7)")
    for args in (("startup", "--runs", "1"), ("imports", "--runs", "1"), ("trace",), ("why", "json"), ("site",)):
        target = () if args[0] == "site" else failing
        res = cli(*args, "--format", "xml", *target)
        assert_one_line_error(res, 2, "unknown --format 'xml'")


@pytest.mark.slow
def test_cached_help_is_exactly_typers_help(tmp_path):
    """`--help` is served from the help cache without importing typer; it must be the very text
    typer prints, for the top level and for every command."""
    from profiler.commands import command_names

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    for args in (["--help"], *([name, "--help"] for name in command_names())):
        fresh = subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True,
                               env=dict(env, IMPORTPROF_NO_HELP_CACHE="1"))
        first = subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=env)
        code = ("import sys; from profiler.cli import app; app(sys.argv[1:]); "
                "sys.stderr.write('TYPER=' + str('typer' in sys.modules))")
        cached = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
        assert fresh.returncode == first.returncode == cached.returncode == 0, (args, cached.stderr)
        assert cached.stdout == fresh.stdout == first.stdout, args
        assert cached.stderr.endswith("TYPER=False"), (args, cached.stderr)


@pytest.mark.slow
def test_a_command_run_imports_only_its_own_module():
    code = ("import sys; from profiler.commands import parse; parse(['startup', '--runs', '2']); "
            "sys.stdout.write(','.join(sorted(m for m in sys.modules if m.startswith('profiler.commands.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(out.split(",")) == {"profiler.commands._common", "profiler.commands._options",
                                   "profiler.commands._target", "profiler.commands._context", "profiler.commands.startup"}, out


@pytest.mark.slow
def test_setup_leaves_no_module_of_profiler_to_compile():
    """make setup compiles profiler/ (PYTHONDONTWRITEBYTECODE is set here and in many
    containers, and an editable install compiles nothing): every module's .pyc is in place and
    matches its source, so no run of importprof compiles its own code."""
    import importlib.util

    stale = []
    for src in PKG.rglob("*.py"):
        pyc = Path(importlib.util.cache_from_source(str(src)))
        if not pyc.exists():
            stale.append(str(src))
            continue
        header = pyc.read_bytes()[:16]
        mtime = int.from_bytes(header[8:12], "little")
        if header[:4] != importlib.util.MAGIC_NUMBER or mtime != int(src.stat().st_mtime) & 0xFFFFFFFF:
            stale.append(str(src))
    assert not stale, f"compiled at every run (re-run make setup): {stale[:5]}"


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--version"], ["--help"], ["startup", "--help"]])
def test_the_fast_paths_keep_the_output_rules(args, tmp_path):
    """--version and a cached --help write outside main(): a full disk is one line (exit 3), a
    closed pipe is no error (exit 0); never a traceback."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, env=env, check=True)  # cache it
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "profiler", *args], stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.returncode == 3 and proc.stderr.startswith("importprof: error: cannot write to standard output"), proc.stderr
    assert "Traceback" not in proc.stderr
    r, w = os.pipe()
    os.close(r)
    proc = subprocess.run([sys.executable, "-m", "profiler", *args], stdout=w, stderr=subprocess.PIPE, text=True, env=env)
    os.close(w)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.slow
def test_the_help_cache_keys_the_width_as_click_reads_it(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("IMPORTPROF_NO_HELP_CACHE", None)
    narrow = subprocess.run([sys.executable, "-m", "profiler", "startup", "--help"], capture_output=True, text=True,
                            env=dict(env, COLUMNS="60")).stdout
    wide = subprocess.run([sys.executable, "-m", "profiler", "startup", "--help"], capture_output=True, text=True,
                          env=dict(env, COLUMNS="100")).stdout
    typer_wide = subprocess.run([sys.executable, "-m", "profiler", "startup", "--help"], capture_output=True, text=True,
                                env=dict(env, COLUMNS="100", IMPORTPROF_NO_HELP_CACHE="1")).stdout
    assert wide == typer_wide != narrow


def test_held_warnings_are_said_before_an_os_error_line(monkeypatch, capsys):
    """A command that warned and then met a file error (full disk, read-only -o) says its held
    warning, then one error line."""
    import errno

    import profiler.commands as commands

    class Delivers:
        def main(self, args, prog_name, standalone_mode, obj):
            obj.warn("the machine is busy: load average 4.97 on 2 logical cores")
            raise OSError(errno.ENOSPC, "No space left on device", "out.json")

    monkeypatch.setenv("IMPORTPROF_VERBOSE", "0")
    monkeypatch.setattr(commands, "build_app", lambda: Delivers())
    code = commands.main(["imports", "-c", "pass"])
    err = capsys.readouterr().err.splitlines()
    assert code != 0 and len(err) == 2, err
    assert err[0] == "importprof: warning: the machine is busy: load average 4.97 on 2 logical cores", err
    assert err[1].startswith("importprof: ") and "warning" not in err[1], err


def test_the_command_helpers_import_in_one_direction():
    """`_common`, `_options`, `_target` and `_context` import each other (at the top or inside a
    function) without a circle: `_context` is the leaf the others share."""
    import ast

    helpers = {p.stem: p for p in (PKG / "commands").glob("_*.py") if p.stem != "__init__"}
    edges = {}
    for name, path in helpers.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("profiler.commands._"):
                found.add(node.module.rsplit(".", 1)[1])
        edges[name] = found & set(helpers)

    def cycle_from(start, node, seen):
        for nxt in edges.get(node, ()):
            if nxt == start:
                return [node, nxt]
            if nxt not in seen:
                seen.add(nxt)
                rest = cycle_from(start, nxt, seen)
                if rest:
                    return [node, *rest]
        return None

    for name in helpers:
        assert cycle_from(name, name, set()) is None, f"import circle: {' -> '.join(cycle_from(name, name, set()))}"


def test_nothing_imports_the_entry_point():
    """cli.py hands argv to profiler.commands; nothing in the package imports cli.py back (the
    version line both answer --version with is profiler/version.py): no circle through the
    entry. python -m profiler (__main__.py) is the one other entry."""
    offenders = []
    for path in PKG.rglob("*.py"):
        if path.name == "__main__.py" and path.parent == PKG:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in ("profiler.cli", "profiler") and (
                    node.module == "profiler.cli" or any(a.name == "cli" for a in node.names)):
                offenders.append(str(path.relative_to(PKG)))
            elif isinstance(node, ast.Import) and any(a.name == "profiler.cli" for a in node.names):
                offenders.append(str(path.relative_to(PKG)))
    assert offenders == [], offenders
