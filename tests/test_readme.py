"""The README and the documentation site cannot lie: every `importprof ...` command line of
their code blocks (README.md and every page under docs/) is parsed by the real CLI (no
importprof option may land in the program's arguments), and the quick ones are run for real,
page by page, in order, each page in its own folder holding the small project the examples use,
with small --runs; every file an example names with -o / --export-* / --keep-log must then exist.
The pages are run by two test files (this one and tests/test_docs_commands.py, SECOND_WORKER),
so that `make test`'s two workers share them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from profiler.commands import command_names

README = REPO / "README.md"
DOCS = REPO / "docs"
# every page whose command lines are parsed and run: the front door, then the site's pages
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
# the pages run by tests/test_docs_commands.py, on the other worker; every other page is run
# here. Each half took about 5 minutes of wall time on 2 cores at load 7 (2026-11-28; 10.5 min
# for both in one process): the lazy, doctor, report and home pages there, check (its valgrind
# counts: 170 s) and the rest here
SECOND_WORKER = {"docs/commands/lazy.md", "docs/commands/lazy-apply.md", "docs/commands/doctor.md",
                 "docs/commands/report.md", "docs/commands/site.md", "docs/commands/pythons.md",
                 "docs/index.md"}
# what a command line may be preceded by in the README, and the variables it may use
SLOW = {"compare", "build", "pack"}  # they build launchers: their own tests run them
OWN_TEST = {"bisect", "history"}  # need a git history: tests/test_bisect.py and tests/test_history.py run their pages' lines in one
FILE_OPTIONS = ("-o", "--output", "--export-json", "--export-markdown", "--keep-log")
# the command lines the README alone ran before the Tour moved to docs/ (74): the pages together
# must never run fewer
RUN_BEFORE_THE_MOVE = 74


def page_name(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


def pages_text() -> str:
    """Every page's text, the README first: what the documentation states, wherever it lives."""
    return "\n".join(p.read_text() for p in PAGES)


def console_lines(page: Path | None = None) -> list[tuple[int | str, str]]:
    """(line number, command) for every command line of a command block: a ```console block,
    or a fenced block whose first line is a command. A command line is `$ ...`, or a line that
    starts with `importprof ` (blocks that list commands without a prompt). No page: every
    page's, each numbered `page:line`."""
    if page is None:
        return [(f"{page_name(p)}:{n}", text) for p in PAGES for n, text in console_lines(p)]
    out, block = [], None
    for n, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            if block is None:
                block = (line.strip() == "```console", [])
            else:
                console, lines = block
                if console or (lines and lines[0][1].startswith(("$ ", "importprof "))):
                    out.extend(_commands(lines))
                block = None
            continue
        if block is not None and line.strip():
            block[1].append((n, line))
    return out


def _commands(lines):
    out, pending = [], None
    for n, line in lines:
        if pending is not None:  # a command continued on the next line (an open quote, a \\)
            pending = (pending[0], pending[1].rstrip("\\") + "\n" + line)
        elif line.startswith("$ "):
            pending = (n, line[2:])
        elif line.startswith("importprof "):
            pending = (n, line)
        else:
            continue
        if _complete(pending[1]):
            out.append(pending)
            pending = None
    return out


def _complete(text: str) -> bool:
    if text.endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def importprof_commands(page: Path = README) -> list[tuple[int, list[str]]]:
    """Each `importprof ...` invocation (a line may chain several with `;`), as argv after
    `importprof`, with the shell's comments and redirections taken off."""
    out = []
    for n, text in console_lines(page):
        tokens = shlex.split(text, comments=True)
        for part in _split(tokens, ";"):
            if part[:1] == ["importprof"]:
                out.append((n, _strip_redirect(part[1:])))
    return out


def _split(tokens, sep):
    part = []
    for t in tokens:
        if t == sep or t.endswith(sep) and len(t) > 1 and not t.startswith("-"):
            if t != sep:
                part.append(t[:-1])
            yield part
            part = []
        else:
            part.append(t)
    if part:
        yield part


def _strip_redirect(argv):
    return argv[: argv.index(">")] if ">" in argv else argv


COMMANDS = set(command_names())  # every command the CLI has gets its own page, docs/commands/NAME.md


def test_the_pages_have_command_lines_for_every_command():
    cmds = [argv for p in PAGES for _, argv in importprof_commands(p)]
    assert len(cmds) >= 90, len(cmds)
    assert {argv[0] for argv in cmds} >= COMMANDS
    assert len(importprof_commands(README)) >= 8  # the front door answers with commands too
    for name in COMMANDS:  # each command's own page shows it
        page = DOCS / "commands" / f"{name}.md"
        assert any(argv[0] == name for _, argv in importprof_commands(page)), page


def test_every_page_is_run_by_one_of_the_two_files():
    names = {page_name(p) for p in PAGES}
    assert SECOND_WORKER <= names, SECOND_WORKER - names
    assert runnable(README) and all(runnable(DOCS / "commands" / f"{n}.md") for n in COMMANDS - SLOW - OWN_TEST)


def test_the_move_to_docs_kept_every_command_line_that_ran():
    assert sum(len(runnable(p)) for p in PAGES) >= RUN_BEFORE_THE_MOVE


