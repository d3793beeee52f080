"""The target grammar (profiler/commands/_target.py), parsed by the real CLI without running:
importprof's options before the target, the program's after it, exactly as python takes them."""

from __future__ import annotations

import pytest
import typer

from profiler.commands import parse
from profiler.commands._options import PythonOpt, PythonsOpt
from profiler.errors import UsageError
from profiler.model.target import Target


def target(*args):
    return parse(list(args))[2]


def test_module_arguments_are_the_programs_as_python_takes_them():
    assert target("startup", "-m", "pip", "--version") == Target("module", "pip", ("--version",))
    assert target("imports", "-m", "http.server", "--help") == Target("module", "http.server", ("--help",))
    assert target("startup", "-m", "json.tool", "--", "--help") == Target("module", "json.tool", ("--help",))
    assert target("startup", "-c", "import sys; print(sys.argv)", "a", "-x") == Target("code", "import sys; print(sys.argv)", ("a", "-x"))
    assert target("startup", "-cpass") == Target("code", "pass", ())
    assert target("startup", "--module=json.tool", "in.json") == Target("module", "json.tool", ("in.json",))


def test_importprof_options_before_the_target_are_importprofs():
    name, params, t = parse(["startup", "-r3", "-w", "0", "--variant", "default", "app.py", "a", "b"])
    assert (name, params["runs"], params["warmup"], list(params["variant"])) == ("startup", 3, 0, ["default"])
    assert t == Target("script", "app.py", ("a", "b"))
    _, params, t = parse(["compare", "--runs", "10", "--export-json", "cmp.json", "app.py"])
    assert params["export_json"] == "cmp.json" and t.value == "app.py" and t.args == ()


@pytest.mark.parametrize(
    "argv, named, fixed",
    [
        (["compare", "app.py", "--runs", "10", "--export-json", "cmp.json"], "--runs, --export-json",
         "importprof compare --runs 10 --export-json cmp.json app.py"),
        (["build", "app.py", "--name", "app", "-o", "builds/app"], "--name, -o",
         "importprof build --name app -o builds/app app.py"),
        (["startup", "-m", "pip", "install", "-r3"], "-r", "importprof startup -r3 -m pip install"),
        (["imports", "app.py", "x", "--format=json"], "--format", "importprof imports --format=json app.py x"),
    ],
)
def test_an_importprof_option_after_the_target_is_a_usage_error_showing_the_fix(argv, named, fixed):
    with pytest.raises(UsageError) as err:
        parse(argv)
    msg = err.value.message
    assert msg.startswith(named), msg
    assert f"`{fixed}`" in msg
    assert "--" in msg.split("(or", 1)[1]  # and the escape, for when the program should get them


def test_the_escape_passes_anything_on():
    assert target("compare", "app.py", "--", "--runs", "10") == Target("script", "app.py", ("--runs", "10"))
    # a later `--` is the program's own end of options: what follows is plainly its
    assert target("startup", "app.py", "x", "--", "--runs") == Target("script", "app.py", ("x", "--", "--runs"))
    # a program's options that are not importprof's pass as they are
    assert target("startup", "-m", "pytest", "-x", "-q", "tests") == Target("module", "pytest", ("-x", "-q", "tests"))


def test_command_targets_and_leading_positionals():
    assert target("trace", "--", "python3", "-S", "-c", "import json") == Target("command", "python3", ("-S", "-c", "import json"))
    assert target("startup", "--runs", "2", "--", "/bin/true") == Target("command", "/bin/true", ())
    name, params, t = parse(["why", "json", "--runs", "2", "-c", "import json"])
    assert params["module_name"] == "json" and params["runs"] == 2 and t == Target("code", "import json", ())
    with pytest.raises(UsageError, match="needs a Python target"):
        parse(["compare", "--", "ls"])
    with pytest.raises(UsageError, match="COMMAND to run"):
        parse(["startup", "--"])
    assert target("startup") is None  # the default, -c pass, is the workflow's


def test_report_from_takes_several_files_and_options_after_them():
    name, params, t = parse(["report", "--from", "a.json", "b.json", "-o", "page.html"])
    assert list(params["from_"]) == ["a.json"] and list(params["files"]) == ["b.json"] and t is None
    assert params["output"] == "page.html"


def test_counts_and_numbers_are_checked_by_the_parser():
    import typer

    for argv in (["startup", "--runs", "0"], ["imports", "--min-ms", "nan"], ["imports", "--budget", "inf"],
                 ["diff", "a", "b", "--fail-over", "nan"], ["trace", "--top", "0"]):
        with pytest.raises(typer.BadParameter):
            parse(argv)


def test_a_script_that_exists_but_is_no_file_is_not_called_missing(cli):
    from conftest import assert_one_line_error

    assert_one_line_error(cli("startup", "/dev/null"), 2, "not a regular file, so not a script: /dev/null")


