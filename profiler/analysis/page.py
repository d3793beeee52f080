"""What the report page shows beyond the documents themselves, derived once in Python (pure:
documents in, plain data out) so the page's script only draws and every figure
has one meaning:

  machine_facts(machine)        → [{key, label, value, unit}]: human labels and units
  mixed_documents(entries)      → warnings when documents measure different targets or
                                  interpreters (`report --from a.json b.json`)
  site_customize(doc)           → sitecustomize/usercustomize: imported, or looked for and
                                  not found (and what looking cost), so the facts and the
                                  "imports made while site ran" table never disagree
  page_data(documents, machine) → all of it for one page (`derived` of importprof.report/1)
"""

from __future__ import annotations

from typing import Iterable, Sequence

from profiler.model.report import kind_of

# (key, human label, unit) in the order the page lists them; unknown keys follow, as is
_MACHINE = (
    ("hostname", "Host name", "text"),
    ("system", "Operating system", "text"),
    ("release", "Kernel release", "text"),
    ("arch", "Architecture", "text"),
    ("cpu_model", "CPU", "text"),
    ("physical_cores", "Physical cores", "count"),
    ("logical_cores", "Logical cores", "count"),
    ("cpu_frequency", "CPU frequency", "MHz"),
    ("load_average", "Load average (1, 5, 15 min)", "load"),
    ("cpu_percent", "CPU used by other work while measuring", "percent"),
    ("memory_total_bytes", "Memory (total)", "bytes"),
    ("memory_available_bytes", "Memory (available)", "bytes"),
    ("importprof_version", "importprof version", "text"),
    ("importprof_python", "importprof ran on", "path"),
)


def machine_facts(machine: dict | None) -> list[dict]:
    """The machine object → labelled facts with their unit; the page formats by unit."""
    machine = machine if isinstance(machine, dict) else {}
    out = []
    known = set()
    for key, label, unit in _MACHINE:
        known.add(key)
        if key not in machine or machine[key] is None:
            continue
        value = machine[key]
        if key == "cpu_frequency":
            value = value.get("current_mhz") if isinstance(value, dict) else value
            if value is None:
                continue
        out.append({"key": key, "label": label, "value": value, "unit": unit})
    for key, value in machine.items():
        if key not in known and value is not None:
            unit = "bytes" if key.endswith("_bytes") else "text"
            out.append({"key": key, "label": key.replace("_", " "), "value": value, "unit": unit})
    return out


# per-run conditions (they change from one document to the next on one machine)
CONDITIONS = ("load_average", "cpu_percent", "memory_available_bytes")


def machine_identity(machine: dict) -> tuple:
    return (machine.get("hostname"), machine.get("cpu_model"), machine.get("release"), machine.get("memory_total_bytes"))


def _targets(doc: dict) -> set[str]:
    found: set[str] = set()
    if doc.get("workload"):  # a fixed program of importprof's own (compare --workload)
        return found
    if isinstance(doc.get("target"), str) and doc["target"]:
        found.add(doc["target"])
    for r in doc.get("results") or doc.get("variants") or []:
        if isinstance(r, dict) and isinstance(r.get("target"), str) and r["target"]:
            if r.get("role", "target") == "target":
                found.add(r["target"])
    return found


def _interpreters(doc: dict) -> set[str]:
    found = set()
    if isinstance(doc.get("python_version"), str) and doc["python_version"]:
        found.add(doc["python_version"])
    for r in doc.get("results") or doc.get("variants") or []:
        if isinstance(r, dict) and isinstance(r.get("python_version"), str) and r["python_version"]:
            found.add(r["python_version"])
    return found


def mixed_documents(entries: Iterable[tuple[str, dict]]) -> list[dict]:
    """(source, document) pairs → one record per mixed identity, {"what": "target"|"python",
    "values": [{"value", "sources"}]}: documents that measured different targets, or ran on
    different Python versions, must not be read as one investigation. A `compare --workload`
    document times importprof's own program and is left out of the target check; a document
    holding several interpreters on purpose (startup --python A --python B) is not "mixed"."""
    entries = list(entries)
    out = []
    for what, pick in (("target", _targets), ("python", _interpreters)):
        seen: dict[str, list[str]] = {}
        for source, doc in entries:
            values = pick(doc)
            if len(values) == 1:
                seen.setdefault(next(iter(values)), []).append(source)
        if len(seen) > 1:
            out.append({"what": what, "values": [{"value": v, "sources": srcs} for v, srcs in seen.items()]})
    return out


def part_heading(doc: dict) -> str:
    """What one document measured, for its part's heading on a page whose documents differ
    (`report --from` of two programs or two Pythons): its target and its Python version."""
    targets, pythons = sorted(_targets(doc)), sorted(_interpreters(doc))
    what = ", ".join(targets) if targets else ("importprof's workload " + str(doc["workload"]) if doc.get("workload") else "")
    on = ", ".join(pythons)
    return " on ".join(p for p in (what, f"Python {on}" if on else "") if p)


