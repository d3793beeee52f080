"""`lazy --apply`, the verification and the proof: the program's outputs before and after on
every interpreter at hand and every --verify-with command (delta debugging takes back what
changes them), then start-up, import time and memory timed before and after
(compose/lazy_apply.py: the flow)."""

from __future__ import annotations

import os
from typing import Sequence

from profiler.compose.lazy_apply_select import _lines_by_file
from profiler.compose.lazy_apply_state import PLACEHOLDER, ApplyOptions, ApplyState, Job, _package_of, lower_bound, requires_python
from profiler.errors import BadInput
from profiler.model.lazy_apply import Check, ProofRow, Side, StatementVerdict
from profiler.model.words import Said, WarningKind
from profiler.session import Session


def find_oldest(directory: str, interp, given, session: Session):
    """`given`: --oldest-python (the Interpreter the command resolved; a spec from a library caller)."""
    from profiler.capture.interpreter import candidates, interpreter_for, resolve_python

    if given:
        return interpreter_for(given, session=session)
    spec, _ = requires_python(directory)
    low = lower_bound(spec) if spec else None
    if low is None:
        return None
    floor = max(low, (3, 8))
    # in version order, each asked for its version (a folder's name is no version): the first
    # that runs and is new enough is the oldest the project allows
    for exe in candidates("pyenv"):
        try:
            found = resolve_python(exe, source="pyenv", session=session)
        except BadInput:
            continue
        if found.version_tuple[:2] >= floor:
            return found if found.version_tuple[:2] < interp.version_tuple[:2] else None
    return None


def _jobs(opts: ApplyOptions, pythons, flags: Sequence[str]) -> list[Job]:
    from profiler.workflows.targets import command_lines

    target = opts.lazy.target
    jobs = [Job(p.path, target.label(), (p.path, *flags, *target.python_argv())) for p in pythons]
    for raw, argv in zip(opts.verify_with, command_lines("--verify-with", opts.verify_with)):
        shown = raw.strip()
        if any(PLACEHOLDER in a for a in argv):
            for p in pythons:
                jobs.append(Job(p.path, shown, tuple(a.replace(PLACEHOLDER, p.path) for a in argv)))
        else:
            jobs.append(Job("", shown, tuple(argv)))
    return jobs


def _outputs(jobs: Sequence[Job], timeout, session: Session):
    from profiler.capture.lazy_apply import run_fresh
    from profiler.model.lazy import ProgramOutput

    out = {}
    for job in jobs:
        o = run_fresh(job.argv, timeout=timeout, what=job.label, session=session)
        out[job] = ProgramOutput(o.stdout, o.stderr, o.returncode)
    return out


EXACT = "output and exit code"  # (the durations the program prints aside: analysis.lazy.DURATION)


MASKED = "output with decimal numbers masked (timings change from run to run)"


MASKED_ALL = "output with every number masked (they change from run to run)"


EXIT_ONLY = "exit code only (its output changes from run to run)"


# analysis.lazy.COMPARISONS key -> the mode's words in the document, and back
_MODES = {"decimals masked": MASKED, "numbers masked": MASKED_ALL}
_HOW = {words: how for how, words in _MODES.items()}


def comparison_modes(first: dict, second: dict) -> dict:
    """How each job is compared, from two runs before any edit: exactly; with decimal numbers
    masked (a test runner's timings; counts still compared); with every number masked; or by
    exit code alone (output that changes otherwise)."""
    from profiler.analysis.lazy import comparison_for

    modes = {}
    for job, a in first.items():
        try:
            how = comparison_for([a, second[job]])
        except ValueError:
            modes[job] = EXIT_ONLY
            continue
        modes[job] = EXACT if how is None else _MODES[how]
    return modes


def _differences(before, after, modes) -> dict:
    from profiler.analysis.lazy import describe_difference, masked

    out = {}
    for job, b in before.items():
        a, mode = after[job], modes.get(job, EXACT)
        if mode in (MASKED, MASKED_ALL):
            b, a = masked(b, _HOW[mode]), masked(a, _HOW[mode])
        if mode == EXIT_ONLY:
            out[job] = None if a.exit_code == b.exit_code else f"exit code {a.exit_code} instead of {b.exit_code}"
        else:
            out[job] = describe_difference(b, a)
    return out