@pytest.mark.parametrize("line, argv", [(f"{page_name(p)}:{n}", argv) for p in PAGES for n, argv in importprof_commands(p)],
                         ids=lambda v: str(v) if isinstance(v, (int, str)) else None)
def test_every_readme_command_parses_and_gives_the_program_only_its_own_arguments(line, argv):
    from profiler.commands import parse

    name, params, target = parse(argv)  # a misplaced option is a UsageError here
    assert "..." not in argv, f"{line}: a placeholder, not a command"
    if target is not None and target.kind == "script":
        # a reader must never wonder whose option it is: a script's own options follow `--`
        after = argv[argv.index(target.value) + 1 :]
        dashed = [a for a in after if a.startswith("-")]
        assert not dashed or after[:1] == ["--"], f"{line}: {dashed} after the script without `--`"


# --- running them ---------------------------------------------------------------------------

def _project(root: Path) -> None:
    """The small project the Tour's examples use: a script beside its own package, a CLI
    module, a script with options."""
    (root / "mylib").mkdir()
    (root / "mylib" / "__init__.py").write_text("import json, decimal\n\ndef main():\n    return json.dumps({'ok': True})\n")
    (root / "app.py").write_text("import mylib\nprint(mylib.main())\n")
    (root / "myscript.py").write_text("import argparse, csv\np = argparse.ArgumentParser()\np.add_argument('--flag', action='store_true')\nprint(p.parse_args())\n")
    (root / "mytool.py").write_text("import json\nprint('mytool')\n")
    # the checks `importprof check` runs: the check page's own pyproject.toml example
    (root / "pyproject.toml").write_text(pages_text().split("```toml\n", 1)[1].split("```", 1)[0])
    (root / "run_all.py").write_text(
        "import subprocess, sys\n"
        "for i in range(4):\n"
        "    subprocess.run([sys.executable, *(['-S'] if i % 2 else []), '-c', 'import json, csv'], check=True)\n"
    )


def _small(argv: list[str]) -> list[str]:
    """The same command with few runs: `--runs N` / `-r N` / `--import-runs N` set to 2."""
    from profiler.commands import parse

    name, params, _ = parse(argv)
    if "--from" in argv:  # a page from saved documents runs nothing
        return argv
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--runs", "-r", "--import-runs", "--warmup", "-w"):
            skip = True
            continue
        out.append(a)
    extra = []
    if "runs" in params:
        extra += ["--runs", "2"]
    if "warmup" in params:
        extra += ["--warmup", "0"]
    if "import_runs" in params:
        extra += ["--import-runs", "1"]
    return [out[0], *extra, *out[1:]]


def runnable(page: Path) -> list[tuple[int, list[str]]]:
    """The page's importprof invocations the run test runs: all but the builds, bisect and the
    --metric/--compare lines (their own tests run them)."""
    return [(n, argv) for n, argv in importprof_commands(page)
            if not (argv[0] in SLOW or argv[0] in OWN_TEST or "--compare" in argv or "--metric" in argv)]


def run_page(page: Path, tmp_path: Path, real_python: str) -> None:
    """Run the page's shell lines and quick importprof lines in order, in a fresh folder holding
    the examples' small project; fail with every line that failed."""
    _project(tmp_path)
    (tmp_path / ".venv").symlink_to(REPO / ".venv")  # "the project's venv", as in the README
    env = dict(os.environ, P=real_python, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    ran, failures, where = 0, [], page_name(page)
    for n, text in console_lines(page):
        tokens = shlex.split(os.path.expandvars(text.replace("$P", real_python)), comments=True)
        if "importprof" not in tokens:  # the shell lines that make an example's inputs
            if not re.match(r"^[A-Z]+=\S+$", text.strip()):  # (P=... is expanded above)
                subprocess.run(["bash", "-c", text], cwd=tmp_path, env=env, check=True, timeout=120)
            continue
        for part in _split(tokens, ";"):
            if not part or part[0] != "importprof":
                continue
            argv = _strip_redirect(part[1:])
            if argv[0] in SLOW or argv[0] in OWN_TEST or "--compare" in argv or "--metric" in argv:
                continue
            run = _small(argv)
            proc = subprocess.run([sys.executable, "-m", "profiler", *run], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=600)
            ran += 1
            gate = any(g in argv for g in ("--budget", "--fail-over", "--fail-over-pct"))
            if proc.returncode not in ((0, 1) if gate else (0,)):
                failures.append(f"{where}:{n}: importprof {shlex.join(run)} -> exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
                continue
            for i, a in enumerate(argv):
                if a in FILE_OPTIONS and i + 1 < len(argv) and argv[i + 1] != "-":
                    if not (tmp_path / argv[i + 1]).exists():
                        failures.append(f"{where}:{n}: {a} {argv[i + 1]} was not written")
    assert ran == len(runnable(page)), (ran, where)
    assert not failures, "\n".join(failures)


FIRST_WORKER = [p for p in PAGES if page_name(p) not in SECOND_WORKER and runnable(p)]


@pytest.mark.slow
@pytest.mark.parametrize("page", FIRST_WORKER, ids=page_name)
def test_the_quick_commands_of_each_page_run_and_write_the_files_they_name(page, tmp_path, real_python):
    run_page(page, tmp_path, real_python)
