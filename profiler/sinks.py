"""Where rendered bytes go: stdout, or a file written atomically (temp file + rename).

A failing command never leaves a half-written output file: the temp file lives beside the
destination (same filesystem, so `os.replace` is atomic) and is removed on any error, and an
existing file at the destination stays as it was. Every way an output can fail ends as one
error line: `BadOutput` (exit 2: a directory, a missing or read-only folder) or `OutputFailed`
(exit 3: the disk filled up or an I/O error while writing).

The new file keeps the mode (and, when allowed, the owner) of the file it replaces; a new file
gets 0666 minus the umask, as `open()` would give it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys

# tempfile and shutil are imported where a file is written: stdout alone (a saved log's table)
# needs neither, and they are a tenth of that command's imports

from profiler.errors import PATH_ERRNOS, BadOutput, OutputFailed



def _as_bytes(data: str | bytes) -> bytes:
    """UTF-8. A file name that is not UTF-8 (legal on Linux) reaches a document as the str
    Python made of it (its bytes as surrogate escapes): those go back to the very bytes, so the
    name round-trips; any other lone surrogate becomes U+FFFD."""
    if not isinstance(data, str):
        return data
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError:
        pass
    try:
        return data.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "".join(_unescaped(data)).encode("utf-8", "surrogateescape")


def _unescaped(text: str):
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF and not 0xDC80 <= code <= 0xDCFF:
            yield "\ufffd"
        else:
            yield ch


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def output_error(path: str, exc: OSError, what: str = "write") -> Exception:
    """The error family's member for an OSError met while writing `path`."""
    message = f"cannot {what} {path}: {_reason(exc)}"
    if exc.errno in PATH_ERRNOS:
        return BadOutput(message)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        message += " (the existing file, if any, is unchanged)"
    return OutputFailed(message)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode() -> int:
    return 0o666 & ~_umask()


def _destination(path: str) -> str:
    """The file actually written: a symlink's target (the link stays a link). A link to
    something that is not a file (/dev/stdout to a pipe, whose target `pipe:[N]` names no path)
    is opened through the link itself."""
    if os.path.islink(path):
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return path
        except OSError:
            pass
        return os.path.realpath(path)
    return path


def _special(st) -> bool:
    """Not a regular file nor a folder: a device, a FIFO, a socket (never replaced by a file)."""
    return st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def _refuse_unwritable(shown: str, st) -> None:
    """A special file importprof writes in place is a character device or a pipe; a disk or a
    socket is refused."""
    if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise BadOutput(f"cannot write {shown}: {_kind(st)}, not a file (importprof writes files, character devices and pipes)")


def _no_empty(shown: str) -> None:
    if not shown.strip():
        raise BadOutput("an output path is empty: name a file")


def outside(path: str | os.PathLike, folder: str | os.PathLike) -> str | None:
    """Where writing `path` would land (symlinks resolved, its own included) when that is
    outside `folder` (itself resolved: a folder the user named through a symlink is what they
    named); None when it stays inside."""
    real = os.path.realpath(path)
    root = os.path.realpath(folder)
    if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return real


