"""Where rendered bytes go: stdout, or a file written atomically (temp file + rename).

A failing command never leaves a half-written output file: the temp file lives beside the
destination (same filesystem, so `os.replace` is atomic) and is removed on any error.
"""

from __future__ import annotations

import os
import sys
import tempfile

from profiler.errors import BadInput


def _as_bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise BadInput(f"cannot write {path}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".importprof-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_as_bytes(data))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_stdout(data: str | bytes) -> None:
    if isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data)
        sys.stdout.flush()


def emit(data: str | bytes, output: str | None) -> None:
    """Write to `output` atomically, or to stdout when `output` is None or '-'."""
    if output is None or output == "-":
        write_stdout(data)
    else:
        write_atomic(output, data)


def check_writable(path: str | None) -> None:
    """Fail fast (before measuring for minutes) when an output path cannot be written."""
    if path is None or path == "-":
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise BadInput(f"cannot write {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise BadInput(f"cannot write {path}: directory {directory} is not writable")
