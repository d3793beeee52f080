"""An interpreter as importprof ran it (facts asked of the interpreter itself), and what
importprof can do with it (capabilities: pure rules over those facts, no I/O).

A capability is a name (`importtime`, `frozen`, ...) that is either supported or carries the one
line that says why not; commands ask `require(interp, "importtime")` before they run anything,
so an interpreter that cannot serve a command is refused with that line (exit 2), never with a
traceback from inside the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from profiler.errors import BadInput
from profiler.model.document import Document, Record, derived, saved


@dataclass(frozen=True)
class Interpreter(Record):
    path: str  # what importprof runs: sys.executable as the interpreter reports it
    requested: str  # what the user asked for (may be a shim or a bare name)
    version: str  # "3.11.7"
    implementation: str  # "cpython"
    prefix: str
    base_prefix: str
    stdlib: str  # sysconfig 'stdlib'
    purelib: str  # sysconfig 'purelib' (site-packages)
    libdir: str | None = None  # sysconfig LIBDIR (for linking libpython)
    ldlibrary: str | None = None  # sysconfig LDLIBRARY
    enable_shared: bool | None = None  # sysconfig Py_ENABLE_SHARED (built with --enable-shared)
    include: str | None = None  # sysconfig INCLUDEPY (Python.h's folder)
    source: str | None = None  # where discovery found it: pyenv, asdf, uv, system, venv, path

    @property
    def is_venv(self) -> bool:
        return self.prefix != self.base_prefix

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split(".")[:3] if p.isdigit())

    @property
    def capabilities(self) -> dict[str, str | None]:
        """Every capability name → None when supported, else the reason (one line)."""
        return {name: why_not(self, name) for name in CAPABILITIES}

    def supports(self, capability: str) -> bool:
        return why_not(self, capability) is None


# capability → (first version, last version or None, what it is). Versions are CPython's.
CAPABILITIES: dict[str, tuple[tuple[int, int], tuple[int, int] | None, str]] = {
    "importtime": ((3, 7), None, "-X importtime"),
    "isolated": ((3, 4), None, "-I (isolated mode)"),
    "frozen_modules": ((3, 11), None, "-X frozen_modules"),
    "pycache_prefix": ((3, 8), None, "-X pycache_prefix"),
    # importprof's hooks inside the interpreter (bootstrap/: time.perf_counter_ns, 3.7+)
    "hooks": ((3, 7), None, "importprof's in-interpreter hooks"),
    # `importprof lazy`'s import hooks (bootstrap/hook_lazy.py)
    "lazy_hooks": ((3, 8), None, "importprof lazy's import hooks"),
    # the `frozen` variant: importprof's C launcher registering a PyImport_FrozenModules table
    "frozen": ((3, 8), None, "the frozen variant (CPython's FrozenImporter)"),
    # python-oxidized-importer 0.9 (with pyo3 0.17): CPython 3.8 to 3.11
    "oxidized": ((3, 8), (3, 11), "the oxidized variants (python-oxidized-importer 0.9)"),
}

# what a command needs (every command also runs plain `python`; startup needs nothing more)
COMMAND_NEEDS: dict[str, tuple[str, ...]] = {
    "startup": (),
    "imports": ("importtime",),
    "why": ("importtime",),
    "diff": ("importtime",),
    "imports --phases": ("importtime", "hooks"),
    "imports --lazy-candidates": ("importtime", "hooks"),
    "trace": (),  # the program runs bare under strace (-X importtime's boundaries where the interpreter has it)
    "site": ("hooks",),
    "report": ("importtime", "hooks"),
    "lazy": ("importtime", "lazy_hooks"),
    "doctor": ("importtime", "hooks", "lazy_hooks"),
    "pack": ("hooks", "oxidized"),
    "build": ("hooks",),
    "compare": ("hooks",),
}

_VARIANT_NEEDS: dict[str, tuple[str, ...]] = {}


def variant_needs() -> dict[str, tuple[str, ...]]:
    """What a variant needs, by name: the interpreter variants declare it themselves
    (model/variant.py), and so do compare/build's (model/build_variant.py; `no-site`, a name of
    both, is the interpreter's). Read on first use: a command that names no variant (`imports
    --from-log`) does not import the two registries."""
    if not _VARIANT_NEEDS:
        from profiler.model.build_variant import BUILD_VARIANTS
        from profiler.model.variant import BUILTIN_VARIANTS

        _VARIANT_NEEDS.update({name: v.needs for name, v in BUILTIN_VARIANTS.items()})
        _VARIANT_NEEDS.update({name: v.needs for name, v in BUILD_VARIANTS.items() if name not in BUILTIN_VARIANTS})
    return _VARIANT_NEEDS


def _v(t: tuple[int, int]) -> str:
    return "%d.%d" % t


def why_not(interp: Interpreter, capability: str) -> str | None:
    """None when `interp` has `capability`, else one line saying why not."""
    first, last, what = CAPABILITIES[capability]
    if interp.implementation != "cpython" and capability in ("frozen", "oxidized", "hooks"):
        return f"{what}: needs CPython (this is {interp.implementation} {interp.version})"
    v = interp.version_tuple[:2]
    if v < first or (last is not None and v > last):
        span = f"Python {_v(first)}+" if last is None else f"CPython {_v(first)} to {_v(last)}"
        return f"{what}: needs {span} (this is {interp.version})"
    if capability in ("frozen", "oxidized") and interp.enable_shared is False:
        return f"{what}: links libpython, needs an interpreter built with --enable-shared"
    if capability == "frozen" and interp.include is None:
        return f"{what}: compiles against Python.h, but no include folder (INCLUDEPY) reported"
    return None


def why_not_needs(interp: Interpreter, needs: tuple[str, ...]) -> str | None:
    for cap in needs:
        reason = why_not(interp, cap)
        if reason is not None:
            return reason
    return None


def supported_commands(interp: Interpreter) -> dict[str, str | None]:
    """Command → None when this interpreter can serve it, else why not."""
    return {cmd: why_not_needs(interp, needs) for cmd, needs in COMMAND_NEEDS.items()}


def supported_variants(interp: Interpreter) -> dict[str, str | None]:
    return {name: why_not_needs(interp, needs) for name, needs in variant_needs().items()}


def require(interp: Interpreter, feature: str, *, for_what: str | None = None) -> None:
    """Refuse, with one line (BadInput, exit 2), an interpreter that lacks `feature`: a capability
    name, a command name (COMMAND_NEEDS) or a variant name (variant_needs())."""
    if feature in CAPABILITIES:
        reason = why_not(interp, feature)
    elif feature in COMMAND_NEEDS:
        reason = why_not_needs(interp, COMMAND_NEEDS[feature])
        for_what = for_what or f"`{feature}`"
    elif feature in variant_needs():
        reason = why_not_needs(interp, variant_needs()[feature])
        for_what = for_what or f"variant {feature}"
    else:
        raise KeyError(feature)
    if reason is not None:
        head = f"{interp.path}: " + (f"{for_what} is unavailable: " if for_what else "")
        raise BadInput(head + reason)


@dataclass(frozen=True)
class Support(Record):
    """One command or variant for one interpreter: supported, or the reason it is not."""

    name: str
    reason: str | None = None
    DERIVED = ("supported",)

    @property
    def supported(self) -> bool:
        return self.reason is None



@dataclass(frozen=True)
class FoundInterpreter(Record):
    """Its JSON: the interpreter's path as `name`, its facts, then what it supports."""

    DERIVED = (derived("name", after=""), derived("is_venv", after="interpreter"))

    interpreter: Interpreter = saved(flatten=True)
    commands: tuple[Support, ...]  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see
    variants: tuple[Support, ...]  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see

    @classmethod
    def of(cls, interp: Interpreter) -> "FoundInterpreter":
        return cls(
            interp,
            tuple(Support(n, r) for n, r in supported_commands(interp).items()),
            tuple(Support(n, r) for n, r in supported_variants(interp).items()),
        )

    @property
    def name(self) -> str:
        return self.interpreter.path

    @property
    def is_venv(self) -> bool:
        return self.interpreter.is_venv


@dataclass(frozen=True)
class PythonsReport(Document):
    """`importprof pythons`: the `importprof.pythons/1` document."""

    SCHEMA = "importprof.pythons/1"

    pythons: tuple[FoundInterpreter, ...]
    warnings: tuple[str, ...] = ()
    machine: dict[str, Any] = saved(default_factory=dict, after="schema")
