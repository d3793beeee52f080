"""Options shared by several commands, declared once (name, metavar, help, range checks).

Use them as annotations: `python: PythonOpt = None`, `runs: runs_opt(5) = 5`. Values are
checked by the parser (a usage error, exit 2, before anything runs): counts have a minimum,
numbers are finite, formats are the command's own.
"""

from __future__ import annotations

import math
from typing import Annotated, Callable, List, Optional

import typer


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


def choice(*names: str, what: str = "--format") -> Callable[[str], str]:
    def parse(text) -> str:
        if text not in names:
            raise typer.BadParameter(f"unknown {what} {text!r} for this command (choose from: {', '.join(names)})")
        return text

    return parse


PythonOpt = Annotated[Optional[str], typer.Option("--python", metavar="PATH", help=_PY_HELP)]
PythonsOpt = Annotated[
    Optional[List[str]], typer.Option("--python", metavar="PATH", help=_PY_HELP + " Repeat to compare interpreters; "
                                      "pyenv:* or all name several at once (each measured once).")
]
FlagsOpt = Annotated[
    Optional[List[str]],
    typer.Option("--flags", metavar="FLAGS", help='A custom variant named by its flags, e.g. --flags="-X dev" (repeatable).'),
]
OutputOpt = Annotated[
    Optional[str],
    typer.Option("-o", "--output", metavar="FILE", help="Write the --format output (json by default) to FILE atomically; the table still goes to stdout."),
]
ExportJsonOpt = Annotated[
    Optional[str], typer.Option("--export-json", metavar="FILE", help="Also write the JSON document (hyperfine-shaped results) to FILE.")
]
ExportMarkdownOpt = Annotated[
    Optional[str], typer.Option("--export-markdown", metavar="FILE", help="Also write hyperfine's markdown table to FILE.")
]
TopOpt = Annotated[int, typer.Option("--top", metavar="N", min=1, help="Rows per table (every table that can be cut).")]


def variant_opt(default_text: str):
    return Annotated[
        Optional[List[str]],
        typer.Option(
            "--variant",
            metavar="NAME[,NAME...]",
            help="Variants, repeatable or comma-separated: default, no-site (-S, keeping the paths the target "
            "needs), no-site-bare (plain -S), isolated (-I), no-frozen, cold-pyc. " + default_text,
        ),
    ]


def runs_opt(help: str):
    return Annotated[Optional[int], typer.Option("--runs", "-r", metavar="N", min=1, help=help)]


def warmup_opt(default: int):
    return Annotated[int, typer.Option("--warmup", "-w", metavar="N", min=0, help=f"Warm-up runs, not measured (default {default}).")]


def format_opt(*formats: str):
    return Annotated[
        Optional[str],
        typer.Option("--format", metavar="FMT", parser=choice(*formats),
                     help=f"Machine format: {', '.join(formats)} (to stdout instead of the table; with -o, to FILE)."),
    ]


def ms_opt(name: str, help: str, default_min: float = 0.0):
    return Annotated[Optional[float], typer.Option(name, metavar="MS", parser=finite(default_min), help=help)]

# the imports views (imports, show)
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
                 "measure it anyway (as hyperfine -i). A crash with a traceback or a signal still fails in startup."),
]

EngineOpt = Annotated[
    str, typer.Option("--engine", metavar="ENGINE", help="builtin (interleaved runs, wait4 rusage) or hyperfine (drives the real hyperfine -N).")
]
