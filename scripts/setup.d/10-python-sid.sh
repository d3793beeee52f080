#!/usr/bin/env bash
# CPython 3.14 and 3.15 from Debian's development suite (sid), for the tests and benchmarks that
# need the newest interpreters (3.15 has the real `-X lazy_imports`). No registry holds CPython
# source, but sid has the binary packages, signed by the archive keys already on this system.
# They need a newer C library than the system's, so each interpreter gets sid's own: the packages
# are unpacked into one folder per version under ~/.cache/importprof/pythons/, the interpreter is
# pointed at sid's loader and every ELF file at sid's libraries (patchelf). The system's apt
# sources, package database and libc are never touched: apt runs with a private sources list,
# lists folder and cache. Each interpreter is exposed as a pyenv version (a symlink into the
# cache), so `importprof pythons`, `--python pyenv:3.15` and the tests find it like any other.
# Idempotent; if the archive cannot be reached it says so in one line and exits 0 (the tests
# that need these interpreters skip with the reason).
set -euo pipefail

say() { printf 'setup: %s\n' "$*" >&2; }
VERSIONS=(3.14 3.15)
CACHE="${IMPORTPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/importprof}/pythons"
PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
MIRROR="${IMPORTPROF_SID_MIRROR:-http://deb.debian.org/debian}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
ARCH=$(dpkg --print-architecture)
TRIPLET=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

# An installed version: a complete cache folder and its pyenv link.
installed() {
    local v=$1 d
    for d in "$CACHE/$v".*/; do
        [ -e "$d/.complete" ] || continue
        [ -x "$PYENV_ROOT/versions/$(basename "$d")/bin/python" ] && return 0
    done
    return 1
}

