"""pyproject.toml text → the declared start-up checks (pure). One table per check:

    [tool.importprof.checks.cli-help]
    target = ["-m", "mypkg", "--help"]
    budget_ms = 150
    forbid = ["pandas"]

An unknown key or a value of the wrong type is one BadInput naming the key and the file.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Mapping

from profiler.errors import BadInput
from profiler.model.check import CheckSpec
from profiler.model.words import Metric

# key → (accepted types, what the message calls it)
_NUMBER = "a number"
_KEYS: dict[str, str] = {
    "target": "a list of strings",
    "python": "a string",
    "budget_ms": _NUMBER,
    "budget_instructions": _NUMBER,
    "forbid": "a list of module names",
    "module_budget_ms": "a table of module = number",
    "baseline": "a string (a path)",
    "max_growth_pct": _NUMBER,
    "runs": "an integer >= 1",
    "instruction_runs": "an integer >= 1",
    "metric": '"instructions" or "ms"',
    "stay_lazy": "a list of module names",
    "lazy_sources": "a list of paths (files or folders)",
    "new_import_min_ms": _NUMBER,
}


def load_toml(text: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.9/3.10: the same parser from PyPI
        import tomli as tomllib
    return tomllib.loads(text)


def parse_checks(text: str, source: str) -> tuple[CheckSpec, ...]:
    """Every `[tool.importprof.checks.NAME]` table of a pyproject.toml, in file order."""
    try:
        doc = load_toml(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise BadInput(f"{source}: not valid TOML: {exc}") from None
    tool = doc.get("tool", {}).get("importprof", {})
    if not isinstance(tool, dict):
        raise BadInput(f"{source}: [tool.importprof] must be a table")
    unknown = [k for k in tool if k not in ("checks", "history")]
    if unknown:  # a misspelt [tool.importprof.chekcs.x] must not pass as "no checks"
        raise BadInput(f"{source}: [tool.importprof]: unknown key {unknown[0]!r} (known: checks, history)")
    history_setting(doc, source)  # a wrong type is said by every command that reads the file
    checks = tool.get("checks", {})
    if not isinstance(checks, dict):
        raise BadInput(f"{source}: [tool.importprof.checks] must be a table of checks")
    return tuple(check_from_table(name, table, source) for name, table in checks.items())


def history_setting(doc: dict, source: str) -> str | None:
    """`[tool.importprof] history = "PATH"`: where the start-up history store is (as written,
    relative to the file's folder), or None when not set."""
    tool = doc.get("tool", {}).get("importprof", {})
    value = tool.get("history") if isinstance(tool, dict) else None
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise BadInput(f"{source}: [tool.importprof] history must be a path (a non-empty string)")
    return value


def parse_history_setting(text: str, source: str) -> str | None:
    try:
        doc = load_toml(text)
    except ValueError as exc:
        raise BadInput(f"{source}: not valid TOML: {exc}") from None
    return history_setting(doc, source)


def check_from_table(name: str, table: Any, source: str) -> CheckSpec:
    where = f"{source}: [tool.importprof.checks.{name}]"
    if not isinstance(table, dict):
        raise BadInput(f"{where} must be a table (got {_type(table)})")
    for key in table:
        if key not in _KEYS:
            raise BadInput(f"{where}: unknown key {key!r} (known: {', '.join(_KEYS)})")
    values: dict[str, Any] = {}
    for key, value in table.items():
        values[key] = _value(key, value, where)
    if "target" in values and not values["target"]:
        raise BadInput(f"{where}: 'target' must not be empty (default: [\"-c\", \"pass\"])")
    if values.get("max_growth_pct") is not None and "baseline" not in values:
        raise BadInput(f"{where}: 'max_growth_pct' needs a 'baseline' file to grow from")
    if values.get("new_import_min_ms") is not None and "baseline" not in values:
        raise BadInput(f"{where}: 'new_import_min_ms' needs a 'baseline' file (a new import is new against it)")
    return CheckSpec(name=name, source=source, **values)


def _value(key: str, value: Any, where: str):
    want = _KEYS[key]

    def bad():
        return BadInput(f"{where}: {key!r} must be {want} (got {_type(value)} {value!r})")

    if key == "target":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad()
        return tuple(value)
    if key == "lazy_sources":
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise bad()
        return tuple(value)
    if key in ("python", "baseline"):
        if not isinstance(value, str) or not value:
            raise bad()
        return value
    if key in ("forbid", "stay_lazy"):
        if not isinstance(value, list) or not all(isinstance(v, str) and v and not any(c.isspace() for c in v) for v in value):
            raise bad()
        return tuple(value)
    if key in ("runs", "instruction_runs"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise bad()
        return value
    if key == "metric":
        if value not in (Metric.INSTRUCTIONS, "ms"):
            raise bad()
        return Metric(value) if value == Metric.INSTRUCTIONS else value
    if key == "module_budget_ms":
        if not isinstance(value, dict):
            raise bad()
        out = {}
        for mod, ms in value.items():
            if not _number(ms):
                raise BadInput(f"{where}: 'module_budget_ms.{mod}' must be a number >= 0 (got {_type(ms)} {ms!r})")
            out[mod] = float(ms)
        return out
    if not _number(value):  # the numbers
        raise BadInput(f"{where}: {key!r} must be a number >= 0 (got {_type(value)} {value!r})")
    return float(value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def target_parts(target: Mapping | tuple) -> tuple[str, str, tuple[str, ...]]:
    """A check's target as typed → (kind, value, args), in ARCHITECTURE.md's grammar:
    `-c CODE`, `-m MODULE`, `-- COMMAND...`, or `SCRIPT`, each followed by the program's args."""
    argv = list(target)
    first = argv[0]
    if first in ("-c", "--code", "-m", "--module"):
        if len(argv) < 2:
            raise BadInput(f"target {argv!r}: {first} needs a value")
        return ("code" if first in ("-c", "--code") else "module"), argv[1], tuple(argv[2:])
    if first == "--":
        if len(argv) < 2:
            raise BadInput("target ['--']: `--` must be followed by the COMMAND to run")
        return "command", argv[1], tuple(argv[2:])
    if first.startswith("-"):
        raise BadInput(f"target {argv!r}: starts with the option {first!r} (a check's target is -c CODE, -m MODULE, SCRIPT or -- COMMAND)")
    return "script", first, tuple(argv[1:])
