"""One module per command (`profiler/commands/<name>.py`, each with `register(app)`),
discovered from the package's files so that adding a command touches no shared file, and
imported only when it runs (a lazy group)."""

from __future__ import annotations

import sys

from profiler.commands import _common


# `importprof --help` lists the commands under the questions they answer (a command missing
# here is listed under "Other commands"; tests/test_cli_startup.py holds every command to one)
QUESTIONS = (
    ("How long does start-up take, in which variant, on which interpreter?", ("startup", "pythons")),
    ("Which imports cost the most, and who imports them?", ("imports", "why", "show")),
    ("What does start-up do: syscalls, files, site, .pth files?", ("trace", "site")),
    ("What should I change, and what would it save?", ("doctor", "lazy")),
    ("Would a packed or frozen build start faster?", ("compare", "build", "pack")),
    ("Did a change make start-up slower, and which commit?", ("check", "diff", "bisect", "history")),
    ("How do I share it all on one page?", ("report",)),
    ("How do I get Tab completion in my shell?", ("completion",)),
)



def _cli_errors() -> dict[str, tuple[type, ...]]:
    """The CLI library's exception classes by kind, for isinstance: typer's own (`Exit`,
    `Abort`) and the usage errors of the click it runs on (typer 0.28 vendors click as
    `typer._click`; an older typer raises click's own). Read from the modules already imported
    (the exception came from one of them), so an error imports nothing."""
    kinds: dict[str, list[type]] = {"Exit": [], "Abort": [], "NoArgsIsHelpError": [], "UsageError": []}
    for name in ("typer.exceptions", "typer._click.exceptions", "click.exceptions"):
        module = sys.modules.get(name)
        for kind, found in kinds.items():
            cls = getattr(module, kind, None) if module is not None else None
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append(cls)
    return {kind: tuple(found) for kind, found in kinds.items()}

def command_names() -> list[str]:
    """The commands, from the package's file names (a directory listing, no import)."""
    import pkgutil

    import profiler.commands as pkg

    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def load_command(name: str):
    """Import one command's module and build its click command (only the command that runs)."""
    import importlib

    import typer

    sub = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
                      context_settings={"help_option_names": ["-h", "--help"]})
    importlib.import_module(f"profiler.commands.{name}").register(sub)
    if sys.version_info < (3, 10):
        for info in sub.registered_commands:
            _evaluate_annotations(info.callback)
    cmd = typer.main.get_command(sub)
    cmd.name = name
    cmd.short_help = cmd.short_help or _first_sentence(cmd.help or "")  # whole first sentences in the list
    return cmd


def _evaluate_annotations(func) -> None:
    """Python 3.9: typer reads a parameter's `Annotated[..., typer.Option(...)]` from
    inspect.signature, which leaves the string annotations of `from __future__ import
    annotations` unevaluated before 3.10 (the options then lost their names: `--fmt` for
    `--format`). Give the function a signature with its annotations evaluated."""
    import inspect

    def evaluated(annotation):  # each one as written (get_type_hints would wrap a None default in Optional)
        return eval(annotation, func.__globals__) if isinstance(annotation, str) else annotation

    sig = inspect.signature(func)
    func.__signature__ = sig.replace(parameters=[p.replace(annotation=evaluated(p.annotation))
                                                 for p in sig.parameters.values()])


