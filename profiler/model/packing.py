"""Packing and building oxidized variants: records of what was packed and built (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, Record


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
class BuiltVariant:
    """One folder of `importprof build`: `argv` is the exact command that runs it. Its JSON
    names it `variant` and writes env and files_sha256 as objects (hence its own to_dict)."""

    name: str
    path: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
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
    files_sha256: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"variant": self.name, "path": self.path, "argv": list(self.argv), "env": dict(self.env),
                "output_sha256": self.output_sha256, "failed": self.failed, "error": self.error, "hint": self.hint,
                "exit_code": self.exit_code, "packed_modules": self.packed_modules,
                "fallback_modules": self.fallback_modules, "fallback_sample": list(self.fallback_sample),
                "files_sha256": dict(self.files_sha256)}


@dataclass(frozen=True)
class BuildReport:
    """`importprof build`. It and PyOxidizerReport share importprof.build/1, each writing a
    part of its keys (so neither is a Document whose fields are the whole schema); the pack is
    written without its own envelope."""

    SCHEMA = "importprof.build/1"

    name: str
    target: str
    python: str
    python_version: str
    out_dir: str
    launcher: str | None  # importprof's oxidized launcher (None: no oxidized variant built)
    variants: tuple[BuiltVariant, ...]
    pack: PackReport | None  # None: no oxidized variant built
    machine: dict = field(default_factory=dict)
    frozen: "FrozenReport | None" = None  # the frozen variant's table (None: not built)
    warnings: tuple[str, ...] = ()  # variants left out for this interpreter, with the reason

    def to_dict(self) -> dict:
        return {
            "schema": self.SCHEMA,
            "machine": self.machine,
            "name": self.name,
            "target": self.target,
            "python": self.python,
            "python_version": self.python_version,
            "out_dir": self.out_dir,
            "launcher": self.launcher,
            "variants": [v.to_dict() for v in self.variants],
            "pack": None if self.pack is None else {k: v for k, v in self.pack.to_dict().items() if k not in ("schema", "machine")},
            "frozen": None if self.frozen is None else self.frozen.to_dict(),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class PyOxidizerReport:
    """`importprof build --pyoxidizer`: the variants the real PyOxidizer built."""

    SCHEMA = "importprof.build/1"

    name: str
    out_dir: str
    distribution: str
    variants: tuple[BuiltVariant, ...]
    machine: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"schema": self.SCHEMA, "machine": self.machine, "name": self.name, "builder": "pyoxidizer",
                "out_dir": self.out_dir, "distribution": self.distribution, "variants": [v.to_dict() for v in self.variants]}


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
