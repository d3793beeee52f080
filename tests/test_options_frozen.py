"""Every command's options are one frozen value (issue 43, the typed edge): built once at the
command's edge, never changed below it (a stage that needs another value makes one with
dataclasses.replace)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import profiler


def _options_classes():
    found = {}
    for info in pkgutil.walk_packages(profiler.__path__, "profiler."):
        if info.name.startswith(("profiler.bootstrap", "profiler.native", "profiler.commands")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.endswith("Options") and dataclasses.is_dataclass(obj) and obj.__module__ == info.name:
                found[f"{info.name}.{name}"] = obj
    return found


def test_every_options_class_is_frozen():
    classes = _options_classes()
    assert len(classes) >= 20  # the walk found them (RunOptions and every command's)
    thawed = [n for n, c in classes.items() if not c.__dataclass_params__.frozen]
    assert thawed == []


def test_a_field_cannot_change_after_the_edge():
    from profiler.compose.lazy import LazyOptions
    from profiler.model.target import Target

    opts = LazyOptions(target=Target("code", "pass"))
    assert opts.warmup is not None  # the command's default, filled at construction
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.runs = 3  # type: ignore[misc]
    assert dataclasses.replace(opts, runs=3).runs == 3



def _invalid_options():
    """Each command's options class, valid fields, the fields its check refuses, the usage error."""
    from profiler.compose.compare import CompareOptions
    from profiler.compose.doctor import DoctorOptions
    from profiler.compose.lazy import LazyOptions
    from profiler.compose.lazy_apply_state import ApplyOptions
    from profiler.model.target import Target
    from profiler.workflows.imports import ImportsOptions

    t, cmd = Target("code", "pass"), Target("command", "true")
    lz = dict(lazy=LazyOptions(target=t), directory="d")
    return [
        (CompareOptions, dict(target=t), dict(launches=0), "--launches must be at least 1"),
        (CompareOptions, dict(target=t), dict(workload="hello"),
         "compare needs a target (SCRIPT, -m MODULE, -c CODE) or --workload NAME, not both"),
        (CompareOptions, dict(target=t), dict(harness_shell=True), "--record-with and --harness-shell go with --harness CMD"),
        (DoctorOptions, dict(), dict(target=cmd), "doctor runs a Python target (-c CODE, -m MODULE or SCRIPT), not `-- COMMAND`"),
        (DoctorOptions, dict(), dict(timing_runs=0), "--runs must be at least 1"),
        (LazyOptions, dict(target=t), dict(warmup=-1), "--warmup cannot be negative"),
        (LazyOptions, dict(target=t), dict(profile_runs=0), "the profile needs at least 1 run"),
        (ImportsOptions, dict(target=t), dict(runs=0), "--runs must be at least 1"),
        (ImportsOptions, dict(target=t), dict(headers="runs"), "--headers reads a saved log: it needs --from-log"),
        (ImportsOptions, dict(target=t), dict(target=cmd, phases=True), "--phases runs a Python target (not --from-log, not `-- COMMAND`)"),
        (ApplyOptions, lz, dict(directory=None), "nothing to do: give --apply DIR or --filter-out FILE"),
        (ApplyOptions, lz, dict(min_ms=-1.0), "--min-ms cannot be negative"),
    ]


@pytest.mark.parametrize("case", range(12))
def test_an_options_value_that_exists_is_valid(case):
    """The checks run where the value is made (issue 43: no validate() below the edge): the
    command's and the library facade's options alike refuse a bad value at construction, with the
    command's usage error, and so does a replace() that would make a valid one invalid."""
    from profiler.errors import UsageError

    cases = _invalid_options()
    assert len(cases) == 12
    cls, valid, bad, message = cases[case]
    with pytest.raises(UsageError) as caught:
        cls(**{**valid, **bad})
    assert caught.value.message == message
    with pytest.raises(UsageError) as caught:
        dataclasses.replace(cls(**valid), **bad)
    assert caught.value.message == message
