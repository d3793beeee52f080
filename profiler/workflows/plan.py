"""The run plan: options (interpreters, variants, --flags, target, --import) → the commands to
time, checked once. Every command that times variants of a target builds its specs here, once
per target: the variants are parsed, "variants apply to Python targets" and --reference are
checked, the variants an interpreter cannot run are left out (each variant says what it needs),
and each variant gives its own argv and environment (no-site's paths, found by running the
target once with site, only after the checks that need no run)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from profiler.errors import UsageError
from profiler.model.interpreter import Interpreter
from profiler.model.measurement import CommandSpec
from profiler.model.target import DEFAULT_TARGET, Target
from profiler.model.variant import Variant, parse_variants
from profiler.model.words import Role, Said, TargetKind, WarningKind

BASELINE = DEFAULT_TARGET  # the bare start timed beside --import: the default target itself, one value
SitePaths = Callable[[str, Target], tuple]


@dataclass(frozen=True)
class Plan:
    # (variant, the role's target, its spec) per command to run, in interleaving order
    runs: tuple[tuple[Variant, Target, CommandSpec], ...]
    variants: tuple[Variant, ...]  # as parsed (before any was left out for an interpreter)
    left_out: tuple[str, ...] = ()  # one line per variant an interpreter cannot run

    @property
    def specs(self) -> tuple[CommandSpec, ...]:
        return tuple(s for _, _, s in self.runs)

    @property
    def site_path_notes(self) -> list[str]:
        """What the variants that keep site's paths (no-site) kept, per command that got paths
        back; one line saying it is a plain -S when none did."""
        out = []
        for s in self.specs:
            path = dict(s.env or ()).get("PYTHONPATH")
            if s.keep_site_paths and path:
                out.append(f"{s.key}: -S, with the site paths the target imports from kept through PYTHONPATH={path}")
        if any(s.keep_site_paths for s in self.specs) and not out:
            names = dict.fromkeys(s.variant for s in self.specs if s.keep_site_paths)
            out.append(f"{', '.join(names)}: -S (the target imports nothing from the paths site adds)")
        return out


def python_labels(interps: Sequence[Interpreter]) -> list[str]:
    versions = [i.version for i in interps]
    if len(set(versions)) == len(versions):
        return versions
    return [i.path for i in interps]


def display_key(variant: str, python_label: str | None, role: str, module: str | None) -> str:
    """A unique, readable id for one measured command. Opaque: nothing parses it back
    (the identity is the spec's fields: variant, python, role, module)."""
    key = variant
    if python_label:
        key += f" @ {python_label}"
    if role == Role.BASELINE:
        key += " · pass"
    elif role == Role.IMPORT:
        key += f" · import {module}"
    return key


def plan_runs(
    target: Target,
    interps: Sequence[Interpreter],
    variants: Sequence[str] | Sequence[Variant] = (),
    flags: Sequence[str] = (),
    *,
    default: tuple[str, ...] = ("default",),
    imports: Sequence[str] = (),
    reference: str | None = None,
    site_paths: SitePaths | None = None,
    warn: Callable[[str], None] | None = None,
) -> Plan:
    """`--variant`/`--flags` (names as given; `default` when none) on `interps` for `target`,
    with `-c pass` and `-c "import X"` beside it for each --import. A `-- COMMAND` target runs as
    is: variants other than `default` and --import are usage errors. `site_paths(python,
    target)`: the environment that gives no-site the paths site would add (workflows/no_site.py),
    asked only for variants that keep them, after every check. `variants` may be `Variant`
    objects instead of names: a composition's own ways to run a target (doctor's bare start,
    its fixes), planned like the built-in ones."""
    if variants and all(isinstance(v, Variant) for v in variants):
        chosen = list(variants)
    else:
        chosen = parse_variants(list(variants), list(flags), default=default if target.is_python else ("default",))
    if not target.is_python:
        if any(not v.is_plain for v in chosen):
            raise UsageError("variants apply to Python targets; a `-- COMMAND` target runs as is")
        if imports:
            raise UsageError("--import needs a Python target, not `-- COMMAND`")
        spec = CommandSpec(argv=tuple(target.command_argv()), variant="command", target=target.label(),
                           key="command", target_kind=TargetKind.COMMAND)
        _check_reference([spec], reference)
        return Plan(((chosen[0], target, spec),), tuple(chosen))
    commands = _commands(interps, chosen, target, imports)
    _check_reference([s for _, _, s in commands], reference)
    kept, left_out = _drop_unavailable(commands, interps, warn)
    runs = tuple((v, t, replace(s, env=v.env(s.python, t, site_paths) or None) if v.keep_site_paths else s)
                 for v, t, s in kept)
    return Plan(runs, tuple(chosen), tuple(left_out))


def _commands(interps: Sequence[Interpreter], variants: Sequence[Variant], target: Target,
              imports: Sequence[str]) -> list[tuple[Variant, Target, CommandSpec]]:
    """Every command to time, in interleaving order, with the variant and target that made it.
    With --import, each variant also runs the baseline `-c pass` (role "baseline") and
    `-c "import X"` (role "import")."""
    labels = python_labels(interps) if len(interps) > 1 else [None] * len(interps)
    runs: list[tuple[Role, str | None, Target]] = [(Role.TARGET, None, target)]
    if imports:
        if target != BASELINE:
            runs.append((Role.BASELINE, None, BASELINE))
        for mod in imports:
            runs.append((Role.IMPORT, mod, Target(TargetKind.CODE, f"import {mod}")))
    out: list[tuple[Variant, Target, CommandSpec]] = []
    seen: set[str] = set()
    for interp, label in zip(interps, labels):
        for v in variants:
            for role, mod, t in runs:
                key = display_key(v.name, label, role, mod)
                if key in seen:
                    continue
                seen.add(key)
                out.append((v, t, CommandSpec(
                    argv=v.argv(interp.path, t.python_argv()),
                    variant=v.name,
                    python=interp.path,
                    python_version=interp.version,
                    flags=v.shown_flags,
                    target=t.label(),
                    key=key,
                    role=role,
                    module=mod,
                    target_kind=t.kind,
                    way=v,
                )))
    return out


def _check_reference(specs: Sequence[CommandSpec], reference: str | None) -> None:
    from profiler.workflows.measure import check_reference

    check_reference(specs, reference)


def _drop_unavailable(commands, interps: Sequence[Interpreter], warn: Callable[[str], None] | None):
    """Leave out a variant an interpreter cannot run (-I before 3.4, -X frozen_modules before
    3.11: older versions ignore an unknown -X and would time `default` under its name), with
    one line each; custom --flags variants are the user's to judge."""
    from profiler.errors import BadInput
    from profiler.model.interpreter import why_not_needs

    by_path = {i.path: i for i in interps}
    kept, lines = [], []
    for v, t, s in commands:
        interp = by_path[s.python]
        reason = why_not_needs(interp, v.needs)
        if reason is None:
            kept.append((v, t, s))
            continue
        gist = f"variant {v.name} left out for {interp.path}"
        line = Said(f"{gist} ({interp.version}): {reason}", WarningKind.VARIANT_LEFT_OUT, gist)
        if line not in lines:
            lines.append(line)
            if warn:
                warn(line)
    if not kept and commands:
        raise BadInput(lines[0] if len(lines) == 1 else f"no variant can run on the interpreters given: {lines[0]}")
    return kept, lines
