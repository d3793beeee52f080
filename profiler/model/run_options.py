"""What every command that runs a program is told, declared once: the target, the interpreter,
how many runs after how many warm-ups, the interpreter's flags, whether a non-zero exit is the
program's own business, and one run's time limit. Each command's options (`ImportsOptions`,
`StartupOptions`, `LazyOptions`...) are a `RunOptions`: the fields below, plus its own.

The commands' defaults differ (imports profiles 5 runs, doctor 3, startup adapts its count to
the time): a field left None takes the command's own default, which the command's options class
declares in `DEFAULTS`, beside its other fields; a field its command has no default for stays None
(startup's `runs`: adaptive). `REQUIRED` in DEFAULTS: the command needs it (a target to run);
so every field has a default (importprof runs on 3.9: no keyword-only dataclass fields), and a
command's own required field is REQUIRED too (why's module).
`NOT_TAKEN`: the shared fields a command has no use for (site has no target; doctor and why
pass no flags); giving one is a TypeError, as for a field the class never had.

`python` is the Interpreter the command resolved at its edge (`commands/_options.py:
python_for`, where "no --python" is decided: the default python3 where a Python target runs, or
None where nothing needs one). A library caller may hand a path or a spec instead: the workflow
resolves it once, at its entry (`capture/interpreter.py: interpreter_for`), and every step after
it is given the Interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping, Sequence

if TYPE_CHECKING:
    from profiler.model.interpreter import Interpreter
    from profiler.model.target import Target

REQUIRED = object()  # a DEFAULTS value: the command cannot run without this field


@dataclass(frozen=True)
class RunOptions:
    target: Target | None = None  # the program run (model/target.py)
    python: Interpreter | None = None  # None: the default python3 (or none needed: a command target, a saved log)
    runs: int | None = None  # runs measured
    warmup: int | None = None  # runs before them, not measured
    flags: Sequence[str] = ()  # the interpreter's own flags (-X dev, -I ...)
    ignore_failure: bool = False  # a non-zero exit is the program's own business (a red test suite, a linter)
    timeout: float | None = None  # one run's limit in seconds (None: the session's, --timeout)

    DEFAULTS: ClassVar[Mapping[str, object]] = {}
    NOT_TAKEN: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        name = type(self).__name__
        for field_name, default in self.DEFAULTS.items():
            if getattr(self, field_name) is None:
                if default is REQUIRED:
                    raise TypeError(f"{name} needs a {field_name}")
                object.__setattr__(self, field_name, default)  # frozen: the defaults filled once, at construction
        for field_name in self.NOT_TAKEN:
            if getattr(self, field_name) != getattr(RunOptions, field_name):
                raise TypeError(f"{name} takes no {field_name}")