def site_customize(doc: dict) -> dict:
    """For `sitecustomize` and `usercustomize`: {"state": "imported"|"not found"|"not looked for",
    "path", "seconds", "looked_us"} - "not found" with the µs site spent looking when the
    document's import rows show the attempt (the failed import is real work, not a module)."""
    rows = {m.get("name"): m for m in doc.get("modules") or [] if isinstance(m, dict)}
    out = {}
    for name in ("sitecustomize", "usercustomize"):
        value = doc.get(name)
        row = rows.get(name)
        if isinstance(value, dict):
            out[name] = {"state": "imported", "path": value.get("path"), "seconds": value.get("seconds")}
        elif row is not None:
            out[name] = {"state": "not found", "looked_us": row.get("cumulative_us")}
        else:
            out[name] = {"state": "not looked for"}
    return out


# ------------------------------------------------------------------ the import tree, once
PHASE_KEYS = ("find_us", "read_us", "unmarshal_us", "exec_us")


def import_tree(modules: list, total_us: int | None = None) -> dict:
    """The `imports` document's rows → the tree the icicle draws, nested as the rows are
    (pre-order and depth, analysis.imports_views.parent_indices). Nodes: {"m": row index, "cum": µs, "kids": [...]};
    the top node and one per process when there are several: {"name", "cum", "kids"} (synthetic).
    The top's cum is the document's `total_us` for one process (Σ roots otherwise)."""
    from types import SimpleNamespace

    from profiler.analysis.imports_views import parent_indices

    rows = [m for m in modules if isinstance(m, dict)]
    procs: list = []
    for m in rows:
        if (m.get("process") or 0) not in procs:
            procs.append(m.get("process") or 0)
    # the rows are the document's pre-order: each one's parent is the nearest shallower row
    # before it (exact when a name occurs twice, as the aggregation pairs them)
    shape = [SimpleNamespace(process=m.get("process") or 0, depth=m.get("depth") if isinstance(m.get("depth"), int) else 0)
             for m in rows]
    parent: dict[int, int | None] = dict(enumerate(parent_indices(shape)))

    def cum(i: int) -> int:
        v = rows[i].get("cumulative_us")
        return v if isinstance(v, (int, float)) else 0

    nodes = [{"m": i, "cum": cum(i), "kids": []} for i in range(len(rows))]
    procs.sort()
    top = {"name": "all imports", "cum": 0, "kids": []}
    by_proc = {p: ({"name": f"process {p}", "cum": 0, "kids": []} if len(procs) > 1 else top) for p in procs}
    if len(procs) > 1:
        top["kids"] = [by_proc[p] for p in procs]
    for i, node in enumerate(nodes):
        if parent[i] is not None:
            nodes[parent[i]]["kids"].append(node)
        else:
            home = by_proc[rows[i].get("process") or 0]
            home["kids"].append(node)
            home["cum"] += node["cum"]
    if len(procs) > 1:
        top["cum"] = sum(by_proc[p]["cum"] for p in procs)
    elif isinstance(total_us, (int, float)) and total_us > 0:
        top["cum"] = total_us
    return top


def phase_totals(modules: list) -> list:
    """Per row: find+read+unmarshal+exec (µs) of the instrumented run, None without phases -
    beside `self_us` (the timed runs' median) the page says how far apart the two runs are."""
    out = []
    for m in modules:
        vals = [m.get(k) for k in PHASE_KEYS] if isinstance(m, dict) else [None]
        out.append(sum(vals) if all(isinstance(v, (int, float)) for v in vals) else None)
    return out


def peak_rss(results: list) -> list:
    """Per timing result: the largest `memory_usage_byte` of its runs (None when unmeasured)."""
    out = []
    for r in results:
        mem = [b for b in (r.get("memory_usage_byte") or []) if isinstance(b, (int, float))] if isinstance(r, dict) else []
        out.append(max(mem) if mem else None)
    return out


_INTERPRETER = (
    ("path", "Interpreter run", "path"),
    ("requested", "Asked for as", "text"),
    ("version", "Python version", "text"),
    ("implementation", "Implementation", "text"),
    ("prefix", "sys.prefix", "path"),
    ("base_prefix", "sys.base_prefix (differs in a venv)", "path"),
    ("stdlib", "Standard library", "path"),
    ("purelib", "site-packages", "path"),
    ("libdir", "Library folder", "path"),
    ("ldlibrary", "Python library", "text"),
    ("enable_shared", "Built with --enable-shared", "yesno"),
    ("include", "C headers", "path"),
    ("source", "Found through", "text"),
)


def interpreter_facts(interp: dict | None) -> list[dict]:
    """The measured interpreter's description → labelled facts (same shape as machine_facts);
    unknown keys follow with their key as label; empty values are left out."""
    interp = interp if isinstance(interp, dict) else {}
    out, known = [], set()
    for key, label, unit in _INTERPRETER:
        known.add(key)
        if interp.get(key) not in (None, ""):
            out.append({"key": key, "label": label, "value": interp[key], "unit": unit})
    for key, value in interp.items():
        if key not in known and value not in (None, ""):
            out.append({"key": key, "label": key.replace("_", " "), "value": value, "unit": "text"})
    return out


