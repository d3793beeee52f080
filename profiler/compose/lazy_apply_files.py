"""The files `importprof lazy --apply DIR` edits: which it may write, the writes, their
bytecode, and putting everything back.

  refusal(path, directory) -> str | None     why a file under DIR is left alone
  TreeFiles                                  the sources under edit and their bytecode caches

Path safety (every write lands under DIR, resolved; DIR itself may be a symlink: it is what the
user named):
- a file whose real path lies outside DIR (a module that is a symlink to a shared checkout, or
  reached through a symlinked folder) is reported and left alone;
- a file with more than one hard link is left alone: its other names may lie outside DIR, so
  writing it in place would change them, and replacing it (temporary file + rename, the only
  write that can never leave it half-written) would split it from them;
- a read-only file (no owner write bit, or on a read-only mount) is left alone, even where
  root could write it: its owner marked it so;
- a file owned by another user is left alone unless importprof runs as root (a rewrite would
  make it the writer's); as root the new file gets the old owner, group and mode back.

Every write is a temporary file beside the destination renamed over it (sinks.write_atomic),
so a file is never half-written, whatever stops importprof. Putting the originals back (an
error, Ctrl-C) runs with SIGINT/SIGTERM/SIGHUP/SIGQUIT held until it is done: a second
Ctrl-C cannot leave a mix of edited and original files.

Bytecode: an edited file's `.pyc` in the `__pycache__` beside it (each name under DIR that
leads to it) is recompiled by the interpreter of that cache tag, found among the machine's
interpreters, with the optimization level and invalidation mode the old one had (its name and
header flags), to a temporary file, then renamed over the old one. PYTHONDONTWRITEBYTECODE
does not stop it (py_compile is called directly). Where no interpreter of a tag is at hand, a
timestamp or checked-hash `.pyc` is left as it was: that interpreter sees it is stale and
compiles the source at each start until it can write a new one (one line says so per tag, with
the command that refreshes it); an unchecked-hash `.pyc` is removed instead, as that
interpreter would otherwise keep running the old code. A tree's state (each source's bytes and
modification time, each `.pyc`'s bytes) is kept as a snapshot, so the proof can time the
files exactly as they were and exactly as they are left, and putting the originals back
leaves their old `.pyc` valid again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
from dataclasses import dataclass, field

from profiler.model.words import LazyStyle
from profiler.session import Session

BATCH = 400  # files per compiling interpreter (an argument list stays far below ARG_MAX)
HELD = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


def _under(path: str, folder: str) -> bool:
    folder = folder.rstrip("/") + "/"
    return path == folder.rstrip("/") or path.startswith(folder)


def refusal(path: str, directory: str) -> str | None:
    """Why the file at `path` (as named under DIR) is left alone, or None when it may be
    rewritten. `directory`: DIR resolved."""
    real = os.path.realpath(path)
    if not _under(real, directory):
        return f"leads to {real}, outside {directory}"
    try:
        st = os.lstat(real)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_nlink > 1:
        return (f"has {st.st_nlink} hard links (its other names may lie outside the folder: an edit would "
                "change them, or split them from it)")
    if not st.st_mode & stat.S_IWUSR or not os.access(real, os.W_OK) or not os.access(os.path.dirname(real), os.W_OK):
        return "read-only"
    if st.st_uid != os.geteuid() and os.geteuid() != 0:
        return "owned by another user (a rewrite would make it yours)"
    return None


@contextlib.contextmanager
def signals_held():
    """The terminating signals held (delivered when the block ends): for writes that must all
    happen. Nothing is spawned inside (a child would inherit the mask)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@dataclass
class Snapshot:
    """A state of the tree's edited files: source bytes and modification times, .pyc bytes
    (None: no such file)."""

    sources: dict = field(default_factory=dict)  # path -> (bytes, mtime_ns)
    pycs: dict = field(default_factory=dict)  # .pyc path -> bytes | None


@dataclass(frozen=True)
class Cached:
    """One `.pyc` of an edited file."""

    source: str  # the name under DIR it belongs to (a link inside DIR has its own __pycache__)
    path: str
    tag: str
    optimize: int
    mode: str | None  # timestamp / checked-hash / unchecked-hash; None: unreadable header


