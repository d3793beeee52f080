"""`importprof report`: gather the documents one page shows (the only place chaining the
other workflows for it) into a page bundle, `importprof.report/1`.

Two ways in:
  report_live(opts, session) -> PageReport   runs startup, imports (with phases when
      available), trace (when strace is usable), site and doctor (the findings the page
      shows first; Python targets) through THEIR workflow functions;
  report_from_files(paths) -> PageReport             saved JSON documents of any kind, told
      apart by their `schema` key (an `importprof.report/1` bundle is unpacked).
What could not be gathered is listed in `skipped` ({part, reason}) and shown on the page.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable, Sequence

from profiler.analysis.page import page_data
from profiler.errors import BadInput, ToolFailed, ToolMissing, UsageError
from profiler.model.report import PageReport, kind_of
from profiler.model.run_options import REQUIRED, RunOptions
from profiler.model.words import Said, WarningKind
from profiler.session import Phase, Session

if TYPE_CHECKING:
    from profiler.model.report import ColumnTree

PARTS = ("startup", "imports", "trace", "site", "doctor")  # doctor: the findings at the page's top
OPTIONAL_PARTS = ("compare",)  # slow (builds the oxidized variants): only when asked


@dataclass(frozen=True)
class ReportOptions(RunOptions):
    # RunOptions' fields (model/run_options.py); runs: start-up runs per variant (None: startup's adaptive default)
    DEFAULTS = {"target": REQUIRED, "warmup": 1}
    NOT_TAKEN = ("timeout",)
    variants: Sequence[str] = ()
    import_runs: int = 5
    skip: Sequence[str] = ()  # parts not to run: startup, imports, trace, site
    include: Sequence[str] = ()  # saved documents added to the page (e.g. compare --export-json)
    included: Sequence[tuple[str, dict]] | None = None  # `include` already read (load_documents), checked before anything ran
    compare: bool = False  # also build and time the five oxidized variants (importprof compare)
    title: str | None = None
    min_time_s: float = 1.0


def _now() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


# ------------------------------------------------------------------ saved documents
def load_documents(paths: Sequence[str], spill: bool = False) -> list[tuple[str, dict]]:
    """Each path → (label, document); a bundle contributes its documents. Bad input (missing,
    not JSON, no importprof schema) is one BadInput naming the file. `spill` (report --from):
    a saved imports report's columns go to a temporary file as each process is read
    (_SpilledColumns), not into the memory."""
    from profiler.inputs.documents import check_document
    from profiler.inputs.saved_imports import is_saved_imports, read_imports_document
    from profiler.inputs.strict_json import read_json

    out: list[tuple[str, dict]] = []
    columns = _SpilledColumns.open() if spill else None
    for path in paths:
        label = os.path.basename(path) or path
        if is_saved_imports(path):  # an imports report as importprof writes it: read a line at a time, into columns
            saved = read_imports_document(path, "document", keep=None if columns is None else columns.keep)
            if saved is not None:
                out.append((label, saved))
                continue
        doc = read_json(path, "document")
        if not isinstance(doc, dict):
            raise BadInput(f"{path}: not an importprof document (a JSON object with a `schema` key)")
        schema = doc.get("schema")
        if not isinstance(schema, str) or not schema.startswith("importprof."):
            if isinstance(doc.get("results"), list):  # a plain hyperfine --export-json file
                doc = {"schema": "importprof.startup/1", "machine": {}, "engine": "hyperfine", **doc}
                check_document(doc, f"{path} (a hyperfine file)", ["startup"])
                out.append((label, doc))
                continue
            raise BadInput(f"{path}: not an importprof document (schema={schema!r})")
        check_document(doc, path)  # against schemas/<kind>.json (a bundle: each document too)
        kind = kind_of(doc)
        if kind == "report":
            for item in doc.get("documents") or []:
                if isinstance(item, dict) and isinstance(item.get("doc"), dict):
                    out.append((f"{label}: {item.get('source') or '?'}", item["doc"]))
            continue
        out.append((label, doc))
    return out


class _SpilledColumns:
    """The self and cumulative µs columns of the processes of saved imports reports (report
    --from), each written to one temporary file as its process is read and read back when the
    page's writers ask for them (a process at a time: the modules, then the tree): the memory
    holds a process's columns, not every process's (8 bytes a row: 4 MB for 1,000 processes of
    pip, written to TMPDIR instead). The file, unlinked from the start, goes with the last block."""

    def __init__(self, file) -> None:
        self.file = file
        self.fd = file.fileno()
        self.end = 0
        self.cache: dict = {}  # the last two columns read back (one block's self and cumulative)

    @classmethod
    def open(cls) -> "_SpilledColumns | None":
        import tempfile

        try:
            return cls(tempfile.TemporaryFile(prefix="importprof-columns-"))
        except OSError:  # no writable temporary folder: the columns stay in the memory
            return None

    def keep(self, block):
        from profiler.model.import_columns import ColumnBlock

        if type(block) is not ColumnBlock:
            return block
        try:
            return _spilled_block(block.layout, block.process, self._put(block.self_us), self._put(block.cumulative_us))
        except OSError:  # the temporary folder full: this block stays in the memory
            return block

    def _put(self, column) -> "_SpilledColumn":
        data = column.tobytes()
        done = 0
        while done < len(data):
            done += os.pwrite(self.fd, data[done:], self.end + done)
        at, self.end = self.end, self.end + len(data)
        return _SpilledColumn(self, at, len(column), column.typecode)

    def get(self, col: "_SpilledColumn"):
        from array import array

        got = self.cache.get(col.at)
        if got is None:
            size = col.n * array(col.typecode).itemsize
            parts, done = [], 0
            while done < size:
                try:
                    part = os.pread(self.fd, size - done, col.at + done)
                except OSError as exc:
                    part, why = b"", exc.strerror
                else:
                    why = "cut short"
                if not part:  # the page is not finished: -o's file is left as it was
                    from profiler.errors import OutputFailed

                    raise OutputFailed(f"cannot read back the saved report's columns from their temporary file: {why}")
                parts.append(part)
                done += len(part)
            got = array(col.typecode)
            got.frombytes(b"".join(parts))
            if len(self.cache) >= 2:
                self.cache.clear()
            self.cache[col.at] = got
        return got


class _SpilledColumn:
    __slots__ = ("spill", "at", "n", "typecode")

    def __init__(self, spill: _SpilledColumns, at: int, n: int, typecode: str) -> None:
        self.spill, self.at, self.n, self.typecode = spill, at, n, typecode


_SPILLED_BLOCK: list = []  # the class, made once model.import_columns is loaded (not at import: report's --help)


def _spilled_block(layout, process, self_us: _SpilledColumn, cumulative_us: _SpilledColumn):
    """A ColumnBlock whose columns are in _SpilledColumns' file, read back when asked (the
    page's writers read a block's `self_us` and `cumulative_us`, and its records, as any)."""
    if not _SPILLED_BLOCK:
        from profiler.model.import_columns import ColumnBlock

        class SpilledBlock(ColumnBlock):
            __slots__ = ()

            @property
            def self_us(self):
                col = tuple.__getitem__(self, 2)
                return col.spill.get(col)

            @property
            def cumulative_us(self):
                col = tuple.__getitem__(self, 3)
                return col.spill.get(col)

        _SPILLED_BLOCK.append(SpilledBlock)
    return _SPILLED_BLOCK[0](layout, process, self_us, cumulative_us)


def report_from_files(paths: Sequence[str], title: str | None = None,
                      warn: Callable[[str], None] | None = None) -> PageReport:
    """The page of saved documents; `warn` hears the page's own warnings (documents that
    measure different targets or interpreters), which the page also shows at its top."""
    if not paths:
        raise UsageError("--from needs at least one JSON file")
    docs = load_documents(paths, spill=True)
    targets = [d.get("target") for _, d in docs if isinstance(d.get("target"), str)]
    if not targets:
        for _, d in docs:
            for r in d.get("results") or []:
                if isinstance(r, dict) and isinstance(r.get("target"), str) and r["target"]:
                    targets.append(r["target"])
    page = PageReport(
        documents=tuple(docs),
        machine={},
        title=title or "importprof report",
        target=targets[0] if targets else None,
        sources=tuple(paths),
        generated_at=_now(),
        derived=_page_data(docs, {}),
    )
    for w in page.warnings() if warn else ():
        warn(w)
    return page


def _part_skipped(part: str, why: str) -> Said:
    """The warning of a part of the page this run could not make."""
    return Said(f"report: {part} skipped: {why}", WarningKind.PART_SKIPPED, f"{part} skipped", "report")


def _page_data(docs: Sequence[tuple[str, dict]], machine: dict) -> dict:
    """analysis.page.page_data of the documents; a saved imports report read as columns
    (SavedColumns) is handed over without its modules, and its tree made from its columns
    (_column_tree), never as half a million dicts."""
    from profiler.model.report import SavedColumns

    light = [(source, doc.header([]) if isinstance(doc, SavedColumns) else doc) for source, doc in docs]
    derived = page_data(light, machine)
    for data, (_, doc) in zip(derived["documents"], docs):
        if isinstance(doc, SavedColumns):
            data["tree"] = _column_tree(doc)
    return derived


def _column_tree(doc) -> "ColumnTree":
    """analysis.page.import_tree of a SavedColumns document (the same tree, as its JSON shows:
    tests/test_report_columns.py), from its columns: each process's segments (a run of its rows)
    with each row's parent row in the segment, worked out once per layout."""
    from profiler.analysis.imports_views import parent_rows
    from profiler.model.import_columns import ColumnBlock, module_blocks
    from profiler.model.report import ColumnTree

    records = doc.records
    blocks = module_blocks(records)
    segments: list[list] = []  # [process, first row, ColumnBlock or records]
    start = 0
    for b in blocks:
        if isinstance(b, ColumnBlock):
            if segments and segments[-1][0] == b.process:  # one process in two blocks: one segment of records
                last = segments[-1]
                last[2] = _records_of(last[2]) + [b.record(i) for i in range(len(b.self_us))]
            else:
                segments.append([b.process, start, b])
            start += len(b.self_us)
            continue
        for m in b:
            if segments and segments[-1][0] == m.process:
                last = segments[-1]
                last[2] = _records_of(last[2]) + [m] if isinstance(last[2], ColumnBlock) else last[2] + [m]
            else:
                segments.append([m.process, start, [m]])
            start += 1
    by_process: dict = {}
    for process, first, rows in segments:
        if isinstance(rows, ColumnBlock):
            parents = rows.layout.memo.get("page_parents")
            if parents is None:
                parents = rows.layout.memo["page_parents"] = parent_rows(rows.layout.depths)
            cums = rows.cumulative_us
        else:
            parents = parent_rows([m.depth for m in rows])
            cums = [m.cumulative_us for m in rows]
        entry = by_process.setdefault(process, [0, []])
        entry[0] += sum(c for c, p in zip(cums, parents) if p is None)
        entry[1].append((first, rows, parents))
    processes = [(p, cum, segs) for p, (cum, segs) in sorted(by_process.items())]
    total = doc.get("total_us") if (doc.get("processes") or 1) == 1 else None
    if len(processes) > 1:
        return ColumnTree("all imports", sum(cum for _, cum, _ in processes), processes, False)
    cum = processes[0][1] if processes else 0
    if isinstance(total, (int, float)) and total > 0:
        cum = total
    return ColumnTree("all imports", cum, processes, True)


