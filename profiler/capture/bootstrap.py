"""Build the argv that runs a target under importprof's bootstrap launcher."""

from __future__ import annotations

import marshal
import os
from typing import Sequence

from profiler.model.target import Target

LAUNCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bootstrap", "launch.py")


def own_errors(path: str, target: Target) -> None:
    """Raise InstrumentFailed when importprof's own code in the program wrote to the run's errors
    file (options["errors_path"]: launch.own_error), naming importprof as the one that failed."""
    from profiler.errors import InstrumentFailed

    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read().strip()
    except OSError:
        return
    if text:
        first = text.splitlines()[0]
        raise InstrumentFailed(f"importprof's own code failed inside the program (importprof's fault, not the program's; "
                               f"please report it): {first}: {target.label()}", detail=text if "\n" in text else None)


def bootstrap_argv(
    python: str,
    flags: Sequence[str],
    target: Target,
    hooks: Sequence[str],
    options: dict | None = None,
) -> list[str]:
    """`python -S <flags> launch.py OPTIONS_HEX target...` (options: plain dicts, lists, str,
    int, float, bool, None — what marshal serializes). A `-S` in `flags` (the no-site variant)
    becomes `"site": false`; otherwise the launcher runs `site.main()` after installing hooks."""
    if not target.is_python:
        raise ValueError("the bootstrap runs Python targets only")
    flags = list(flags)
    run_site = "-S" not in flags
    flags = [f for f in flags if f != "-S"]
    opts = dict(options or {})
    opts["hooks"] = list(hooks)
    opts["site"] = run_site
    # marshal, not json: the launcher must not import anything before the hooks are in place
    encoded = marshal.dumps(opts, 4).hex()
    return [python, "-S", *flags, LAUNCH, encoded, *target.python_argv()]