@pytest.mark.slow
def test_first_path_is_what_python_puts_first(tmp_path):
    """sys.path[0] as a real python gives it, for a script (by a relative path, through a
    symlinked folder: kept as given), -m and -c; decided in one place (Target.first_path)."""
    import json
    import os
    import subprocess
    import sys

    from profiler.model.target import Target

    real = tmp_path / "real"
    real.mkdir()
    (real / "s.py").write_text("import json, sys; print(json.dumps(sys.path[0]))\n")
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    (real / "m.py").write_text("import json, sys; print(json.dumps(sys.path[0]))\n")
    cases = [(Target("script", "link/s.py"), [sys.executable, "link/s.py"]),
             (Target("module", "m"), [sys.executable, "-m", "m"])]
    for target, argv in cases:
        cwd = str(tmp_path if target.kind == "script" else real)
        got = json.loads(subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout)
        assert os.path.realpath(got) == os.path.realpath(target.first_path(cwd)), (target, got)
    assert Target("code", "pass").first_path("/x") == "/x"
    assert Target("command", "ls").first_path("/x") is None


def _probe_command(monkeypatch, multiple: bool):
    """A command declared as the real ones are (TargetCommand, --python), whose body records what
    it is handed: its own `python` parameter, the parsed line, and what each of --python's
    resolvers would resolve (the resolver below them replaced: nothing is started)."""
    from profiler.capture import interpreter
    from profiler.commands._options import interpreter_given, interpreters_given, python_for
    from profiler.commands._target import TargetCommand, parsed_line, target_of

    monkeypatch.setattr(interpreter, "interpreter_for", lambda python, *a, **k: ("resolved", python))
    monkeypatch.setattr(interpreter, "resolve_pythons", lambda pythons, **k: [("resolved", p) for p in pythons])
    seen: dict = {}
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        pass

    def record(ctx, python):
        line = parsed_line(ctx)
        seen.update(python=python, line=line, keys=sorted(k for k in ctx.meta if k.startswith("importprof.")),
                    resolved=(interpreter_given(ctx, None if multiple else python),
                              python_for(ctx, (python or [None])[0] if multiple else python, target_of(ctx, check=False)),
                              interpreters_given(ctx, python if multiple else None)))

    if multiple:
        @app.command("probe", cls=TargetCommand)
        def probe_many(ctx: typer.Context, python: PythonsOpt = None) -> None:
            record(ctx, python)
    else:
        @app.command("probe", cls=TargetCommand)
        def probe_one(ctx: typer.Context, python: PythonOpt = None) -> None:
            record(ctx, python)

    def run(*args):
        seen.clear()
        typer.main.get_command(app).main(["probe", *map(str, args)], prog_name="importprof", standalone_mode=False)
        return dict(seen)

    return run


@pytest.mark.parametrize("multiple", [False, True])
def test_the_parsed_line_is_one_value_and_the_shebang_reaches_the_resolvers(tmp_path, monkeypatch, capsys, multiple):
    """TargetCommand leaves what it read in one ParsedLine under one key of ctx.meta; a SCRIPT's
    #! interpreter reaches --python's resolvers (commands/_options.py) with the note on stderr,
    while the command's own `python` parameter stays what the command line said (it was
    rewritten in ctx.params before: a command could not tell the two apart)."""
    import sys

    from profiler.commands._target import ParsedLine

    script = tmp_path / "tool"
    script.write_text(f"#!{sys.executable}\nprint('hi')\n")
    script.chmod(0o755)
    run = _probe_command(monkeypatch, multiple)
    got = run("--timeout", "5", script, "a")
    assert got["python"] in (None, [], ())
    assert got["line"] == ParsedLine(Target("script", str(script), ("a",)), 5.0, (), sys.executable)
    assert got["keys"] == ["importprof.line"]
    assert got["resolved"] == (("resolved", sys.executable), ("resolved", sys.executable), (("resolved", sys.executable),))
    assert f"running {script} on {sys.executable}, the interpreter its #! line names (--python overrides)" in capsys.readouterr().err
    # --python given: it wins, nothing is said, the line has no #! interpreter
    got = run("--python", "/opt/py/bin/python3", script)
    assert got["line"] == ParsedLine(Target("script", str(script), ()), None, (), None)
    assert got["resolved"] == (("resolved", None if multiple else "/opt/py/bin/python3"), ("resolved", "/opt/py/bin/python3"),
                               (("resolved", "/opt/py/bin/python3" if multiple else None),))
    assert "#! line" not in capsys.readouterr().err
    # no target: an empty line (target_of's default), nothing resolved from a #! line
    got = run()
    assert got["line"] == ParsedLine() and got["resolved"][2] == (("resolved", None),)