def _records_of(rows) -> list:
    from profiler.model.import_columns import ColumnBlock

    return [rows.record(i) for i in range(len(rows.self_us))] if isinstance(rows, ColumnBlock) else list(rows)


# ------------------------------------------------------------------ live capture
def _startup_doc(opts: ReportOptions, made: dict, session: Session):
    from profiler.compose.startup import StartupOptions, startup

    sopts = StartupOptions(
        target=opts.target,
        pythons=[opts.python],
        variants=list(opts.variants),
        flags=list(opts.flags),
        runs=opts.runs,
        warmup=opts.warmup,
        min_time_s=opts.min_time_s,
        ignore_failure=opts.ignore_failure,
    )
    return startup(sopts, session=session)


def _imports_doc(opts: ReportOptions, made: dict, session: Session):
    from profiler.workflows.imports import ImportsOptions, imports

    # the instrumented runs (import phases and import sites): find/read/unmarshal/exec per module and the file:line of
    # each import statement; they run the bootstrap, so Python targets only
    iopts = ImportsOptions(
        target=opts.target,
        python=opts.python,
        runs=opts.import_runs,
        warmup=opts.warmup,
        phases=opts.target.is_python,
        sites=opts.target.is_python,
        ignore_failure=opts.ignore_failure,
    )
    return imports(iopts, session=session)


