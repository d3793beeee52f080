#!/usr/bin/env bash
# speedscope's published file-format schema (npm package `speedscope`, pinned in
# tests/js/package-lock.json) for tests/test_imports_aggregate.py to validate
# `importprof imports --format speedscope` against. Idempotent: nothing to do when installed.
set -euo pipefail
cd "$(dirname "$0")/../../tests/js"
schema=node_modules/speedscope/dist/release/file-format-schema.json
want=$(sha256sum package-lock.json | cut -c1-16)
stamp=node_modules/.importprof-installed
if [ -f "$schema" ] && [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; then
    exit 0
fi
if ! command -v npm >/dev/null; then
    echo "setup: npm not found: the speedscope schema test will be skipped (apt-get install npm)" >&2
    exit 0
fi
echo "setup: npm ci (speedscope schema, tests/js)" >&2
npm ci --silent --no-audit --no-fund --ignore-scripts
echo "$want" > "$stamp"
