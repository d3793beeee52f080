"""`site` runs (hook records + import records) → SiteReport; the start-up note. Pure."""

from __future__ import annotations

from statistics import median
from typing import Any, Sequence

from profiler.model.phases import ModulePhases
from profiler.model.site import Customize, PthFile, PthLine, SiteModule, SiteReport, SiteRun, UserSite


def _s(us: float) -> float:
    return us / 1e6


def _modules_in(mods: Sequence[ModulePhases], context: tuple[Any, ...], whole: bool = False) -> list[ModulePhases]:
    """The modules imported where `context` says (a .pth file, one of its lines, site): their
    context starts with it (`whole`: is it)."""
    n = len(context)
    return [m for m in mods if m.context and not m.failed
            and (tuple(m.context) == context if whole else tuple(m.context)[:n] == context)]


def _top_level_us(mods: Sequence[ModulePhases]) -> int:
    """Σ cumulative of the records whose parent is not in the list (no double counting)."""
    idx = {m.index for m in mods}
    return sum(m.cumulative_us for m in mods if m.parent not in idx)


def build_site_report(
    runs: Sequence[tuple[SiteRun, Sequence[ModulePhases]]],
    machine: dict[str, Any],
    python: str,
    python_version: str,
    warnings: Sequence[str] = (),
) -> SiteReport:
    """Median times over runs; file lists, line texts and module names from the first run."""
    if not runs:
        raise ValueError("no site runs")
    first, first_mods = runs[0]

    def med_pth(path: str, lineno_i: int | None = None) -> float:
        vals = []
        for run, _ in runs:
            for p in run.pth:
                if p["path"] == path:
                    if lineno_i is None:
                        vals.append(p["us"])
                    elif lineno_i < len(p["lines"]):
                        vals.append(p["lines"][lineno_i]["us"])
                    break
        return _s(median(vals)) if vals else 0.0

    pth_files = []
    for p in first.pth:
        path = p["path"]
        lines = []
        for i, ln in enumerate(p["lines"]):
            in_line = _modules_in(first_mods, ("pth", path, ln["lineno"]))
            lines.append(PthLine(ln["lineno"], ln["text"], med_pth(path, i), tuple(m.name for m in in_line)))
        in_file = _modules_in(first_mods, ("pth", path))
        pth_files.append(
            PthFile(
                path=path,
                seconds=med_pth(path),
                lines=tuple(lines),
                modules=tuple(m.name for m in in_file),
                modules_us=_top_level_us(in_file),
            )
        )

    def customize(which: str) -> Customize | None:
        if getattr(first, which) is None:
            return None
        vals = [getattr(r, which)["us"] for r, _ in runs if getattr(r, which)]
        mods = _modules_in(first_mods, (which,), whole=True)
        return Customize(getattr(first, which).get("path"), _s(median(vals)), tuple(m.name for m in mods))

    user = None
    if first.user_site is not None:
        u = first.user_site
        user = UserSite(
            u.get("path"),
            bool(u.get("enabled")),
            bool(u.get("exists")),
            _s(median(r.user_site["us"] for r, _ in runs if r.user_site)),
        )
    before = set(first.sys_path_before)
    added = tuple(p for p in first.sys_path_after if p not in before)
    site_mods = [m for m in first_mods if m.context and m.context[0] in ("site", "pth", "sitecustomize", "usercustomize")]
    idx = {m.index for m in site_mods}
    return SiteReport(
        machine=machine,
        python=python,
        python_version=python_version,
        runs=len(runs),
        seconds=_s(median(r.main_us for r, _ in runs)),
        pth=tuple(pth_files),
        sitecustomize=customize("sitecustomize"),
        usercustomize=customize("usercustomize"),
        user_site=user,
        sys_path_added=len(added),
        sys_path_entries=added,
        modules=tuple(SiteModule(m.name, m.cumulative_us, tuple(m.context)) for m in site_mods if m.parent not in idx),
        warnings=tuple(warnings) + tuple(repeated_pth_notes([p.path for p in pth_files])),
    )


def repeated_pth_notes(paths: Sequence[str]) -> list[str]:
    """Issue 11.11: a .pth file site processed more than once, and why (pure: from the paths site
    reported, in processing order). Two causes, both real (strace shows every read):
    the same path again - site added its directory twice (in a virtual environment site.venv()
    processes the venv's site-packages, then site.main() processes the same prefix again: the
    directory goes on sys.path once, but addsitedir reads its .pth files at every pass); or the
    same file under lib64/ and lib/ - lib64 is a symlink to lib, and site compares paths, not files."""
    import os
    from collections import Counter

    notes = []
    by_dir: dict[tuple[str, int], list[str]] = {}
    for path, n in Counter(paths).items():
        if n > 1:
            by_dir.setdefault((os.path.dirname(path), n), []).append(os.path.basename(path))
    for (folder, n), names in by_dir.items():
        notes.append(
            f"site processed the .pth files of {folder} {n} times ({', '.join(names)}): it added that "
            "directory more than once - in a virtual environment site.venv() processes the venv's "
            "site-packages and site.main() then processes the same prefix again; sys.path gets the "
            "directory once, but its .pth files are read and their lines run at every pass (later "
            "passes find their imports already loaded; each file's time above is the median over all passes)"
        )
    seen: dict[str, str] = {}
    for path in dict.fromkeys(paths):  # distinct paths, in order
        twin = path.replace("/lib64/", "/lib/")
        if twin in seen and seen[twin] != path:
            notes.append(
                f"{os.path.basename(path)} was processed twice, as {seen[twin]} and {path}: one file when "
                "lib64 is a symlink to lib (as in a virtual environment on 64-bit Linux); site compares "
                "paths, not files, so it reads the file and runs its lines at both"
            )
        seen.setdefault(twin, path)
    return notes


def site_startup_note(default_mean: float, no_site_mean: float, report: SiteReport | None) -> str | None:
    """The `importprof startup` note: when site (default − no-site) costs more than 2× a bare
    start (no-site), say so and name the costliest .pth file."""
    if no_site_mean <= 0:
        return None
    cost = default_mean - no_site_mean
    if cost <= 2 * no_site_mean:
        return None
    ratio = default_mean / no_site_mean
    text = (
        f"site costs {cost * 1e3:.1f} ms, {cost / no_site_mean:.1f}x a bare start "
        f"({no_site_mean * 1e3:.1f} ms with -S; start-up is {ratio:.1f}x slower with site)"
    )
    worst = report.costliest_pth if report else None
    if report is not None and worst is not None:
        mods = f", importing {', '.join(worst.modules[:3])}" if worst.modules else ""
        more = f" and {len(worst.modules) - 3} more" if len(worst.modules) > 3 else ""
        text += f"; costliest .pth: {worst.path} ({worst.seconds * 1e3:.1f} ms{mods}{more})"
        # the .pth figure is from another run than the site cost above: say so,
        # by how much the two runs' site figures differ, and why a part may exceed that whole
        gap = report.seconds - cost
        text += (
            f", measured in one separate instrumented run where site.main() took {report.seconds * 1e3:.1f} ms"
            f" ({abs(gap) * 1e3:.1f} ms {'more' if gap >= 0 else 'less'} than the timed difference)"
        )
        if worst.seconds > cost:
            text += ": runs differ, so that .pth can exceed the site cost above"
        text += " - see `importprof site`"
    elif report is not None:
        text += "; no .pth file is processed - see `importprof site`"
    return text