def _trace_doc(opts: ReportOptions, made: dict, session: Session):
    from profiler.workflows.trace import TraceOptions, trace

    topts = TraceOptions(target=opts.target, python=opts.python, ignore_failure=opts.ignore_failure)
    return trace(topts, session=session)


def _site_doc(opts: ReportOptions, made: dict, session: Session):
    from profiler.workflows.site import SiteOptions, site

    return site(SiteOptions(python=opts.python, runs=max(1, min(opts.import_runs, 3))), session=session)


def _doctor_doc(opts: ReportOptions, made: dict, session: Session):
    """`importprof doctor`'s findings (importprof.doctor/1): what slows start-up, priced,
    costliest first; the page shows them at its top."""
    from profiler.compose.doctor import DoctorOptions, doctor

    # --runs N (start-up runs per variant) is also the doctor's timed runs per command (its start-up
    # figures, eager vs lazy): a page asked for in one run is not 10 runs per finding
    extra = {} if opts.runs is None else {"timing_runs": opts.runs}
    dopts = DoctorOptions(target=opts.target, python=opts.python, runs=max(1, min(opts.import_runs, 3)), **extra,
                          measured={k: made[k] for k in ("imports", "site", "trace", "startup") if k in made},
                          ignore_failure=opts.ignore_failure)
    with session.quiet(warnings=False, progress=False):  # the page says no doctor notes
        return doctor(dopts, session=session)


