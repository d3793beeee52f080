"""The closed sets of words the commands take and the documents write (engine, role, target
kind, metric, headers, group, view, syscalls, lazy style, warning kind), one enum each. A member IS its string (`class Engine(Word)` is a
`str`): it compares equal to the word, is written as the word by json and f-strings, and a
document read back with the plain word stays equal to it, so the JSON does not change. A
command parses the word at its edge (`Engine.parse(text)`: one usage error naming the words
known); the code below compares members, never literals.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, ClassVar, Iterable

if TYPE_CHECKING:
    from typing_extensions import Self

from profiler.errors import UsageError


class Word(str, Enum):
    """A closed set of words; each member is its own string, in every Python (3.12 changed what
    format() gives for a str enum: here it is always the word)."""

    _UNKNOWN: ClassVar[str]  # the usage error's words (set below, after the class)
    _value_: str

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)

    @classmethod
    def parse(cls, text: str, what: str | None = None) -> Self:
        """`text` as a member; an unknown word is a usage error naming the known ones
        (`unknown engine 'x' (builtin, hyperfine)`), as the class's _UNKNOWN words it
        (`--syscalls: auto, on or off`)."""
        try:
            return cls(text)
        except ValueError:
            words = [m.value for m in cls]
            either = f"{', '.join(words[:-1])} or {words[-1]}" if len(words) > 1 else words[0]  # "auto, on or off"
            raise UsageError(cls._UNKNOWN.format(what=what or cls.__name__.lower(), text=text, known=", ".join(words),
                                                 either=either)) from None

    @classmethod
    def parse_all(cls, texts: Iterable[str] | None, what: str | None = None) -> tuple[Self, ...]:
        """Each word of a repeatable option as a member, in order (the first unknown one refused)."""
        return tuple(cls.parse(t, what) for t in texts or ())


Word._UNKNOWN = "unknown {what} {text!r} ({known})"


class Engine(Word):
    """What times the runs: importprof's interleaved runner or hyperfine -N."""

    BUILTIN = "builtin"
    HYPERFINE = "hyperfine"


class Role(Word):
    """Why a command is in a plan: the target itself, the bare `-c pass` beside --import, or
    one `-c "import X"`."""

    TARGET = "target"
    BASELINE = "baseline"
    IMPORT = "import"


class TargetKind(Word):
    """The target grammar's four forms (model/target.py)."""

    CODE = "code"
    MODULE = "module"
    SCRIPT = "script"
    COMMAND = "command"


class Metric(Word):
    """What is counted beside wall time (`--metric`)."""

    INSTRUCTIONS = "instructions"


Metric._UNKNOWN = "unknown {what} {text!r} (known: {known})"


class Headers(Word):
    """What each header line of a saved -X importtime log starts (`imports --headers`): a
    process of the one run the log is, or a run of one program."""

    PROCESSES = "processes"
    RUNS = "runs"


class Group(Word):
    """How `imports --group` totals modules: by top-level package, installed distribution, or
    kind (stdlib, site-packages, the program's own...)."""

    PACKAGE = "package"
    DISTRIBUTION = "distribution"
    KIND = "kind"


class View(Word):
    """What the imports table shows (`imports --view`, `show --view`): the import tree, children
    under --min-ms folded, or the top N modules by self and by cumulative time."""

    TREE = "tree"
    TOP = "top"


Headers._UNKNOWN = Group._UNKNOWN = View._UNKNOWN = "unknown {what} {text!r} (choose from: {known})"


