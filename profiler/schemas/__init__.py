"""The JSON schema of each importprof document kind (`importprof.<kind>/1` -> <kind>.json),
checked by profiler.inputs when a saved document is read; published in the README.
HISTORY below is each kind's version history."""

from __future__ import annotations


# Each kind's versions (importprof.<kind>/<version>), as pyperf keeps its format history: what
# each version is and what was added to it since. Adding a key is not a new version (readers ignore
# keys they do not know); renaming or removing one, or changing a key's meaning or unit, is. importprof
# reads every version listed here (profiler/inputs/documents.py asks readable_versions).
HISTORY: dict[str, tuple[dict, ...]] = {
    'startup': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 instructions, instructions_runs (--metric instructions)',
            "2026-11-25 exit_codes kept for --ignore-failure runs; harness (a -- COMMAND's Python processes)",
        )},
    ),
    'imports': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 statements (--statements), instructions, groups, processes, cached',
            '2026-11-28 a saved report is read back a record a line (the layout the writer already used)',
        )},
    ),
    'trace': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 processes and modules records: argv, python, thread, attribution, wall_s; untraced_wall_s',
            "2026-11-28 attribution 'importtime' (boundaries from -X importtime, no hook in the program); importprof's own syscalls kept out of the counts",
        )},
    ),
    'site': (
        {"version": 1, "since": '2026-11-23', "added": (
        )},
    ),
    'compare': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 a failed row says why a build cannot work by design',
        )},
    ),
    'diff': (
        {"version": 1, "since": '2026-11-23', "added": (
        )},
    ),
    'lazy': (
        {"version": 1, "since": '2026-11-23', "added": (
            "2026-11-25 avoided_us counts an avoided module at its own (self) time; the emulation's modelled cost",
        )},
    ),
    'lazy_apply': (
        {"version": 1, "since": '2026-11-25', "added": (
            '2026-11-28 bytecode refreshed per cache tag; counts of imports, modules and files made lazy',
        )},
    ),
    'doctor': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 verify_startup_s and measured savings (--verify)',
            "2026-11-28 in a report, startup_s is the startup part's default-variant mean (one figure for one start-up)",
        )},
    ),
    'why': (
        {"version": 1, "since": '2026-11-23', "added": (
            '2026-11-25 statements (why MODULE --statements)',
        )},
    ),
    'report': (
        {"version": 1, "since": '2026-11-23', "added": (
        )},
    ),
    'pack': (
        {"version": 1, "since": '2026-11-25', "added": (
        )},
    ),
    'build': (
        {"version": 1, "since": '2026-11-25', "added": (
        )},
    ),
    'check': (
        {"version": 1, "since": '2026-11-25', "added": (
        )},
    ),
    'bisect': (
        {"version": 1, "since": '2026-11-25', "added": (
        )},
    ),
    'history': (
        {"version": 1, "since": '2026-12-02', "added": (
        )},
    ),
    'pythons': (
        {"version": 1, "since": '2026-11-25', "added": (
        )},
    ),
}


def readable_versions(kind: str) -> tuple[int, ...]:
    """The versions of `kind` this importprof reads: every one its HISTORY lists; (1,) for a
    kind it does not list."""
    return tuple(v["version"] for v in HISTORY.get(kind, ({"version": 1},)))
