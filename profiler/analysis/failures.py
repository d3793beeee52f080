"""Why a variant failed, when the cause is known (pure): the hint shown beside a failed row."""

from __future__ import annotations

from profiler.model.variant import Variant
from profiler.model.words import TargetKind

_IMPORT_ERRORS = ("ModuleNotFoundError", "ImportError")


def explain_failure(variant: Variant | None, flags: tuple[str, ...], target_kind: TargetKind | None, error: str) -> str | None:
    """A sentence naming the cause of `error` in `variant` (the Variant that ran: its own hint
    first; None for a row no Variant made), or None when it is not known."""
    if not any(e in (error or "") for e in _IMPORT_ERRORS):
        return None
    if "-I" in flags:
        if target_kind == TargetKind.SCRIPT:
            return ("-I drops the script's folder from sys.path (since Python 3.11 -I implies -P), "
                    "so the modules beside the script do not import")
        return "-I ignores PYTHONPATH and the user site-packages"
    if variant is not None and variant.import_error_hint:
        return variant.import_error_hint
    if "-S" in flags:
        return "-S drops site-packages from sys.path; the `no-site` variant keeps them (through PYTHONPATH)"
    if "-E" in flags or "-P" in flags:
        return "-E ignores PYTHONPATH; -P drops the script's folder (or the current folder) from sys.path"
    return None
