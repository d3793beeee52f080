"""pytest plugin (entry point `pytest11`): `pytest --importprof-checks` runs the start-up checks
declared in pyproject.toml ([tool.importprof.checks.NAME]) as tests, one test per check, named
`importprof::NAME`; a failing check fails its test with the rules that failed and the import
chains. `--importprof-config FILE` picks another file than the rootdir's pyproject.toml.

Nothing is imported from importprof until the option is given (the plugin loads in every
pytest session of an environment where importprof is installed)."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("importprof", "start-up checks (importprof)")
    group.addoption("--importprof-checks", action="store_true", default=False,
                    help="Run the start-up checks declared in pyproject.toml ([tool.importprof.checks.NAME]) as tests.")
    group.addoption("--importprof-config", metavar="FILE", default=None,
                    help="The file declaring the checks (default: pyproject.toml in the rootdir).")


class CheckFailed(Exception):
    pass


class CheckItem(pytest.Item):
    def __init__(self, *, spec, **kw):
        super().__init__(**kw)
        self.spec = spec

    def runtest(self):
        from profiler.compose.check import run_check
        from profiler.workflows.session import invocation

        with invocation() as session:
            result = run_check(self.spec, session=session)
        self.user_properties.append(("importprof_check", result.to_dict()))
        if result.status == "error":
            raise CheckFailed(f"{self.spec.name}: could not run: {result.error}")
        if result.status != "pass":
            lines = [f"{f.rule}: {f.message}" for f in result.findings if f.status == "fail"]
            raise CheckFailed("\n".join(lines))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, CheckFailed):
            return f"importprof check {self.spec.name} failed:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.spec.source, None, f"importprof::{self.spec.name}"


def pytest_collection_modifyitems(session, config, items):
    if not config.getoption("importprof_checks"):
        return
    from profiler.errors import ImportprofError
    from profiler.compose.check import load_checks

    path = config.getoption("importprof_config") or os.path.join(str(config.rootpath), "pyproject.toml")
    try:
        specs = load_checks(path)
    except ImportprofError as exc:
        raise pytest.UsageError(f"--importprof-checks: {exc.message}") from None
    if not specs:
        raise pytest.UsageError(f"--importprof-checks: {path} declares no [tool.importprof.checks.NAME] table")
    shown = os.path.relpath(path, str(config.rootpath)).replace(os.sep, "/")
    items.extend(CheckItem.from_parent(session, name=f"importprof::{spec.name}", nodeid=f"{shown}::importprof::{spec.name}", spec=spec)
                 for spec in specs)