def build_app():
    """The root group. Commands load lazily: `importprof startup ...` imports startup's module
    only; listing them (`--help`) loads each."""
    import typer
    from typer.core import TyperGroup

    class LazyGroup(TyperGroup):
        def list_commands(self, ctx):
            return command_names()

        def get_command(self, ctx, name):
            return load_command(name) if name in command_names() else None

        def format_commands(self, ctx, formatter):
            """The commands under the questions they answer (QUESTIONS), each with the first
            sentence of its help, as click lays out its own "Commands" section."""
            names = command_names()
            groups = [(q, [n for n in members if n in names]) for q, members in QUESTIONS]
            placed = {n for _, members in groups for n in members}
            groups.append(("Other commands", [n for n in names if n not in placed]))
            rows = {n: load_command(n) for n in names}
            longest = max(len(n) for n in names)  # one column for every section
            for question, members in groups:
                if members:
                    formatter.write_paragraph()
                    formatter.write(f"{'':>{formatter.current_indent}}{question}\n")
                    formatter.indent()
                    formatter.write_dl([(n.ljust(longest), rows[n].get_short_help_str(formatter.width)) for n in members])
                    formatter.dedent()

        def resolve_command(self, ctx, args):
            name = args[0] if args else ""
            if name and not name.startswith("-") and name not in command_names():
                import difflib

                from profiler.errors import UsageError

                close = difflib.get_close_matches(name, command_names(), n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise UsageError(f"no such command: {name}{hint} (see `importprof --help`)")
            return super().resolve_command(ctx, args)

    app = typer.Typer(
        name="importprof",
        cls=LazyGroup,
        help="Start-up and import-time profiler for Python.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    def version_callback(value: bool):
        if value:
            from profiler.version import version_line

            sys.stdout.write(version_line())
            raise typer.Exit(0)

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", "-V", help="Print the version and exit.", is_eager=True, callback=version_callback
        ),
    ):
        """Start-up and import-time profiler for Python."""

    return typer.main.get_command(app)


def render_help() -> dict[str, str]:
    """Every help text exactly as click prints it ("" = the top level), and the completion
    scripts ("completion.SHELL"): what the help cache (profiler/helpcache.py) stores, so `--help`
    and `completion SHELL` later run without typer."""
    group = build_app()
    root = group.make_context("importprof", [], resilient_parsing=True)
    out = {"": root.get_help() + "\n"}
    for name in command_names():
        cmd = group.get_command(root, name)
        out[name] = cmd.make_context(name, [], parent=root, resilient_parsing=True).get_help() + "\n"
    for shell, text in completion_scripts(group, root).items():
        out[f"completion.{shell}"] = text
    return out


def _short_first(name: str) -> tuple:
    """An option's spellings in one order whatever click's (-h before --help)."""
    return name.startswith("--"), name


def _options_of(cmd, ctx) -> tuple:
    from profiler.render.completion import Option

    out = []
    for p in cmd.params:
        if getattr(p, "param_type_name", "") != "option" or getattr(p, "hidden", False):
            continue
        names = tuple(sorted(p.opts + p.secondary_opts, key=_short_first))
        choices = tuple(getattr(getattr(p.type, "func", None), "choices", ()))
        comma = False
        if p.name == "variant":  # NAME[,NAME...]: the interpreter's variants, or build/compare's
            from profiler.model.build_variant import BUILD_VARIANT_NAMES
            from profiler.model.variant import BUILTIN_VARIANTS

            choices, comma = tuple(BUILTIN_VARIANTS), True
            if "traditional" in (p.help or ""):
                choices = BUILD_VARIANT_NAMES
        takes_value = not (getattr(p, "is_flag", False) or getattr(p, "count", False))
        out.append(Option(names, takes_value, choices, p.help or "", comma))
    helper = cmd.get_help_option(ctx)
    if helper is not None:
        out.append(Option(tuple(sorted(helper.opts, key=_short_first)), False, (), helper.help or ""))
    return tuple(out)


def command_tree(group, root) -> tuple:
    """(the commands, the top level's options) as the completion scripts need them, read from
    click's own objects (the options each command declares, their value choices)."""
    from profiler.commands._target import TargetCommand
    from profiler.render.completion import Command, Option

    commands = []
    for name in command_names():
        cmd = group.get_command(root, name)
        ctx = cmd.make_context(name, [], parent=root, resilient_parsing=True)
        options = _options_of(cmd, ctx)
        if isinstance(cmd, TargetCommand):  # the target grammar, parsed by TargetCommand itself
            options += (Option(("-c", "--code"), True, (), "The program passed in as a string."),
                        Option(("-m", "--module"), True, (), "Run a library module as a script."),
                        Option(("--timeout",), True, (), "Stop the program after SECONDS."))
        commands.append(Command(name, cmd.get_short_help_str(200), options))
    return tuple(commands), _options_of(group, root)


