"""`importprof doctor`'s findings, from measurements other commands already make. Pure: each
function turns one measurement into zero or more priced findings (model/doctor.py)."""

from __future__ import annotations

import math
import os
import posixpath
from dataclasses import replace
from typing import Mapping, Sequence

from profiler.analysis.syscalls import call_path, is_failed_lookup
from profiler.model.doctor import Finding
from profiler.model.import_records import ModuleRecord
from profiler.model.lazy import LazyReport
from profiler.model.site import SiteReport
from profiler.model.syscall_trace import Syscall


def _names(names: Sequence[str], shown: int = 6) -> str:
    head = ", ".join(names[:shown])
    return head + (f" (+{len(names) - shown} more)" if len(names) > shown else "")


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Costliest first; measured before estimated at equal cost."""
    return sorted(findings, key=lambda f: (-f.cost_us, f.estimate, f.kind, f.where))


def cap_findings(findings: Sequence[Finding], startup_s: float | None) -> list[Finding]:
    """No finding saves more than the whole start-up measured as is: a figure above it (an
    estimate summing parts that overlap, or a traced run's slower calls) is cut to it, and says so."""
    if startup_s is None or startup_s <= 0:
        return list(findings)
    whole = int(round(startup_s * 1e6))
    out = []
    for f in findings:
        if f.cost_us > whole:
            f = replace(f, cost_us=whole, title=f"{f.title} (at most the whole start-up: {whole / 1000:.1f} ms measured, "
                                                f"{f.cost_us / 1000:.1f} ms estimated)")
        out.append(f)
    return out


def saving_us(without_s: float | None, with_s: float | None) -> int | None:
    """Start-up saved by a fix: the mean without it minus the mean with it (µs; negative when the
    fix made start-up slower), None when either side was not measured."""
    if without_s is None or with_s is None:
        return None
    return int(round((without_s - with_s) * 1e6))


def spread_us(without_sd: float | None, with_sd: float | None) -> int | None:
    """The spread of a saving (µs): the two timings' standard deviations combined (root of the
    sum of squares), None when either is unknown."""
    if without_sd is None or with_sd is None:
        return None
    return int(round(math.hypot(without_sd, with_sd) * 1e6))


def cpu_time(result) -> tuple[float, float | None] | None:
    """A timing's CPU time (user + system) per run: (mean, standard deviation; None with one
    run), None when the engine did not record it per run."""
    users, systems = getattr(result, "user_times", None), getattr(result, "system_times", None)
    if not users or not systems or len(users) != len(systems):
        return None
    runs = [u + s for u, s in zip(users, systems)]
    mean = sum(runs) / len(runs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in runs) / (len(runs) - 1)) if len(runs) > 1 else None
    return mean, sd


def with_cpu(how: str, without: tuple[float, float | None] | None, with_fix: tuple[float, float | None] | None) -> str:
    """`how` with the CPU time the fix saved said after it: a start-up is one busy thread, so on an
    idle machine its wall time is about its CPU time, and on a busy one the wall difference is
    mostly waiting for a core while the CPU difference is still the fix's."""
    if without is None or with_fix is None:
        return how
    saved, spread = saving_us(without[0], with_fix[0]), spread_us(without[1], with_fix[1])
    return how + f"; CPU time (user + system) saved: {saved / 1000:.1f} ms" + (f" ± {spread / 1000:.1f} ms" if spread is not None else "")


def verified(finding: Finding, measured_us: int | None, how: str, spread: int | None = None) -> Finding:
    """The finding with what --verify measured (or, with measured_us None, why it could not),
    and the spread of that measurement (a saving below it is noise)."""
    return replace(finding, measured_us=measured_us, verify=how,
                   measured_spread_us=spread if measured_us is not None else None)


# -- no-pyc ---------------------------------------------------------------------------------
def no_pyc_cause(facts: Mapping) -> str:
    if facts.get("pycache_prefix"):
        return f"-X pycache_prefix / PYTHONPYCACHEPREFIX puts .pyc files in {facts['pycache_prefix']}, which holds no valid ones"
    if facts.get("env_dont_write_bytecode"):
        return "PYTHONDONTWRITEBYTECODE is set, so no .pyc is ever written"
    if facts.get("dont_write_bytecode"):
        return "-B is in effect, so no .pyc is ever written"
    return "no valid .pyc could be written (an unwritable __pycache__, or sources newer than their .pyc)"


