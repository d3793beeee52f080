"""`importprof completion SHELL`: the shell completion script for bash, zsh or fish."""

from __future__ import annotations

import sys

import typer

from profiler.commands._options import choice


def register(app: typer.Typer) -> None:
    app.command(
        "completion",
        help=(
            "Print the Tab-completion script for bash, zsh or fish: commands, options and their "
            "values, written from importprof's command tree (static: a Tab never starts importprof). "
            "bash: importprof completion bash > ~/.local/share/bash-completion/completions/importprof; "
            "zsh: importprof completion zsh > DIR/_importprof (DIR in $fpath); "
            "fish: importprof completion fish > ~/.config/fish/completions/importprof.fish."
        ),
    )(completion)


def completion(
    shell: str = typer.Argument(..., metavar="SHELL", parser=choice("bash", "zsh", "fish", what="shell"),
                                help="bash, zsh or fish."),
) -> None:
    from profiler.commands import completion_scripts

    sys.stdout.write(completion_scripts()[shell])
