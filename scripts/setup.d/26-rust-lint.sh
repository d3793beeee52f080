#!/usr/bin/env bash
# make lint's Rust tools: clippy and rustfmt, the rustup components of the toolchain that builds
# the crates (scripts/lint-rust.sh runs them). Idempotent: nothing to do when both answer.
# Without rustup (a distribution's cargo), one line: make lint says what is missing.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
if cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1; then
    exit 0
fi
if ! command -v rustup >/dev/null; then
    echo "setup: rustup not found: clippy and rustfmt (make lint) cannot be installed here" >&2
    exit 0
fi
echo "setup: rustup component add clippy rustfmt" >&2
rustup component add clippy rustfmt
