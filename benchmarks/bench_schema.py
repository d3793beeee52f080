"""The saved-document validator: importprof's compiled schemas (profiler/inputs/schema_compiler.py,
`conforms`) against jsonschema (Draft202012Validator.is_valid, the judge that names a problem)
and fastjsonschema (its generated code), on the repository's own schemas (profiler/schemas/)
and saved documents (tests/fixtures/), measured side by side in one run, interleaved (ratios,
not gates):

1. the same verdicts: every saved document accepted by all three, and on mutated copies (the
   edits tests/test_fuzz.py makes: a value replaced by any JSON value, a key dropped or added,
   a list emptied or an item repeated, a number turned into a string or negated) each library
   accepts what importprof accepts and refuses what it refuses;
2. what one command pays to check one document (show, diff, report --from read one or two):
   the library imported and the validator built, in a fresh interpreter;
3. a document checked again and again (the validator built): each saved document, and an
   imports report of many processes (the fixture's modules repeated, as --from-log of a
   thousand runs writes them).

    .venv/bin/python benchmarks/bench_schema.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from profiler.inputs.documents import kind_of, kinds  # noqa: E402
from profiler.inputs.schema_compiler import conforms, schema  # noqa: E402

from _mutations import mutate, small  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures"
MUTATIONS = int(os.environ.get("BENCH_SCHEMA_MUTATIONS", "150"))  # per saved document
ROUNDS = 5


def saved_documents() -> list[tuple[str, str, dict]]:
    """(file, kind, document) for every saved importprof document under tests/fixtures whose kind
    has a published schema (a report's bundled documents too)."""
    published = set(kinds())
    out = []
    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        kind = kind_of(doc)
        if kind in published:
            out.append((str(path.relative_to(REPO)), kind, doc))
            for i, item in enumerate(doc.get("documents") or () if kind == "report" else ()):
                inner = item.get("doc", {})
                inner_kind = kind_of(inner)
                if inner_kind in published:
                    out.append((f"{path.relative_to(REPO)}: documents[{i}]", inner_kind, inner))
    return out


def validators():
    """name -> (build(kind) -> check(doc) -> bool)."""
    import fastjsonschema
    from jsonschema import Draft202012Validator

    def ours(kind):
        return lambda doc: conforms(doc, kind)

    def js(kind):
        return Draft202012Validator(schema(kind)).is_valid

    def fast(kind):
        validate = fastjsonschema.compile(schema(kind))
        error = fastjsonschema.JsonSchemaException

        def check(doc):
            try:
                validate(doc)
            except error:
                return False
            return True

        return check

    return {"importprof": ours, "jsonschema": js, "fastjsonschema": fast}


# ------------------------------------------------------------------ 1. the same verdicts
def _any_value(rng: random.Random, depth: int = 0):
    """Any JSON value (NaN, infinities and integers past 2**64 included), as tests/test_fuzz.py's
    json_values draws them."""
    pick = rng.randrange(9 if depth < 2 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([0, 1, -1, 5, 2**53, -(2**70), 2**70, rng.randrange(-1000, 1000)])
    if pick == 3:
        return rng.choice([0.0, -0.0, 5.0, 1.5, -2.5, 1e300, float("nan"), float("inf"), float("-inf")])
    if pick in (4, 5):
        return rng.choice(["", "0", "-1", "1.5", "x", "in-memory", "apply", "pass", "importprof.imports/1"])
    if pick == 6:
        return "".join(rng.choice("ab\u00e9\U0001F600 ") for _ in range(rng.randrange(6)))
    if pick == 7:
        return [_any_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["a", "name", "schema", "", "self_us"]): _any_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def mutated(base: dict, rng: random.Random):
    """`base` with 1-4 edits at random places (tests/_mutations.py: mutate, as tests/test_fuzz.py
    edits it), each choice the seeded `rng`'s."""
    return mutate(base, rng.randint, rng.choice, lambda: _any_value(rng), lambda: rng.choice(["x", "extra", "name", "", "\u00e9"]))


def verdicts(docs, checks) -> None:
    print("1. the same verdicts (accepted / refused; a library that differs from importprof is shown)")
    for file, kind, doc in docs:
        said = {name: checks[name][kind](doc) for name in checks}
        if not all(said.values()):
            print(f"   {file}: a saved document refused: {said}")
    rng = random.Random(43)
    differ: dict[str, list] = {name: [] for name in checks if name != "importprof"}
    counts = {"accepted": 0, "refused": 0}
    all_kinds = sorted({k for _, k, _ in docs})
    for file, kind, doc in docs:
        base = small(doc)
        for _ in range(MUTATIONS):
            case = mutated(base, rng)
            against = kind if rng.random() < 0.8 else rng.choice(all_kinds)  # as the fuzz test: another kind's schema too
            ours = checks["importprof"][against](case)
            counts["accepted" if ours else "refused"] += 1
            for name in differ:
                if checks[name][against](case) != ours:
                    differ[name].append((file, against, case, ours))
    total = counts["accepted"] + counts["refused"]
    print(f"   {len(docs)} saved documents, all accepted by all three; {total} mutated copies: importprof accepts "
          f"{counts['accepted']}, refuses {counts['refused']}")
    for name, cases in differ.items():
        print(f"   {name}: {len(cases)} verdicts differ from importprof's" + (":" if cases else " (aim: none, met)"))
        for file, against, case, ours in cases[:3]:
            text = json.dumps(case)
            print(f"     {file} against {against}: importprof {'accepts' if ours else 'refuses'}, "
                  f"{name} not: {text[:160]}{'...' if len(text) > 160 else ''}")


# ------------------------------------------------------------------ 2. one command's cost
FIRST = r"""
import json, sys, time
t0 = time.perf_counter()
which, schema_path, doc_path = sys.argv[1:4]
with open(schema_path) as fh:
    schema = json.load(fh)
with open(doc_path) as fh:
    doc = json.load(fh)
t1 = time.perf_counter()
if which == "importprof":
    from profiler.inputs.schema_compiler import _compile
    ok = _compile(schema)(doc)
elif which == "jsonschema":
    from jsonschema import Draft202012Validator
    ok = Draft202012Validator(schema).is_valid(doc)
elif which == "fastjsonschema":
    import fastjsonschema
    fastjsonschema.compile(schema)(doc)
    ok = True
else:
    ok = True
assert ok
print(time.perf_counter() - t1)
"""


def first_document(names) -> None:
    """import + build + one check of the imports fixture in a fresh interpreter (the document
    read before the clock starts), interleaved, median of ROUNDS."""
    doc_path = FIXTURES / "report" / "imports.json"
    schema_path = REPO / "profiler" / "schemas" / "imports.json"
    times: dict[str, list[float]] = {n: [] for n in names}
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for _ in range(ROUNDS):
        for name in names:
            out = subprocess.run([sys.executable, "-c", FIRST, name, str(schema_path), str(doc_path)],
                                 capture_output=True, text=True, env=env, check=True).stdout
            times[name].append(float(out))
    med = {n: statistics.median(v) * 1e3 for n, v in times.items()}
    print("2. one command's first document (imports fixture, 69 KB): import + build + check, fresh interpreter, "
          f"median of {ROUNDS}")
    for name in names:
        print(f"   {name:>14}: {med[name]:7.2f} ms   ({med[name] / med['importprof']:.1f}x importprof)")
    print(f"   aim: importprof the fastest: {'met' if min(med, key=med.get) == 'importprof' else 'MISSED'}")


# ------------------------------------------------------------------ 3. checked again and again
def steady(docs, checks) -> None:
    by_kind: dict[str, list[dict]] = {}
    for _, kind, doc in docs:
        by_kind.setdefault(kind, []).append(doc)
    imports = json.loads((FIXTURES / "report" / "imports.json").read_text())
    big = dict(imports, modules=[dict(m, process=p) for p in range(20) for m in imports["modules"]])
    cases = [(f"{kind} ({len(ds)} saved)", kind, ds) for kind, ds in sorted(by_kind.items())]
    cases.append((f"imports, {len(big['modules']):,} modules", "imports", [big]))
    print(f"3. checked again and again (validators built): time per document, the best of {2 * ROUNDS} interleaved rounds")
    print(f"   {'documents':<32} {'importprof':>11} {'jsonschema':>11} {'fastjsonschema':>15}   jsonschema/importprof  fast/importprof")
    names = list(checks)
    worst = (float("inf"), "")
    for label, kind, ds in cases:
        t0 = time.perf_counter()
        for d in ds:
            checks["importprof"][kind](d)
        repeat = max(1, min(200, int(0.002 / max(time.perf_counter() - t0, 1e-7))))  # importprof's ~2 ms a round
        times: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(2 * ROUNDS):
            for name in names:
                check = checks[name][kind]
                t0 = time.perf_counter()
                for _ in range(repeat):
                    for d in ds:
                        check(d)
                times[name].append((time.perf_counter() - t0) / (repeat * len(ds)))
        med = {n: min(v) * 1e3 for n, v in times.items()}  # the best round: the least disturbed by other work
        print(f"   {label:<32} {med['importprof']:9.3f}ms {med['jsonschema']:9.3f}ms {med['fastjsonschema']:13.3f}ms"
              f"   {med['jsonschema'] / med['importprof']:19.1f}x {med['fastjsonschema'] / med['importprof']:15.2f}x")
        worst = min(worst, (min(med[n] for n in names if n != "importprof") / med["importprof"], label))
    print(f"   aim: no library more than 10% faster than importprof on any document: "
          f"{'met' if worst[0] >= 0.9 else 'MISSED'} (closest: {worst[1]}, the fastest library at {worst[0]:.2f}x importprof's time)")


def main() -> None:
    try:
        import fastjsonschema  # noqa: F401
        import jsonschema  # noqa: F401
    except ImportError as exc:
        sys.exit(f"{exc.name} is not installed (make setup installs the test extras)")
    from importlib.metadata import version

    t0 = time.perf_counter()
    docs = saved_documents()
    build = validators()
    used = sorted({k for _, k, _ in docs})
    checks = {name: {} for name in build}
    for kind in used:  # interleaved builds are not timed here (2. times them in a fresh process)
        for name, make in build.items():
            checks[name][kind] = make(kind)
    for kind in sorted(set(kinds()) - set(used)):
        print(f"   (no saved document of kind {kind} in tests/fixtures: its schema is checked in tests/test_fuzz.py only)")
    print(f"jsonschema {version('jsonschema')}, fastjsonschema {version('fastjsonschema')}, Python {sys.version.split()[0]}")
    verdicts(docs, checks)
    first_document(list(build))
    steady(docs, checks)
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