def completion_scripts(group=None, root=None) -> dict[str, str]:
    """The bash, zsh and fish scripts, written from the command tree."""
    from profiler import __version__
    from profiler.render.completion import SHELLS, script

    if group is None:
        group = build_app()
        root = group.make_context("importprof", [], resilient_parsing=True)
    commands, root_options = command_tree(group, root)
    return {shell: script(shell, commands, root_options, __version__) for shell in SHELLS}


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def parse(args: list[str]):
    """Parse `importprof ARGS` exactly as a run would, without running anything: returns
    (command name, its parameters with `files` for report --from's extra files, its Target or
    None). Usage errors raise as in a run.
    For tests and tooling (the README test parses every documented command line with it)."""
    from profiler.commands._target import files_of, has_target, target_of

    name, rest = args[0], list(args[1:])
    cmd = load_command(name)
    ctx = cmd.make_context(f"importprof {name}", rest)
    params = {**ctx.params, "files": files_of(ctx)}
    return name, params, (target_of(ctx, check=False) if has_target(ctx) else None)


def _interrupted(by_sigterm: bool) -> int:
    """One line and the shell's exit code: 130 for Ctrl-C, 128 + the signal for SIGTERM (143),
    SIGHUP (129) and SIGQUIT (131)."""
    import signal

    from profiler.errors import EXIT_INTERRUPTED
    from profiler.workflows.session import terminating_signal

    if not by_sigterm:
        _common.error_line("interrupted")
        return EXIT_INTERRUPTED
    signum = terminating_signal()
    _common.error_line(f"terminated ({signal.Signals(signum).name})")
    return 128 + signum


def fast_path(args: list[str]):
    """The command lines answered without typer and click (about 30 ms of imports): `imports
    --from-log FILE`, alone or with `--format FMT` (before or after it; FMT one of the command's
    formats), the common ways to read a saved -X importtime log, which its peers (tuna,
    importtime-convert) answer in a blink. Exactly these words, FILE a path (not `-`, not an
    option): any other spelling, `--from-log=FILE` or `--format=FMT` included, goes through
    typer, whose behaviour this mirrors (tests/test_cli_startup.py runs both on the same logs
    and compares stdout, stderr and exit code). None when it does not apply."""
    if not args or args[0] != "imports" or len(args) not in (3, 5):
        return None
    given = dict(zip(args[1::2], args[2::2]))
    if len(given) != len(args) // 2 or set(given) - {"--from-log", "--format"} or "--from-log" not in given:
        return None
    path, fmt = given["--from-log"], given.get("--format")
    if not path or path.startswith("-"):
        return None
    if fmt is not None:
        from profiler.render import formats_for

        if fmt not in formats_for("imports"):  # typer says which are known
            return None
    return lambda session: _imports_from_log(session, path, fmt)


# `imports`' defaults as commands/imports.py declares them (a test holds them equal to click's)
IMPORTS_DEFAULTS = {"runs": 5, "warmup": 1, "headers": "processes", "view": "tree", "min_ms": 1.0, "top": 20,
                    "level": 1, "instruction_runs": 3}


