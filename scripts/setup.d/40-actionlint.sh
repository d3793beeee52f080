#!/usr/bin/env bash
# actionlint (rhysd/actionlint, from the Go module proxy) checks the GitHub Actions example of
# the README (tests/test_check_where.py). Idempotent: nothing to do when this version is installed.
set -euo pipefail
version=v1.7.12
gobin="${GOBIN:-$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin}"
if [ -x "$gobin/actionlint" ] && "$gobin/actionlint" -version 2>/dev/null | head -1 | grep -qx "${version#v}\|$version"; then
    exit 0
fi
if ! command -v go >/dev/null; then
    echo "setup: go not found: the actionlint test will be skipped (apt-get install golang-go)" >&2
    exit 0
fi
echo "setup: go install github.com/rhysd/actionlint/cmd/actionlint@$version" >&2
go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
