"""The must-stay-eager set checked as a user applies it (issue 41): the bare interpreter (no
launcher, no hook of importprof's) with `-X lazy_imports=all` and exactly that set in the filter
module `lazy --filter-out` writes (`sys.set_lazy_imports_filter`, as sitecustomize.py on
PYTHONPATH), PLAIN_RUNS runs, each compared with a bare eager run. One mechanism: `lazy` runs it
(compose/lazy.py), `lazy --filter-out` reports what it found (compose/lazy_apply.py), so the
table, the JSON and the filter file give one set.

What importprof's launcher imported itself can hide a module the program needs eager (Mercurial
on 3.15: `re`); such modules are found here by bisection and join the set. On 3.8-3.14 the same
check runs on a provisioned 3.15 when the program runs there (its distributions install there):
the modules bisected over are then those a probe run on that 3.15 loads.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from profiler.errors import TargetFailed
from profiler.model.lazy import MustStayEager, PlainCheck, ProgramOutput
from profiler.model.words import Said, WarningKind
from profiler.session import Session

if TYPE_CHECKING:
    from profiler.compose.lazy import _Lazy


PLAIN_RUNS = 3  # bare runs with the filter, each compared with a bare eager run
HOW = ("the bare interpreter with -X lazy_imports=all and the keep-eager set in a sys.set_lazy_imports_filter "
       "(the module `importprof lazy --filter-out` writes, as sitecustomize.py on PYTHONPATH)")


def find_315(interp, session: Session):
    """A Python 3.15+ to prove lazy imports on: the --python one when it is, else pyenv's (its
    version as the interpreter itself reports it, not as its folder is named)."""
    from profiler.capture.interpreter import candidates, resolve_python
    from profiler.errors import BadInput

    if interp.version_tuple[:2] >= (3, 15):
        return interp
    for exe in candidates("pyenv", "3.15"):
        try:
            found = resolve_python(exe, source="pyenv", session=session)
        except BadInput:
            continue
        if found.version_tuple[:2] >= (3, 15):
            return found
    return None


def filter_env(directory: str) -> dict[str, str]:
    """The environment that installs the filter module as --filter-out's docs say: its folder
    first on PYTHONPATH, where `site` imports sitecustomize from. Nothing else: the timed lazy
    run reads the program's bytecode where the eager one does (a bytecode folder of its own
    would make it compile every module the eager run reads from a .pyc file)."""
    old = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": directory + (os.pathsep + old if old else "")}


def _crashed(got: ProgramOutput, measured: ProgramOutput) -> bool:
    """The program does not run on the other interpreter: another exit code, or an ending in
    which its own code did not run where the measured run's did (a venv's extensions built for
    another version): every command's rule, parse/exit_status.py."""
    from profiler.parse.exit_status import read_ending

    if got.exit_code != measured.exit_code:
        return True
    return read_ending(measured.exit_code, measured.stderr).ran_on_purpose and \
        not read_ending(got.exit_code, got.stderr).ran_on_purpose


