#!/usr/bin/env bash
# make lint's Rust half: rustfmt and clippy (warnings are errors) over importprof's own crates:
# the native strace parser (profiler/native) and the oxidized launcher's workspace
# (oxidized_builds). Check builds go to one folder per machine, ~/.cache/importprof/lint (never
# to the folders the real builds use: build/native, ~/.cache/importprof/oxidized), so a fresh
# clone checks only importprof's own crates: the registry crates' check builds (pyo3, regex and
# the oxidized importer's tree, minutes on 2 cores) are made once, not once per clone.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
py="$PWD/.venv/bin/python"
[ -x "$py" ] || py=$(command -v python3)
target="${XDG_CACHE_HOME:-$HOME/.cache}/importprof/lint"
status=0
for manifest in profiler/native/Cargo.toml oxidized_builds/Cargo.toml; do
    echo "lint: cargo fmt --check, cargo clippy ($manifest)" >&2
    cargo fmt --check --manifest-path "$manifest" || status=1
    PYO3_PYTHON="$py" cargo clippy --quiet --locked --all-targets --manifest-path "$manifest" --target-dir "$target" -- -D warnings || status=1
done
exit "$status"
