"""The cases of the export and read-back golden test (tests/test_streaming_io.py): real logs
(tests/fixtures/importtime) and generated ones (repeated to many processes, and 10 processes of
real `pip --version` runs), each a report written in every format, read back, shown and diffed.
tests/fixtures/exports/golden.json holds the sha256 and size of each output as the code wrote
it before the writers and readers streamed (commit 58cd365): the streaming code must write the
very same bytes."""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import replace
from pathlib import Path
from profiler.session import Session

HERE = Path(__file__).resolve().parent
LOGS = HERE / "fixtures" / "importtime"
EXPORTS = HERE / "fixtures" / "exports"
FORMATS = ("json", "speedscope", "chrome", "folded")

# name → (the log's source file, copies, --headers)
CASES = {
    "boto3": ("boto3.log", 1, "processes"),
    "boto3_truncated": ("boto3_truncated.log", 1, "processes"),
    "requests_noise": ("requests_noise.log", 1, "processes"),
    "command_subprocesses": ("command_subprocesses.log", 1, "processes"),
    "command_subprocesses_x5": ("command_subprocesses.log", 5, "processes"),
    "repeated_headers_x4": ("repeated_headers.log", 4, "processes"),
    "overlap": ("overlap.log", 1, "processes"),
    "overlap_x3": ("overlap.log", 3, "processes"),
    "py314_cached_x3": ("py314_cached.log", 3, "processes"),
    "pip_10": ("pip-10.log.gz", 1, "processes"),
    "pip_10_runs": ("pip-10.log.gz", 1, "runs"),
    "boto3_x3_runs": ("boto3.log", 3, "runs"),
}
# pairs diffed (old, new)
DIFFS = (("pip_10", "pip_10"), ("command_subprocesses_x5", "repeated_headers_x4"), ("boto3_x3_runs", "boto3"),
         ("overlap_x3", "overlap"), ("pip_10_runs", "pip_10"))


def log_text(case: str) -> str:
    name, copies, _ = CASES[case]
    path = EXPORTS / name if (EXPORTS / name).exists() else LOGS / name
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
    return text * copies


def write_log(case: str, folder: Path) -> Path:
    path = folder / f"{case}.log"
    path.write_text(log_text(case))
    return path


def report_of(case: str, folder: Path):
    """The report `imports --from-log` makes of the case's log, its machine facts left out."""
    from profiler.model.target import Target
    from profiler.model.log_source import LogSource
    from profiler.workflows.imports import ImportsOptions, imports

    path = write_log(case, folder)
    report = imports(ImportsOptions(target=Target("code"), log=LogSource(str(path)), headers=CASES[case][2]), session=Session())
    # the log's temporary path, in a warning, as its name alone
    return replace(report, machine={}, warnings=tuple(w.replace(str(path), path.name) for w in report.warnings))


def digest(data: str | bytes) -> list:
    """[sha256, size] of an output, importprof's version in it (speedscope's exporter) as VERSION."""
    from profiler import __version__

    if isinstance(data, str):
        data = data.replace(f'"exporter": "importprof {__version__}"', '"exporter": "importprof VERSION"')
        data = data.encode("utf-8", "surrogateescape")
    else:
        data = data.replace(f'"exporter": "importprof {__version__}"'.encode(), b'"exporter": "importprof VERSION"')
    return [hashlib.sha256(data).hexdigest(), len(data)]


class SavedReports(dict):
    """Each case's report as `imports -o` saves it (the json renderer's bytes), written under
    `folder` when a test first asks for it (the quick lane never asks for the big ones)."""

    def __init__(self, folder: Path):
        super().__init__()
        self.folder = folder

    def __missing__(self, case: str) -> Path:
        from profiler.render import get_renderer

        path = self[case] = self.folder / f"{case}.json"
        path.write_text(get_renderer("json")(report_of(case, self.folder)))
        return path
