"""Bounded reading: a file or standard input read whole or a piece at a time, within the input
limit (IMPORTPROF_MAX_INPUT_MB); what cannot be read (no such file, a directory, a FIFO nobody
writes to, a device, too large) is one BadInput line naming it."""

from __future__ import annotations

import os
import stat
from typing import Generator, Iterable, Iterator

from profiler.errors import BadInput

# Inputs are read whole; past this size a reader stops with one line saying how to raise it (a
# log of a long run is tens of MB; /dev/zero or a runaway pipe would otherwise fill the memory).
DEFAULT_MAX_INPUT_MB = 1024
MAX_INPUT_ENV = "IMPORTPROF_MAX_INPUT_MB"
_CHUNK = 1 << 20


def max_input_bytes() -> int:
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB << 20
    if not raw.isdigit() or not 0 < int(raw) <= 1 << 30:
        raise bad(f"{MAX_INPUT_ENV}={raw!r}: give a whole number of MiB from 1 to {1 << 30}")
    return int(raw) << 20


def read_text(path: str, what: str = "file", errors: str = "replace") -> str:
    """The file's text (undecodable bytes replaced: logs carry program output; a document's
    reader asks for surrogateescape, so a non-UTF-8 file name in it round-trips). Bounded:
    larger than the input limit, a device (it may never end) or a FIFO nobody writes to is one
    line, not a wait or a MemoryError."""
    shown = f"cannot read {what} {path}"
    fd = _open_input(path, shown)
    try:
        return _read_fd(fd, shown, whole=True).decode("utf-8", errors)
    finally:
        os.close(fd)