class TreeFiles:
    """The files under edit: their original bytes (and times), the edit of any subset of
    statements, the writes, the bytecode refresh, and putting a snapshot back."""

    def __init__(self, directory: str, style: LazyStyle):
        self.directory = directory
        self.style = style
        self.original: dict[str, bytes] = {}
        self.mtime: dict[str, int] = {}  # original modification times
        self.current: dict[str, tuple[bytes, int | None]] = {}  # what importprof last wrote
        self.aliases: dict[str, list[str]] = {}  # real path -> other names under DIR leading to it
        self.edits: dict = {}  # path -> LazyEdit of the last `edited()`
        self.pyc_original: dict[str, bytes | None] = {}
        self.written = False  # anything written yet (sources or bytecode)

    def add(self, path: str, data: bytes) -> None:
        if path not in self.original:
            self.original[path] = data
            try:
                self.mtime[path] = os.stat(path).st_mtime_ns
            except OSError:
                pass

    def edited(self, lines_by_file: dict[str, list[int]], package_of) -> dict[str, bytes]:
        from profiler.analysis.lazy_edit import apply_lazy

        out = {}
        self.edits = {}
        for path, original in self.original.items():
            lines = lines_by_file.get(path)
            if lines:
                self.edits[path] = apply_lazy(original, lines, style=self.style, package=package_of(path), filename=path)
                out[path] = self.edits[path].source
            else:
                out[path] = original
        return out

    # ---------------------------------------------------------------- writes

    def _put_source(self, path: str, data: bytes, mtime_ns: int | None) -> None:
        from profiler import sinks

        have = self.current.get(path)
        if have is not None and have[0] == data and (mtime_ns is None or have[1] == mtime_ns):
            return
        if have is None and data == self.original.get(path) and mtime_ns == self.mtime.get(path):
            return  # never written: still the original, time and all
        # marked before the write: a write that fails midway is put back by restore() all the same
        self.current[path] = (data, mtime_ns)
        self.written = True
        sinks.write_atomic(path, data, within=self.directory, mtime_ns=mtime_ns)
        if mtime_ns is None:
            self.current[path] = (data, os.stat(path).st_mtime_ns)

    def write(self, contents: dict[str, bytes]) -> None:
        """Sources only (the verification runs use a fresh pycache folder): a file back at its
        original bytes gets its original time back too, so its .pyc stays valid. All of them or
        none: the terminating signals wait until the last one is written."""
        with signals_held():
            for path, data in contents.items():
                self._put_source(path, data, self.mtime.get(path) if data == self.original.get(path) else None)

    def snapshot(self, paths=None) -> Snapshot:
        snap = Snapshot()
        for path in paths if paths is not None else self.original:
            have = self.current.get(path)
            snap.sources[path] = have if have is not None else (self.original[path], self.mtime.get(path))
        for cfile in self.pyc_original:
            try:
                with open(cfile, "rb") as fh:
                    snap.pycs[cfile] = fh.read()
            except FileNotFoundError:
                snap.pycs[cfile] = None
        return snap

    def original_snapshot(self) -> Snapshot:
        return Snapshot({p: (d, self.mtime.get(p)) for p, d in self.original.items()}, dict(self.pyc_original))

    def put(self, snap: Snapshot) -> None:
        """The tree as `snap` has it, with the terminating signals held until it is."""
        with signals_held():
            self._put(snap)

    def _put(self, snap: Snapshot) -> None:
        from profiler import sinks

        for path, (data, mtime_ns) in snap.sources.items():
            self._put_source(path, data, mtime_ns)
        for cfile, data in snap.pycs.items():
            try:
                with open(cfile, "rb") as fh:
                    now = fh.read()
            except FileNotFoundError:
                now = None
            if now == data:
                continue
            if data is None:
                os.unlink(cfile)
            else:
                sinks.write_atomic(cfile, data, within=self.directory)

    def restore(self) -> None:
        """Everything as it was (sources, times, .pyc), with the terminating signals held."""
        if self.written:
            self.put(self.original_snapshot())

    # ---------------------------------------------------------------- bytecode

    def caches(self, paths) -> tuple[list[Cached], list[str]]:
        """The .pyc beside each of `paths` (and beside each other name under DIR leading to it),
        and a line for each one left alone (a link, hard links, outside DIR)."""
        from profiler.analysis.pyc import cache_entry, invalidation_mode

        found, skipped = [], []
        for path in paths:
            for name in [path, *self.aliases.get(path, ())]:
                cache = os.path.join(os.path.dirname(name), "__pycache__")
                try:
                    entries = sorted(os.listdir(cache))
                except OSError:
                    continue
                for entry in entries:
                    hit = cache_entry(os.path.basename(name), entry)
                    if hit is None:
                        continue
                    cfile = os.path.join(cache, entry)
                    why = refusal(cfile, self.directory)
                    if why is None and os.path.islink(cfile):
                        why = "a symlink"
                    if why is not None:
                        skipped.append(f"{cfile}: {why}: left as it was")
                        continue
                    try:
                        with open(cfile, "rb") as fh:
                            header = fh.read(16)
                    except OSError as exc:
                        skipped.append(f"{cfile}: cannot read ({exc.strerror}): left as it was")
                        continue
                    found.append(Cached(name, cfile, hit[0], hit[1], invalidation_mode(hit[0], header)))
        return found, skipped

    def refresh_bytecode(self, paths, pythons_for, session: Session) -> list[str]:
        """Recompile the .pyc of each of `paths` (edited sources, already written) by the
        interpreter of its tag (`pythons_for(tag)`: executables to try, in order); returns the
        notes to show (one line per tag left stale or file left alone)."""
        from profiler import sinks
        from profiler.analysis.pyc import tag_version
        from profiler.capture.lazy_apply import Compiled, compile_bytecode

        found, notes = self.caches(paths)
        by_tag: dict[str, list[Cached]] = {}
        for c in found:
            self.pyc_original.setdefault(c.path, _read_or_none(c.path))
            if c.mode is None:
                notes.append(f"{c.path}: a header importprof cannot read: left as it was")
                continue
            by_tag.setdefault(c.tag, []).append(c)
        with tempfile.TemporaryDirectory(prefix="pyc-") as tmp:  # importprof's own folder: nothing left in the tree
            for tag, items in sorted(by_tag.items()):
                entries = [(c.source, os.path.join(tmp, f"{i}.pyc"), c.optimize, c.mode) for i, c in enumerate(items)]
                done = None
                for exe in pythons_for(tag):
                    got = compile_bytecode(exe, tag, entries[:BATCH], session=session)
                    if got.tag_ok:
                        done = got
                        for at in range(BATCH, len(entries), BATCH):  # argument lists of a bounded length
                            more = compile_bytecode(exe, tag, entries[at:at + BATCH], session=session)
                            done = Compiled(exe, True, {**done.failed, **more.failed}, done.error or more.error)
                        break
                if done is None:
                    notes.append(_stale_note(tag, items, tag_version(tag)))
                    for c in items:
                        if c.mode == "unchecked-hash":
                            os.unlink(c.path)
                            self.written = True
                    continue
                for c, (_, cfile, _, _) in zip(items, entries):
                    if cfile in done.failed or not os.path.exists(cfile):
                        notes.append(f"{c.path}: {tag} could not compile the edited file "
                                     f"({done.failed.get(cfile) or done.error or 'no output'}): left as it was")
                        continue
                    with open(cfile, "rb") as fh:
                        fresh = fh.read()
                    self.written = True  # pyc_original holds the old bytes: restore() puts them back
                    sinks.write_atomic(c.path, fresh, within=self.directory)
        return notes


def _read_or_none(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _stale_note(tag: str, items, version) -> str:
    kept = sum(1 for c in items if c.mode != "unchecked-hash")
    removed = len(items) - kept
    parts = []
    if kept:
        who = f"Python {version[0]}.{version[1]}" if version else f"the interpreter of {tag}"
        fix = f"; `python{version[0]}.{version[1]} -m compileall` on the folder refreshes them" if version else ""
        parts.append(f"{kept} .pyc of edited files left stale ({who} sees that and compiles those files at each "
                     f"start until it can write new ones{fix})")
    if removed:
        parts.append(f"{removed} unchecked-hash .pyc removed (that interpreter would keep running the old code)")
    return f"no interpreter of cache tag {tag} here: " + "; ".join(parts)
