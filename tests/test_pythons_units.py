"""Capabilities, version matching and the `frozen` plan as pure functions (no process started)."""

from __future__ import annotations

import pytest

from profiler.analysis.frozen import plan_frozen
from profiler.capture.interpreter import _matches, _uv_version, _version_key, is_multi_spec
from profiler.errors import BadInput
from profiler.model.interpreter import Interpreter, require, supported_commands, supported_variants, why_not
from profiler.model.packing import LoadedModule


def interp(version, impl="cpython", shared=True, include="/inc"):
    return Interpreter(f"/py/{version}/bin/python", "python", version, impl, "/p", "/p", "/p/lib", "/p/site",
                       "/p/lib", "libpython.so", enable_shared=shared, include=include)


@pytest.mark.parametrize("version,cap,ok", [
    ("2.7.18", "importtime", False), ("3.7.0", "importtime", True),
    ("3.3.7", "isolated", False), ("3.4.0", "isolated", True),
    ("3.10.13", "frozen_modules", False), ("3.11.0", "frozen_modules", True),
    ("3.7.16", "pycache_prefix", False), ("3.8.0", "pycache_prefix", True),
    ("3.6.15", "hooks", False), ("3.7.16", "hooks", True),
    ("3.7.16", "frozen", False), ("3.8.18", "frozen", True), ("3.13.0", "frozen", True), ("3.14.0", "frozen", True), ("3.15.2", "frozen", True),
    ("3.7.16", "oxidized", False), ("3.8.18", "oxidized", True), ("3.11.7", "oxidized", True), ("3.12.1", "oxidized", False),
])
def test_capabilities_by_version(version, cap, ok):
    assert (why_not(interp(version), cap) is None) is ok


def test_non_cpython_and_static_builds():
    pypy = interp("3.10.13", impl="pypy")
    assert "needs CPython" in why_not(pypy, "frozen") and why_not(pypy, "importtime") is None
    static = interp("3.12.1", shared=False)
    assert "--enable-shared" in why_not(static, "frozen")
    assert "INCLUDEPY" in why_not(interp("3.12.1", include=None), "frozen")


def test_require_names_the_interpreter_the_feature_and_the_reason():
    with pytest.raises(BadInput) as err:
        require(interp("3.6.15"), "why")
    assert str(err.value) == "/py/3.6.15/bin/python: `why` is unavailable: -X importtime: needs Python 3.7+ (this is 3.6.15)"
    with pytest.raises(KeyError):
        require(interp("3.12.1"), "no-such-thing")
    assert supported_commands(interp("2.7.18"))["startup"] is None
    assert supported_variants(interp("3.12.1"))["frozen"] is None


def test_version_prefixes_match_by_components():
    assert _matches("3.12.1", "3.12") and _matches("3.12", "3.12") and _matches("3.13.0t", "3.13.0")
    assert not _matches("3.12.1", "3.1") and _matches("anything", "*")
    assert _uv_version("cpython-3.12.1-linux-x86_64-gnu") == "3.12.1"
    assert sorted(["3.10.13", "3.9.18", "2.7.18"], key=_version_key) == ["2.7.18", "3.9.18", "3.10.13"]
    assert is_multi_spec("all") and is_multi_spec("pyenv:3.12") and is_multi_spec("uv:*")
    assert not is_multi_spec("/usr/bin/python3") and not is_multi_spec("python3.12") and not is_multi_spec("foo:bar")


def test_frozen_plan_reasons():
    R = LoadedModule
    records = [
        R("app", None, "/a/app/__init__.py", "SourceFileLoader", True),
        R("app.core", None, "/a/app/core.py", "SourceFileLoader", False),
        R("app.fast", None, "/a/app/fast.cpython-312-x86_64-linux-gnu.so", "ExtensionFileLoader", False),
        R("lib", None, "/a/lib/__init__.py", "SourceFileLoader", True),
        R("lib.reads", None, "/a/lib/reads.py", "SourceFileLoader", False),
        R("ns", None, None, "NamespaceLoader", True),
        R("sys", None, "built-in", "BuiltinImporter", False),
        R("os.path", None, None, None, False, alias_of="posixpath"),
        R("collections.abc", None, "/s/collections/abc.py", "SourceFileLoader", False, alias_of="_collections_abc"),
        R("__main__", None, "/a/main.py", "SourceFileLoader", False),
    ]
    sources = {"/a/lib/reads.py": "HERE = __file__\n"}
    plan = plan_frozen(records, lambda p: sources.get(p, "x = 1\n"))
    # packages stay frozen above what is not (they keep their real __path__)
    assert [m.name for m in plan.modules] == ["app", "app.core", "collections.abc", "lib"]
    assert plan.modules[2].path == "/s/collections/abc.py"  # the file `import collections.abc` runs
    why = {u.name: u.reason for u in plan.not_frozen}
    assert "extension module" in why["app.fast"] and "reads __file__" in why["lib.reads"]
    assert "namespace package" in why["ns"] and why["__main__"].startswith("__main__")
    assert set(plan.served) == {"sys", "os.path"}
