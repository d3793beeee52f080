#!/usr/bin/env bash
# Idempotent set-up: installs only what is missing. Run by `make setup` (and so by `make demo`,
# `make test` and `.ci/run`). Runs as root on CI (apt-get update once, then apt-get install -y).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Debian packages (one per line in scripts/apt-packages.txt; '#' comments)
mapfile -t pkgs < <(sed -e 's/#.*//' scripts/apt-packages.txt | awk 'NF {print $1}')
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    say "apt-get install ${missing[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# 2. hyperfine >= 1.20 (Debian ships 1.15, without memory_usage_byte). 2.x needs a newer rustc.
hf_ok=0
if command -v hyperfine >/dev/null; then
    v=$(hyperfine --version | awk '{print $2}')
    if printf '1.20.0\n%s\n' "$v" | sort -V -C; then hf_ok=1; fi
fi
if [ "$hf_ok" = 0 ]; then
    command -v cargo >/dev/null || { echo "setup: cargo is needed to install hyperfine 1.20 (https://rustup.rs)" >&2; exit 3; }
    say "cargo install hyperfine 1.20.0"
    cargo install --locked --quiet hyperfine --version 1.20.0
fi

# 3. .venv from the real interpreter (python3 may be a pyenv shim: ask it for sys.executable)
BASE_PY=$(python3 -c 'import sys; print(sys.executable)')
# a venv cut off while it was made (Ctrl-C before ensurepip ended) has a python but no pip:
# made again, not left to fail every later set-up
if [ -x .venv/bin/python ] && ! .venv/bin/python -c 'import pip' 2>/dev/null; then
    say "the .venv has no pip (its creation was cut off): made again"
    rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
    say "python venv from $BASE_PY"
    "$BASE_PY" -m venv .venv
fi
stamp=.venv/.importprof-installed
want=$(cat pyproject.toml setup.py | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    say "pip install -e .[test]"
    # IMPORTPROF_BUILD_NATIVE=0: setup.py leaves the Rust parser to setup.d/25-native-parser.sh,
    # which builds it in place and again whenever its sources change
    IMPORTPROF_BUILD_NATIVE=0 .venv/bin/python -m pip install -q --disable-pip-version-check --config-settings editable_mode=compat -e '.[test]'
    echo "$want" > "$stamp"
fi

# 3b. importprof's own bytecode: PYTHONDONTWRITEBYTECODE (set here, and in many containers) would
# otherwise make every run compile profiler/ again (an editable install compiles nothing).
# compileall writes explicitly, whatever that variable says; then the help texts are cached.
.venv/bin/python -m compileall -q -j 0 profiler >/dev/null
IMPORTPROF_NO_HELP_CACHE= .venv/bin/importprof --help >/dev/null

# 4. the measuring spawner (tiny C program; see profiler/capture/spawner.c)
.venv/bin/python -c 'from profiler.capture.spawner import spawner_path; from profiler.session import Session; import sys; sys.exit(0 if spawner_path(Session()) else "setup: cannot compile the spawner (no C compiler?)")'

# 5. feature set-up steps, one file each (scripts/setup.d/NN-name.sh), in order
for f in scripts/setup.d/*.sh; do
    [ -e "$f" ] || continue
    bash "$f"
done
say "ready"