def syscalls_side_by_side(variants: list) -> list[dict]:
    """A trace of several variants → one row per syscall name (first-seen order) with each
    variant's count (None where the variant made none)."""
    names: list[str] = []
    counts = []
    for v in variants:
        by = {r.get("name"): r.get("count") for r in (v.get("syscalls") or []) if isinstance(r, dict)} if isinstance(v, dict) else {}
        counts.append(by)
        names += [n for n in by if n not in names]
    return [{"name": n, "counts": [c.get(n) for c in counts]} for n in names]


def interpreters_seen(measured: dict | None, documents: list) -> list[dict]:
    """Every (path, version) the documents name, once, with the kinds of document that ran it
    ("measured" for a live report's own interpreter)."""
    seen: dict[tuple, dict] = {}

    def note(path, version, where):
        # a document names them as text: a key of another kind (a list, a number) is a document
        # this page does not know, and is left out rather than failing the page
        path = path if isinstance(path, str) else None
        version = version if isinstance(version, str) else None
        if not path and not version:
            return
        row = seen.setdefault((path, version), {"path": path, "version": version, "where": []})
        if where not in row["where"]:
            row["where"].append(where)

    if isinstance(measured, dict):
        note(measured.get("path"), measured.get("version"), "measured")
    for kind, doc in documents:
        for r in doc.get("results") or []:
            if isinstance(r, dict):
                note(r.get("python"), r.get("python_version"), kind)
        note(doc.get("python"), doc.get("python_version"), kind)
    return [{**row, "where": ", ".join(row["where"])} for row in seen.values()]


# ------------------------------------------------------------------ the page's derived data
def page_data(documents: Sequence[tuple[str, dict]], machine: dict | None) -> dict:
    """Derived once in Python so the page's script only draws: machine facts
    with labels and units (each machine once, the load and free memory of every document), the
    documents' mixed targets or interpreters, and per document what its part needs
    (`documents[i]` belongs to the i-th document)."""
    machines: list[dict] = []
    conditions: list[dict] = []
    seen: set = set()
    for source, m in [("this run", machine or {})] + [(f"{kind_of(doc)} ({src})", doc.get("machine") or {}) for src, doc in documents]:
        if not isinstance(m, dict) or not m:
            continue
        now = {k: m.get(k) for k in CONDITIONS}
        if any(v is not None for v in now.values()):
            same = next((c for c in conditions if c["values"] == now), None)
            if same is not None:  # a live report's parts share one reading: one row
                same["source"] += ", " + source
            else:
                conditions.append({"source": source, "values": now, "facts": machine_facts(now)})
        if machine_identity(m) in seen:
            continue
        seen.add(machine_identity(m))
        static = {k: v for k, v in m.items() if k not in CONDITIONS}
        machines.append({"source": source, "facts": machine_facts(static)})
    per_doc = [_document_data(doc) for _, doc in documents]
    mixed = mixed_documents(documents)
    if mixed:  # parts that measure different things say which, in their heading
        for data, (_, doc) in zip(per_doc, documents):
            data["heading"] = part_heading(doc)
    for c in conditions:
        del c["values"]
    return {
        "machines": machines,
        "conditions": conditions,
        "mixed": mixed,
        "interpreters": interpreters_seen(None, [(kind_of(doc), doc) for _, doc in documents]),
        "documents": per_doc,
    }


def _document_data(doc: dict) -> dict:
    """What one document's part of the page needs beyond the document (the page's
    script draws, it does not rebuild the import tree or recompute peak RSS)."""
    kind = kind_of(doc)
    out: dict = {}
    if kind == "site":
        out["customize"] = site_customize(doc)
    if kind == "imports":
        mods = doc.get("modules") or []
        total = doc.get("total_us") if (doc.get("processes") or 1) == 1 else None
        out["tree"] = import_tree(mods, total)
        if any(isinstance(m, dict) and m.get("find_us") is not None for m in mods):
            out["phases_us"] = phase_totals(mods)
    if kind in ("startup", "compare"):
        out["peak_rss_bytes"] = peak_rss(doc.get("results") or [])
    if kind == "trace" and doc.get("variants"):
        out["side_by_side"] = syscalls_side_by_side(doc["variants"])
    if kind == "compare" and not doc.get("rows"):
        out["rows"] = _compare_rows(doc)
    return out


def _compare_rows(doc: dict) -> list[dict]:
    """PyOxidizer's columns for a compare document that has none (an older or hand-made file)."""
    from profiler.analysis.compare import compare_rows
    from profiler.model.measurement import TimingResult

    try:
        results = [TimingResult.from_dict(r) for r in doc.get("results") or []]
        return [r.to_dict() for r in compare_rows(results)]
    except (KeyError, TypeError, ValueError):
        return []
