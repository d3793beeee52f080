"""The run plan (workflows/plan.py) and the variants it is made of (model/variant.py): each
variant builds its own argv and environment and says what it needs; the plan builder checks the
options once. Pure: no process is started (the interpreters are facts written here; `site_paths`
is a recording function standing in for no-site's discovery run, to see when it is asked)."""

from __future__ import annotations

import os

import pytest

from profiler.analysis.failures import explain_failure
from profiler.errors import BadInput, UsageError
from profiler.model.interpreter import Interpreter, supported_variants, variant_needs
from profiler.model.target import Target
from profiler.model.variant import BUILTIN_VARIANTS, FRESH_FOLDER, Variant, insert_flags, variants_help
from profiler.workflows.plan import plan_runs
from profiler.session import Session


def interp(version: str) -> Interpreter:
    return Interpreter(f"/py/{version}/bin/python", "python", version, "cpython", "/p", "/p", "/p/lib", "/p/site",
                       "/p/lib", "libpython.so", enable_shared=True, include="/inc")


PY313, PY310, PY37 = interp("3.13.0"), interp("3.10.13"), interp("3.7.17")
MOD = Target("module", "json.tool", ("--help",))


class SitePaths:
    """Records what no-site's discovery was asked for; gives one path back."""

    def __init__(self):
        self.asked = []

    def __call__(self, python, target):
        self.asked.append((python, target))
        return (("PYTHONPATH", f"/stdlib{os.pathsep}/site"),)


# ------------------------------------------------------------------ the variants

@pytest.mark.parametrize("name,argv", [
    ("default", ("/py", "-m", "json.tool", "--help")),
    ("no-site", ("/py", "-S", "-m", "json.tool", "--help")),
    ("no-site-bare", ("/py", "-S", "-m", "json.tool", "--help")),
    ("isolated", ("/py", "-I", "-m", "json.tool", "--help")),
    ("no-frozen", ("/py", "-X", "frozen_modules=off", "-m", "json.tool", "--help")),
    ("cold-pyc", ("/py", "-m", "json.tool", "--help")),  # its folder is put in per run
])
def test_each_variant_builds_its_argv(name, argv):
    assert BUILTIN_VARIANTS[name].argv("/py", MOD.python_argv()) == argv


def test_cold_pyc_shows_a_placeholder_and_runs_a_fresh_folder():
    cold = BUILTIN_VARIANTS["cold-pyc"]
    assert cold.shown_flags == ("-X", f"pycache_prefix={FRESH_FOLDER}") == ("-X", "pycache_prefix=<fresh>")
    assert BUILTIN_VARIANTS["isolated"].shown_flags == ("-I",)
    assert insert_flags(["/py", "-S", "-c", "pass"], ("-X", "pycache_prefix=/f")) == ["/py", "-X", "pycache_prefix=/f", "-S", "-c", "pass"]


def test_only_no_site_asks_for_site_paths():
    paths = SitePaths()
    assert BUILTIN_VARIANTS["no-site"].env("/py", MOD, paths) == (("PYTHONPATH", f"/stdlib{os.pathsep}/site"),)
    for name in ("default", "no-site-bare", "isolated", "no-frozen", "cold-pyc"):
        assert BUILTIN_VARIANTS[name].env("/py", MOD, paths) == ()
    assert paths.asked == [("/py", MOD)]


def test_needs_are_declared_once_and_reach_pythons():
    for name, v in BUILTIN_VARIANTS.items():
        assert variant_needs()[name] == v.needs
    support = supported_variants(PY37)
    assert support["cold-pyc"] and "-X pycache_prefix" in support["cold-pyc"]
    assert support["no-frozen"] and support["isolated"] is None and support["default"] is None


def test_the_help_lists_every_builtin_name():
    text = variants_help(("default", "no-site"))
    assert all(name in text for name in BUILTIN_VARIANTS)
    assert text.endswith("Default: default,no-site.")


def test_failure_hints_come_from_the_variant_or_its_flags():
    err = "ModuleNotFoundError: No module named 'black'"
    v = BUILTIN_VARIANTS
    assert ".pth" in explain_failure(v["no-site"], ("-S",), "module", err)
    assert "no-site` variant keeps them" in explain_failure(v["no-site-bare"], ("-S",), "module", err)
    assert "script's folder" in explain_failure(v["isolated"], ("-I",), "script", err)
    assert "PYTHONPATH" in explain_failure(Variant("-I", ("-I",)), ("-I",), "module", err)  # a custom --flags=-I
    assert explain_failure(v["default"], (), "module", err) is None
    assert explain_failure(v["no-site"], ("-S",), "module", "exited with code 1") is None
    # a row no Variant made (compare's build variant `no-site`, a composition's own row): its flags tell
    assert "no-site` variant keeps them" in explain_failure(None, ("-S",), "module", err)


# ------------------------------------------------------------------ the plan builder

def test_plan_one_spec_per_interpreter_variant_role_in_order():
    paths = SitePaths()
    plan = plan_runs(MOD, [PY313, PY310], ["default,no-site", "cold-pyc"], ["-X dev"], imports=["json"], site_paths=paths)
    keys = [s.key for s in plan.specs]
    assert keys[:4] == ["default @ 3.13.0", "default @ 3.13.0 · pass", "default @ 3.13.0 · import json", "no-site @ 3.13.0"]
    assert len(keys) == len(set(keys)) == 2 * 4 * 3
    cold = next(s for s in plan.specs if s.variant == "cold-pyc" and s.role == "target")
    assert cold.fresh_pycache and cold.flags == ("-X", "pycache_prefix=<fresh>")
    assert cold.argv == (PY313.path, "-m", "json.tool", "--help")
    custom = next(s for s in plan.specs if s.variant == "-X dev")
    assert custom.argv[:3] == (PY313.path, "-X", "dev") and custom.flags == ("-X", "dev")
    # no-site's paths: asked once per no-site command (target, baseline, import) and nowhere else
    site = [s for s in plan.specs if s.variant == "no-site"]
    assert all(s.keep_site_paths and s.env for s in site)
    assert len(paths.asked) == len(site) == 6
    assert all(s.env is None for s in plan.specs if s.variant != "no-site")
    assert plan.site_path_notes[0].startswith("no-site @ 3.13.0: -S, with the site paths")


