"""Every interpreter function importprof's in-program code replaces, held against every
provisioned interpreter's own signature (2.7 to 3.15), so that the next interpreter's change is
found here, not by a user (3.15 added `_find_and_load(..., *, lazy_submodule=False)` and
`source_to_code(..., fullname=None, ...)`: the phases hook, written for two arguments, broke
every program that used PEP 810's `lazy from`).

KNOWN lists each replaced function's signatures as the interpreters give them, and which hook
replaces it. The wrappers forward every positional and keyword argument (`*args, **kwargs`), so
a signature change cannot break them by itself; a NEW signature still fails this test on
purpose: someone reads what changed (a new argument may change what the hook must record), then
adds it here.
"""

from __future__ import annotations

import glob
import inspect
import os
import subprocess

import pytest

from tests._interpreters import PYENV_ROOT

# "module:qualified.name" -> the signatures seen, by the interpreter versions that have them
# ("absent": the interpreter has no such function; the hooks never run there: 2.7, and hooks
# need 3.8+ anyway)
KNOWN = {
    "_frozen_importlib:_find_and_load": {"(name, import_)", "(name, import_, *, lazy_submodule=False)", "absent"},
    "_frozen_importlib:_find_spec": {"(name, path, target=None)", "absent"},
    "_frozen_importlib_external:SourceLoader.get_code": {"(self, fullname)", "absent"},
    "_frozen_importlib_external:SourcelessFileLoader.get_code": {"(self, fullname)", "absent"},
    "_frozen_importlib_external:SourceFileLoader.get_code": {"(self, fullname)", "absent"},
    "_frozen_importlib_external:FileLoader.get_data": {"(self, path)", "absent"},
    "_frozen_importlib_external:SourceFileLoader.path_stats": {"(self, path)", "absent"},
    "_frozen_importlib_external:SourceLoader.source_to_code": {
        "(self, data, path, *, _optimize=-1)", "(self, data, path, fullname=None, *, _optimize=-1)", "absent"},
    "_imp:get_frozen_object": {"(name, /)", "(name, data=None, /)", "absent", "no signature"},
    "builtins:__import__": {"(name, globals=None, locals=None, fromlist=(), level=0)", "no signature", "absent"},
    "site:main": {"()"},
    "site:addpackage": {"(sitedir, name, known_paths)"},
    "site:execsitecustomize": {"()"},
    "site:execusercustomize": {"()"},
    "site:addusersitepackages": {"(known_paths)"},
}

# which hook replaces each (the test below checks the hook's wrapper takes any arguments)
REPLACED_BY = {
    "_frozen_importlib:_find_and_load": ("hook_phases", "_wrap_find_and_load"),
    "_frozen_importlib:_find_spec": ("hook_phases", "_wrap_find_spec"),
    "_frozen_importlib_external:SourceLoader.source_to_code": ("hook_phases", "_wrap_source_to_code"),
    "builtins:__import__": ("hook_phases", "_wrap_import"),
}

PROBE = r'''
from __future__ import print_function
import sys
try:
    from inspect import signature
except ImportError:
    signature = None
def get(path):
    mod, _, attr = path.partition(":")
    try:
        obj = sys.modules.get(mod) or __import__(mod)
    except ImportError:
        return "absent"
    for a in attr.split("."):
        obj = getattr(obj, a, None)
        if obj is None:
            return "absent"
    if signature is None:
        import inspect
        try:
            return inspect.formatargspec(*inspect.getargspec(obj))
        except TypeError:
            return "no signature"
    try:
        return str(signature(obj))
    except (ValueError, TypeError):
        return "no signature"
for n in sys.argv[1:]:
    print(n + "=" + get(n))
'''


def _interpreters() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(PYENV_ROOT, "versions", "*", "bin", "python")) if os.access(p, os.X_OK))


@pytest.mark.slow
def test_every_provisioned_interpreter_has_a_known_signature():
    pythons = _interpreters()
    if not pythons:
        pytest.skip(f"no interpreters under {PYENV_ROOT}/versions")
    versions = {os.path.basename(os.path.dirname(os.path.dirname(p))) for p in pythons}
    assert any(v.startswith("3.15") for v in versions) or pytest.skip("no 3.15 provisioned (make setup)")
    unknown = []
    for python in pythons:
        out = subprocess.run([python, "-S", "-c", PROBE, *KNOWN], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        got = dict(line.split("=", 1) for line in out.stdout.splitlines())
        assert set(got) == set(KNOWN)
        for name, sig in got.items():
            if sig not in KNOWN[name]:
                unknown.append(f"{python}: {name}{sig}")
    assert not unknown, "replaced functions with a signature importprof's hooks were not checked against:\n" + "\n".join(unknown)


def _hook_module(name: str):
    """A hook's source compiled as the launcher compiles it, with the launcher's API stub it
    reads at import (only what the module body needs: its `shown` map), given as the launcher
    gives it: the hook's global `_importprof` (never sys.modules)."""
    import types

    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "profiler", "bootstrap")
    api = types.ModuleType("_importprof_launch")
    api.shown = {}
    mod = types.ModuleType("_importprof_" + name)
    mod.__file__ = os.path.join(here, name + ".py")
    mod._importprof = {"_importprof_launch": api}
    with open(mod.__file__, encoding="utf-8") as fh:
        exec(compile(fh.read(), mod.__file__, "exec"), mod.__dict__)
    return mod


@pytest.mark.parametrize("replaced", sorted(REPLACED_BY))
def test_the_wrapper_forwards_every_argument(replaced):
    """Each wrapper, around a stand-in with the widest known signature, passes every positional
    and keyword argument through unchanged (the hook's own bookkeeping is off: stopped)."""
    module, factory = REPLACED_BY[replaced]
    hook = _hook_module(module)
    hook.stop()
    seen = []

    def original(*args, **kwargs):
        seen.append((args, kwargs))
        return "result"

    wrapper = getattr(hook, factory)(original)
    params = inspect.signature(wrapper, follow_wrapped=False).parameters.values()
    kinds = {p.kind for p in params}
    assert inspect.Parameter.VAR_POSITIONAL in kinds and inspect.Parameter.VAR_KEYWORD in kinds
    args, kwargs = ("name", "second", "third"), {"lazy_submodule": True, "fullname": "x", "_optimize": 2}
    assert wrapper(*args, **kwargs) == "result"
    assert seen == [(args, kwargs)]
