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