class Syscalls(Word):
    """When `compare` counts each variant's syscalls with strace (`--syscalls`): when strace
    works, always (strace failing fails the run), never."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class LazyStyle(Word):
    """How `lazy --apply` writes an import lazy (`--style`), PEP 810's two spellings: the module
    named in a `__lazy_modules__` list (inert before 3.15) or the `lazy` keyword (3.15+ syntax)."""

    LAZY_MODULES = "lazy-modules"
    KEYWORD = "keyword"


Syscalls._UNKNOWN = "{what}: {either}"
LazyStyle._UNKNOWN = "{what} {text}: one of {known}"


class WarningKind(Word):
    """What a warning says, whoever it is about: the summary line after the output counts
    warnings by kind (`2 × the spread is too wide to trust`) under the figures the place that
    says one gives (Said.gist) with their numbers as N, which for most kinds are the value itself;
    a `{...}` in a value stands for the words that name which one (`no-site failed`, `lazy
    skipped`, `skipped /usr/bin/python3.9`). Each value is its own: two spelled alike would be one
    member."""

    # a measurement (workflows/measure.py, analysis/statistics.py, analysis/machine.py)
    FAILED = "{who} failed"
    REFERENCE_FAILED = "the reference {who} failed"
    FIRST_RUN_SLOWER = "the first run was much slower than the rest"
    OUTLIERS = "N statistical outlier(s) among N runs"
    WIDE_SPREAD = "the spread is too wide to trust"
    NON_ZERO_EXITS = "N of N runs exited non-zero"
    BUSY = "the machine is busy"
    LOW_MEMORY = "N GiB of N GiB available"
    NO_SPAWNER = "no C compiler to build the measuring spawner"
    EXITS_IGNORED = "{who} exited with code {codes}"  # --ignore-failure (workflows/targets.py: exits_note)
    # the runs' processes (capture/process.py)
    LEFT_RUNNING = "left running"
    ORPHANS_STOPPED = "the target ended but left processes running"
    # interpreters and variants (capture/interpreter.py, workflows/plan.py, compose/build.py)
    PYTHON_SKIPPED = "skipped {path}"
    VARIANT_LEFT_OUT = "variant {name} left out for {python}"
    VARIANTS_UNAVAILABLE = "variants {names} unavailable on {version}"
    # check and history (compose/check.py, compose/history.py)
    NO_BASELINE_FILE = "no 'baseline' file declared, nothing to update"
    BASELINE_NOT_RUN = "could not run, its baseline is left as it was"
    NOT_IN_GIT = "{folder} is not in a git repository"
    DIRTY_TREE = "the working tree differs from {commit}"
    NOT_MEASURED = "could not be measured"
    # report (compose/report.py, model/report.py)
    PART_SKIPPED = "{part} skipped"
    MIXED_DOCUMENTS = "these documents measure different {what}"
    # compare and startup's harness (compose/compare.py, compose/harness.py)
    SYSCALLS_SKIPPED = "syscall counts skipped: {why strace could not run}"
    VARIANT_FAILED = "{the variant's error}"
    MOSTLY_FALLBACK = "N of N modules came from the filesystem through the fallback path finder, not from its pack"
    ORIGINS_NOT_RECORDED = "where its modules came from in the harness not recorded"
    HARNESS_EXIT = "the harness exited {code} in its recording run"
    NO_PROCESS_SUMMARY = "no per-process summary: {why strace could not run}"
    # trace and imports (workflows/trace.py, workflows/imports.py, workflows/phases.py)
    NO_PYTHON_IN_LOG = "the log shows no Python process importing modules"
    LOG_LAST_LINE_CUT = "the log ends with a truncated line"
    COMMAND_NO_PYTHON = "the command started no Python process that imported anything"
    UNTRACED_FAILED = "the untraced runs failed"
    STDERR_INSTEAD = "{why strace could not run}; the command's stderr read instead"
    PHASES_UNSEEN = "N modules were not seen by the instrumented run"
    # lazy and lazy --apply (compose/lazy*.py)
    OUTPUT_UNSTABLE = "the program's output changes from run to run"
    EAGER_RUNS_DIFFER = "two eager runs executed different modules"
    DIFFERS_ALL_EAGER = "the lazy run differs even with every module eager"
    BISECTION_STOPPED = "bisection stopped after N runs"
    VERIFICATION_DIFFERS = "the verification lazy run{ with the set kept eager} differs from the eager run"
    NO_EXIT_HANDLERS = "the lazy run ended without running exit handlers"
    BARE_DIFFERS = "the program run bare differs from its run under importprof's launcher"
    BARE_DIFFERS_ALL_EAGER = "the bare interpreter with -X lazy_imports=all differs even with every module eager"
    FILTER_DIFFERS = "with {modules} kept eager by a plain filter, {python} -X lazy_imports=all differs"
    DIFFERS_UNEDITED = "the program differs even with no statement made lazy"
    STILL_DIFFERS = "{command} on {python} still differs after the edit"
    RANGES_OVERLAP = "the start-up ranges before and after overlap"
    NO_COMPILER_315 = "no Python N here to compile `lazy import`"
    EDIT_DOES_NOT_COMPILE = "the edited file does not compile"
    LEFT_ALONE = "{why a file is left as it is}"
    # doctor (compose/doctor.py)
    NOT_CHECKED = "{checks} not checked"


class Said(str):
    """A warning's text (what documents keep and stderr shows, unchanged) with its kind and whose
    it is, given where it is said, so the summary line groups it without reading the text again.
    `gist`: what the summary shows for a kind said once (its own figures: `3 statistical
    outlier(s) among 10 runs`); `who`: whose it is (`default @ 3.12.1`; "" for the run as a
    whole)."""

    kind: WarningKind
    gist: str
    who: str

    def __new__(cls, text: str, kind: WarningKind, gist: str, who: str = "") -> Said:
        self = super().__new__(cls, text)
        self.kind, self.gist, self.who = kind, gist, who
        return self
