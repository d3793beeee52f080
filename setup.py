"""What pyproject.toml cannot declare: the native strace parser is optional.

The Rust crate in profiler/native (pyo3, abi3: one wheel for every CPython >= 3.9) is compiled
into the wheel as two modules of one library: `profiler.parse._strace_native` (the parser) and
`profiler.analysis._syscall_tally` (the trace summary's one pass; analysis never imports
parse). Where cargo is missing (an sdist installed on a machine without Rust) the package is
built without them after one line, and importprof runs its pure-Python parser (the same
records, about half as fast); `importprof --version` says which one is installed. A cargo that
fails to build keeps the same fallback (setuptools-rust's `optional`), with cargo's own error.
`IMPORTPROF_BUILD_NATIVE=0` skips the Rust build on purpose: `make setup`'s editable install
sets it, as scripts/setup.d/25-native-parser.sh builds the modules in place and rebuilds them
when the Rust sources change.
"""

from __future__ import annotations

import os
import shutil
import sys

from setuptools import setup

MODULES = ("profiler.parse._strace_native", "profiler.analysis._syscall_tally")


def _cargo() -> str | None:
    cargo = os.environ.get("CARGO") or shutil.which("cargo")
    return cargo if cargo and os.access(cargo, os.X_OK) else None


# the setup.py commands that build extensions (a PEP 517 front end also runs setup.py for the
# build's requirements and metadata: the line is said once, by the step that builds)
BUILDING = ("bdist_wheel", "editable_wheel", "build_ext", "build", "install", "develop")


def rust_extensions() -> list:
    if os.environ.get("IMPORTPROF_BUILD_NATIVE") == "0":
        return []
    if _cargo() is None:
        if any(arg in BUILDING for arg in sys.argv[1:]):
            sys.stderr.write("importprof: cargo not found: building without the native strace parser "
                             "(pure Python, about half as fast); install Rust (https://rustup.rs) and reinstall to get it\n")
        return []
    from setuptools_rust import Binding, RustExtension

    # one library, two module names: the second build is cargo's no-op, then a copy
    return [RustExtension(name, "profiler/native/Cargo.toml", binding=Binding.PyO3, optional=True, debug=False,
                          args=["--locked"])
            for name in MODULES]


setup(
    rust_extensions=rust_extensions(),
    # abi3: the module needs CPython's stable ABI of 3.9 only (pyo3's abi3 feature), so one
    # cp39-abi3 wheel serves 3.9 and every later CPython
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
