"""An interpreter as importprof ran it (facts asked of the interpreter itself)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Interpreter:
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

    @property
    def is_venv(self) -> bool:
        return self.prefix != self.base_prefix

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split(".")[:3] if p.isdigit())

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "requested": self.requested,
            "version": self.version,
            "implementation": self.implementation,
            "prefix": self.prefix,
            "base_prefix": self.base_prefix,
            "stdlib": self.stdlib,
            "purelib": self.purelib,
            "libdir": self.libdir,
            "ldlibrary": self.ldlibrary,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Interpreter":
        return cls(**{k: d.get(k) for k in cls.__dataclass_fields__})