def _verification_setup(state: ApplyState) -> None:
    """The interpreters at hand (the --python one, a 3.15, the oldest the project allows), the
    jobs, their outputs before any edit (twice: how each is compared)."""
    opts, interp, ctx = state.opts, state.interp, state.session
    oldest = find_oldest(state.directory, interp, opts.oldest_python, session=ctx)
    pythons = [interp]
    for p in (state.py315, oldest):
        if p is not None and all(os.path.realpath(p.path) != os.path.realpath(q.path) for q in pythons):
            pythons.append(p)
    jobs = _jobs(opts, pythons, opts.lazy.flags)
    before = _outputs(jobs, opts.lazy.timeout, session=ctx)
    usable = []
    for job in jobs:
        if job.python and job.python != interp.path and job.label == opts.lazy.target.label() and before[job].exit_code != 0:
            state.notes.append(f"{job.python} cannot run the target as is (exit code {before[job].exit_code}): left out of the proof")
            pythons = [p for p in pythons if p.path != job.python]
        else:
            usable.append(job)
    state.pythons = pythons
    state.jobs = [j for j in usable if not j.python or any(p.path == j.python for p in pythons)]
    state.before = {j: before[j] for j in state.jobs}
    state.modes = comparison_modes(state.before, _outputs(state.jobs, opts.lazy.timeout, session=ctx))
    for j in state.jobs:
        if state.modes[j] != EXACT:
            state.notes.append(f"{j.label}{' on ' + j.python if j.python else ''}: its output changes from run to run; "
                               f"compared by {state.modes[j]}")


def _run_edit(state: ApplyState, chosen) -> dict:
    """The program's outputs with `chosen` applied: differences from before, per job."""
    state.edits.write(state.edits.edited(_lines_by_file(chosen, state.edits), _package_of))
    got = _outputs(state.jobs, state.opts.lazy.timeout, session=state.session)
    return _differences(state.before, got, state.modes)


def _write_and_bisect(state: ApplyState) -> None:
    """The edit written and run; when the program differs, delta debugging finds the smallest
    set of statements to take back (the rest stays applied)."""
    chosen = state.chosen
    diffs = _run_edit(state, chosen)
    if any(diffs.values()) and chosen:
        bad = next(d for d in diffs.values() if d)
        state.session.info(f"the edited program differs ({bad}): bisecting over {len(chosen)} statements")
        from profiler.analysis.bisect import minimize

        def suffices(taken_back) -> bool:
            state.bisect_runs += 1
            return not any(_run_edit(state, [c for c in chosen if c not in taken_back]).values())

        keys = list(range(len(chosen)))
        if suffices([chosen[k] for k in keys]):
            res = minimize(keys, lambda sub: suffices([chosen[k] for k in sub]), max_tests=state.opts.max_bisect_runs)
            back = [chosen[k] for k in res.items]
            if not res.complete:
                state.warning(Said(f"bisection stopped after {state.opts.max_bisect_runs} runs: more statements than needed may have "
                                   "been taken back", WarningKind.BISECTION_STOPPED, f"bisection stopped after {state.opts.max_bisect_runs} runs"))
        else:
            back = list(chosen)
            state.warning(Said(f"the program differs even with no statement made lazy ({bad}): nothing applied",
                               WarningKind.DIFFERS_UNEDITED, WarningKind.DIFFERS_UNEDITED.value))
        for i, v in state.verdicts.items():
            if any(state.cands[i] is c for c in back):
                state.verdicts[i] = StatementVerdict(**{**v.__dict__, "measured": "differs in verification",
                                                        "decision": "eager", "why": "taken back by the verification"})
        state.chosen = [c for c in chosen if c not in back]
        diffs = _run_edit(state, state.chosen)
    state.diffs = diffs
    state.checks = tuple(Check(j.python or "(as written)", j.label, diffs[j] is None, diffs[j], state.modes[j]) for j in state.jobs)
    for c in state.checks:
        if not c.identical:
            gist = f"{c.command} on {c.python} still differs after the edit"
            state.warning(Said(f"{gist}: {c.difference}", WarningKind.STILL_DIFFERS, gist))


def _pythons_for(state: ApplyState, tag: str):
    """Executables that may be the interpreter of cache tag `tag`: those of this run first, then
    the machine's (pyenv, asdf, uv, the system's, PATH); each checks the tag itself."""
    import shutil

    from profiler.analysis.pyc import tag_version
    from profiler.capture.interpreter import candidates

    version = tag_version(tag)
    seen: set[str] = set()
    at_hand = [p.path for p in state.pythons if version and tuple(p.version_tuple[:2]) == version]
    found = []
    if version:
        pattern = f"{version[0]}.{version[1]}"
        for source in ("pyenv", "asdf", "uv", "system"):
            found += candidates(source, pattern)
        found.append(shutil.which(f"python{pattern}") or "")
    for exe in at_hand + found:
        real = os.path.realpath(exe) if exe else ""
        if exe and real not in seen:
            seen.add(real)
            yield exe


