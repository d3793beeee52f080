#!/usr/bin/env bash
# make lint's Rust half: rustfmt and clippy (warnings are errors) over importprof's own crates:
# the native strace parser (profiler/native) and the oxidized launcher's workspace
# (oxidized_builds). Check builds go to build/lint (ignored, removed by make clean), never to the
# folders the real builds use (build/native, ~/.cache/importprof/oxidized).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
py="$PWD/.venv/bin/python"
[ -x "$py" ] || py=$(command -v python3)
status=0
for manifest in profiler/native/Cargo.toml oxidized_builds/Cargo.toml; do
    echo "lint: cargo fmt --check, cargo clippy ($manifest)" >&2
    cargo fmt --check --manifest-path "$manifest" || status=1
    PYO3_PYTHON="$py" cargo clippy --quiet --locked --all-targets --manifest-path "$manifest" --target-dir build/lint -- -D warnings || status=1
done
exit "$status"
