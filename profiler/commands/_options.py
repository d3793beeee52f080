"""Options shared by several commands, declared once (name, metavar, help, range checks).

Use them as annotations: `python: PythonOpt = None`, `runs: runs_opt(5) = 5`. Values are
checked by the parser (a usage error, exit 2, before anything runs): counts have a minimum,
numbers are finite, formats are the command's own.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Callable, List, Optional

import typer

from profiler.commands._context import TIMEOUT_HELP, apply_timeout, session_of, timeout_seconds  # noqa: F401  (re-exported: the commands import them from here)


_PY_HELP = ("Interpreter: a path or a name on PATH (a pyenv/asdf shim is resolved to the real "
            "executable; a venv's interpreter stays the venv's), or a spec naming one: pyenv:3.12, "
            "asdf:3.11, uv:3.13, system:3.11, venv (`importprof pythons` lists them). Default: python3 on PATH.")


def finite(min_value: float | None = None) -> Callable[[str], float]:
    """A parser for a finite float (not nan/inf), at least `min_value`."""

    def parse(text) -> float:
        if isinstance(text, float):
            value = text
        else:
            try:
                value = float(str(text).strip())
            except ValueError:
                raise typer.BadParameter(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise typer.BadParameter(f"{text!r} is not a finite number")
        if min_value is not None and value < min_value:
            raise typer.BadParameter(f"{text!r} is below {min_value:g}")
        return value

    return parse


# Counts have a ceiling, so a typo (--runs 1e9) is refused instead of starting a run that cannot end.
MAX_COUNT = 100_000


def integer(option: str, min_value: int = 0, max_value: int = MAX_COUNT) -> Callable[[str], int]:
    """A parser for a whole number written as one (`3`, not `3.0`, `-0.0` or `1e3`), between
    `min_value` and `max_value`."""

    def parse(text) -> int:
        if isinstance(text, int) and not isinstance(text, bool):
            value = text
        else:
            word = str(text).strip()
            if not re.fullmatch(r"[+-]?[0-9]{1,18}", word) or (word.startswith("-") and min_value >= 0):
                raise typer.BadParameter(f"{text!r} is not a whole number from {min_value} to {max_value}")
            value = int(word)
        if not min_value <= value <= max_value:
            raise typer.BadParameter(f"{text!r} is not a whole number from {min_value} to {max_value}")
        return value

    return parse


def path_value(option: str) -> Callable[[str], str]:
    """A parser for a path: an empty one is refused (it would write nothing, or somewhere else)."""

    def parse(text) -> str:
        if text is None:
            return text
        if not str(text).strip():
            raise typer.BadParameter("needs a path, not an empty string")
        return str(text)

    return parse


def python_value(text) -> str:
    """--python: a path, a name or a spec; an empty one (or a spec with nothing after its colon,
    `pyenv:`) is refused instead of meaning the default python3 (profiler/target_grammar.py:
    check_python_word, which the library facade calls too)."""
    from profiler.errors import UsageError
    from profiler.target_grammar import check_python_word

    try:
        return check_python_word(text)
    except UsageError as exc:
        raise typer.BadParameter(exc.message) from None


def choice(*names: str, what: str = "--format") -> Callable[[str], str]:
    def parse(text) -> str:
        if text not in names:
            raise typer.BadParameter(f"unknown {what} {text!r} for this command (choose from: {', '.join(names)})")
        return text

    parse.choices = names  # what shell completion offers (commands/__init__.py: command_tree)
    return parse


PythonOpt = Annotated[Optional[str], typer.Option("--python", metavar="PATH", parser=python_value, help=_PY_HELP)]
PythonsOpt = Annotated[
    Optional[List[str]], typer.Option("--python", metavar="PATH", parser=python_value, help=_PY_HELP + " Repeat to compare interpreters; "
                                      "pyenv:* or all name several at once (each measured once).")
]
FlagsOpt = Annotated[
    Optional[List[str]],
    typer.Option("--flags", metavar="FLAGS", help='A custom variant named by its flags, e.g. --flags="-X dev" (repeatable).'),
]
OutputOpt = Annotated[
    Optional[str],
    typer.Option("-o", "--output", metavar="FILE", parser=path_value("-o"), help="Write the --format output (json by default) to FILE atomically; the table still goes to stdout."),
]
ExportJsonOpt = Annotated[
    Optional[str], typer.Option("--export-json", metavar="FILE", parser=path_value("--export-json"), help="Also write the JSON document (hyperfine-shaped results) to FILE.")
]
ExportMarkdownOpt = Annotated[
    Optional[str], typer.Option("--export-markdown", metavar="FILE", parser=path_value("--export-markdown"), help="Also write hyperfine's markdown table to FILE.")
]
TopOpt = Annotated[int, typer.Option("--top", metavar="N", parser=integer("--top", 1), help=f"Rows per table (every table that can be cut; 1 to {MAX_COUNT}).")]


def variant_opt(default_text: str):
    from profiler.model.variant import variants_help

    return Annotated[
        Optional[List[str]],
        typer.Option("--variant", metavar="NAME[,NAME...]", help=variants_help() + " " + default_text),
    ]


def runs_opt(help: str):
    return Annotated[Optional[int], typer.Option("--runs", "-r", metavar="N", parser=integer("--runs", 1), help=f"{help} (1 to {MAX_COUNT})")]


def warmup_opt(default: int):
    return Annotated[int, typer.Option("--warmup", "-w", metavar="N", parser=integer("--warmup", 0), help=f"Warm-up runs, not measured (default {default}; 0 to {MAX_COUNT}).")]


def format_opt(*formats: str):
    return Annotated[
        Optional[str],
        typer.Option("--format", metavar="FMT", parser=choice(*formats),
                     help=f"Machine format: {', '.join(formats)} (to stdout instead of the table; with -o, to FILE)."),
    ]


def ms_opt(name: str, help: str, default_min: float = 0.0):
    return Annotated[Optional[float], typer.Option(name, metavar="MS", parser=finite(default_min), help=help)]

# the imports views (imports, show)
# the words of model/words.py: View, spelled here (importing it would load model/ for --help; a
# test holds them equal)
ViewOpt = Annotated[str, typer.Option("--view", metavar="VIEW", parser=choice("tree", "top", what="--view"),
                                      help="tree (folds children under --min-ms) or top (top N by self and cumulative).")]


def view_options(view: str, min_ms: float, top: int, filter_: Optional[str]):
    """The parsed view options of `imports` and `show`, as the renderer takes them."""
    from profiler.render.console_imports import ImportsView

    return ImportsView(view=view, min_ms=min_ms, top=top, filter=filter_)
MinMsOpt = Annotated[float, typer.Option("--min-ms", metavar="MS", parser=finite(0.0), help="Tree view: fold modules whose cumulative is under MS.")]
FilterOpt = Annotated[
    Optional[str], typer.Option("--filter", metavar="PREFIX", help="Only modules whose name starts with PREFIX (the tree keeps their ancestors).")
]

IgnoreFailureOpt = Annotated[
    bool,
    typer.Option("--ignore-failure", "-i", help="The program exits non-zero on purpose (a red test suite, a linter): "
                 "measure it anyway (as hyperfine -i); the exit code is kept and shown. A program that never ran its own "
                 "code still fails: a SyntaxError, no such module or script, a traceback, a signal."),
]

def _timeout_value(text) -> float:
    from profiler.errors import UsageError

    if isinstance(text, (int, float)):
        text = str(text)
    try:
        return timeout_seconds(text)
    except UsageError as exc:
        raise typer.BadParameter(exc.message) from None


# --timeout for a command without a target that still starts interpreters (site, pythons); the
# commands with a target take it through their target grammar (commands/_target.py)
TimeoutOpt = Annotated[Optional[float], typer.Option("--timeout", metavar="SECONDS", parser=_timeout_value, help=TIMEOUT_HELP)]


def interpreter_given(ctx, python: str | None, feature: str | None = None, *, for_what: str | None = None):
    """The commands' edge for a single `--python`: resolved here, once per invocation (None:
    the SCRIPT's #! interpreter, else the default python3), into the Interpreter the command
    hands its workflow; a missing one, or one without `feature`, is one line and exit 2 before
    anything runs."""
    from profiler.capture.interpreter import interpreter_for
    from profiler.commands._target import python_as_given

    return interpreter_for(python_as_given(ctx, python), feature, for_what=for_what, session=session_of(ctx))


def python_for(ctx, python: str | None, target, *, runs: bool = True):
    """"No --python" decided here, once, for the commands with one `--python` and a target: the
    Interpreter a run of a Python target needs (the one given, or the default python3), or the
    one given for a `-- COMMAND` target or a saved log (its processes' interpreter: `--group
    kind` reads where modules come from); None when none was given and nothing needs one (a
    command target, a saved log: `runs=False`). No --python with a SCRIPT whose #! line names an
    interpreter: that one (commands/_target.py: python_as_given)."""
    from profiler.commands._target import python_as_given

    python = python_as_given(ctx, python)
    if python or (runs and target.is_python):
        return interpreter_given(ctx, python)
    return None


def log_given(from_log: str | None, pieces: bool = False):
    """`--from-log`'s value as a LogSource (model/log_source.py, the library facade's too): None →
    None, `-` → stdin's text read now (`pieces`: stdin left for the workflow to read a piece at
    a time), a path → that path."""
    from profiler.model.log_source import LogSource

    return LogSource.of(from_log, pieces)


def interpreters_given(ctx, pythons) -> tuple:
    """The commands' edge for a repeatable `--python` (none: the default python3): each
    resolved once, in the order given (`pyenv:*`, `all` expanded; an install of those that does
    not start is skipped with a warning); none given, a SCRIPT's #! interpreter (python_as_given)."""
    from profiler.capture.interpreter import resolve_pythons
    from profiler.commands._target import python_as_given

    session = session_of(ctx)
    return tuple(resolve_pythons(list(pythons or []) or [python_as_given(ctx, None)], warn=session.warn, session=session))


EngineOpt = Annotated[
    str, typer.Option("--engine", metavar="ENGINE", help="builtin (interleaved runs, wait4 rusage) or hyperfine (drives the real hyperfine -N).")
]
