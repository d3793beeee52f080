"""The CLI contract and the architecture contract."""

import ast
import subprocess
import sys
from pathlib import Path

from conftest import assert_one_line_error

PKG = Path(__file__).resolve().parent.parent / "profiler"


def test_version_answers_without_typer():
    code = "import sys; from profiler.cli import app; rc = app(['--version']); print(rc, 'typer' in sys.modules, 'rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "importprof" and out[2:] == ["0", "False", "False"]


def test_help_lists_commands_and_imports_nothing_heavy():
    # --help imports every command module: they may import only typer and the stdlib up front
    code = (
        "import sys; from profiler.cli import app; app(['--help']); "
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('rich', 'psutil', 'jsonschema', 'hypothesis') "
        "or (m.startswith('profiler.') and not m.startswith(('profiler.cli', 'profiler.commands', 'profiler.errors')))]; "
        "sys.stderr.write('HEAVY=' + ','.join(sorted(heavy)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
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
            bad = {m for m in _imports(f) if m == "subprocess" or m.startswith("profiler.capture") or m.startswith("profiler.workflows") or m.startswith("profiler.commands")}
            assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"


def test_analysis_never_reads_raw_text():
    # issue 16.4: arguments are decoded at the parse boundary; analysis works on the model only
    for f in (PKG / "analysis").glob("*.py"):
        bad = {m for m in _imports(f) if m.startswith("profiler.parse")}
        assert not bad, f"{f.relative_to(PKG.parent)} imports {bad}"


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
