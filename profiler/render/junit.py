"""`importprof check --format junit`: JUnit XML, one testcase per check (a failing rule is a
<failure>, a check that could not run an <error>), so CI systems show each check as a test."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from profiler.model.check import CheckReport


def render_junit(report: CheckReport) -> str:
    results = report.results
    suite = ET.Element("testsuite", {
        "name": "importprof.check",
        "tests": str(len(results)),
        "failures": str(sum(r.status == "fail" for r in results)),
        "errors": str(sum(r.status == "error" for r in results)),
        "skipped": "0",
        "time": f"{sum(r.duration_s for r in results):.3f}",
    })
    for r in results:
        case = ET.SubElement(suite, "testcase", {"classname": "importprof.check", "name": r.name, "time": f"{r.duration_s:.3f}"})
        if r.status == "error":
            ET.SubElement(case, "error", {"message": r.error or "could not run"}).text = r.error or ""
        elif r.status == "fail":
            bad = [f for f in r.findings if f.status == "fail"]
            el = ET.SubElement(case, "failure", {"message": bad[0].message if bad else "failed", "type": bad[0].rule if bad else "check"})
            el.text = "\n".join(f"{f.rule}: {f.message}" for f in bad)
        out = []
        if r.wall_ms is not None:
            out.append(f"start-up {r.wall_ms:.3f} ms (median of {len(r.wall_ms_runs)})")
        if r.instructions is not None:
            out.append(f"instructions {r.instructions} (median of {len(r.instructions_runs)}, {r.instructions_method})")
        out.extend(f"{f.status} {f.rule}: {f.message}" for f in r.findings)
        ET.SubElement(case, "system-out").text = "\n".join(out)
    root = ET.Element("testsuites", {"name": "importprof"})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
