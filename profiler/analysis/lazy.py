"""Lazy imports, pure. Two parts:
- `lazy_candidates` (imports --lazy-candidates): modules imported during the run that were never
  called into after they finished importing (the `calls` hook's list of used modules);
- the steps of `importprof lazy` (measured): judge two runs' outputs, pick the bisection's
  candidates, price what the lazy run avoided per module and per import statement.

`lazy_candidates` is a heuristic: reading a constant, a class attribute or an exception type is not a call, so a
module used only that way is listed although importing it lazily would not help much.
"""

from __future__ import annotations

from typing import Sequence

from profiler.analysis.phases import children_index, drop_launcher
from profiler.model.import_tree import ModuleRecord
from profiler.model.lazy import AvoidedModule, EagerImport, LazyRun, ProgramOutput, StatementSaving
from profiler.model.phases import LazyCandidate, ModulePhases


def lazy_candidates(mods: Sequence[ModulePhases], used: frozenset[str] | set[str]) -> list[LazyCandidate]:
    """Every successfully imported module not in `used`, costliest first."""
    mods = drop_launcher(mods)
    kids = children_index(mods)
    memo: dict[int, bool] = {}

    def below_used(m: ModulePhases) -> bool:
        if m.index not in memo:
            memo[m.index] = any(c.name in used or below_used(c) for c in kids.get(m.index, ()))
        return memo[m.index]

    out = []
    seen: set[str] = set()
    for m in mods:
        if m.failed or m.name in used or m.name in seen:
            continue
        seen.add(m.name)
        out.append(
            LazyCandidate(
                name=m.name,
                cumulative_us=m.cumulative_us,
                self_us=m.self_us,
                site=m.site,
                subtree_used=below_used(m),
                context=m.context,
            )
        )
    out.sort(key=lambda c: (-c.cumulative_us, c.name))
    return out


# ------------------------------------------------------------------ importprof lazy (measured)
# Pure steps of `workflows/lazy.py`: judge outputs, pick bisection candidates, price what the
# lazy run avoided, per module and per import statement of the target's own code.

LAZY_KINDS = ("source", "bytecode", "other")  # what the lazy finder can defer
_TRIGGER_REASONS = {
    "from": "`from {name} import ...` reads the module at once",
    "star": "`from {name} import *` reads the module at once",
    "submodule": "a submodule import runs the package's __init__",
}