def no_pyc_finding(modules: Sequence[ModuleRecord], facts: Mapping, compile_us: int | None = None) -> Finding | None:
    """Modules compiled from source in the profiled runs (`compiled`, from imports --phases);
    cost: compiling them, re-timed without a hook in CPU time (`compile_us`, from
    capture/doctor.path_import_cost) when given, else their compile phase in the instrumented
    run (`unmarshal_us`: compiling the source and trying to write .pyc), which a busy machine's
    waiting inflates (a pygments copy at load 2.5: 277 ms of phase against 124 ms of CPU time
    saved by its .pyc)."""
    compiled = [m for m in modules if m.compiled]
    if not compiled:
        return None
    cost = compile_us if compile_us else sum(int(m.unmarshal_us or 0) for m in compiled)
    names = [m.name for m in compiled]
    cause = no_pyc_cause(facts)
    return Finding(
        kind="no-pyc",
        title=f"{len(names)} module{'s' if len(names) != 1 else ''} compiled from source at every start: {cause}",
        where=_names(names),
        cost_us=cost,
        fix="write the .pyc files once at install time (`python -m compileall -q <folders>`, e.g. in the image "
            "build) or unset PYTHONDONTWRITEBYTECODE / -B where the code runs",
        measured_by=("compiling them again without a hook (CPU time)" if compile_us else "imports --phases (compile phase)"),
    )


# -- pth-import -----------------------------------------------------------------------------
def pth_findings(site: SiteReport) -> list[Finding]:
    """One finding per .pth file whose lines execute code (cost: the file, as `site` measures).
    A file site processes twice (a venv: its prefix and its base lead to the same folder) is one
    finding whose cost is both passes, and says so."""
    by_file: dict[str, list] = {}
    for p in site.pth:
        if p.lines:
            by_file.setdefault(posixpath.normpath(p.path), []).append(p)
    out = []
    for passes in by_file.values():
        p = passes[0]
        first = p.lines[0]
        where = p.path if first.lineno is None else f"{p.path}:{first.lineno}"
        mods = f" importing {_names(list(p.modules), 4)}" if p.modules else ""
        name = posixpath.basename(p.path)
        stem = name[: -len(".pth")] if name.endswith(".pth") else name
        twice = (f", processed {len(passes)} times (site reaches its folder more than once, as in a venv)"
                 if len(passes) > 1 else "")
        out.append(Finding(
            kind="pth-import",
            title=f"{name} runs {len(p.lines)} import line{'s' if len(p.lines) != 1 else ''} at every start{mods}{twice}",
            where=where,
            cost_us=int(round(sum(x.seconds for x in passes) * 1e6)),
            fix=f"PEP 829 (3.15) deprecates import lines in .pth files: move the code into a function and name it "
                f"as an entry point `pkg.mod:callable` in {stem}.start beside the .pth (a matching .start file "
                f"turns the .pth's import lines off; they are ignored from 3.18), or drop the line if nothing needs it",
            measured_by="site",
        ))
    return out


# -- failed-lookups -------------------------------------------------------------------------
def failed_lookups_by_entry(calls: Sequence[Syscall], sys_path: Sequence[str]) -> list[tuple[int, str, int, float]]:
    """Failed stats/opens (ENOENT/ENOTDIR) per sys.path entry: (index, entry, count, seconds as
    strace timed them); lookups under no entry are left out. Sorted by seconds, descending."""
    entries = [(i, posixpath.normpath(e)) for i, e in enumerate(sys_path) if e.startswith("/")]
    entries.sort(key=lambda ie: -len(ie[1]))
    tally: dict[tuple[int, str], list] = {}
    for c in calls:
        if not is_failed_lookup(c):
            continue
        path = call_path(c)
        if not path or not path.startswith("/"):
            continue
        path = posixpath.normpath(path)
        for i, e in entries:
            if path == e or path.startswith(e.rstrip("/") + "/"):
                t = tally.setdefault((i, e), [0, 0.0])
                t[0] += 1
                t[1] += c.duration_s or 0.0
                break
    out = [(i, e, n, s) for (i, e), (n, s) in tally.items()]
    out.sort(key=lambda x: (-x[3], -x[2], x[0]))
    return out