def write_atomic(path: str | os.PathLike, data: str | bytes, *, within: str | os.PathLike | None = None,
                 mtime_ns: int | None = None) -> None:
    """`data` to `path` atomically. `within`: the folder the user named; a write that would land
    outside it (through a symlink, the file's own or a folder's) is refused (BadOutput), nothing
    written. `mtime_ns`: the modification time the new file gets before it replaces the old one
    (a source put back exactly as it was, so its bytecode cache stays valid)."""
    shown = os.fspath(path)
    _no_empty(shown)
    if within is not None:
        landing = outside(shown, within)
        if landing is not None:
            raise BadOutput(f"cannot write {shown}: it leads to {landing}, outside {os.fspath(within)}")
    path = _destination(shown)
    payload = _as_bytes(data) if isinstance(data, (str, bytes)) else data  # pieces: each written as it comes
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise output_error(shown, exc) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise BadOutput(f"cannot write {shown}: it is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _refuse_unwritable(shown, st)
        _write_in_place(shown, path, payload)  # /dev/stdout, a FIFO: not replaced by a file
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise BadOutput(f"cannot write {shown}: folder {directory} does not exist")
    with replacing(shown) as tmp:  # the temp file, the mode, the rename and the clean-up: once
        try:
            with open(tmp, "wb") as fh:
                _write_all(fh, payload)
                fh.flush()
                os.fsync(fh.fileno())
                if st is not None:
                    try:
                        os.fchown(fh.fileno(), st.st_uid, st.st_gid)
                    except OSError:
                        pass  # not ours to give away: the mode is still kept
            if mtime_ns is not None:
                os.utime(tmp, ns=(st.st_atime_ns if st is not None else mtime_ns, mtime_ns))
        except OSError as exc:
            raise output_error(shown, exc) from None


@contextlib.contextmanager
def replacing(path: str | os.PathLike):
    """A temp path beside `path` for a tool to write (strace -o): on a clean exit it replaces
    `path` atomically (keeping an existing file's mode, else the umask's); on any error it is
    removed and `path` stays as it was. A character device or a pipe gets a copy of what the
    tool wrote, in place, once it is complete (renaming a file over /dev/null would replace the
    machine's null device); a block device or a socket is refused."""
    shown = os.fspath(path)
    _no_empty(shown)
    path = _destination(shown)
    if os.path.isdir(path):
        raise BadOutput(f"cannot write {shown}: it is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if _special(st):
        _refuse_unwritable(shown, st)
        # the tool writes a file importprof can read back; the device gets a copy, in place
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix="importprof-", suffix=".tmp")
        os.close(fd)
        try:
            yield tmp
            with open(tmp, "rb") as fh:
                _write_in_place(shown, path, fh)
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return
    _remove_stale_temporaries(directory)
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(), suffix=".tmp", dir=directory)
        os.close(fd)
    except OSError as exc:
        raise output_error(shown, exc) from None
    try:
        yield tmp
        try:
            os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else _new_file_mode())
            os.replace(tmp, path)
        except OSError as exc:
            raise output_error(shown, exc) from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _kind(st) -> str:
    mode = st.st_mode
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISCHR(mode):
        return "a character device"
    return "a special file"


def _write_in_place(shown: str, path: str, payload) -> None:
    """A device or a pipe (`-o /dev/stdout`, `-o >(gzip > x)`): written, never replaced. A FIFO
    that no program reads is refused at once instead of waiting for a reader forever."""
    import fcntl

    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise BadOutput(f"cannot write {shown}: a FIFO (named pipe) that no program reads") from None
        raise output_error(shown, exc) from None
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        with open(fd, "wb", closefd=False) as fh:
            if isinstance(payload, bytes):
                fh.write(payload)
            elif hasattr(payload, "read"):  # a file: copied in chunks
                import shutil

                shutil.copyfileobj(payload, fh)
            else:  # a renderer's pieces
                _write_all(fh, payload)
    except BrokenPipeError:
        raise  # its reader went away: as a closed stdout (`| head`), not an error
    except OSError as exc:
        raise output_error(shown, exc) from None
    finally:
        os.close(fd)


def _write_all(fh, payload) -> None:
    """bytes, or the pieces of a streamed output (str or bytes each), each written as it comes:
    the whole output is never held (a failing piece leaves the temp file to be removed)."""
    if isinstance(payload, bytes):
        fh.write(payload)
        return
    for piece in payload:
        fh.write(_as_bytes(piece))


def write_stdout(data) -> None:
    """`data`: str, bytes, or an iterable of them (a streamed output: each piece written and
    flushed as it comes)."""
    if sys.stdout is None:  # started with stdout closed (in-process callers): silence, as a closed pipe
        return
    if not isinstance(data, (str, bytes)):
        try:
            for piece in data:
                write_stdout(piece)
        except BrokenPipeError:  # its reader left (`| head`): the rest is not made, and the command ends as for a closed stdout
            sys.stdout = open(os.devnull, "w")  # the interpreter's final flush must not fail again
        return
    try:
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            try:
                sys.stdout.write(data)
            except UnicodeEncodeError:  # a stream opened strict (an ASCII locale): as pip and git do
                encoding = getattr(sys.stdout, "encoding", None) or "ascii"
                sys.stdout.write(data.encode(encoding, "replace").decode(encoding, "replace"))
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(f"cannot write to standard output: {_reason(exc)}") from None


