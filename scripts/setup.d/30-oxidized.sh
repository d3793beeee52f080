#!/usr/bin/env bash
# importprof's oxidized launcher (oxidized_builds/, crates.io crates only), built once per
# interpreter into ~/.cache/importprof/oxidized/<key>/ for the default python3. Idempotent: a
# cached build returns at once. cargo missing: one line, exit 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
.venv/bin/python -m profiler.capture.cargo >/dev/null
