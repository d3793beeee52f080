#!/usr/bin/env bash
# importprof's native strace parser (profiler/native/): the fast path of
# profiler/parse/strace.py in Rust (pyo3 0.17, abi3), built into
# profiler/parse/_strace_native.abi3.so. Idempotent: rebuilt only when its sources are newer.
# Optional: without cargo, or if the build fails, one line and the pure-Python fast path runs
# (the same records; tests/test_strace_native.py compares them). A wheel builds the same crate
# through setup.py (setuptools-rust); make setup's editable install leaves it to this step
# (IMPORTPROF_BUILD_NATIVE=0), which rebuilds it whenever the Rust sources change.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
out=profiler/parse/_strace_native.abi3.so
tally=profiler/analysis/_syscall_tally.abi3.so
if [ -f "$out" ] && [ -f "$tally" ] && [ -z "$(find profiler/native/Cargo.toml profiler/native/Cargo.lock profiler/native/src -newer "$out")" ]; then
    exit 0
fi
if ! command -v cargo >/dev/null; then
    echo "setup: cargo not found: the strace parser stays pure Python (about half as fast)" >&2
    exit 0
fi
echo "setup: building the native strace parser (profiler/native)" >&2
# the build folder outside the package (build/ is ignored and `make clean` removes it): cargo's
# hundred MB of objects must not become packages of profiler/ in a wheel
target=build/native
if PYO3_PYTHON="$PWD/.venv/bin/python" cargo build --release --quiet --manifest-path profiler/native/Cargo.toml --target-dir "$target"; then
    cp "$target/release/lib_strace_native.so" "$out.tmp"
    # the same library is also the analysis layer's module of trace tallies (it exports both
    # init functions; analysis never imports parse)
    cp "$target/release/lib_strace_native.so" "$tally.tmp"
    mv "$tally.tmp" "$tally"
    mv "$out.tmp" "$out"
else
    echo "setup: the native strace parser did not build: the pure-Python parser runs" >&2
fi