def emit(data, output: str | None) -> None:
    """Write to `output` atomically, or to stdout when `output` is None or '-'. `data`: str,
    bytes, or an iterable of them (a streamed output, written piece by piece: to a file through
    the temp file and the rename as any other)."""
    if output is None or output == "-":
        write_stdout(data)
    else:
        write_atomic(output, data)


def check_writable(path: str | None) -> None:
    """Fail fast (before measuring for minutes) when an output FILE cannot be written: it names
    a directory, or its folder is missing, not a folder, or refuses a new file (read-only,
    no permission). The check creates and removes a probe file, as the real write will."""
    if path is None or path == "-":
        return
    shown = path
    _no_empty(shown)
    path = _destination(path)
    if os.path.isdir(path):
        raise BadOutput(f"cannot write {shown}: it is a directory")
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if _special(st):
        _refuse_unwritable(shown, st)  # before measuring, not after
        return  # a device or FIFO: written in place
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(directory):
        raise BadOutput(f"cannot write {shown}: folder {directory} does not exist")
    if not os.path.isdir(directory):
        raise BadOutput(f"cannot write {shown}: {directory} is not a folder")
    _probe(shown, directory)


def check_output_dir(path: str | None, option: str = "-o") -> None:
    """Fail fast when an output FOLDER cannot be made or written: it is a file, or the
    nearest existing folder on its way refuses a new entry."""
    if path is None:
        return
    absolute = os.path.abspath(path)
    if os.path.exists(absolute) and not os.path.isdir(absolute):
        raise BadOutput(f"{option} {path}: exists and is not a folder")
    existing = absolute
    while not os.path.exists(existing):
        parent = os.path.dirname(existing)
        if parent == existing:
            break
        existing = parent
    if not os.path.isdir(existing):
        raise BadOutput(f"{option} {path}: {existing} is not a folder")
    _probe(f"{option} {path}", existing, what="write into")


def _probe(shown: str, directory: str, what: str = "write") -> None:
    try:
        import tempfile

        fd, probe = tempfile.mkstemp(prefix=".importprof-probe-", dir=directory)
    except OSError as exc:
        raise output_error(shown, exc, what) from None
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass


# ------------------------------------------------------------------ output folders
# A folder importprof writes into (build -o, pack -o, compare --build-dir) holds this file: "*"
# when importprof made the folder (everything in it is importprof's), else the names importprof
# wrote into a folder of the user's (with --force), one a line. Nothing else in a folder is
# ever replaced or removed.
OUTPUT_MARKER = ".importprof-output"
_LEGACY_REPORTS = ("build.json", "pack.json")  # what marked a folder before the marker existed


def _marker(folder: str) -> set[str] | None:
    """The names the marker gives importprof ({"*"}: all), or None without a marker."""
    try:
        with open(os.path.join(folder, OUTPUT_MARKER), encoding="utf-8", errors="surrogateescape") as fh:
            return {line.strip() for line in fh if line.strip()} or {"*"}
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise output_error(folder, exc, "read") from None