def test_the_variant_travels_from_the_plan_to_the_results_json_keeps_its_name():
    from profiler.analysis.statistics import summarize
    from profiler.model.measurement import RunSample, TimingResult
    from profiler.workflows.site import startup_site_notes

    plan = plan_runs(MOD, [PY313], ["no-site,cold-pyc", "default"], ["-X dev"], site_paths=SitePaths())
    for v, _, s in plan.runs:
        assert s.way is v and s.variant == v.name
        assert (s.keep_site_paths, s.fresh_pycache) == (v.keep_site_paths, v.fresh_pycache)
    ways = {s.variant: s.way for s in plan.specs}
    assert ways["-X dev"].flags == ("-X", "dev") and ways["no-site"] is BUILTIN_VARIANTS["no-site"]
    spec = plan.specs[0]
    measured = summarize(spec, [RunSample(0.01, 0.004, 0.004, 1, 0)] * 2)
    failed = TimingResult.failure(spec, (1,), "exited with code 1")
    assert measured.way is failed.way is BUILTIN_VARIANTS["no-site"]
    for r in (measured, failed):
        d = r.to_dict()
        assert "way" not in d and d["variant"] == "no-site"
        back = TimingResult.from_dict(d)
        assert back.way is None and back == r  # read back: the name only; equal all the same
    # a row named like a variant but made by no Variant (read from a file, a composition's own
    # row) is on no side of the site note, however slow: nothing is run for it
    slow = [replace_result(measured, variant="default", way=None, mean=0.9), replace_result(measured, mean=0.01, way=None)]
    assert startup_site_notes(slow, session=Session()) == []


def replace_result(r, **kw):
    from dataclasses import replace

    return replace(r, python="/py/3.13.0/bin/python", **kw)


def test_plan_default_set_and_dedup():
    plan = plan_runs(MOD, [PY313], [], [], default=("default", "isolated"))
    assert [s.key for s in plan.specs] == ["default", "isolated"]
    plan = plan_runs(MOD, [PY313], ["default", "default,isolated"], [])
    assert [s.variant for s in plan.specs] == ["default", "isolated"]


def test_plan_leaves_out_what_an_interpreter_cannot_run_with_one_line():
    seen = []
    plan = plan_runs(MOD, [PY313, PY310], ["default,no-frozen"], [], warn=seen.append)
    assert [s.key for s in plan.specs] == ["default @ 3.13.0", "no-frozen @ 3.13.0", "default @ 3.10.13"]
    assert plan.left_out == (f"variant no-frozen left out for {PY310.path} (3.10.13): -X frozen_modules: needs Python 3.11+ "
                             "(this is 3.10.13)",)
    assert seen == list(plan.left_out)
    with pytest.raises(BadInput, match="no-frozen left out"):
        plan_runs(MOD, [PY310], ["no-frozen"], [])


def test_plan_checks_before_any_discovery_run():
    paths = SitePaths()
    with pytest.raises(UsageError, match="--reference 'nope'"):
        plan_runs(MOD, [PY313], ["no-site"], [], reference="nope", site_paths=paths)
    with pytest.raises(UsageError, match="unknown variant 'nope'"):
        plan_runs(MOD, [PY313], ["nope"], [], site_paths=paths)
    assert paths.asked == []  # the target was never run for no-site's paths
    # a variant left out for every interpreter is not discovered either
    with pytest.raises(BadInput):
        plan_runs(MOD, [PY310], ["no-frozen"], [], site_paths=paths)
    assert paths.asked == []


@pytest.mark.parametrize("variants,flags", [(["no-site"], []), (["cold-pyc"], []), ([], ["-X dev"]), (["default,isolated"], [])])
def test_a_command_target_runs_as_is(variants, flags):
    cmd = Target("command", "git", ("--version",))
    with pytest.raises(UsageError, match="variants apply to Python targets"):
        plan_runs(cmd, [], variants, flags)


def test_a_command_target_plan():
    cmd = Target("command", "git", ("--version",))
    for variants in ([], ["default"]):
        plan = plan_runs(cmd, [], variants, [], default=("default", "no-site"))
        assert [(s.argv, s.variant, s.key) for s in plan.specs] == [(("git", "--version"), "command", "command")]
    with pytest.raises(UsageError, match="--import needs a Python target"):
        plan_runs(cmd, [], [], [], imports=["json"])


def test_cold_pyc_folder_is_fresh_per_run_and_removed(tmp_path):
    from profiler.capture.pycache import fresh_pycache

    with fresh_pycache(False, str(tmp_path)) as extra:
        assert extra == ()
    folders = []
    for _ in range(2):
        with fresh_pycache(True, str(tmp_path)) as extra:
            flag, value = extra
            folder = value.split("=", 1)[1]
            assert flag == "-X" and value.startswith("pycache_prefix=") and os.listdir(folder) == []
            folders.append(folder)
        assert not os.path.exists(folder)
    assert folders[0] != folders[1] and list(tmp_path.iterdir()) == []
