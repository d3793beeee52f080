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
        (`unknown engine 'x' (builtin, hyperfine)`)."""
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(m.value for m in cls)
            raise UsageError(cls._UNKNOWN.format(what=what or cls.__name__.lower(), text=text, known=known)) from None

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


class WarningKind(Word):
    """What a warning says, whoever it is about: the summary line after the output counts
    warnings by kind (`2 × the spread is too wide to trust`). The value is the words that line
    shows (figures as N); `FAILED` and `REFERENCE_FAILED` are shown with whose they are."""

    FAILED = "failed"
    REFERENCE_FAILED = "the reference failed"
    FIRST_RUN_SLOWER = "the first run was much slower than the rest"
    OUTLIERS = "N statistical outlier(s) among N runs"
    WIDE_SPREAD = "the spread is too wide to trust"
    NON_ZERO_EXITS = "N of N runs exited non-zero"
    BUSY = "the machine is busy"
    LOW_MEMORY = "N GiB of N GiB available"
    NO_SPAWNER = "no C compiler to build the measuring spawner"


class Said(str):
    """A warning's text (what documents keep and stderr shows, unchanged) with its kind and whose
    it is, given where it is said, so the summary line groups it without reading the text again.
    `gist`: what the summary shows for a kind said once (its own figures: `3 statistical
    outlier(s) among 10 runs`)."""

    kind: WarningKind | None
    gist: str
    who: str

    def __new__(cls, text: str, kind: WarningKind | None = None, gist: str = "", who: str = "") -> Said:
        self = super().__new__(cls, text)
        self.kind, self.gist, self.who = kind, gist, who
        return self

    @property
    def label(self) -> str:
        """The words the summary line counts it under ("" without a kind: read from the text)."""
        if self.kind is None:
            return ""
        if self.kind is WarningKind.FAILED:
            return _figures_as_n(f"{self.who} failed")
        if self.kind is WarningKind.REFERENCE_FAILED:
            return _figures_as_n(f"the reference {self.who} failed")
        return self.kind.value


def _figures_as_n(text: str) -> str:
    import re

    return re.sub(r"\d+(\.\d+)?", "N", text).strip()
