"""`importprof lazy --apply DIR` / `--filter-out FILE`: what was made lazy, and the proof
(`importprof.lazy_apply/1`).

  statements   [{site, modules, saving_us, measured, static, decision, why, disagreement}]
               (saving_us: the self time of the modules the lazy run avoided below it; for a
               statement of the must-stay-eager set, the eager cumulative lazy would have moved)
               every import statement under DIR the lazy run moved cost out of start-up:
               measured  "identical" (lazy kept the output) / "differs" (a module it defers
                         must stay eager) / "differs in verification" (the edit changed the
                         output and bisection took it back)
               static    [{kind, text, line}] the reasons from the AST (analysis/lazy_static.py)
               decision  "applied" / "eager" / "below --min-ms" / "skipped"
               disagreement  where measured and static say different things, in words
  files        [{path, lines, status}]   status: "edited", "unchanged", "would edit" (--diff),
               or why the file was left alone (does not parse, read-only, fails to compile)
  checks       [{python, command, identical, difference, compared}]  before vs after, per
               interpreter and per --verify-with command (the final edits); `compared` says how:
               output and exit code, numbers masked, or exit code only when two runs before the
               edit already differed
  proof        [{python, python_version, lazy, side, ...}]  per interpreter: `before` and
               `after` figures — startup mean_s/stddev_s/min_s/max_s, import_us, modules,
               peak_rss_bytes, unreified (imports still lazy at exit; null before 3.15),
               output_identical — and overlap (the two start-up ranges overlap)
  predicted_us the lazy measurement's saving of the applied statements (what 3.15 should show)
  lazy_imports, lazy_modules, edited_files   what the edit wrote: import statements made lazy
               (the applied ones and their companions), the distinct modules they name, the
               files changed (0, 0, 0 when nothing was applied)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from profiler.model.document import Document, Record
from profiler.model.words import LazyStyle

SCHEMA = "importprof.lazy_apply/1"


@dataclass(frozen=True)
class StatementVerdict(Record):
    site: str
    modules: tuple[str, ...]
    saving_us: int
    measured: str
    static: tuple[dict, ...]
    decision: str
    why: str = ""
    disagreement: str | None = None


@dataclass(frozen=True)
class FileEdit(Record):
    path: str
    lines: tuple[int, ...]
    status: str


@dataclass(frozen=True)
class Check(Record):
    python: str
    command: str
    identical: bool
    difference: str | None = None
    compared: str = "output and exit code"  # or numbers masked / exit code only (output that changes run to run)


@dataclass(frozen=True)
class Side(Record):
    """One interpreter, before or after the edit."""

    mean_s: float | None
    stddev_s: float | None
    min_s: float | None
    max_s: float | None
    import_us: int | None
    modules: int | None
    peak_rss_bytes: int | None
    unreified: int | None


@dataclass(frozen=True)
class ProofRow(Record):
    python: str
    python_version: str
    lazy: bool  # PEP 810 applies here (3.15+): the edit takes effect
    before: Side
    after: Side
    output_identical: bool
    overlap: bool


@dataclass(frozen=True)
class LazyApplyReport(Document):
    SCHEMA = SCHEMA

    action: str  # "apply" | "diff" | "filter-out"
    directory: str | None
    style: LazyStyle  # written as its word
    target: str
    python: str
    python_version: str
    min_ms: float
    must_stay_eager: tuple[str, ...]
    statements: tuple[StatementVerdict, ...]
    files: tuple[FileEdit, ...] = ()
    checks: tuple[Check, ...] = ()
    proof: tuple[ProofRow, ...] = ()
    predicted_us: int = 0
    # what the edit wrote (what --diff would write): import statements made lazy, the distinct
    # modules they name, the files changed ("N imports of M modules made lazy in F files")
    lazy_imports: int = 0
    lazy_modules: int = 0
    edited_files: int = 0
    diff: str = ""
    filter_path: str | None = None
    filter_eager: tuple[str, ...] = ()
    bisect_runs: int = 0
    machine: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
