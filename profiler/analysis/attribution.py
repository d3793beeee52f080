"""Give each syscall to the module whose import made it (pure).

The bootstrap hook (profiler/bootstrap/hook_markers.py) stats `<prefix>b/NAME` when the import
of NAME begins and `<prefix>e/NAME` when it ends. Per process (pid), the markers form a stack:
a syscall belongs to the innermost import in progress, so nested imports' syscalls go to the
inner module; syscalls made outside any import go to OUTSIDE. The marker calls themselves are
counted nowhere.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from profiler.analysis.syscalls import bytes_read, count_syscalls, filesystem_view, is_failed_lookup, opened_path, process_stats
from profiler.model.syscall_trace import MARKER_PREFIX, ImportSpan, ModuleStat, StraceLog, Syscall, TraceResult

OUTSIDE = "(outside imports)"


def marker_of(call: Syscall, prefix: str = MARKER_PREFIX) -> tuple[str, str] | None:
    """("b"|"e"|"f", module name) when `call` is an import marker, else None."""
    path = call.path
    if path is None or not path.startswith(prefix):
        return None
    kind, _, name = path[len(prefix) :].partition("/")
    if kind not in ("b", "e") or not name:
        return None
    return kind, name + ("..." if call.path_cut else "")


_MARKER_CALLS = frozenset({"stat", "newfstatat", "fstatat64", "statx", "stat64", "lstat", "lstat64"})


class _Acc:
    __slots__ = ("syscalls", "failed", "opened", "bytes_read", "seconds", "imports")

    def __init__(self) -> None:
        self.syscalls = self.failed = self.opened = self.bytes_read = self.imports = 0
        self.seconds = 0.0


def attribute_syscalls(log: StraceLog, prefix: str = MARKER_PREFIX) -> tuple[tuple[ModuleStat, ...], tuple[ImportSpan, ...], list[Syscall]]:
    """→ (per-module stats, heaviest first with OUTSIDE included; import spans; the non-marker
    calls). Without markers the module list is empty."""
    stacks: dict[int, list[tuple[str, float | None]]] = defaultdict(list)
    acc: dict[str, _Acc] = {}
    spans: list[ImportSpan] = []
    plain: list[Syscall] = []
    any_marker = False
    for c in log.syscalls:
        m = marker_of(c, prefix) if (c.args and c.name in _MARKER_CALLS) else None
        stack = stacks[c.pid]
        if m is not None:
            any_marker = True
            kind, name = m
            if kind == "b":
                stack.append((name, c.time_s))
                a = acc.get(name)
                if a is None:
                    a = acc[name] = _Acc()
                a.imports += 1
            else:
                # pop to the matching begin (tolerates a begin lost to a truncated log)
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i][0] == name:
                        while len(stack) > i:
                            n, t0 = stack.pop()
                            end = None if c.time_s is None else c.time_s + (c.duration_s or 0.0)
                            spans.append(ImportSpan(n, c.pid, t0, end, len(stack)))
                        break
            continue
        plain.append(c)
        owner = stack[-1][0] if stack else OUTSIDE
        a = acc.get(owner)
        if a is None:
            a = acc[owner] = _Acc()
        a.syscalls += 1
        if c.duration_s:
            a.seconds += c.duration_s
        if is_failed_lookup(c):
            a.failed += 1
        elif opened_path(c) is not None:
            a.opened += 1
        else:
            a.bytes_read += bytes_read(c)
    if not any_marker:
        return (), (), plain
    # imports still open when the log ended (a crash, a truncated log)
    for pid, stack in stacks.items():
        while stack:
            n, t0 = stack.pop()
            spans.append(ImportSpan(n, pid, t0, None, len(stack)))
    modules = tuple(
        sorted(
            (
                ModuleStat(name, a.syscalls, a.failed, a.opened, a.bytes_read, round(a.seconds, 6), a.imports)
                for name, a in acc.items()
            ),
            key=lambda m: (-m.syscalls, m.name),
        )
    )
    spans.sort(key=lambda s: (s.pid, s.begin_s if s.begin_s is not None else 0.0, s.depth))
    return modules, tuple(spans), plain


def summarize_trace(log: StraceLog, variant: str = "default", prefix: str = MARKER_PREFIX) -> TraceResult:
    """The whole summary of one log: syscalls, modules (when it has markers), file system,
    processes. Marker calls are excluded from every count."""
    modules, spans, plain = attribute_syscalls(log, prefix)
    return TraceResult(
        variant=variant,
        syscalls=count_syscalls(plain),
        modules=modules,
        filesystem=filesystem_view(plain),
        processes=process_stats(log, plain),
        spans=spans,
        log=log,
        attributed=bool(modules),
    )