def _clip(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _exception_line(stderr: str) -> str | None:
    """The last line of a traceback on stderr (`ValueError: ...`), if there is one."""
    lines = stderr.rstrip("\n").splitlines()
    if not any(ln.startswith("Traceback (most recent call last)") for ln in lines):
        return None
    for ln in reversed(lines):
        if ln.strip() and not ln.startswith(" "):
            return ln.strip()
    return None


def _first_difference(what: str, expected: str, got: str) -> str | None:
    a, b = expected.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            shown = lambda s: "(no line)" if s is None else repr(_clip(s, 80))  # noqa: E731
            return f"{what} line {i + 1}: {shown(y)} instead of {shown(x)}"
    if expected != got:
        return f"{what} differs in line endings or a final newline"
    return None


def describe_difference(expected: ProgramOutput, got: ProgramOutput) -> str | None:
    """The observable difference between two runs, in one line (None: identical): an exception
    when the lazy run raised one, else the exit code, the first differing stdout line, then
    stderr's."""
    exc = _exception_line(got.stderr)
    if exc is not None and exc != _exception_line(expected.stderr):
        return _clip(f"raised {exc}" + (f" (exit code {got.exit_code})" if got.exit_code != expected.exit_code else ""), 160)
    if got.exit_code != expected.exit_code:
        return f"exit code {got.exit_code} instead of {expected.exit_code}"
    return _first_difference("stdout", expected.stdout, got.stdout) or _first_difference("stderr", expected.stderr, got.stderr)


def bisect_candidates(eager: LazyRun, keep: Sequence[str] = ()) -> list[str]:
    """The modules the eager run imported that the lazy finder could defer, in import order:
    every module found (imports that failed and were caught count: lazy, they would fail later,
    outside the program's try), else every module executed; not imported before the program
    (start-up), not builtin/frozen/extension, not already kept."""
    startup = set(eager.startup)
    kept = set(keep)
    pairs = eager.found or tuple((n, kind) for n, kind, _ in eager.executed)
    out: list[str] = []
    seen: set[str] = set()
    for n, kind in pairs:
        if kind in LAZY_KINDS and n not in startup and n not in kept and n not in seen:
            seen.add(n)
            out.append(n)
    return out


def _by_name(modules: Sequence[ModuleRecord]) -> dict[str, ModuleRecord]:
    out: dict[str, ModuleRecord] = {}
    for m in modules:
        if m.process == 0:
            out.setdefault(m.name, m)
    return out


def avoided_modules(
    eager: LazyRun, lazy: LazyRun, modules: Sequence[ModuleRecord]
) -> tuple[list[AvoidedModule], int]:
    """Modules the eager run executed and the lazy run did not, costliest first, with their
    eager `-X importtime` cumulative (`modules`: an imports report's records); and the total
    without double counting (Σ over avoided modules whose importer was not avoided)."""
    gone = eager.executed_names - lazy.executed_names
    index = _by_name(modules)
    out = [AvoidedModule(n, index[n].cumulative_us if n in index else 0) for n in gone]
    out.sort(key=lambda a: (-a.cumulative_us, a.name))
    total = sum(index[n].cumulative_us for n in gone if n in index and index[n].parent not in gone)
    return out, total


def site_file(site: str) -> str:
    """"file:line" → file."""
    head, sep, tail = site.rpartition(":")
    return head if sep and tail.isdigit() else site


def is_own_file(path: str, own_roots: Sequence[str]) -> bool:
    """The target's own code: `<string>` for -c, files under the script's folder or the -m
    module's package (own_roots: "<string>", folders, or single files)."""
    for root in own_roots:
        if path == root or (root.endswith("/") and path.startswith(root)):
            return True
    return False


def statement_savings(
    avoided: Sequence[AvoidedModule], modules: Sequence[ModuleRecord], own_roots: Sequence[str]
) -> list[StatementSaving]:
    """Per import statement of the target's own code (file:line, from the records' `site`):
    the avoided modules below it and the eager cost laziness moved out of start-up. Each topmost
    avoided module (its importer was not avoided) is charged to the nearest statement in the
    target's own code on its import chain; its cumulative covers the avoided modules under it."""
    index = _by_name(modules)
    gone = {a.name for a in avoided}
    children: dict[str, list[str]] = {}
    for m in modules:
        if m.process == 0 and m.parent is not None:
            children.setdefault(m.parent, []).append(m.name)

    def own_statement(name: str) -> str | None:
        seen = set()
        while name is not None and name in index and name not in seen:
            seen.add(name)
            site = index[name].extra.get("site")
            if site and is_own_file(site_file(site), own_roots):
                return site
            name = index[name].parent
        return None

    def below(name: str) -> list[str]:
        out, stack = [], [name]
        while stack:
            n = stack.pop()
            if n in gone and n not in out:
                out.append(n)
                stack.extend(reversed(children.get(n, ())))
        return out

    order = {m.name: i for i, m in enumerate(modules)}
    per: dict[str, tuple[list[str], int]] = {}
    for name in sorted(gone, key=lambda n: order.get(n, len(order))):
        m = index.get(name)
        if m is None or m.parent in gone:
            continue
        site = own_statement(name)
        if site is None:
            continue
        mods, cost = per.get(site, ([], 0))
        per[site] = (mods + [n for n in below(name) if n not in mods], cost + m.cumulative_us)
    out = [StatementSaving(site, tuple(mods), cost) for site, (mods, cost) in per.items()]
    out.sort(key=lambda s: (-s.cumulative_us, s.site))
    return out


def stayed_eager(run: LazyRun) -> list[EagerImport]:
    """What a lazy run executed at once, and why: decided when found (extension, keep-eager,
    ...), or read by the import statement itself (from / star / submodule). Modules imported
    before the program (interpreter start-up) are not listed: no finder ever sees them."""
    out: list[EagerImport] = []
    seen: set[str] = set()
    for e in run.eager:
        if e.name not in seen:
            seen.add(e.name)
            out.append(e)
    for ld in run.loads:
        reason = _TRIGGER_REASONS.get(ld.trigger)
        if reason and ld.name not in seen:
            seen.add(ld.name)
            out.append(EagerImport(ld.name, reason.format(name=ld.name), ld.site))
    return out