def _compare_doc(opts: ReportOptions, made: dict, session: Session):
    from profiler.compose.compare import CompareOptions, compare

    copts = CompareOptions(
        target=opts.target,
        python=opts.python,
        runs=opts.runs,
        warmup=opts.warmup,
        min_time_s=opts.min_time_s,
        ignore_failure=opts.ignore_failure,
    )
    with session.quiet(warnings=False, progress=False):  # nor compare's
        return compare(copts, session=session)


_CAPTURE = {
    "startup": _startup_doc,
    "imports": _imports_doc,
    "trace": _trace_doc,
    "site": _site_doc,
    "doctor": _doctor_doc,
    "compare": _compare_doc,
}


def _part_progress(session: Session, part: str):
    """The part's own progress, labelled with the part (`report: imports: run 2`); the part's
    start is said before its workflow reports anything (site and a compare build report none)."""
    session.progress(Phase(part))
    return session.relabelled(lambda phase: Phase(part, phase.label, phase.done, phase.total))


def _part_unavailable(part: str, interp) -> str | None:
    """Why `interp` cannot serve a part (as `importprof pythons` says), or None."""
    from profiler.model.interpreter import COMMAND_NEEDS, why_not_needs

    if interp is None or part not in COMMAND_NEEDS:
        return None
    reason = why_not_needs(interp, COMMAND_NEEDS[part])
    return None if reason is None else f"{interp.path} ({interp.version}): {reason}"


def report_live(opts: ReportOptions, *, session: Session) -> PageReport:
    """Run every part through its own workflow. A part whose workflow is not installed, or
    whose tool is missing or denied (strace), is skipped with the reason; a failing target
    stops everything (exit 3), as each command would."""
    from profiler.capture.interpreter import interpreter_for
    from profiler.capture.machine import read_machine, start_sample

    unknown = [p for p in opts.skip if p not in PARTS]
    if unknown:
        raise UsageError(f"unknown part {unknown[0]!r} for --skip (choose from: {', '.join(PARTS)})")
    included = list(opts.included) if opts.included is not None else load_documents(opts.include) if opts.include else []
    interp = interpreter_for(opts.python, session=session) if opts.target.is_python or opts.python else None
    if interp is not None:  # each part is handed the interpreter, not the spec: one probe for the page
        from dataclasses import replace

        opts = replace(opts, python=interp)
    start_sample(session)  # the machine's load is read over the parts' runs, not waited for before them
    docs: list[tuple[str, dict]] = []
    skipped: list[dict] = []
    made: dict = {}  # the parts' reports: doctor reads what the others measured, never again
    if opts.compare and not opts.target.is_python:
        raise UsageError("--compare needs a Python target (SCRIPT, -m MODULE, -c CODE), not `-- COMMAND`")
    for part in PARTS + (OPTIONAL_PARTS if opts.compare else ()):
        if part in opts.skip:
            skipped.append({"part": part, "reason": f"skipped (--skip {part})"})
            continue
        if part == "doctor" and not opts.target.is_python:
            skipped.append({"part": part, "reason": "doctor examines a Python target (-c, -m, SCRIPT), not `-- COMMAND`"})
            continue
        why_not = _part_unavailable(part, interp)
        if why_not:  # this interpreter cannot serve the part: the others still make the page
            skipped.append({"part": part, "reason": why_not})
            session.warn(_part_skipped(part, why_not))
            continue
        try:
            with _part_progress(session, part):
                made[part] = _CAPTURE[part](opts, made, session=session)
            doc = made[part].to_dict()
        except (ToolMissing, ToolFailed) as exc:
            if part == "startup":
                raise
            skipped.append({"part": part, "reason": exc.message})
            session.warn(_part_skipped(part, exc.message))
            continue
        doc = dict(doc)
        if not doc.get("machine"):
            doc["machine"] = read_machine(session=session)
        docs.append(("this run", doc))
    machine = read_machine(session=session)
    docs.extend(included)
    from profiler.analysis.page import interpreter_facts

    from profiler.analysis.page import interpreters_seen

    derived = _page_data(docs, machine)
    derived["interpreter"] = interpreter_facts(interp.to_dict() if interp else None)
    derived["interpreters"] = interpreters_seen(interp.to_dict() if interp else None, [(kind_of(d), d) for _, d in docs])
    return PageReport(
        documents=tuple(docs),
        machine=machine,
        title=opts.title or "importprof report",
        target=opts.target.label(),
        interpreter=interp.to_dict() if interp else None,
        sources=tuple(opts.include),
        skipped=tuple(skipped),
        generated_at=_now(),
        derived=derived,
    )