def is_regular_file(path: str) -> bool:
    """True for a regular file (one that can be read twice), False for anything else or nothing."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_text_chunks(path: str, what: str = "file", chunk_bytes: int = _CHUNK // 4, errors: str = "replace") -> Generator[str, None, None]:
    """read_text a piece at a time (pieces of about `chunk_bytes`, decoded as one text: a UTF-8
    character cut by a piece boundary is whole in the next), with read_text's bounds and
    messages (the input limit is counted as the pieces are read). Holds one piece at a time.
    Pieces of 256 KiB, not MiBs: with 4 MiB pieces the heap fragmented around what the reader
    keeps, and the peak RSS of `imports --from-log` grew with the log (35 → 43 MB from 250 to
    1,000 processes of pip; 24 → 27 MB with 256 KiB pieces, in the same time)."""
    shown = f"cannot read {what} {path}"
    fd = _open_input(path, shown)
    try:
        yield from _decoded_chunks(_fd_chunks(fd, shown, chunk_bytes), errors)
    finally:
        os.close(fd)


def stdin_text_chunks(what: str = "log", copy_to: str | None = None, chunk_bytes: int = _CHUNK // 4,
                      errors: str = "replace") -> Generator[str, None, None]:
    """Standard input a piece at a time, as read_text_chunks reads a file (the same bounds and
    messages; stdin stays open). `copy_to`: every byte read is also written to that file, so a
    reader that has to start again (a log read whole after all) reads the copy, once this
    generator has been run to its end."""
    shown = f"cannot read the {what} from standard input"
    copy = None if copy_to is None else open(copy_to, "wb")
    try:
        yield from _decoded_chunks(_stdin_chunks(shown, chunk_bytes), errors, copy)
    finally:
        if copy is not None:
            copy.close()


def _stdin_chunks(shown: str, chunk_bytes: int) -> Iterator[bytes]:
    """Standard input's bytes, for both of its readers (read_stdin, stdin_text_chunks): closed
    (`<&-`) is one line; its descriptor read as a file's is (_fd_chunks); a stream without one
    (a library caller's io.StringIO, its text as UTF-8) read through the stream, within the same
    input limit, an error reading it one line."""
    import sys

    stream = sys.stdin
    if stream is None:
        raise bad(f"{shown}: it is closed")
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):  # replaced by a stream without a descriptor
        fd = None
    if fd is not None:
        yield from _fd_chunks(fd, shown, chunk_bytes)
        return
    limit = max_input_bytes()
    total = 0
    while True:
        try:
            piece = stream.read(chunk_bytes)
        except (OSError, ValueError) as exc:  # closed, or not readable (pytest's captured stdin)
            raise bad(f"{shown}: {exc}") from None
        if not piece:
            return
        chunk = piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else bytes(piece)
        total += len(chunk)
        if total > limit:
            raise bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
        yield chunk


def _decoded_chunks(chunks: Iterable[bytes], errors: str, copy=None) -> Iterator[str]:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    for chunk in chunks:
        if copy is not None:
            copy.write(chunk)
        text = decoder.decode(chunk)
        if text:
            yield text
    text = decoder.decode(b"", final=True)
    if text:
        yield text


def _open_input(path: str, shown: str) -> int:
    """An fd of PATH open for reading, after refusing what cannot be read (no such file, a
    directory, a FIFO no program writes to): one line each."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise bad(f"{shown}: no such file") from None
    except OSError as exc:
        raise bad(f"{shown}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise bad(f"{shown}: it is a directory")
    if stat.S_ISFIFO(st.st_mode) and not os.path.realpath(path).startswith(("/proc/", "pipe:")):
        # a named FIFO: opening it waits for a writer that may never come; refused before any
        # wait, as a device is (an anonymous pipe, `<(cmd)` or `-`, has its writer already)
        raise bad(f"{shown}: not a regular file (a FIFO: reading it would wait for a writer); give a file, or - for standard input")
    if stat.S_ISSOCK(st.st_mode):
        raise bad(f"{shown}: not a regular file (a socket)")
    try:  # O_NONBLOCK: a file swapped for a FIFO since the stat above must not make open() wait
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise bad(f"{shown}: {exc.strerror}") from None
    if stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISFIFO(st.st_mode):
        os.close(fd)
        raise bad(f"{shown}: not a regular file (a FIFO: reading it would wait for a writer); give a file, or - for standard input")
    os.set_blocking(fd, True)
    return fd


def read_stdin(what: str = "log") -> str:
    """`-`: standard input, with read_text's bounds (_stdin_chunks: closed, or a stream that
    cannot be read, is one line)."""
    shown = f"cannot read the {what} from standard input"
    try:
        return b"".join(_stdin_chunks(shown, _CHUNK)).decode("utf-8", "replace")
    except MemoryError:
        raise bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None


def _read_fd(fd: int, shown: str, whole: bool = False) -> bytes:
    """All the bytes of fd, within the input limit. `whole`: a regular file whose size is within
    the limit is read in one piece of its size (no chunks to join: half the peak memory), then
    to its end as any other (it may have grown)."""
    try:
        first = b""
        if whole:
            st = os.fstat(fd)
            limit = max_input_bytes()
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:  # refused before it is read
                raise bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
            if stat.S_ISREG(st.st_mode) and st.st_size:
                try:
                    first = os.read(fd, st.st_size)
                except OSError as exc:
                    raise bad(f"{shown}: {exc.strerror}") from None
        rest = list(_fd_chunks(fd, shown, _CHUNK, len(first)))
        return first if not rest else b"".join([first, *rest])
    except MemoryError:
        raise bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None


def _fd_chunks(fd: int, shown: str, chunk_bytes: int, total: int = 0) -> Iterator[bytes]:
    """The bytes of fd in chunks of at most chunk_bytes; refuses a device (it may never end) and
    more than the input limit (`total` bytes of it read already), each as one line."""
    st = os.fstat(fd)
    if (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) and not os.isatty(fd):
        raise bad(f"{shown}: a device, not a file (it may never end)")
    limit = max_input_bytes()
    while True:
        try:
            chunk = os.read(fd, min(chunk_bytes, limit + 1 - total))
        except OSError as exc:
            raise bad(f"{shown}: {exc.strerror}") from None
        except MemoryError:
            raise bad(f"{shown}: too large for memory (lower {MAX_INPUT_ENV})") from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise bad(f"{shown}: larger than {limit >> 20} MiB, the input limit (raise it with {MAX_INPUT_ENV}=N)")
        yield chunk



def bad(message: str) -> BadInput:
    """The one line every reader of profiler.inputs raises."""
    return BadInput(message)
