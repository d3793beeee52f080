"""The bytecode cache frozen_packer.py and oxidized_packer.py share. Both run as scripts inside
the target interpreter or importprof's launcher (`... -S -E <packer>.py PLAN`, so this folder is
sys.path[0] and this sibling imports as a top-level module); standard library only, Python 3.8+,
never imports the rest of the `profiler` package."""

import hashlib
import importlib.util
import os


def cached_marshal(path, cache, build, tag=""):
    """build() (marshal bytes of `path`'s code), kept in the `cache` folder once per version of the
    file: keyed by tag, path, size, mtime and this interpreter's bytecode magic. No cache: build()."""
    if not cache:
        return build()
    st = os.stat(path)
    key = hashlib.sha256(("%s%s\0%d\0%d\0" % (tag, path, st.st_size, st.st_mtime_ns)).encode()
                         + importlib.util.MAGIC_NUMBER).hexdigest()
    cached = os.path.join(cache, key[:2], key)
    try:
        with open(cached, "rb") as fh:
            return fh.read()
    except OSError:
        pass
    data = build()
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = "%s.%d.tmp" % (cached, os.getpid())
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, cached)
    except OSError:
        pass
    return data
