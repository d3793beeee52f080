"""The error family: every failure the user can cause or meet ends as one stderr line + exit code.

Exit codes (ARCHITECTURE.md, "The command-line contract"):
  0 ok; 1 a gate failed; 2 usage error or bad input; 3 the target or a required tool failed.
"""

from __future__ import annotations

import errno

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT)
# SIGTERM, SIGHUP (the terminal closed) and SIGQUIT: 128 + the signal (143, 129, 131), as the
# shell reports them (commands._interrupted computes it)


class ImportprofError(Exception):
    """Base class. `str(err)` is the one line printed on stderr."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, detail: str | None = None):
        super().__init__(message)
        self.message = message
        # optional extra lines (e.g. the tail of a failing target's stderr), printed indented
        # *after* the one-line message so the first line stays greppable.
        self.detail = detail

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message


class UsageError(ImportprofError):
    """Bad options (unknown variant, conflicting targets...)."""

    exit_code = EXIT_USAGE


class BadInput(ImportprofError):
    """Missing interpreter, not a Python, unreadable or garbage log/report."""

    exit_code = EXIT_USAGE


class BadOutput(BadInput):
    """An output path that cannot be written: a directory, a missing or read-only folder."""

    exit_code = EXIT_USAGE


class OutputFailed(ImportprofError):
    """An output could not be finished (disk full, I/O error): the target file is unchanged."""

    exit_code = EXIT_FAILED


class GateFailed(ImportprofError):
    """A CI gate (--budget, --fail-over...) tripped."""

    exit_code = EXIT_GATE


class TargetFailed(ImportprofError):
    """The measured target exited non-zero (or was killed). `ignorable`: it only exited
    non-zero (no traceback, no signal), which a program may do on purpose: a command with
    --ignore-failure says so (commands/_common.py), no workflow names the option."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, *, detail: str | None = None, ignorable: bool = False):
        super().__init__(message, detail=detail)
        self.ignorable = ignorable


class InstrumentFailed(ImportprofError):
    """importprof's own code inside the measured program (the launcher, a hook) failed: said as
    importprof's, with its cause, never as the program's."""

    exit_code = EXIT_FAILED


class TimedOut(TargetFailed):
    """A run did not finish within --timeout: it was killed with every process it started."""

    exit_code = EXIT_FAILED


class ToolMissing(ImportprofError):
    """A required external tool (hyperfine, valgrind, strace, cargo...) is missing or unusable."""

    exit_code = EXIT_FAILED


class ToolFailed(ImportprofError):
    """A required external tool ran but failed (strace denied, a build failed...)."""

    exit_code = EXIT_FAILED


class Interrupted(ImportprofError):
    """Ctrl-C. Carries whatever partial result the workflow could still report."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, message: str = "interrupted", *, partial=None):
        super().__init__(message)
        self.partial = partial

    def showing(self, convert) -> "Interrupted":
        """The same interruption, its partial result (if any) turned by `convert` into what the
        caller reports: `raise exc.showing(report_of) from None`."""
        return Interrupted(self.message, partial=convert(self.partial) if self.partial is not None else None)


# OSErrors that say "this path is wrong" (the user can pick another) rather than "writing failed"
PATH_ERRNOS = frozenset(
    {errno.EPERM, errno.ENOENT, errno.EACCES, errno.ENOTDIR, errno.EISDIR, errno.EROFS, errno.ENAMETOOLONG, errno.ELOOP}
)


def from_os_error(exc: OSError) -> ImportprofError:
    """The family member for an OSError no layer below turned into one: a path the user can
    change (exit 2) or a failure of the machine (disk full, I/O: exit 3)."""
    reason = exc.strerror or str(exc)
    where = exc.filename if exc.filename is not None else None
    message = f"{where}: {reason}" if where is not None else reason
    if exc.errno in PATH_ERRNOS:
        return BadInput(message)
    return ToolFailed(message)