def lookup_advice(index: int, entry: str, sys_path: Sequence[str]) -> str:
    """What to do about failed lookups in sys.path[index], by what the entry is: moving the
    stdlib or the last entry later cannot help, and site-packages holds what is installed."""
    later = [e for e in sys_path[index + 1 :] if e]
    name = posixpath.basename(entry.rstrip("/"))
    if not later:
        return ("nothing comes after this entry: these lookups are for modules that exist nowhere (failed imports, "
                "optional dependencies probed): import them only where they are used")
    if name.startswith("python") and (name.endswith(".zip") or "." in name[6:]) or name == "lib-dynload":
        return ("the standard library is searched before site-packages by design: these lookups are for modules "
                "installed further down; they shrink as fewer such modules are imported at start-up, not by "
                "moving the stdlib")
    if name in ("site-packages", "dist-packages"):
        return ("installed packages live here: these lookups are for modules found further down sys.path or nowhere; "
                "remove the later entries the program does not need, or import less at start-up")
    return ("every import of a module found further down sys.path first fails here: put this entry later on "
            "sys.path, or remove it if nothing is imported from it")


def failed_lookup_findings(calls: Sequence[Syscall], sys_path: Sequence[str], top: int = 3) -> list[Finding]:
    out = []
    for i, entry, count, seconds in failed_lookups_by_entry(calls, sys_path)[:top]:
        first = " (sys.path[0]: the script's or current folder)" if i == 0 else ""
        fix = lookup_advice(i, entry, sys_path)
        if i == 0:
            fix += "; for sys.path[0], -P / PYTHONSAFEPATH (3.11+) leaves it out when the program's modules are elsewhere"
        if entry.endswith((".egg", ".zip")):
            fix += "; a .zip/.egg entry is tried by every import: drop it if the file does not exist, else install unzipped"
        out.append(Finding(
            kind="failed-lookups",
            title=f"{count} failed file lookups in sys.path[{i}]{first}",
            where=entry,
            cost_us=int(round(seconds * 1e6)),
            fix=fix,
            measured_by="trace (strace -T: each call is slower while traced)",
        ))
    return out


# -- lazy -----------------------------------------------------------------------------------
def _lazy_where(report: LazyReport) -> str:
    """Where the lazy finding points: the statement that saved the most measured alone; else the
    costliest not measured alone; never one that, measured alone, saved nothing (a console
    script's `from pkg import main`, called at once): when every statement did, no single edit
    saves it and the finding points at the target."""
    best = [s for s in report.statements if not s.saves_nothing]
    return best[0].site if best else report.target


def lazy_finding(report: LazyReport) -> Finding | None:
    """The saving `importprof lazy` timed (eager mean − lazy mean, the emulation's own cost taken
    out on 3.8-3.14). A saving within the timings' spread, a lazy run no faster, or one whose
    output differs is no finding: doctor never recommends what the command that measures it
    refutes (Mercurial: 1.15x slower lazy, where the untimed estimate this replaces said 16.6 ms)."""
    cost = lazy_saving_us(report)
    if cost is None or cost <= (lazy_spread_us(report) or 0) or cost <= 0 or not report.identical_output:
        return None
    kept = [m.name for m in report.must_stay_eager]
    keep_text = f"; keep eager: {', '.join(kept)}" if kept else ""
    return Finding(
        kind="lazy",
        title=f"lazy imports save {cost / 1000:.1f} ms: {len(report.avoided)} modules never used at start-up",
        where=_lazy_where(report), cost_us=cost,
        fix=("defer imports that start-up does not use: `lazy import` (PEP 810, 3.15), importlib.util.LazyLoader, "
             f"or imports moved into the functions that use them{keep_text}"),
        measured_by="lazy (eager vs lazy, timed)",
    )


def lazy_no_gain(report: LazyReport) -> str | None:
    """Why a timed lazy run is no finding, in words for doctor's check (None: it is one)."""
    saved = lazy_saving_us(report)
    if saved is None:
        return None
    if not report.identical_output:
        return "lazy imports change the program's output (see importprof lazy)"
    spread = lazy_spread_us(report) or 0
    if saved <= 0:
        return f"lazy imports measured no faster ({-saved / 1000:.1f} ms slower)"
    if saved <= spread:
        return f"lazy imports measured {saved / 1000:.1f} ms faster, within the timings' spread (± {spread / 1000:.1f} ms)"
    return None


def lazy_saving_us(report: LazyReport) -> int | None:
    """What the lazy run measured: eager mean − lazy mean (µs), None when it was not timed.
    Under the emulation (3.8-3.14) the lazy mean is lazy's prediction, the emulated run with the
    emulation's own cost (its launcher, its bindings) taken out, as `importprof lazy` reports it;
    on 3.15 the prediction is the measured run itself."""
    by = {r.variant: r for r in report.results if not r.failed and r.mean is not None}
    if "eager" not in by or "lazy" not in by:
        return None
    lazy_mean = report.prediction.lazy_mean if report.prediction is not None else by["lazy"].mean
    return saving_us(by["eager"].mean, lazy_mean)


