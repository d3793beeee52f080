"""Lazy imports, pure. Two parts:
- `lazy_candidates` (imports --lazy-candidates): modules imported during the run that were never
  called into after they finished importing (the `calls` hook's list of used modules);
- the steps of `importprof lazy` (measured): judge two runs' outputs, pick the bisection's
  candidates, price what the lazy run avoided per module and per import statement.

`lazy_candidates` is a heuristic: reading a constant, a class attribute or an exception type is not a call, so a
module used only that way is listed although importing it lazily would not help much.
"""

from __future__ import annotations

import re
from typing import Sequence

from profiler.analysis.phases import children_index, drop_launcher
from profiler.model.import_records import ModuleRecord
from profiler.model.lazy import AvoidedModule, EagerImport, LazyRun, Prediction, ProgramOutput, StatementSaving
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
# Pure steps of `compose/lazy.py`: judge outputs, pick bisection candidates, price what the
# lazy run avoided, per module and per import statement of the target's own code.

# what 3.15 (and the emulation) can defer: any module a module-level import statement names,
# extension and builtin modules too (the statement binds a name; nothing is looked up)
LAZY_KINDS = ("source", "bytecode", "other", "extension", "builtin", "frozen", "namespace")
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


# A duration the program prints ("1 passed in 0.01s", "Ran 5 tests in 0.120s", "took 97 ms",
# "(0:01:05)") is its timing, and a lazy run is faster by design: durations never count as a
# difference (pytest printed "0.01s" in every eager run and "0.00s" in every lazy one on 3.15).
# (the figure is masked, its unit is still compared)
DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?=\s?(?:ns|us|µs|ms|s|secs?|seconds?|min|minutes?)(?!\w))"
                      r"|(?<![\w:])\d+:\d\d:\d\d(?:\.\d+)?(?![\w:])")


def _same_but_durations(x: str, y: str) -> bool:
    return x == y or DURATION.sub("#", x) == DURATION.sub("#", y)


def _shown_line(line: str | None, start: int) -> str:
    """A line of output in a difference: from `start` (…), clipped to 80 characters, quoted."""
    return "(no line)" if line is None else ("…" if start else "") + repr(_clip(line[start:], 80))


def _first_difference(what: str, expected: str, got: str) -> str | None:
    a, b = expected.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x is None or y is None or not _same_but_durations(x, y):
            # two long lines are shown from a little before their first differing character, so
            # the parts shown differ (clipped at the same 80 characters they looked alike)
            at = next((j for j, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y))) if x and y else 0
            start = at - 20 if at > 60 else 0
            return f"{what} line {i + 1}: {_shown_line(y, start)} instead of {_shown_line(x, start)}"
    if not _same_but_durations(expected, got):
        return f"{what} differs in line endings or a final newline"
    return None


def only_durations_differ(expected: ProgramOutput, got: ProgramOutput) -> bool:
    """The two outputs differ, in the durations they print alone (describe_difference sees none)."""
    return expected != got and describe_difference(expected, got) is None


def describe_difference(expected: ProgramOutput, got: ProgramOutput) -> str | None:
    """The observable difference between two runs, in one line (None: identical but for the
    durations printed, DURATION): an exception when the lazy run raised one, else the exit code,
    the first differing stdout line, then stderr's."""
    exc = _exception_line(got.stderr)
    if exc is not None and exc != _exception_line(expected.stderr):
        return _clip(f"raised {exc}" + (f" (exit code {got.exit_code})" if got.exit_code != expected.exit_code else ""), 160)
    if got.exit_code != expected.exit_code:
        return f"exit code {got.exit_code} instead of {expected.exit_code}"
    return _first_difference("stdout", expected.stdout, got.stdout) or _first_difference("stderr", expected.stderr, got.stderr)