todo=()
for v in "${VERSIONS[@]}"; do installed "$v" || todo+=("$v"); done
# why a version could not be had, for the tests' skip reasons (tests/_interpreters.py)
UNAVAILABLE="$CACHE/unavailable.txt"
((${#todo[@]})) || { rm -f "$UNAVAILABLE"; exit 0; }
mkdir -p "$CACHE"
rm -f "$UNAVAILABLE"
skip() { say "$*"; printf '%s\n' "$*" >> "$UNAVAILABLE"; }

for tool in patchelf dpkg-deb apt-get; do
    command -v "$tool" >/dev/null || { skip "python ${todo[*]} from Debian sid skipped: $tool is missing (scripts/apt-packages.txt)"; exit 0; }
done
[ -r "$KEYRING" ] || { skip "python ${todo[*]} from Debian sid skipped: no $KEYRING (debian-archive-keyring)"; exit 0; }

APT="$CACHE/apt"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$CACHE/debs"
echo "deb [arch=$ARCH signed-by=$KEYRING] $MIRROR sid main" > "$APT/sources.list"
APT_OPTS=(
    -o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o Dir::State::status=/dev/null
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root
    -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
    -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
    -o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
    -o Acquire::Languages=none
)
say "python ${todo[*]}: apt-get update (Debian sid, private lists under $APT)"
if ! err=$(apt-get -q "${APT_OPTS[@]}" update 2>&1 >/dev/null) || grep -q '^[WE]:' <<<"$err"; then
    skip "python ${todo[*]} from Debian sid skipped: $(grep -m1 '^[WE]:' <<<"$err" || echo "apt-get update failed")"
    exit 0
fi

# The libraries the interpreter and the stdlib's extension modules link (checked with ldd below).
LIBS=(libc6 libgcc-s1 zlib1g libexpat1 libffi8 libssl3t64 libbz2-1.0 liblzma5 libzstd1 libmpdec4
      libsqlite3-0 libuuid1 libncursesw6 libtinfo6 libreadline8t64 libgdbm6t64 libgdbm-compat4t64
      libdb5.3t64 libcrypt1 python3-pip-whl python3-setuptools-whl)

# One download for every version (the shared libraries once); only packages the archive has
# (a library renamed in sid must not sink the rest).
want=("${LIBS[@]}")
for v in "${todo[@]}"; do
    want+=("python$v" "python$v-minimal" "libpython$v-minimal" "libpython$v-stdlib" "libpython$v"
           "libpython$v-dev" "python$v-dev" "python$v-venv")
done
mapfile -t avail < <(apt-cache "${APT_OPTS[@]}" show --no-all-versions "${want[@]}" 2>/dev/null |
                     awk '/^Package:/ {print $2}')
for p in "${want[@]}"; do
    printf '%s\n' "${avail[@]}" | grep -qxF "$p" || say "Debian sid has no $p (left out)"
done
say "python ${todo[*]}: apt-get download ${#avail[@]} packages"
if ! (cd "$CACHE/debs" && apt-get -q "${APT_OPTS[@]}" download "${avail[@]}" >/dev/null); then
    skip "python ${todo[*]} from Debian sid skipped: apt-get download failed"
    exit 0
fi

for v in "${todo[@]}"; do
    full=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "python$v-minimal" 2>/dev/null |
           awk '/^Version:/ {print $2; exit}')
    if [ -z "$full" ]; then skip "python $v skipped: Debian sid has no python$v"; continue; fi
    pyver=${full%%-*}           # 3.15.2-1 -> 3.15.2
    mine=()                     # this version's packages and the shared libraries
    for p in "${avail[@]}"; do
        case $p in *python3.[0-9]*) [[ $p == *"python$v"* ]] && mine+=("$p") ;; *) mine+=("$p") ;; esac
    done
    dest="$CACHE/$pyver"
    rm -rf "$dest.tmp"
    mkdir -p "$dest.tmp"
    for p in "${mine[@]}"; do
        # the newest download of each package (an older one may linger from an earlier run)
        deb=$(ls -t "$CACHE/debs/${p}_"*"_$ARCH.deb" "$CACHE/debs/${p}_"*_all.deb 2>/dev/null | head -1 || true)
        dpkg-deb -x "$deb" "$dest.tmp"
    done
    root="$dest/usr"
    libdir="$root/lib/$TRIPLET"
    loader="$libdir/ld-linux-x86-64.so.2"
    [ -e "$dest.tmp/usr/lib/$TRIPLET/ld-linux-x86-64.so.2" ] || loader=$(cd "$dest.tmp" && ls usr/lib*/ld-linux*.so.* | head -1 | sed "s|^|$dest/|")
    # rpath with DT_RPATH (not RUNPATH): it also applies to the libraries those libraries load
    # (libssl -> libcrypto), so nothing of this system's older libraries is mixed in.
    exe="$dest.tmp/usr/bin/python$v"
    patchelf --set-interpreter "$loader" --force-rpath --set-rpath "$libdir" "$exe"
    for so in "$dest.tmp/usr/lib/python$v/lib-dynload/"*.so "$dest.tmp/usr/lib/$TRIPLET/"libpython"$v"*.so*; do
        [ -f "$so" ] && [ ! -L "$so" ] && patchelf --force-rpath --set-rpath "$libdir" "$so"
    done
    # Debian's sitecustomize.py only tries to import apport's hook (not installed here): without
    # it start-up runs what upstream CPython's does, comparable with the pyenv builds.
    rm -f "$dest.tmp/usr/lib/python$v/sitecustomize.py"
    # Links to absolute paths point into the unpacked tree.
    while IFS= read -r -d '' l; do
        t=$(readlink "$l")
        [ -e "$dest.tmp$t" ] && ln -sfn "$dest.tmp$t" "$l"
    done < <(find "$dest.tmp" -type l -lname '/*' -print0)
    # Debian's pyconfig.h includes the multiarch one from the compiler's default /usr/include;
    # the real one takes its place so -I INCLUDEPY is enough to compile against these headers.
    real_h="$dest.tmp/usr/include/$TRIPLET/python$v/pyconfig.h"
    [ -f "$real_h" ] && cp "$real_h" "$dest.tmp/usr/include/python$v/pyconfig.h"
    ln -sf "python$v" "$dest.tmp/usr/bin/python"
    ln -sf "python$v" "$dest.tmp/usr/bin/python3"
    rm -rf "$dest"
    mv "$dest.tmp" "$dest"
    # Links made above name the .tmp folder: now they name the final one.
    while IFS= read -r -d '' l; do
        t=$(readlink "$l"); ln -sfn "$dest${t#"$dest.tmp"}" "$l"
    done < <(find "$dest" -type l -lname "$dest.tmp/*" -print0)

    py="$root/bin/python$v"
    # every extension module must load with sid's libraries only
    missing=$(for so in "$root/lib/python$v/lib-dynload/"*.so; do
                  "$loader" --list "$so" 2>&1 | grep 'not found' | sed "s|^|$(basename "$so"): |"
              done || true)
    [ -z "$missing" ] || say "python $v: unresolved libraries: $(echo $missing)"
    if ! "$py" -c 'import sys, ssl, sqlite3, decimal, lzma, bz2, zlib, ctypes, readline' 2>/dev/null; then
        skip "python $v skipped: the unpacked interpreter does not start: $("$py" -c 'import ssl, sqlite3, decimal, lzma, bz2, zlib, ctypes' 2>&1 | tail -1)"
        continue
    fi
    # The build-time paths sysconfig reports (INCLUDEPY, LIBDIR, LIBPL, the wheels ensurepip
    # installs, ...) name /usr; here they name the unpacked tree (TZPATH keeps the system's tzdata).
    "$py" -I -S - "$root" "$root/lib/python$v/"_sysconfig*_*.py "$root/lib/python$v/"_sysconfig_vars_*.json \
        "$root/lib/python$v/config-$v-$TRIPLET/Makefile" <<'PY'
import re, sys
root = sys.argv[1]
usr = re.compile(r"(?<![\w./-])/usr(?=/include|/lib|/share/python-wheels|/bin/python|/bin(?![/\w])|/local|[\s'\":,]|$)")
for f in sys.argv[2:]:
    with open(f) as fh:
        lines = fh.read().splitlines(True)
    out = [line if "TZPATH" in line else usr.sub(root, line) for line in lines]
    with open(f, "w") as fh:
        fh.writelines(out)
PY
    # the stdlib's bytecode (PYTHONDONTWRITEBYTECODE does not stop compileall)
    "$py" -m compileall -q -j 0 -x 'lib2to3/tests|test/|idlelib/idle_test' "$root/lib/python$v" >/dev/null || true
    touch "$dest/.complete"
    mkdir -p "$PYENV_ROOT/versions"
    ln -sfn "$root" "$PYENV_ROOT/versions/$pyver"
    say "python $v: $PYENV_ROOT/versions/$pyver -> $root ($("$PYENV_ROOT/versions/$pyver/bin/python" -V 2>&1))"
done
exit 0