def lazy_spread_us(report: LazyReport) -> int | None:
    """The spread of lazy_saving_us (the eager and lazy timings' standard deviations combined)."""
    by = {r.variant: r for r in report.results if not r.failed and r.mean is not None}
    if "eager" not in by or "lazy" not in by:
        return None
    return spread_us(by["eager"].stddev, by["lazy"].stddev)


def lazy_cpu(report: LazyReport) -> tuple[tuple[float, float | None] | None, tuple[float, float | None] | None]:
    """The eager and lazy runs' CPU time (mean, stddev) for with_cpu; under the emulation the
    lazy side has the same emulation cost taken out as lazy_saving_us's wall figure."""
    by = {r.variant: r for r in report.results if not r.failed and r.mean is not None}
    if "eager" not in by or "lazy" not in by:
        return None, None
    eager, lazy_run = cpu_time(by["eager"]), cpu_time(by["lazy"])
    if lazy_run is not None and report.prediction is not None and report.prediction.lazy_mean is not None:
        lazy_run = (lazy_run[0] - (by["lazy"].mean - report.prediction.lazy_mean), lazy_run[1])
    return eager, lazy_run


# -- in-memory ------------------------------------------------------------------------------
def in_memory_verified(finding: Finding, timed: Mapping[str, tuple], cpu: Mapping[str, tuple[float, float | None]] | None = None) -> Finding:
    """--verify of in-memory from `importprof compare`'s variants ({variant: (mean, stddev)}):
    the launcher with the standard path importer (`oxidized`) against the same launcher with the
    in-memory resources; the launcher never runs site, so `traditional` against it would count
    site and its .pth files as the in-memory saving (-c pass on 3.11: 74.6 ms of 87.5).
    `cpu` ({variant: (mean CPU s, stddev)}, compare's user + system) is said beside the wall
    figure: on a busy machine the wall difference is mostly waiting, the CPU one is not."""
    if "oxidized" not in timed or "in-memory" not in timed:
        return verified(finding, None, "not verified: a variant failed to run")
    (a, sa), (b, sb) = timed["oxidized"], timed["in-memory"]
    cpu_a, cpu_b = (cpu or {}).get("oxidized"), (cpu or {}).get("in-memory")
    if cpu_a is not None and cpu_b is not None:
        # the figure is compare's measured CPU (user + system): what packing saves is work, and
        # on a busy machine the wall difference is mostly waiting; the wall figure said beside it
        wall, wall_sd = saving_us(a, b), spread_us(sa, sb)
        how = with_cpu("the launcher's standard path importer vs its in-memory resources (importprof compare: oxidized vs "
                       "in-memory, neither runs site), the figure its CPU time", cpu_a, cpu_b)
        how += f"; wall time saved: {(wall or 0) / 1000:.1f} ms" + (f" ± {wall_sd / 1000:.1f} ms" if wall_sd is not None else "")
        return verified(finding, saving_us(cpu_a[0], cpu_b[0]), how, spread_us(cpu_a[1], cpu_b[1]))
    how = with_cpu("the launcher's standard path importer vs its in-memory resources (importprof compare: oxidized vs "
                   "in-memory, neither runs site)", (cpu or {}).get("oxidized"), (cpu or {}).get("in-memory"))
    return verified(finding, saving_us(a, b), how, spread_us(sa, sb))


def in_memory_finding(cost: Mapping | None) -> Finding | None:
    """What packed in-memory resources (PyOxidizer's importer) take away, from
    capture/doctor.path_import_cost: the path importer's find and its loader's work for each
    module the program loaded from a file, minus unmarshalling (which a packed module still
    does), timed in CPU time without a hook; a module compiled from source at every start counts
    its compiling too (packed bytecode spares it: the no-pyc finding overlaps). An instrumented run's find + read phases price the
    hook's own wrappers and, on a busy machine, its waiting (pip --version: 86 ms of find + read
    against 19 ms of CPU saved by the real in-memory build). What the in-memory importer itself
    costs (reading its packed index) is not counted: `--verify` times the real build."""
    if not cost or not cost.get("located") or cost.get("saved_us", 0) <= 0:
        return None
    n = int(cost["located"])
    spread = int(cost.get("spread_us") or 0)
    compiled = (f"; {cost['compiled']} of them compiled from source at every start, which packed bytecode spares "
                f"too, as .pyc files would (no-pyc)" if cost.get("compiled") else "")
    left_text = f"; left out: {cost['missing']} not found from the start-up sys.path" if cost.get("missing") else ""
    return Finding(
        kind="in-memory",
        title=f"estimate: the path importer finding and loading {n} modules' files, the part packed in-memory "
              f"resources remove (CPU time ± {spread / 1000:.1f} ms{compiled}{left_text})",
        where="sys.path finders and file reads",
        cost_us=int(cost["saved_us"]),
        fix="pack the modules into memory (PyOxidizer's in-memory importer; `importprof build` + `importprof compare "
            "--variant in-memory` measures it on this program)",
        estimate=True,
        measured_by="the path importer's find + get_code minus unmarshal (which a packed module still does), "
                    "re-run without a hook (CPU time, median of 5 passes)",
    )