# How a program's output is compared between runs when it changes from run to run in numbers
# that are not durations (DURATION never counts: a score, a count, a figure without a unit):
# decimals masked first (counts still compared), else every number masked.
_DECIMAL = re.compile(r"\d+\.\d+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
COMPARISONS = {
    "decimals masked": (_DECIMAL, "decimal numbers masked (timings change from run to run)"),
    "numbers masked": (_NUMBER, "every number masked (they change from run to run)"),
}


def masked(output: ProgramOutput, how: str | None) -> ProgramOutput:
    """The output with the numbers `how` (a COMPARISONS key; None: exact) names replaced by #."""
    if how is None:
        return output
    pattern = COMPARISONS[how][0]
    return ProgramOutput(pattern.sub("#", output.stdout), pattern.sub("#", output.stderr), output.exit_code)


def comparison_for(runs: Sequence[ProgramOutput]) -> str | None:
    """How the eager runs' outputs can be compared with each other (and so with the lazy runs'):
    None when they are identical but for the durations they print (describe_difference), else
    the first COMPARISONS key under which they all are; raises ValueError (the first difference)
    when no masking makes them identical."""
    first = runs[0]
    if all(describe_difference(first, r) is None for r in runs[1:]):
        return None
    for how in COMPARISONS:
        if all(describe_difference(masked(first, how), masked(r, how)) is None for r in runs[1:]):
            return how
    other = next(r for r in runs[1:] if masked(r, "numbers masked") != masked(first, "numbers masked"))
    raise ValueError(describe_difference(first, other) or "the output differs")


def bisect_candidates(eager: LazyRun, keep: Sequence[str] = ()) -> list[str]:
    """The modules the eager run imported that lazy imports could defer, in import order:
    every module found (imports that failed and were caught count: lazy, they would fail later,
    outside the program's try), else every module executed; not imported before the program
    (start-up), not the main module, not already kept."""
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
    """Modules the eager run executed and the lazy run did not, costliest first (own time),
    with their eager `-X importtime` self and cumulative (`modules`: an imports report's
    records); and the saving: Σ self of those modules. Only what the lazy run does not import
    at all counts, at its own cost: a cumulative would count parts the lazy run still imports."""
    gone = eager.executed_names - lazy.executed_names
    index = _by_name(modules)
    out = [AvoidedModule(n, index[n].cumulative_us if n in index else 0, index[n].self_us if n in index else 0)
           for n in gone]
    out.sort(key=lambda a: (-a.self_us, -a.cumulative_us, a.name))
    return out, sum(a.self_us for a in out)


def total_self_us(modules: Sequence[ModuleRecord]) -> int:
    """The eager profile's whole import time (Σ self of the first process's modules)."""
    return sum(m.self_us for m in _by_name(modules).values())


def run_saving(eager: LazyRun, run: LazyRun, modules: Sequence[ModuleRecord]) -> tuple[list[str], int]:
    """What one lazy run stops doing: the modules the eager run executed and it did not (import
    order of the profile), and Σ of their eager self times."""
    gone = eager.executed_names - run.executed_names
    index = _by_name(modules)
    order = {m.name: i for i, m in enumerate(modules)}
    names = sorted(gone, key=lambda n: (order.get(n, len(order)), n))
    return names, sum(index[n].self_us for n in names if n in index)




def event_cost_us(calibration: dict, key: str) -> float:
    """One per-event cost of the calibration (µs), never below zero: the hook times each as a
    difference of two timings (its module load against python's own .pyc load of the same
    module), and a difference below zero says the emulation costs nothing measurable there, not
    that it makes the program faster (counting it would raise the prediction above the measured
    lazy time by 241 loads × 18.76 µs)."""
    return max(0.0, float(calibration.get(key, 0.0) or 0.0))


def event_cost_text(calibration: dict, key: str) -> str:
    """How a per-event cost reads in the prediction's explanation: "2.00 µs", or for a timing
    below zero "0 µs (timed -18.76 µs: within noise)"."""
    raw = float(calibration.get(key, 0.0) or 0.0)
    if raw < 0:
        return f"0 µs (timed {raw:.2f} µs: within noise)"
    return f"{raw:.2f} µs"


def emulation_overhead_s(counts: dict, calibration: dict) -> float:
    """The emulation's per-event cost in one run (s): lazy bindings, resolutions and module loads
    counted by the hook, each at the per-event cost the hook timed in the same interpreter
    (event_cost_us: a cost timed below zero counts as 0)."""
    us = (counts.get("bindings", 0) * event_cost_us(calibration, "binding_us")
          + counts.get("resolutions", 0) * event_cost_us(calibration, "resolution_us")
          + counts.get("rewritten_loads", 0) * event_cost_us(calibration, "load_us"))
    return us / 1e6


def predict_lazy(eager_mean: float, lazy_mean: float, launcher_s: float, counts: dict, calibration: dict) -> Prediction:
    """3.15's lazy time from the emulated one: the measured lazy mean minus the launcher and the
    per-event costs (see model.lazy.Prediction); never below zero."""
    events = emulation_overhead_s(counts, calibration)
    overhead = launcher_s + events
    predicted = max(0.0, lazy_mean - overhead)
    how = (f"measured lazy {lazy_mean * 1e3:.1f} ms minus the emulation's own {overhead * 1e3:.1f} ms: "
           f"launcher {launcher_s * 1e3:.1f} ms (CPU time of its -c pass beside python's) + "
           f"{counts.get('bindings', 0)} lazy bindings × {event_cost_text(calibration, 'binding_us')} + "
           f"{counts.get('resolutions', 0)} resolutions × {event_cost_text(calibration, 'resolution_us')} + "
           f"{counts.get('rewritten_loads', 0)} module loads × {event_cost_text(calibration, 'load_us')} "
           "(per-event costs timed by the hook in this interpreter)")
    return Prediction(lazy_mean=predicted, ratio=predicted / eager_mean if eager_mean else 0.0, overhead_s=overhead,
                      launcher_s=launcher_s, counts=dict(counts), calibration=dict(calibration), how=how)


def suggestion_for(statement: str | None, importer: str | None, imports: Sequence[str]) -> str | None:
    """The line to write: `lazy import ...` / `lazy from ... import ...` for a one-line import
    statement; otherwise the `__lazy_modules__` entry that makes the import lazy."""
    text = (statement or "").strip()
    if text.startswith(("import ", "from ")) and "*" not in text and not text.endswith(("(", "\\")):
        return "lazy " + text.split("#")[0].rstrip()
    if imports:
        return f"__lazy_modules__ = [{imports[0]!r}]  # in {importer or 'the importing module'}"
    return None


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


def saves_nothing(st) -> bool:
    """A StatementSaving measured alone that left no module out (or saved no time): no
    recommendation, whatever its estimate."""
    return st.saves_nothing


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
            site = index[name].site
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
    per: dict[str, tuple[list[str], int, list[str]]] = {}
    for name in sorted(gone, key=lambda n: order.get(n, len(order))):
        m = index.get(name)
        if m is None or m.parent in gone:
            continue
        site = own_statement(name)
        if site is None:
            continue
        mods, cost, tops = per.get(site, ([], 0, []))
        per[site] = (mods + [n for n in below(name) if n not in mods], cost + m.cumulative_us, tops + [name])
    out = []
    for site, (mods, cost, tops) in per.items():
        imports = tuple(n for n in mods if index[n].site == site) or tuple(tops)
        out.append(StatementSaving(site, tuple(mods), cost, self_us=sum(index[n].self_us for n in mods if n in index),
                                   imports=imports))
    out.sort(key=lambda s: (-s.self_us, -s.cumulative_us, s.site))
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


_LAZY_IMPORT = re.compile(r"^[ \t]*lazy[ \t]+import[ \t]+([^#\n]+)", re.M)
_LAZY_FROM = re.compile(r"^[ \t]*lazy[ \t]+from[ \t]+(\.*)([\w.]*)[ \t]+import\b", re.M)
_LAZY_MODULES = re.compile(r"^__lazy_modules__[ \t]*=[ \t]*[\[(]([^\])]*)[\])]", re.M)
_QUOTED = re.compile(r"""["']([\w.]+)["']""")


def written_lazy(importer: str, is_package: bool, source: str) -> list[tuple[str, str]]:
    """The (importer, module) pairs a module's own source makes lazy under PEP 810: its `lazy
    import` / `lazy from` statements and the names in its `__lazy_modules__`. On 3.15 a run with
    `-X lazy_imports=all` and a filter consults the filter for every import, written lazy or
    not: a filter that makes only one statement lazy must say these too, or it makes eager
    what the bare run leaves lazy (3.15.2's stdlib writes lazy imports of its own: a one-statement
    run of a cffi program loaded 110 modules before it, against 43 bare)."""
    out: list[tuple[str, str]] = []
    if "lazy" not in source:
        return out
    for m in _LAZY_IMPORT.finditer(source):
        for part in m.group(1).split(","):
            name = part.strip().split(" as ")[0].strip().strip("()\\ ")
            if name:
                out.append((importer, name))
    package = importer if is_package else importer.rpartition(".")[0]
    for m in _LAZY_FROM.finditer(source):
        dots, name = m.group(1), m.group(2)
        if dots:
            base = package.split(".")[: max(0, len(package.split(".")) - len(dots) + 1)] if package else []
            name = ".".join([*base, *([name] if name else [])])
        if name:
            out.append((importer, name))
    for m in _LAZY_MODULES.finditer(source):
        out.extend((importer, n) for n in _QUOTED.findall(m.group(1)))
    return out
