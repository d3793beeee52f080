"""Run a command under the real strace (`strace -f -tt -T -y -s N -o LOG -- argv`) and explain
its failures: strace missing (how to install it), ptrace not permitted (why: a seccomp filter,
Yama's ptrace_scope, a missing CAP_SYS_PTRACE), the target failing."""

from __future__ import annotations

import os
import shutil

from profiler.capture.process import Completed, run
from profiler.errors import TargetFailed, ToolFailed, ToolMissing
from profiler.session import Session

STRACE_FLAGS = ("-f", "-tt", "-T", "-y")
# long enough for import-marker paths of long module names; -s only limits printed strings
STRING_LIMIT = 256
INSTALL_HINT = "install it: apt-get install strace (Debian/Ubuntu), dnf install strace (Fedora), apk add strace (Alpine)"
CAP_SYS_PTRACE = 19


def find_strace() -> str:
    path = shutil.which("strace")
    if path is None:
        raise ToolMissing(f"strace not found on PATH; {INSTALL_HINT}")
    return path


def strace_argv(strace: str, log_path: str, argv) -> list[str]:
    return [strace, *STRACE_FLAGS, "-s", str(STRING_LIMIT), "-o", log_path, "--", *argv]


def run_strace(argv, log_path: str, *, env=None, check: bool = True, session: Session) -> Completed:
    """Trace argv into log_path. Raises ToolMissing/ToolFailed (strace cannot trace) or
    TargetFailed (the command could not start; with `check`, also when it exited non-zero or
    was killed: without, that run is returned, its returncode and stderr telling how)."""
    strace = find_strace()
    done = run(strace_argv(strace, log_path, argv), env=env, what="strace", tracer_log=log_path, session=session)
    check_strace_run(done, strace, log_path)
    if done.returncode != 0 and check:
        other = [ln for ln in done.stderr.splitlines() if not ln.startswith(strace + ": ")]
        code = done.returncode
        what = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        raise TargetFailed(f"the target failed under strace ({what})", detail="\n".join(other[-10:]) or None)
    return done


def check_strace_run(done: Completed, strace: str, log_path: str) -> list[str]:
    """Raise when strace could not trace (ToolFailed: ptrace denied, no log written) or could
    not start the command (TargetFailed: not found, not executable, exec format error).
    Returns strace's own messages (its stderr lines, prefix removed)."""
    # strace prefixes its messages with its argv[0] ("/usr/bin/strace: ...")
    prefix = strace + ": "
    strace_lines = [ln[len(prefix):] for ln in done.stderr.splitlines() if ln.startswith(prefix)]
    if any(_is_ptrace_denial(ln) for ln in strace_lines):
        raise ToolFailed(f"strace cannot trace: ptrace not permitted ({ptrace_denial_reason()})", detail="\n".join(strace_lines[:3]))
    if done.returncode != 0:
        exec_failed = [ln for ln in strace_lines if ln.lower().startswith("exec") or "Can't stat" in ln]
        if exec_failed:
            raise TargetFailed(f"cannot run the target: {exec_failed[0]}")
        if not os.path.exists(log_path) or os.path.getsize(log_path) == 0:
            raise ToolFailed(
                "strace failed" + (f": {strace_lines[0]}" if strace_lines else f" (exit code {done.returncode})")
            )
    return strace_lines


def _is_ptrace_denial(line: str) -> bool:
    low = line.lower()
    return ("ptrace" in low or "attach" in low) and ("operation not permitted" in low or "permission denied" in low)


def ptrace_denial_reason(status_path: str = "/proc/self/status", yama_path: str = "/proc/sys/kernel/yama/ptrace_scope") -> str:
    """Why ptrace is refused here, from what the kernel shows this process (strace inherits
    this process's seccomp filters and capabilities)."""
    reasons = []
    fields = {}
    try:
        with open(status_path) as fh:
            for ln in fh:
                key, _, value = ln.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    if fields.get("Seccomp", "0") not in ("0", ""):
        n = fields.get("Seccomp_filters", "?")
        reasons.append(
            f"a seccomp filter is active (Seccomp: {fields['Seccomp']}, {n} filter(s) in /proc/self/status), "
            "as in a container's default profile: run it with --security-opt seccomp=unconfined or allow ptrace"
        )
    try:
        with open(yama_path) as fh:
            scope = fh.read().strip()
    except OSError:
        scope = None
    if scope in ("2", "3"):
        reasons.append(
            f"Yama kernel.yama.ptrace_scope={scope} "
            + ("(ptrace disabled until reboot)" if scope == "3" else "(only CAP_SYS_PTRACE may trace): sysctl kernel.yama.ptrace_scope=1")
        )
    cap = fields.get("CapEff")
    if cap:
        try:
            if not (int(cap, 16) >> CAP_SYS_PTRACE) & 1:
                reasons.append("the CAP_SYS_PTRACE capability is missing (docker: --cap-add=SYS_PTRACE)")
        except ValueError:
            pass
    if not reasons:
        reasons.append("the kernel refused ptrace: look for a seccomp profile, an LSM (AppArmor/SELinux) or Yama policy")
    return "; ".join(reasons)