# -- module-work ----------------------------------------------------------------------------
MODULE_WORK_MIN_US = 2000  # a statement that costs less at every start is not worth a finding


def module_work_findings(modules: Sequence[ModuleRecord], top: int = 3) -> list[Finding]:
    """Top-level statements doing work at import (imports --statements: their share of the module
    body's sampled time × the module's measured self), the costliest `top` over 2 ms: an SSL
    context, a regex table, a config file, built at every start whether used or not."""
    rows = []
    for m in modules:
        body = m.statements_sampled_us
        for s in m.statements:
            if body:
                rows.append((round(s["self_us"] / body * m.self_us), m, s))
    rows.sort(key=lambda r: (-r[0], r[1].name))
    out = []
    for cost, m, s in rows[:top]:
        if cost < MODULE_WORK_MIN_US:
            break
        out.append(Finding(
            kind="module-work",
            title=f"{m.name} does work at import: {s.get('statement') or 'a top-level statement'}",
            where=s["site"],
            cost_us=cost,
            fix="do it on first use instead (a function with functools.cache, or a module __getattr__), or at build "
                "time: a top-level statement runs at every start-up, whether the program needs it or not",
            estimate=True,
            measured_by="imports --statements (the statement's share of the module body, sampled, × its self)",
        ))
    return out


# -- site -----------------------------------------------------------------------------------
def site_finding(site: SiteReport, bare_s: float | None) -> Finding | None:
    """site.main()'s total when it exceeds a bare interpreter start (`python -S -c pass`). It is
    site's own time, not what a start without site saves: without it site-packages is off
    sys.path, and what the program looks up there later changes too (pygments' plugin scan on a
    Python whose site-packages holds IPython: 21 ms of site, 480 ms saved by -S), which only
    --verify measures; the title says so."""
    if bare_s is None or site.seconds <= bare_s:
        return None
    costliest = site.costliest_pth
    worst = f"; costliest .pth: {costliest.path} ({costliest.seconds * 1e3:.1f} ms)" if costliest and costliest.seconds > 0 else ""
    return Finding(
        kind="site",
        title=f"site takes {site.seconds * 1e3:.1f} ms, more than a whole bare start ({bare_s * 1e3:.1f} ms){worst} "
              f"(site's own time; a start without it can save more or less: site-packages is then off sys.path, "
              f"for what the program looks up there later, such as plugins: --verify times it)",
        where=site.python,
        cost_us=int(round(site.seconds * 1e6)),
        fix="trim site-packages' .pth files (see the pth-import findings), sitecustomize and user site (-s / "
            "PYTHONNOUSERSITE); for tools that need no site-packages, run them with -S or -I",
        measured_by="site",
    )


# -- frozen-off -----------------------------------------------------------------------------
def frozen_off(facts: Mapping) -> bool:
    """3.11+ with the stdlib's frozen modules turned off (-X frozen_modules=off, a source tree,
    or a debug build)."""
    version = tuple(facts.get("version") or ())
    return version >= (3, 11) and facts.get("os_origin") != "frozen"


def frozen_off_finding(facts: Mapping, cost_s: float | None) -> Finding | None:
    if not frozen_off(facts) or cost_s is None or cost_s <= 0:
        return None
    if facts.get("frozen_xoption") == "off":
        why = "-X frozen_modules=off"
    elif facts.get("env_frozen") == "off":
        why = "PYTHON_FROZEN_MODULES=off"
    else:
        why = "the interpreter's default here: a source tree or a debug build"
    return Finding(
        kind="frozen-off",
        title=f"the stdlib's frozen modules are off ({why}): start-up modules are read from files",
        where=os.path.dirname(str(facts.get("os_origin") or "")) or "stdlib",
        cost_us=int(round(cost_s * 1e6)),
        fix="drop -X frozen_modules=off (and PYTHON_FROZEN_MODULES=off); use an installed (non-debug) build",
        measured_by="startup (as is vs -X frozen_modules=on)",
    )