def _imports_from_log(session, path: str, fmt: str | None = None) -> None:
    """commands/imports.py: imports() with every option at its default but --from-log FILE
    (and --format FMT), step by step (the command's TargetCommand.invoke sets the default
    --timeout first)."""
    from profiler.commands._common import check_outputs
    from profiler.commands._imports_run import run_imports_command
    from profiler.model.log_source import LogSource
    from profiler.model.target import DEFAULT_TARGET
    from profiler.model.words import Headers, View
    from profiler.render.console_imports import ImportsView
    from profiler.session import DEFAULT_TIMEOUT_S
    from profiler.workflows.imports import ImportsOptions
    from profiler.workflows.targets import check_target

    d = IMPORTS_DEFAULTS
    if fmt != "json":
        # a table, a chrome / speedscope profile or folded stacks: the machine facts a saved log
        # gets (read_machine(0.0), no CPU sample) are written only into the json document, so
        # they are not read (psutil's import, a fifth of this path's, is not paid); the session
        # keeps them by sample length (Session.machine_read)
        session.machine_read[0.0] = {}
    session.set_timeout(DEFAULT_TIMEOUT_S)
    check_target(DEFAULT_TARGET, "importprof imports")
    view = ImportsView(view=View(d["view"]), min_ms=d["min_ms"], top=d["top"], filter=None)
    check_outputs(None)
    opts = ImportsOptions(
        target=DEFAULT_TARGET, python=None, runs=d["runs"], warmup=d["warmup"], log=LogSource(path),
        headers=Headers(d["headers"]), group=None, level=d["level"], phases=False, lazy_candidates=False,
        ignore_failure=False, statements=False, metrics=[], instruction_runs=d["instruction_runs"],
    )
    run_imports_command(session, opts, view, fmt=fmt)


def main(args: list[str]) -> int:
    from profiler.errors import EXIT_INTERRUPTED, EXIT_USAGE, ImportprofError

    from profiler.workflows.session import interrupted, invocation, terminated

    session = None  # the invocation's session: its warnings, held, are said after the output
    try:
        # one temporary folder, removed on every exit; SIGTERM handled as Ctrl-C; no child left
        fast = fast_path(args)  # reads one file, writes stdout: no temporary folder
        with invocation(hold=True, temporary=fast is None) as session:  # the session, handed to the command as ctx.obj
            if fast is not None:
                try:
                    result = fast(session)
                except EOFError:  # click turns it into Abort, which ends as Ctrl-C does
                    raise KeyboardInterrupt from None
            else:
                app = build_app()
                result = app.main(args=args, prog_name="importprof", standalone_mode=False, obj=session)
        _common.flush_warnings(session)  # after the output: one line, or each with --verbose
        if result == EXIT_INTERRUPTED and interrupted():  # typer returns Ctrl-C as a bare 130
            return _interrupted(terminated())
        return int(result or 0) if isinstance(result, int) else 0
    except ImportprofError as exc:
        _common.flush_warnings(session)
        if terminated() and exc.exit_code == EXIT_INTERRUPTED:
            return _interrupted(True)
        _common.error_line(exc.message, exc.detail)
        return exc.exit_code
    except KeyboardInterrupt:
        _common.flush_warnings(session)
        return _interrupted(terminated())
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file or folder the workflow met (full disk, read-only...): one line
        _common.flush_warnings(session)
        from profiler.errors import from_os_error

        err = from_os_error(exc)
        _common.error_line(err.message)
        return err.exit_code
    except Exception as exc:  # click/typer usage errors and exits (vendored or not)
        _common.flush_warnings(session)
        code = getattr(exc, "exit_code", None)
        fmt = getattr(exc, "format_message", None)
        kinds = _cli_errors()
        if isinstance(exc, kinds["Exit"]):
            return int(code or 0)
        if isinstance(exc, kinds["NoArgsIsHelpError"]):
            sys.stdout.write(fmt() + "\n" if fmt else "")
            _common.error_line("no command given (see the list above)")
            return EXIT_USAGE
        if isinstance(exc, kinds["Abort"]):  # click's wrapping of Ctrl-C (and SIGTERM, see session)
            return _interrupted(terminated())
        if code is not None and fmt is not None:
            msg = fmt()
            if isinstance(exc, kinds["UsageError"]):  # BadParameter, NoSuchOption, MissingParameter...
                ctx = getattr(exc, "ctx", None)
                where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
                _common.error_line(f"{msg}{where}")
                return EXIT_USAGE
            _common.error_line(msg)
            return int(code)
        raise
