"""Interpreter variants: named ways to run the same Python target (ARCHITECTURE.md, "Variants").

A `Variant` is the one place that knows what its name means: the flags it adds, what it needs
from the interpreter (capability names of model/interpreter.py: CAPABILITIES, shown by
`importprof pythons` and used in every refusal), the argv and environment of one run, and the
hint shown when it fails with an import error. Code elsewhere asks the variant instead of
comparing names: the run plan's commands and their results carry it (`CommandSpec.way`,
`TimingResult.way`), so nothing looks a variant up again by its name.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

if TYPE_CHECKING:
    from profiler.model.target import Target

from profiler.errors import UsageError
from profiler.model.document import Record

# how cold-pyc's folder is shown in `flags` (JSON, tables): a new one is made for every run
FRESH_FOLDER = "<fresh>"


def pycache_flags(folder: str) -> tuple[str, str]:
    """The flags that send one run's bytecode to `folder` (cold-pyc: a fresh, empty one)."""
    return ("-X", f"pycache_prefix={folder}")


def insert_flags(argv: Sequence[str], extra: Sequence[str]) -> list[str]:
    """`argv` (interpreter first) with `extra` interpreter flags put right after the interpreter."""
    return [argv[0], *extra, *argv[1:]]


@dataclass(frozen=True)
class Variant(Record):
    # its JSON: what runs (the rest is what importprof says about it)
    NOT_SAVED = ("description", "needs", "import_error_hint", "site_side", "summary")

    name: str
    flags: tuple[str, ...] = field(default_factory=tuple)
    # cold-pyc: each run gets `-X pycache_prefix=<fresh empty dir>` appended to the flags
    fresh_pycache: bool = False
    description: str = ""
    # no-site: the sys.path entries `site` would add (site-packages, .pth paths) are given
    # through PYTHONPATH, so an installed program still imports: what is skipped is site's work
    keep_site_paths: bool = False
    # the interpreter capabilities it needs (model/interpreter.py: CAPABILITIES)
    needs: tuple[str, ...] = ()
    # what an import error in this variant most likely means (None: the flags tell; see analysis/failures.py)
    import_error_hint: str | None = None
    # "with" / "without": the variant is one side of the site cost (default − no-site) startup notes
    site_side: str | None = None
    # what --help says beside the name ("" : the name says it)
    summary: str = ""

    @property
    def shown_flags(self) -> tuple[str, ...]:
        """The flags as documents and tables show them (cold-pyc's folder is FRESH_FOLDER)."""
        return self.flags + (pycache_flags(FRESH_FOLDER) if self.fresh_pycache else ())

    def argv(self, python: str, target_argv: Sequence[str]) -> tuple[str, ...]:
        """The command to run, without cold-pyc's folder: a new one is made for each run
        (capture/pycache.py: fresh_pycache) and put in right after the interpreter."""
        return (python, *self.flags, *target_argv)

    def env(self, python: str, target: Target,
            site_paths: Callable[[str, Target], Iterable[tuple[str, str]] | None] | None) -> tuple[tuple[str, str], ...]:
        """The environment the variant adds for `target` on `python`: no-site gives back the
        paths site would add that the target imports from (`site_paths`: workflows/no_site.py,
        which runs the target once to see them); () for the others."""
        if not self.keep_site_paths or site_paths is None:
            return ()
        return tuple(site_paths(python, target) or ())

    @property
    def is_plain(self) -> bool:
        """Runs the target as is (no flag, nothing added): what a `-- COMMAND` target allows."""
        return not self.flags and not self.fresh_pycache and not self.keep_site_paths


BUILTIN_VARIANTS: dict[str, Variant] = {
    "default": Variant("default", (), description="no flags", site_side="with"),
    "no-site": Variant(
        "no-site", ("-S",), keep_site_paths=True, site_side="without", summary="-S, keeping the paths the target needs",
        description="-S: site's work skipped; the paths it adds (site-packages, .pth paths) kept through PYTHONPATH",
        import_error_hint=("-S skips the import lines of .pth files: a package installed through a .pth import "
                           "hook (an editable install, for example) does not import without site"),
    ),
    "no-site-bare": Variant(
        "no-site-bare", ("-S",), summary="plain -S", description="-S as is: site-packages not on sys.path (only the stdlib imports)"
    ),
    "isolated": Variant("isolated", ("-I",), needs=("isolated",), summary="-I", description="-I: isolated mode"),
    "no-frozen": Variant(
        "no-frozen", ("-X", "frozen_modules=off"), needs=("frozen_modules",), description="-X frozen_modules=off"
    ),
    "cold-pyc": Variant(
        "cold-pyc",
        (),
        fresh_pycache=True,
        needs=("pycache_prefix",),
        description="-X pycache_prefix=<fresh empty dir per run>: every import compiles",
    ),
}

DEFAULT_STARTUP_VARIANTS = ("default", "no-site", "isolated", "no-frozen")


def variants_help(default: Sequence[str] | None = None) -> str:
    """The --variant help: every built-in name (with its summary), then the default set."""
    parts = [f"{v.name} ({v.summary})" if v.summary else v.name for v in BUILTIN_VARIANTS.values()]
    text = "Variants, repeatable or comma-separated: " + ", ".join(parts) + "."
    if default:
        text += " Default: " + ",".join(default) + "."
    return text


def parse_variants(
    names: list[str] | tuple[str, ...] | None,
    flags: list[str] | tuple[str, ...] | None = None,
    default: tuple[str, ...] = ("default",),
) -> list[Variant]:
    """`--variant a,b --variant c` and `--flags "-X dev"` → ordered, de-duplicated variants."""
    out: list[Variant] = []
    seen: set[str] = set()
    requested: list[str] = []
    for item in names or []:
        requested.extend(part.strip() for part in item.split(",") if part.strip())
    if not requested and not flags:
        requested = list(default)
    for name in requested:
        if name not in BUILTIN_VARIANTS:
            known = ", ".join(BUILTIN_VARIANTS)
            raise UsageError(f"unknown variant {name!r} (known: {known}; custom: --flags=...)")
        if name not in seen:
            seen.add(name)
            out.append(BUILTIN_VARIANTS[name])
    for text in flags or []:
        try:
            parts = tuple(shlex.split(text))
        except ValueError as exc:
            raise UsageError(f"cannot parse --flags {text!r}: {exc}") from None
        if not parts:
            raise UsageError("--flags needs at least one flag")
        name = " ".join(parts)
        if name not in seen:
            seen.add(name)
            out.append(Variant(name, parts, description="custom flags"))
    return out