def plain_check(st: _Lazy) -> None:
    """`st.plain` (and st.must/st.keep grown by what the bare runs need eager): see the module."""
    import tempfile

    from profiler import sinks
    from profiler.analysis.lazy import bisect_candidates, comparison_for, describe_difference, masked
    from profiler.analysis.lazy_filter import filter_module
    from profiler.capture.process import run

    opts, t, measured, rec = st.opts, st.opts.target, st.reference, st.eager_rec
    assert t is not None and measured is not None and rec is not None, "plain_check runs after the eager reference"
    real = st.interp.version_tuple[:2] >= (3, 15)
    py = st.interp if real else find_315(st.interp, session=st.session)
    eager = sorted({*opts.keep_eager, *st.keep})
    if py is None:
        st.plain = PlainCheck(st.interp.path, st.interp.version, 0, False, tuple(eager),
                              skipped="no Python 3.15 here to run the real PEP 810 on", how=HOW)
        return
    if st.unstable:
        st.plain = PlainCheck(py.path, py.version, 0, False, tuple(eager), skipped="the program's output changes from run to run",
                              how=HOW)
        return
    folder = st.filter_dir = tempfile.mkdtemp(prefix="importprof-filter-")  # removed by lazy() when it ends
    lazy_runs = [0]

    def plain(lazy: bool, names) -> ProgramOutput:
        # the check's runs (not timed) keep their bytecode in importprof's folder, eager and lazy
        # alike, so that neither writes into the program's tree; the rest of the environment is
        # the user's, as in every other run (run() is given the whole environment)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(folder, "pycache")}
        argv = [py.path, *opts.flags, *t.python_argv()]
        if lazy:
            sinks.write_atomic(os.path.join(folder, "sitecustomize.py"),
                               filter_module(names, target=t.label(), python=py.version))
            env.update(filter_env(folder))
            argv = [py.path, "-X", "lazy_imports=all", *opts.flags, *t.python_argv()]
            lazy_runs[0] += 1
        proc = run(argv, env=env, timeout=opts.timeout, missing=TargetFailed, what="target", session=st.session)
        return masked(ProgramOutput(proc.stdout, proc.stderr, proc.returncode), st.runner.mask)

    ref = [plain(False, ())]  # the bare eager reference (masked once its numbers prove to vary)

    def judge(got: ProgramOutput) -> str | None:
        """The difference from the bare eager run; one in numbers only, not durations ("load 0.11"
        against "0.10", which the eager runs happened to print alike) is re-judged as `_only_timing`
        does: up to 3 more bare eager runs, and when one differs from the reference the same way,
        those numbers are the program's timing, compared masked from now on."""
        d = describe_difference(ref[0], got)
        if d is None or st.runner.mask is not None:
            return d
        try:
            how = comparison_for([ref[0], got])
        except ValueError:
            return d
        if how is None:
            return d
        for _ in range(3):
            again = plain(False, ())
            if again != ref[0] and masked(again, how) == masked(ref[0], how):
                st.compare_masked(how)
                ref[0] = masked(ref[0], how)
                return describe_difference(ref[0], masked(got, how))
        return d

    def numbers_only(a: ProgramOutput, b: ProgramOutput) -> bool:
        try:
            return comparison_for([a, b]) is not None
        except ValueError:
            return False

    reference = None
    differs = describe_difference(measured, ref[0])
    if differs and not numbers_only(measured, ref[0]):
        if not real and _crashed(ref[0], measured):
            st.plain = PlainCheck(py.path, py.version, 0, False, tuple(eager), how=HOW,
                                  skipped=f"the program does not run on {py.version} as on {st.interp.version} ({differs})")
            return
        if not real:  # it runs there, printing otherwise (a version line): the set is checked against 3.15's own run
            reference = f"the bare eager run on {py.version}, whose output differs from {st.interp.version}'s ({differs})"
        else:
            st.warning(Said(f"the program run bare differs from its run under importprof's launcher ({differs}): "
                            "the bare run is the reference of the check", WarningKind.BARE_DIFFERS, WarningKind.BARE_DIFFERS.value))

    def differs_with(names) -> str | None:
        for _ in range(PLAIN_RUNS):
            d = judge(plain(True, names))
            if d:
                return d
        return None

    difference = differs_with(eager)
    added: list[str] = []
    bisected = 0
    if difference:
        from profiler.analysis.bisect import minimize

        kept = set(eager)
        if real:
            pool = [n for n in bisect_candidates(rec, eager)] + sorted(
                n for n, _, _ in rec.executed if n not in kept and n != "__main__" and n not in rec.startup)
        else:  # the modules the program loads on that 3.15 (one probe run under the launcher there)
            from profiler.capture.lazy_apply import run_probe

            _, probe = run_probe(py.path, opts.flags, t, timeout=opts.timeout, session=st.session)
            pool = [n for n, _ in (probe or {}).get("modules", ()) if n != "__main__"]
        pool = list(dict.fromkeys(n for n in pool if n not in kept))
        st.session.info(f"the bare interpreter with the filter differs ({difference}): bisecting over {len(pool)} modules")
        before = lazy_runs[0]
        if judge(plain(True, eager + pool)) is None:
            res = minimize(pool, lambda sub: judge(plain(True, eager + list(sub))) is None,
                           max_tests=opts.max_bisect_runs)
            added = list(res.items)
            for name in added:
                st.must.append(MustStayEager(name, f"needed eager by the bare interpreter with the filter: without it {difference}"))
            st.keep = [*st.keep, *added]
            eager = sorted({*eager, *added})
            bisected = lazy_runs[0] - before
            difference = differs_with(eager)
        else:
            bisected = lazy_runs[0] - before
            st.warning(Said(f"the bare interpreter with -X lazy_imports=all differs even with every module eager ({difference})",
                            WarningKind.BARE_DIFFERS_ALL_EAGER, WarningKind.BARE_DIFFERS_ALL_EAGER.value))
    st.plain = PlainCheck(py.path, py.version, PLAIN_RUNS, difference is None, tuple(eager), tuple(added), difference, how=HOW,
                          reference=reference, bisect_runs=bisected)
    if difference:
        gist = f"with {', '.join(eager) or 'nothing'} kept eager by a plain filter, {py.path} -X lazy_imports=all differs from the eager run"
        st.warning(Said(f"{gist}: {difference}", WarningKind.FILTER_DIFFERS, gist))
