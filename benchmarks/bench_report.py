"""Does the HTML report scale? Page size and time to load and draw it in headless chromium,
for the import tree of ~540 stdlib modules (the `import-stdlib` workload) against an empty
page, measured side by side in one run (ratios, not gates).

    .venv/bin/python benchmarks/bench_report.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from profiler.render.html import render_html
from profiler.workflows.imports import ImportsOptions, imports
from profiler.analysis.page import page_data
from profiler.workloads import workload_target
from profiler.session import Session


def load_seconds(path: str) -> float:
    with tempfile.TemporaryDirectory() as profile:
        argv = [
            shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile}", "--dump-dom", "file://" + path,
        ]
        t0 = time.perf_counter()
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
        took = time.perf_counter() - t0
    if 'data-rendered="ok"' not in out:
        sys.exit(f"the page did not render: {path}")
    return took


def main() -> None:
    if not shutil.which("chromium"):
        sys.exit("chromium is not installed (make setup)")
    report = imports(ImportsOptions(target=workload_target("import-stdlib"), runs=3, warmup=1, phases=True), session=Session())
    doc = report.to_dict()
    # as `importprof report` makes them: the documents plus what the page derives in Python
    # (the import tree, Σ phases...: analysis/page.py page_data), so the script only draws
    pages = {
        "empty": {"schema": "importprof.report/1", "machine": {}, "documents": [], "derived": page_data([], {})},
        "import-stdlib": {"schema": "importprof.report/1", "machine": {}, "documents": [{"source": "bench", "doc": doc}],
                          "derived": page_data([("bench", doc)], {})},
    }
    with tempfile.TemporaryDirectory() as tmp:
        paths, sizes, render_s = {}, {}, {}
        for name, bundle in pages.items():
            t0 = time.perf_counter()
            text = render_html(bundle)
            render_s[name] = time.perf_counter() - t0
            paths[name] = os.path.join(tmp, f"{name}.html")
            with open(paths[name], "w", encoding="utf-8") as fh:
                fh.write(text)
            sizes[name] = len(text.encode())
        times = {name: [] for name in pages}
        for _ in range(3):  # interleaved
            for name in pages:
                times[name].append(load_seconds(paths[name]))
    med = {name: statistics.median(v) for name, v in times.items()}
    print(f"modules in the tree: {len(doc['modules'])}; JSON document {len(json.dumps(doc)) / 1024:.0f} KiB")
    for name in pages:
        print(f"{name:>14}: page {sizes[name] / 1024:.0f} KiB, render_html {render_s[name] * 1e3:.1f} ms, "
              f"chromium load+draw (median of 3, process start included) {med[name]:.2f} s")
    print(f"ratio import-stdlib / empty: size {sizes['import-stdlib'] / sizes['empty']:.1f}x, "
          f"browser time {med['import-stdlib'] / med['empty']:.2f}x (aim: under 1.5x)")


if __name__ == "__main__":
    main()
