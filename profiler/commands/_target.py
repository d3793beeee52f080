"""The target grammar, in one place, for every command that runs a program:

    importprof CMD [OPTIONS] [-c CODE | -m MODULE | SCRIPT | -- COMMAND] [ARGS...]

importprof reads its own options until the target; everything after the target is the
program's, exactly as `python` takes them (`-m pip --version`, `-c CODE ARG`, `SCRIPT ARGS`).
Because a program's argument that spells one of the command's own options is almost always an
importprof option put in the wrong place (`compare app.py --runs 10`), it is a usage error that
shows the corrected command — unless the user says explicitly that what follows is the
program's, with `--` right after the target (`app.py -- --runs 10`). `-h`/`--help` after the
target is the program's (`startup -m json.tool --help` times json.tool's help).

`TargetCommand` splits argv before click sees it: click parses only importprof's options (and
the command's own leading positionals, such as `why MODULE`); what it read besides them is one
`ParsedLine` (the Target, --timeout, the files after `--from`, the SCRIPT's #! interpreter),
left under one key of click's `ctx.meta` and read through `parsed_line(ctx)` (`target_of`,
`has_target`, `files_of`, `timeout_given`, and commands/_options.py's resolvers of --python).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from typer.core import TyperCommand

from profiler.errors import UsageError
from profiler.commands._context import TIMEOUT_HELP, apply_timeout, timeout_seconds
# the grammar's words, shared with the library facade (profiler/api.py)
from profiler.target_grammar import TARGET_OPTS as _TARGET_OPTS, option_name as _option_name, target_option as _target_option

if TYPE_CHECKING:
    from profiler.model.target import Target

TARGET_USAGE = "[-c CODE | -m MODULE | SCRIPT | -- COMMAND] [ARGS]..."
_PROGRAM_HELP = ("-h", "--help")
_LINE = "importprof.line"  # the one key of ctx.meta (click shares it with the group's context)


@dataclass(frozen=True)
class ParsedLine:
    """What TargetCommand read from the command line besides the options click parses: the
    program (None: none given, `target_of` gives the default), --timeout (None: not given), the
    plain words after `files_option` (`report --from A B`), and the interpreter the SCRIPT's
    `#!` line names when no --python was given (found when the command is invoked, said on
    stderr then; --python's resolvers in commands/_options.py take it where --python is empty)."""

    target: Target | None = None
    timeout: float | None = None
    files: tuple[str, ...] = ()
    shebang_python: str | None = None


def parsed_line(ctx) -> ParsedLine:
    """The command line as TargetCommand parsed it (an empty one for a command without a target)."""
    line = ctx.meta.get(_LINE)
    return line if isinstance(line, ParsedLine) else ParsedLine()


def timeout_given(ctx) -> bool:
    """Whether the command line gave --timeout (a command whose runs are long sets its own default)."""
    return parsed_line(ctx).timeout is not None


class TargetCommand(TyperCommand):
    """A command whose trailing arguments are a program to run (see the module docstring).
    `files_option`: an option after which plain words are more files (`report --from A B`)."""

    files_option: str | None = None
    command_targets = True  # `-- COMMAND` accepted (compare/pack/build/lazy need Python)

    # -- parsing ---------------------------------------------------------------------------
    def _own_options(self, ctx) -> dict[str, bool]:
        """Every option string of this command → whether it takes a value."""
        own: dict[str, bool] = {}
        for p in self.get_params(ctx):
            if getattr(p, "param_type_name", "") == "option":
                for o in (*p.opts, *p.secondary_opts):
                    own[o] = not (getattr(p, "is_flag", False) or getattr(p, "count", False))
        own.setdefault("--timeout", True)
        own.setdefault("--verbose", False)
        return own

    def parse_args(self, ctx, args):
        own = self._own_options(ctx)
        leading = sum(1 for p in self.get_params(ctx) if getattr(p, "param_type_name", "") == "argument")
        mine: list[str] = []
        positionals: list[str] = []
        files: list[str] = []
        target = None
        timeout = None
        files_mode = False
        i = 0
        args = list(args)
        while i < len(args):
            a = args[i]
            if a == "--":
                rest = args[i + 1 :]
                if not rest:
                    raise UsageError("`--` must be followed by the COMMAND to run")
                if not self.command_targets:
                    raise UsageError(f"{ctx.command_path} needs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`")
                target = ("command", rest[0], rest[1:], [])  # TargetKind.COMMAND's word
                break
            if a == "--verbose":  # every command that runs a program takes it (as --timeout)
                from profiler.commands._common import set_verbose

                set_verbose(ctx, True)
                i += 1
                continue
            if a == "--timeout" or a.startswith("--timeout="):
                # every command that runs a program takes it (parsed here: no command declares it)
                value = a.partition("=")[2] if "=" in a else (args[i + 1] if i + 1 < len(args) else None)
                timeout = timeout_seconds(value)
                i += 1 if "=" in a else 2
                continue
            kind, value, used = _target_option(a, args[i + 1 :])
            if kind:
                target = (kind, value, args[i + 1 + used :], args[i : i + 1 + used])
                break
            if a.startswith("-") and a != "-":
                name, glued = _option_name(a)
                if name not in own:
                    _no_such_option(ctx, name, own)
                mine.append(a)
                if own.get(name) and not glued and i + 1 < len(args):
                    mine.append(args[i + 1])
                    i += 1
                if self.files_option and name == self.files_option:
                    files_mode = True
                i += 1
                continue
            if files_mode:
                files.append(a)
            elif len(positionals) < leading:
                positionals.append(a)
            else:
                target = ("script", a, args[i + 1 :], [a])
                break
            i += 1
        parsed = None
        if target is not None:
            kind, value, program_args, spelled = target
            if kind != "command":  # TargetKind.COMMAND (not imported before the Target is made)
                program_args = _program_args(ctx, own, mine, positionals, spelled, program_args)
            from profiler.model.target import Target

            parsed = Target(kind, value, tuple(program_args))
        ctx.meta[_LINE] = ParsedLine(parsed, timeout, tuple(files))
        return super().parse_args(ctx, [*mine, *positionals])

    def invoke(self, ctx):
        line = parsed_line(ctx)
        apply_timeout(ctx, line.timeout)  # before anything runs: the probes have the limit too
        ctx.meta[_LINE] = _python_from_shebang(ctx, line)
        return super().invoke(ctx)

    # -- help ------------------------------------------------------------------------------
    def collect_usage_pieces(self, ctx):
        return [*super().collect_usage_pieces(ctx), TARGET_USAGE]

    def format_options(self, ctx, formatter) -> None:
        rows = [
            ("-c CODE [ARGS]...", "Python code to run (default: -c pass)."),
            ("-m MODULE [ARGS]...", "A module run as __main__ (python -m)."),
            ("SCRIPT [ARGS]...", "A Python script."),
        ]
        if self.command_targets:
            rows.append(("-- COMMAND [ARGS]...", "Any command, run as is; the Python processes it starts are reached through environment variables."))
        with formatter.section("Target (importprof's options go before it; everything after it is the program's)"):
            formatter.write_dl(rows)
            formatter.write_paragraph()
            formatter.write_text(
                "A program argument that spells one of this command's options is refused; put "
                "`--` right after the target to pass it on: SCRIPT -- --runs 3. -h/--help after "
                "the target is the program's."
            )
        super().format_options(ctx, formatter)
        with formatter.section("Time limit"):
            formatter.write_dl([("--timeout SECONDS", TIMEOUT_HELP)])
        with formatter.section("Warnings"):
            formatter.write_dl([("--verbose", "Every warning on its own line as it arises (default: summed up in one line "
                                              "after the output; IMPORTPROF_VERBOSE=1 does the same).")])


def _python_from_shebang(ctx, line: ParsedLine) -> ParsedLine:
    """A SCRIPT with no --python runs where its `#!` line says (a venv's console script on the
    venv's python, as the shell would run it), and a note on stderr says which and why: the line
    with `shebang_python` set (--python's resolvers take it where --python is empty; the command's
    own `python` parameter stays what the command line said)."""
    from profiler.model.words import TargetKind

    target = line.target
    if target is None or target.kind != TargetKind.SCRIPT or "python" not in ctx.params or ctx.params.get("python"):
        return line
    from profiler.workflows.targets import script_python

    found = script_python(target)
    if found is None:
        return line
    path, why = found
    from profiler.commands._common import info

    info(why)
    return line if path is None else replace(line, shebang_python=path)


def _no_such_option(ctx, name: str, own: dict[str, bool]) -> None:
    """An unknown option before the target: said first (a misspelling must not make its value
    the SCRIPT), with the close matches."""
    import difflib

    candidates = [o for o in own if o.startswith("--")] if name.startswith("--") else list(own)
    # compared without the dashes, which every option shares (--rusn is not close to --vs)
    bare = {o.lstrip("-"): o for o in candidates}
    close = [bare[c] for c in difflib.get_close_matches(name.lstrip("-"), list(bare), n=3)]
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UsageError(f"no such option: {name}{hint} (see `{ctx.command_path} --help`)")


def _program_args(ctx, own, mine, positionals, spelled, program_args) -> list[str]:
    """The program's arguments, checked: `--` first passes the rest on as is; otherwise an
    argument spelling one of the command's options is a usage error showing the fix."""
    if program_args[:1] == ["--"]:
        return program_args[1:]
    moved: list[str] = []
    kept: list[str] = []
    flagged: list[str] = []
    i = 0
    while i < len(program_args):
        a = program_args[i]
        if a == "--":  # the program's own end of options: the rest is plainly its
            kept.extend(program_args[i:])
            break
        name, glued = _option_name(a) if a.startswith("-") and a != "-" else ("", False)
        known = name in own or name in _TARGET_OPTS
        if known and name not in _PROGRAM_HELP and (not glued or own.get(name, True) or a.startswith("--")):
            flagged.append(a)
            moved.append(a)
            if own.get(name) and not glued and i + 1 < len(program_args):
                moved.append(program_args[i + 1])
                i += 1
        else:
            kept.append(a)
        i += 1
    if flagged:
        cmd = ctx.command_path.split()
        fixed = [*cmd, *mine, *moved, *positionals, *spelled, *kept]
        escaped = [*cmd, *mine, *positionals, *spelled, "--", *program_args]
        what = ", ".join(dict.fromkeys(_option_name(f)[0] for f in flagged))
        raise UsageError(
            f"{what} after the target would go to the program; put importprof's options before the "
            f"target: `{shlex.join(fixed)}` (or, if the program should get them: `{shlex.join(escaped)}`)"
        )
    return kept


def target_of(ctx, default=None, *, check: bool = True):
    """The Target parsed by TargetCommand, else `default` (DEFAULT_TARGET: `-c pass`). With
    `check` (every command that is about to run it), a SCRIPT that is not a file and a COMMAND
    that cannot be executed are one line before anything runs, the same in every command."""
    from profiler.model.target import DEFAULT_TARGET

    target = parsed_line(ctx).target or (DEFAULT_TARGET if default is None else default)
    if check:
        from profiler.workflows.targets import check_target

        check_target(target, ctx.command_path)
    return target


VS_HELP = ("Another target compared with the main one in the same interleaved runs, as `hyperfine CMD1 CMD2` "
           "(repeatable): a command line in one quoted word, in the target grammar: '-c CODE', '-m MODULE ARGS', "
           "'SCRIPT ARGS' or '-- COMMAND ARGS'. A SCRIPT runs on the interpreter its #! line names unless --python "
           "is given (two venvs' console scripts each on their own python). Ratios are against the main target.")


def parse_target_words(text: str, option: str = "--vs"):
    """A target written as one command line (`--vs 'venv/bin/black --version'`), read by the
    same grammar as the command's own target; a SCRIPT that is no file is refused with the
    hint the main target gets."""
    from profiler.model.target import Target
    from profiler.model.words import TargetKind
    from profiler.workflows.targets import split_command_line

    words = split_command_line(option, text)
    if not words:
        raise UsageError(f"{option} needs a target: '-c CODE', '-m MODULE', 'SCRIPT ARGS' or '-- COMMAND'")
    if words[0] == "--":
        if len(words) < 2:
            raise UsageError(f"{option} '--' must be followed by the COMMAND to run")
        return Target(TargetKind.COMMAND, words[1], tuple(words[2:]))
    kind, value, used = _target_option(words[0], words[1:])
    if kind and value is not None:  # (a kind comes with its value)
        return Target(kind, value, tuple(words[1 + used:]))
    if words[0].startswith("-"):
        raise UsageError(f"{option} {text!r}: a target starts with -c, -m, -- or a SCRIPT, not {words[0]}")
    return Target(TargetKind.SCRIPT, words[0], tuple(words[1:]))


def versus_of(ctx, texts, python_given: bool, command_path: str) -> list:
    """--vs targets → [(Target, interpreter or None)], each checked as the main target is; a
    SCRIPT's #! interpreter is used when no --python was given (said on stderr, once each)."""
    from profiler.workflows.targets import check_target, script_python

    out = []
    for text in texts or ():
        t = parse_target_words(text)
        check_target(t, command_path)
        python = None
        if not python_given:
            found = script_python(t)
            if found is not None:
                from profiler.commands._common import info

                python, why = found
                info(why)
        out.append((t, python))
    return out


def python_as_given(ctx, python):
    """--python as the command line gave it, else the interpreter the SCRIPT's #! line names
    (None where neither): what a command hands on unresolved (commands/_options.py's resolvers
    start from it)."""
    return python or parsed_line(ctx).shebang_python


def has_target(ctx) -> bool:
    return parsed_line(ctx).target is not None


def files_of(ctx) -> list[str]:
    """Plain words after `files_option` (report --from A.json B.json)."""
    return list(parsed_line(ctx).files)


class PythonTargetCommand(TargetCommand):
    """A command that needs a Python target (compare, pack, build): no `-- COMMAND`."""

    command_targets = False
