"""`importprof diff OLD.json NEW.json`: load two imports reports, compare, apply the gate."""

from __future__ import annotations

from dataclasses import dataclass

from profiler.errors import GateFailed, UsageError
from profiler.model.diff_report import DiffReport
from profiler.session import Phase, Session


@dataclass(frozen=True)
class DiffOptions:
    old: str
    new: str
    fail_over_ms: float | None = None
    fail_over_pct: float | None = None
    any_change: bool = False  # the gate fails on any growth over the threshold, significant or not


def diff(opts: DiffOptions) -> DiffReport:
    from profiler.analysis.diff import diff_reports, streaming_pairing
    from profiler.compose.diff_spill import ChangeRuns
    from profiler.workflows.imports import load_report

    for name, v in (("--fail-over", opts.fail_over_ms), ("--fail-over-pct", opts.fail_over_pct)):
        if v is not None and v < 0:
            raise UsageError(f"{name} cannot be negative")
    old = load_report(opts.old)
    pairing = streaming_pairing(old, ChangeRuns)
    if pairing is not None:  # the new report paired a process at a time as it is read, never held
        from profiler.inputs.saved_imports import read_imports_report

        try:  # its changes spilled past a run (compose.diff_spill): their folder removed unless they are the diff's
            new = read_imports_report(opts.new, "report", on_block=pairing.add_block)
            if pairing.ok and not len(new.modules):  # (a file not laid out as importprof writes it is read whole)
                return diff_reports(old, new, opts.old, opts.new, pairing=pairing, changes_made=ChangeRuns)
        except BaseException:
            pairing.columns.close()
            raise
        pairing.columns.close()
        if pairing.ok:
            return diff_reports(old, new, opts.old, opts.new, changes_made=ChangeRuns)
    return diff_reports(old, load_report(opts.new), opts.old, opts.new, changes_made=ChangeRuns)


def gate_note(report: DiffReport, opts: DiffOptions) -> str | None:
    from profiler.analysis.diff import gate_passed_note

    return None if opts.any_change else gate_passed_note(report, opts.fail_over_ms, opts.fail_over_pct)


def check_gate(report: DiffReport, opts: DiffOptions) -> None:
    from profiler.analysis.diff import gate_failures

    failures = gate_failures(report, opts.fail_over_ms, opts.fail_over_pct, opts.any_change)
    if failures:
        raise GateFailed("; ".join(failures))


def diff_live(old, new, *, session: Session) -> DiffReport:
    """Two imports captures diffed without saving files by hand (`imports --python A --python B`,
    `imports --vs TARGET`): `old` and `new` are ImportsOptions, captured one after the other;
    the diff reads as `importprof diff OLD.json NEW.json` would."""
    from profiler.analysis.diff import diff_reports
    from profiler.compose.diff_spill import ChangeRuns
    from profiler.workflows.imports import imports

    def side(label: str):  # each side's progress under its letter (`A 10 runs`)
        return session.relabelled(lambda phase: Phase.of(phase.done, phase.total, f"{label} {phase.label}".strip()))

    with side("A"):
        a = imports(old, session=session)
    with side("B"):
        b = imports(new, session=session)
    return diff_reports(a, b, *_sides(old, new), changes_made=ChangeRuns)


def _sides(old, new) -> tuple[str, str]:
    """Each side's label: its target, and its interpreter as the user named it where the two
    sides run different ones (the label is there to tell them apart)."""

    def path(opts):
        return getattr(opts.python, "path", opts.python)

    def named(opts):
        return getattr(opts.python, "requested", None) or path(opts)

    differ = path(old) != path(new)
    a, b = (f"{o.target.label()}" + (f" on {named(o)}" if differ and named(o) else "") for o in (old, new))
    return a, b
