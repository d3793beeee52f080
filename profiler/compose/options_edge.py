"""Between a caller's words and a composition's options: the steps the command line
(commands/) and the library facade (profiler/api.py) both take for the forms that build more
than one options object, so the two cannot drift apart. The values are checked by the
options themselves (their `__post_init__`); what is here is the rule that turns the words into
them.

  keep_eager_words   `lazy --keep-eager` (repeatable, comma-separated) → module names
  apply_options      `lazy --apply/--filter-out` → ApplyOptions around the LazyOptions
  check_two_captures `imports --vs TARGET` / two `--python`: how many captures were asked for
  two_captures       → the two ImportsOptions `compose/diff.py: diff_live` captures and diffs
  compare_python     whether `compare` resolves an interpreter (none: the harness workload's own)
  harness_limit      `compare --harness`: one run's limit is an hour unless one was given (a with block)
  syscalls_word      `compare --syscalls WHEN` → its Syscalls member
  style_word         `lazy --apply --style STYLE` → its LazyStyle member
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from profiler.errors import UsageError

if TYPE_CHECKING:
    from profiler.compose.lazy_apply_state import ApplyOptions
    from profiler.model.target import Target
    from profiler.model.words import LazyStyle, Syscalls
    from profiler.session import Session
    from profiler.workflows.imports import ImportsOptions


def syscalls_word(word: str) -> Syscalls:
    """`--syscalls auto|on|off` → its member (the options hold only members)."""
    from profiler.model.words import Syscalls

    return Syscalls.parse(word, "--syscalls")


def style_word(word: str) -> LazyStyle:
    """`--style lazy-modules|keyword` → its member (the options hold only members)."""
    from profiler.model.words import LazyStyle

    return LazyStyle.parse(word, "--style")


def keep_eager_words(items: Sequence[str] | None) -> list[str]:
    """`--keep-eager a,b --keep-eager c` → ["a", "b", "c"] (blanks dropped)."""
    return [k.strip() for item in items or () for k in item.split(",") if k.strip()]


def apply_options(lazy: Any, *, apply: str | None, style: str, diff: bool, filter_out: str | None,
                  verify_with: Sequence[str] | None, min_ms: float, oldest_python: Any, runs: int | None,
                  profile_runs: int, max_bisect_runs: int) -> ApplyOptions:
    """The ApplyOptions of `lazy --apply DIR` / `--filter-out FILE` around `lazy` (its
    LazyOptions): `runs` (lazy's timing runs, None adaptive) are the proof's runs, 10 when
    adaptive; `oldest_python` resolved by the caller (None: requires-python's oldest). An
    empty DIR or FILE is refused (the command line's parser refuses it before: a library
    caller's `filter_out=""` went on as no --filter-out, to a TypeError)."""
    from profiler.compose.lazy_apply_state import ApplyOptions

    for option, path in (("--apply", apply), ("--filter-out", filter_out)):
        if path is not None and not path.strip():
            raise UsageError(f"{option} needs a path, not an empty string")
    return ApplyOptions(lazy=lazy, directory=apply, style=style_word(style), diff=diff, filter_out=filter_out,
                        verify_with=tuple(verify_with or ()), min_ms=min_ms, oldest_python=oldest_python,
                        proof_runs=runs or 10, profile_runs=profile_runs, max_bisect_runs=max_bisect_runs)


def check_two_captures(pythons: Sequence[object], versus: Sequence[object]) -> None:
    """Two captures are two `--python` or one `--vs TARGET` (with at most one `--python`)."""
    if len(pythons) + len(versus) > 2 + (1 if versus else 0) or len(versus) > 1 or (versus and len(pythons) > 1):
        raise UsageError("imports compares two captures: two --python, or one --vs TARGET")


def two_captures(target: Target, pythons: Sequence[str | None], versus: Sequence[tuple[Target, str | None]],
                 python_for: Callable[[str | None, Target], Any], **common: Any) -> tuple[ImportsOptions, ImportsOptions]:
    """A's and B's ImportsOptions: the target on each `--python`, or the target and its `--vs`
    (on its own #! interpreter when it has one and no --python was given, else A's). Each
    interpreter resolved by `python_for(word, target)`, A's first; `common`: the options both
    share (runs, warmup, ignore_failure, group, level)."""
    from profiler.workflows.imports import ImportsOptions

    check_two_captures(pythons, versus)
    first = pythons[0] if pythons else None
    if versus:
        (other, other_python), = versus
        a = ImportsOptions(target=target, python=python_for(first, target), **common)
        b = ImportsOptions(target=other, python=python_for(other_python or first, other), **common)
    else:
        a = ImportsOptions(target=target, python=python_for(pythons[0], target), **common)
        b = ImportsOptions(target=target, python=python_for(pythons[1], target), **common)
    return a, b


def compare_python(python: str | None, workload: str | None, harness: str | None) -> bool:
    """`compare` resolves `--python` (none: the default python3) except for `--workload harness`
    without one, which times the importprof it runs in."""
    return python is not None or workload != "harness" or harness is not None


@contextmanager
def harness_limit(session: Session, harness: str | None, given: bool) -> Iterator[None]:
    """`compare --harness`: within it, one run of CMD (a test suite) may take an hour, unless a
    limit was `given` (--timeout); the session's limit is as it was after (a library caller's
    session outlives the call)."""
    if harness is None or given:
        yield
        return
    from profiler.compose.compare_harness import HARNESS_TIMEOUT_S

    limit = session.timeout_s
    session.set_timeout(HARNESS_TIMEOUT_S)
    try:
        yield
    finally:
        session.timeout_s = limit
