"""Packing and building oxidized variants: records of what was packed and built (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, Record, derived, saved


@dataclass(frozen=True)
class LoadedModule(Record):
    """A module as the target's interpreter had it in sys.modules at exit."""

    name: str
    file: str | None
    origin: str | None
    loader: str | None
    is_package: bool
    # sys.modules[name] was another module at exit (its spec's name); origin/loader are then the
    # file the path finder finds for `name` (None when there is none: a pure alias like os.path)
    alias_of: str | None = None


@dataclass(frozen=True)
class PlannedModule(Record):
    name: str
    kind: str  # "source" | "extension" | "bytecode" (a .pyc without source)
    path: str
    is_package: bool


def distribution_name(metadata_dir: str) -> tuple[str, str | None]:
    """`Foo_Bar-1.0.dist-info` → ("foo_bar", "1.0"): the name as importlib.metadata normalizes it."""
    base = metadata_dir.rsplit("/", 1)[-1]
    if base.endswith(".dist-info"):
        base = base[: -len(".dist-info")]
    name, _, version = base.partition("-")
    return name.lower().replace("-", "_").replace(".", "_"), version or None


@dataclass(frozen=True)
class Unit:
    """What is packed as one, as PyOxidizer packs: a distribution (every file its RECORD lists
    under its sys.path entry, metadata included), a top-level package or module of the standard
    library, or a top-level package found on sys.path without a distribution (a source tree, an
    editable install). `files` are relative to `root` (the sys.path entry), POSIX separators."""

    name: str
    kind: str  # "distribution" | "stdlib" | "package"
    root: str
    files: tuple[str, ...]
    metadata: str | None = None  # the .dist-info folder (relative to root)
    version: str | None = None

    def summary(self) -> dict:
        return {"name": self.name, "kind": self.kind, "root": self.root, "files": len(self.files),
                "metadata": self.metadata, "version": self.version}


@dataclass(frozen=True)
class PackageData(Record):
    """A file of a package that is not a module (importlib.resources, pkgutil.get_data, opens
    relative to __file__): `name` is its path below the package's folder."""

    package: str
    name: str
    path: str


@dataclass(frozen=True)
class Unpacked(Record):
    name: str
    reason: str


@dataclass(frozen=True)
class PackPlan:
    modules: tuple[PlannedModule, ...]
    unpacked: tuple[Unpacked, ...]
    served: tuple[str, ...]  # builtin / frozen: the interpreter serves them
    data: tuple[PackageData, ...] = ()
    units: tuple[Unit, ...] = ()


@dataclass(frozen=True)
class ResourceSet(Record):
    """One packed-resources file and the files beside it (`in-memory` or `filesystem`)."""

    name: str
    path: str
    modules: int
    extension_modules: int
    bytecode_bytes: int
    source_bytes: int
    resources_bytes: int
    files: int
    file_bytes: int
    bytecode_modules: int = 0  # .pyc-only modules
    package_data: int = 0  # package data files (importlib.resources, pkgutil.get_data)
    package_data_bytes: int = 0


@dataclass(frozen=True)
class PackReport(Document):
    SCHEMA = "importprof.pack/1"

    target: str
    python: str
    python_version: str
    out_dir: str
    sets: tuple[ResourceSet, ...]
    modules: tuple[PlannedModule, ...]
    unpacked: tuple[Unpacked, ...]
    served: tuple[str, ...]
    machine: dict = field(default_factory=dict)
    units: tuple[dict, ...] = ()  # Unit.summary() of every unit packed


@dataclass(frozen=True)
class BuiltVariant(Record):
    """One folder of `importprof build`: `argv` is the exact command that runs it."""

    name: str = saved(key="variant")
    path: str  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see
    argv: tuple[str, ...]  # type: ignore[misc]  # the saved(...) above has no default: a field specifier mypy cannot see
    env: tuple[tuple[str, str], ...] = saved(default=(), pairs="map")
    output_sha256: str = ""
    # a variant that could not be built, or did not behave as traditional: why, and what to do
    failed: bool = False
    error: str | None = None
    hint: str | None = None
    exit_code: int | None = None  # of the check run
    # where the modules of the check run came from: the variant's own pack (OxidizedFinder or the
    # frozen table) or the ordinary path finder behind it (None: not counted)
    packed_modules: int | None = None
    fallback_modules: int | None = None
    fallback_sample: tuple[str, ...] = ()  # a few of the modules that fell back
    # the files the target names, as the check run left them: (path, sha256; "" when absent)
    files_sha256: tuple[tuple[str, str], ...] = saved(default=(), pairs="map")


@dataclass(frozen=True)
class BuildReport(Document):
    """`importprof build`. It and PyOxidizerReport share importprof.build/1, each writing a
    part of its keys; the pack is written without its own envelope."""

    SCHEMA = "importprof.build/1"

    name: str
    target: str
    python: str
    python_version: str
    out_dir: str
    launcher: str | None  # importprof's oxidized launcher (None: no oxidized variant built)
    variants: tuple[BuiltVariant, ...]
    pack: PackReport | None = saved(bare=True)  # None: no oxidized variant built
    machine: dict = saved(default_factory=dict, after="schema")
    frozen: "FrozenReport | None" = None  # the frozen variant's table (None: not built)
    warnings: tuple[str, ...] = ()  # variants left out for this interpreter, with the reason


@dataclass(frozen=True)
class PyOxidizerReport(Document):
    """`importprof build --pyoxidizer`: the variants the real PyOxidizer built."""

    SCHEMA = "importprof.build/1"
    DERIVED = (derived("builder", after="name"),)

    name: str
    out_dir: str
    distribution: str
    variants: tuple[BuiltVariant, ...]
    machine: dict = saved(default_factory=dict, after="schema")

    @property
    def builder(self) -> str:
        return "pyoxidizer"


@dataclass(frozen=True)
class FrozenPlan:
    """The `frozen` variant's plan: modules compiled into the executable's frozen-modules table."""

    modules: tuple[PlannedModule, ...]
    not_frozen: tuple[Unpacked, ...]
    served: tuple[str, ...]  # builtin / frozen by CPython itself


@dataclass(frozen=True)
class FrozenReport(Record):
    """What the `frozen` variant's executable holds (`frozen` in importprof.build/1)."""

    executable: str
    modules: tuple[str, ...]  # frozen, packages included
    packages: tuple[str, ...]
    not_frozen: tuple[Unpacked, ...]  # with the reason
    served: tuple[str, ...]
    bytecode_bytes: int
    executable_bytes: int