def _side(times, mems, profile, probe) -> Side:
    from profiler.analysis.statistics import mean, stddev

    unreified = None
    if probe is not None and probe.get("unreified") is not None:
        unreified = len(probe["unreified"])
    return Side(
        mean_s=mean(times) if times else None, stddev_s=stddev(times) if len(times) > 1 else None,
        min_s=min(times) if times else None, max_s=max(times) if times else None,
        import_us=profile.total_us if profile is not None else None,
        modules=len(probe["modules"]) if probe is not None else None,
        peak_rss_bytes=max(mems) if mems else None, unreified=unreified,
    )


def _proof(state: ApplyState, after):
    """Before and after, timed in alternating rounds, each side put in place exactly as it is
    (the sources with their modification times, their .pyc): `before` the tree as it was,
    `after` the tree as the edit leaves it, bytecode refreshed. A change of the machine's load
    during the proof lands on both sides alike."""
    from profiler.capture.timing import RunPlan
    from profiler.model.measurement import CommandSpec
    from profiler.workflows.measure import measure

    opts, pythons, edits = state.opts, state.pythons, state.edits
    t = opts.lazy.target
    sides = {"before": edits.original_snapshot(), "after": after}
    rounds = min(3, opts.proof_runs)
    per_round = max(1, -(-opts.proof_runs // rounds))
    times = {(side, p.path): [] for side in sides for p in pythons}
    mems = {(side, p.path): [] for side in sides for p in pythons}
    machine = {}
    for _ in range(rounds):
        for side, snap in sides.items():
            edits.put(snap)
            specs = [CommandSpec(argv=(p.path, *opts.lazy.flags, *t.python_argv()), variant=side, python=p.path,
                                 python_version=p.version, flags=tuple(opts.lazy.flags), target=t.label(),
                                 key=f"{side}:{p.path}", target_kind=t.kind) for p in pythons]
            with state.session.quiet():  # the proof's figures are its report
                m = measure(specs, RunPlan(runs=per_round, warmup=1, min_time_s=0.0), engine=opts.lazy.engine,
                            machine=machine or None, session=state.session)
            machine = machine or m.machine
            for r in m.results:
                side_, path = r.key.split(":", 1)
                times[(side_, path)].extend(r.times)
                mems[(side_, path)].extend(r.memory_usage_byte or ())
    figures = {}
    for side, snap in sides.items():
        edits.put(snap)
        for p in pythons:
            figures[(side, p.path)] = _side(times[(side, p.path)], mems[(side, p.path)], *_profile_and_probe(state, p))
    return tuple(_proof_row(state, p, figures) for p in pythons), machine


def _profile_and_probe(state: ApplyState, p):
    from profiler.capture.lazy_apply import run_probe
    from profiler.workflows.imports import ImportsOptions, imports

    opts, t = state.opts, state.opts.lazy.target
    profile = probe = None
    if p.version_tuple[:2] >= (3, 7):
        with state.session.quiet():
            profile = imports(ImportsOptions(target=t, python=p, runs=opts.profile_runs, warmup=1,
                                             flags=tuple(opts.lazy.flags)), session=state.session)
    if p.version_tuple[:2] >= (3, 8):
        _, probe = run_probe(p.path, opts.lazy.flags, t, timeout=opts.lazy.timeout, session=state.session)
    return profile, probe


def _proof_row(state: ApplyState, p, figures) -> ProofRow:
    b, a = figures[("before", p.path)], figures[("after", p.path)]
    overlap = False
    if None not in (b.mean_s, a.mean_s, b.stddev_s, a.stddev_s):
        overlap = (b.mean_s - b.stddev_s) <= (a.mean_s + a.stddev_s) and (a.mean_s - a.stddev_s) <= (b.mean_s + b.stddev_s)
    identical = all(state.diffs[j] is None for j in state.jobs if j.python == p.path)
    if overlap and p.version_tuple[:2] >= (3, 15):
        state.warning(Said(f"Python {p.version}: the start-up ranges before and after overlap (mean ± stddev): "
                           "the difference is within the noise of this run", WarningKind.RANGES_OVERLAP,
                           WarningKind.RANGES_OVERLAP.value, f"Python {p.version}"))
    return ProofRow(p.path, p.version, p.version_tuple[:2] >= (3, 15), b, a, identical, overlap)