def _importprof_json(path: str) -> bool:
    """A file importprof wrote: a JSON document whose schema is importprof's."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and b'"schema": "importprof.' in head


def _owned(folder: str) -> set[str] | None:
    names = _marker(folder)
    if names is None:
        try:
            listed = os.listdir(folder)
        except OSError:
            listed = []
        if any(_importprof_json(os.path.join(folder, r)) for r in _LEGACY_REPORTS) or \
                any(_importprof_json(os.path.join(folder, n, "variant.json")) for n in listed):
            names = {"*"}  # built by an importprof from before the marker
    return names


def _not_ours(folder: str, entries, owned: set[str]) -> list[str]:
    """Of `entries` (the names importprof is about to write), those present that are not its own."""
    if "*" in owned:
        return []
    out = []
    for name in dict.fromkeys(entries):
        path = os.path.join(folder, name)
        if not os.path.lexists(path) or name in owned:
            continue
        if os.path.isfile(path) and not os.path.islink(path) and _importprof_json(path):
            continue
        if os.path.isdir(path) and not os.path.islink(path) and (not os.listdir(path) or _marker(path) == {"*"}):
            continue
        out.append(name)
    return out


def check_output_folder(path: str | None, option: str = "-o", *, force: bool = False, entries=()) -> None:
    """Before anything runs: `path` may be written as importprof's output folder. A folder
    importprof did not make (no marker) that is not empty is refused unless `force`; even then,
    an entry importprof would replace (`entries`) that is not importprof's is refused."""
    if path is None:
        return
    if not path.strip():
        raise BadOutput(f"{option} needs a folder, not an empty string")
    folder = os.path.abspath(path)
    if not os.path.isdir(folder):
        return  # missing (made later) or not a folder (check_output_dir says so)
    owned = _owned(folder)
    try:
        present = [n for n in os.listdir(folder) if n != OUTPUT_MARKER]
    except OSError as exc:
        raise output_error(f"{option} {path}", exc, "read") from None
    if "*" not in (owned or ()) and present and not force:  # not made by importprof (a marker lists what it wrote)
        shown = ", ".join(sorted(present)[:3]) + (f" and {len(present) - 3} more" if len(present) > 3 else "")
        raise BadOutput(f"{option} {path}: a folder importprof did not make, and not empty ({shown}); name a new or empty "
                        f"folder, or add --force to replace only importprof's own files in it")
    for name in dict.fromkeys(entries):  # even in importprof's own folder: a link planted there
        landing = outside(os.path.join(folder, name), folder)
        if landing is not None:
            raise BadOutput(f"{option} {path}: {name} in it leads to {landing}, outside the folder "
                            f"(importprof writes only inside the folder you named); remove the link or name another folder")
    foreign = _not_ours(folder, entries, owned or set())
    if foreign:
        raise BadOutput(f"{option} {path}: {', '.join(sorted(foreign))} in it {'is' if len(foreign) == 1 else 'are'} not "
                        f"importprof's (--force replaces only importprof's own files); move {'it' if len(foreign) == 1 else 'them'} "
                        f"away or name another folder")


def claim_output_folder(path: str, option: str = "-o", *, force: bool = False, entries=()) -> bool:
    """Make `path` importprof's output folder, or take an existing one under check_output_folder's
    rules; returns whether it existed. A folder importprof makes (or finds empty) is marked as
    all its own; in a user's folder (with `force`) the marker lists the names importprof writes."""
    check_output_folder(path, option, force=force, entries=entries)
    folder = os.path.abspath(path)
    existed = os.path.isdir(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        marker = _marker(folder)
        owned = marker if marker is not None else _owned(folder)
        if marker is None or "*" not in marker:
            if (owned and "*" in owned) or not [n for n in os.listdir(folder) if n != OUTPUT_MARKER]:
                names = {"*"}  # made now, found empty, or built by an importprof from before the marker
            else:
                names = (owned or set()) | set(entries)
            with open(os.path.join(folder, OUTPUT_MARKER), "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write("".join(f"{n}\n" for n in sorted(names)))
    except OSError as exc:
        raise output_error(f"{option} {path}", exc, "write into") from None
    return existed


# .importprof-PID-START-XXXXXXXX.tmp beside an output: PID and its start time name the writer, so
# what a writer killed mid-write (SIGKILL, the OOM killer) left is known to be stale and removed
# by the next write into that folder; a live writer's (another invocation writing there now) is kept
_TEMPORARY = None


def _temporary_prefix() -> str:
    from profiler.liveness import start_time

    return f".importprof-{os.getpid()}-{max(start_time(os.getpid()) or 0, 0)}-"


def _remove_stale_temporaries(directory: str) -> None:
    """Our temporaries in the output's folder (.importprof-PID-START-*.tmp) whose writer no
    longer runs: removed (profiler/liveness.py), a live writer's kept."""
    global _TEMPORARY
    import re

    from profiler.liveness import remove_dead

    if _TEMPORARY is None:
        _TEMPORARY = re.compile(r"\.importprof-(\d+)-(\d+)-[A-Za-z0-9_]+\.tmp")
    remove_dead(directory, _TEMPORARY, folders=False)
