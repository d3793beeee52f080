"""Shell completion scripts for bash, zsh and fish, written from importprof's command tree.

The scripts are static: the commands, their options and the values an option can take are
written into them, so a shell completes without starting importprof at each Tab, and importprof's
own start pays nothing (no completion hook is consulted at start-up). `importprof completion
SHELL` prints them; they are cached with the help texts (profiler/helpcache.py), so they follow
a new command or option after the same invalidation.

Pure: the tree in (`Command`s of `Option`s, built from click's objects in
commands/__init__.py: command_tree), text out.
"""

from __future__ import annotations

from typing import NamedTuple

SHELLS = ("bash", "zsh", "fish")


class Option(NamedTuple):
    names: tuple[str, ...]  # "-r", "--runs"
    takes_value: bool
    choices: tuple[str, ...] = ()  # the values offered; none: files (a path, or anything typed)
    help: str = ""
    comma_list: bool = False  # NAME[,NAME...]: each comma-separated word completed


class Command(NamedTuple):
    name: str
    help: str  # one line
    options: tuple[Option, ...]
    takes_files: bool = True  # positional words: a script, files, a program's arguments


def script(shell: str, commands: tuple[Command, ...], root_options: tuple[Option, ...], version: str) -> str:
    if shell not in SHELLS:
        raise ValueError(f"unknown shell {shell!r} (choose from: {', '.join(SHELLS)})")
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands, root_options, version)


def _one_line(text: str, width: int = 72) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    text = text if end < 0 else text[: end + 1]
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _bash_words(words) -> str:
    return " ".join(words)


def _bash(commands, root_options, version: str) -> str:
    root_words = [n for o in root_options for n in o.names]
    lines = [
        f"# bash completion for importprof {version}: `importprof completion bash`, written from its",
        "# command tree (static: no importprof runs at Tab). Load it from ~/.bashrc, or save it as",
        "# ~/.local/share/bash-completion/completions/importprof.",
        "_importprof() {",
        '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case ${COMP_WORDS[i]} in',
        "            --) return 0 ;;  # the program's own words follow: file names (-o default)",
        "            -*) ;;",
        '            *) if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}; fi ;;',
        "        esac",
        "    done",
        "    if [[ -z $cmd ]]; then",
        f'        COMPREPLY=($(compgen -W "{_bash_words([c.name for c in commands] + root_words)}" -- "$cur"))',
        "        return 0",
        "    fi",
        '    case "$cmd $prev" in',
    ]
    for c in commands:
        for o in c.options:
            if not o.takes_value:
                continue
            pattern = "|".join(f'"{c.name} {n}"' for n in o.names)
            if o.choices and o.comma_list:
                lines.append(f"        {pattern})")
                lines.append('            local done=""; [[ $cur == *,* ]] && done=${cur%,*},')
                lines.append(f'            COMPREPLY=($(compgen -P "$done" -W "{_bash_words(o.choices)}" -- "${{cur##*,}}")); return 0 ;;')
            elif o.choices:
                lines.append(f'        {pattern}) COMPREPLY=($(compgen -W "{_bash_words(o.choices)}" -- "$cur")); return 0 ;;')
            else:
                lines.append(f"        {pattern}) return 0 ;;  # a value: file names (-o default)")
    lines += ["    esac", '    [[ $cur == -* ]] || return 0', "    case $cmd in"]
    for c in commands:
        words = [n for o in c.options for n in o.names]
        lines.append(f'        {c.name}) COMPREPLY=($(compgen -W "{_bash_words(words)}" -- "$cur")) ;;')
    lines += ["    esac", "}", "complete -o default -F _importprof importprof", ""]
    return "\n".join(lines)


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _zsh_desc(text: str) -> str:
    return _one_line(text).replace("\\", "").replace("[", "(").replace("]", ")")


def _zsh_option_specs(options) -> list[str]:
    specs = []
    for o in options:
        for n in o.names:
            spec = f"*{n}[{_zsh_desc(o.help)}]"
            if o.takes_value:
                if o.choices and o.comma_list:
                    spec += f":{o.names[-1].lstrip('-')}:_sequence compadd - {' '.join(o.choices)}"
                elif o.choices:
                    spec += f":{o.names[-1].lstrip('-')}:({' '.join(o.choices)})"
                else:
                    spec += f":{o.names[-1].lstrip('-')}:_files"
            specs.append(_zsh_quote(spec))
    return specs


def _zsh(commands, root_options, version: str) -> str:
    lines = [
        "#compdef importprof",
        f"# zsh completion for importprof {version}: `importprof completion zsh`, written from its",
        "# command tree (static: no importprof runs at Tab). Save it as _importprof in a folder of",
        "# $fpath, or source it after compinit.",
        "_importprof() {",
        "    local -a commands",
        "    commands=(",
    ]
    lines += [f"        {_zsh_quote(c.name + ':' + _zsh_desc(c.help))}" for c in commands]
    lines += [
        "    )",
        "    if (( CURRENT == 2 )); then",
        "        _describe -t commands 'importprof command' commands",
        "        _arguments " + " ".join(_zsh_option_specs(root_options)),
        "        return",
        "    fi",
        "    (( CURRENT -= 1 )); shift words",
        "    case $words[1] in",
    ]
    for c in commands:
        specs = _zsh_option_specs(c.options) + ([_zsh_quote("*:file:_files")] if c.takes_files else [])
        lines.append(f"        {c.name}) _arguments -S " + " ".join(specs) + " ;;")
    lines += [
        "    esac",
        "}",
        'if [[ $funcstack[1] == _importprof ]]; then',
        '    _importprof "$@"',
        "else",
        "    compdef _importprof importprof",
        "fi",
        "",
    ]
    return "\n".join(lines)


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_option(prefix: str, o: Option) -> str:
    parts = [prefix]
    for n in o.names:
        parts.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
    if o.takes_value:
        if o.choices:
            parts.append(f"-x -a {_fish_quote(' '.join(o.choices))}")
        else:
            parts.append("-r -F")
    if o.help:
        parts.append(f"-d {_fish_quote(_one_line(o.help))}")
    return " ".join(parts)


def _fish(commands, root_options, version: str) -> str:
    names = " ".join(c.name for c in commands)
    lines = [
        f"# fish completion for importprof {version}: `importprof completion fish`, written from its",
        "# command tree (static: no importprof runs at Tab). Save it as",
        "# ~/.config/fish/completions/importprof.fish.",
        "complete -c importprof -f",
    ]
    top = "complete -c importprof -n __fish_use_subcommand"
    lines += [_fish_option(top, o) for o in root_options]
    lines += [f"{top} -a {c.name} -d {_fish_quote(_one_line(c.help))}" for c in commands]
    for c in commands:
        within = f"complete -c importprof -n {_fish_quote(f'__fish_seen_subcommand_from {c.name}')}"
        lines += [_fish_option(within, o) for o in c.options]
        if c.takes_files:
            lines.append(f"{within} -F")
    lines.append(f"# commands: {names}")
    return "\n".join(lines) + "\n"
