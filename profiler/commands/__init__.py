"""One module per command (`profiler/commands/<name>.py`, each with `register(app)`),
discovered at start so that adding a command touches no shared file."""

from __future__ import annotations

import sys

from profiler.commands import _common


def build_app():
    import importlib
    import pkgutil

    import typer

    from profiler import __version__

    app = typer.Typer(
        name="importprof",
        help="Start-up and import-time profiler for Python.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    def version_callback(value: bool):
        if value:
            sys.stdout.write(f"importprof {__version__}\n")
            raise typer.Exit(0)

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", "-V", help="Print the version and exit.", is_eager=True, callback=version_callback
        ),
    ):
        """Start-up and import-time profiler for Python."""

    import profiler.commands as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"profiler.commands.{info.name}")
        module.register(app)
    group = typer.main.get_command(app)
    for cmd in group.commands.values():  # the command list shows whole first sentences
        cmd.short_help = cmd.short_help or _first_sentence(cmd.help or "")
    return group


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def parse(args: list[str]):
    """Parse `importprof ARGS` exactly as a run would, without running anything: returns
    (command name, its parameters, its Target or None). Usage errors raise as in a run.
    For tests and tooling (the README test parses every documented command line with it)."""
    from profiler.commands._target import has_target, target_of

    group = build_app()
    name, rest = args[0], list(args[1:])
    cmd = group.commands[name]
    ctx = cmd.make_context(f"importprof {name}", rest)
    return name, dict(ctx.params), (target_of(ctx) if has_target(ctx) else None)


def main(args: list[str]) -> int:
    from profiler.errors import EXIT_USAGE, ImportprofError

    try:
        app = build_app()
        result = app.main(args=args, prog_name="importprof", standalone_mode=False)
        return int(result or 0) if isinstance(result, int) else 0
    except ImportprofError as exc:
        _common.error_line(exc.message, exc.detail)
        return exc.exit_code
    except KeyboardInterrupt:
        _common.error_line("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file or folder the workflow met (full disk, read-only...): one line
        from profiler.errors import from_os_error

        err = from_os_error(exc)
        _common.error_line(err.message)
        return err.exit_code
    except Exception as exc:  # click/typer usage errors and exits (vendored or not)
        code = getattr(exc, "exit_code", None)
        fmt = getattr(exc, "format_message", None)
        if type(exc).__name__ == "Exit":
            return int(code or 0)
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stdout.write(fmt() + "\n" if fmt else "")
            _common.error_line("no command given (see the list above)")
            return EXIT_USAGE
        if type(exc).__name__ == "Abort":
            _common.error_line("aborted")
            return 130
        if code is not None and fmt is not None:
            msg = fmt()
            if type(exc).__name__ in ("UsageError", "BadParameter", "NoSuchOption", "MissingParameter", "BadOptionUsage", "BadArgumentUsage"):
                ctx = getattr(exc, "ctx", None)
                where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
                _common.error_line(f"{msg}{where}")
                return EXIT_USAGE
            _common.error_line(msg)
            return int(code)
        raise
