"""`importprof report`: one self-contained HTML page, checked in a REAL headless browser
(Debian's chromium, installed by `make setup`).

Chromium is started a few times only (about 1-2 s each): one page built with --from from the
real documents in tests/fixtures/report/ is loaded once for the DOM checks (with a small
harness script appended to a copy, which clicks and hovers like a user) and once for the
screenshot; one live report of a real program whose module is named `<script>` checks the
escaping and the live path.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

from profiler.render.html import embed_json, render_html

from conftest import FIXTURES, assert_one_line_error

REPORT_FIXTURES = FIXTURES / "report"
KINDS = ("startup", "imports", "why", "trace", "site", "compare", "doctor")


def fixture_files() -> list[Path]:
    return [REPORT_FIXTURES / f"{k}.json" for k in KINDS]  # each must exist: a missing one fails


# ------------------------------------------------------------------ a real browser
def chromium(*args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("chromium is not installed: run `make setup` (scripts/apt-packages.txt lists it)")
    with tempfile.TemporaryDirectory(prefix="importprof-chromium-") as profile:
        argv = [
            exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args,
        ]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def browser_problems(stderr: str) -> list[str]:
    """Console lines that mean the page broke: an uncaught exception, or a load the page's
    Content-Security-Policy refused (anything it tried to fetch from outside itself)."""
    return [ln for ln in stderr.splitlines() if "CONSOLE" in ln and ("Uncaught" in ln or "Refused to" in ln)]


def dump_dom(page: Path) -> str:
    proc = chromium("--dump-dom", page.resolve().as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not browser_problems(proc.stderr), browser_problems(proc.stderr)
    return proc.stdout


def read_png(path: Path) -> tuple[int, int, int, bytes]:
    """A small stdlib-only PNG decoder (8-bit RGB/RGBA, not interlaced, as chromium writes):
    → (width, height, bytes per pixel, raw pixel rows without filter bytes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out += line
        prev = line
    return width, height, bpp, bytes(out)


def colour_stats(path: Path) -> tuple[int, float]:
    """(distinct colours, share of pixels that are not near-white)."""
    width, height, bpp, px = read_png(path)
    colours = set()
    inked = 0
    total = width * height
    for i in range(0, len(px), bpp):
        rgb = px[i : i + 3]
        colours.add(rgb)
        if min(rgb) < 235:
            inked += 1
    return len(colours), inked / total


def embedded_data(page_html: str) -> dict:
    m = re.search(r'<script type="application/json" id="importprof-data">(.*?)</script>', page_html, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1))


# The harness a copy of the page gets: it acts like a user (sort, hover, click) once the
# page's own script has run, and writes what it saw into <pre id="test-results">.
HARNESS = r"""
<script>
(function () {
  var out = {};
  try {
    var table = document.getElementById("imports-table");
    table.querySelector('button.sort[data-key="self_us"]').click();
    out.sorted = table.querySelector('th[aria-sort="descending"] button').getAttribute("data-key");
    out.firstRow = table.querySelector("tbody tr td").textContent;
    var svg = document.querySelector("svg.icicle-svg");
    var rects = Array.prototype.slice.call(svg.querySelectorAll("rect.node"));
    out.rects = rects.length;
    var second = rects.filter(function (r) { return Number(r.getAttribute("y")) > 0; });
    second.sort(function (a, b) { return b.getAttribute("width") - a.getAttribute("width"); });
    var target = second[0];
    var box = target.getBoundingClientRect();
    target.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: box.left + 2, clientY: box.top + 2 }));
    var tip = document.getElementById("tooltip");
    out.tipHidden = tip.hidden;
    out.tip = Array.prototype.map.call(tip.children, function (c) { return c.textContent; });
    target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    out.focus = document.querySelector("svg.icicle-svg").getAttribute("data-focus");
    out.crumbs = Array.prototype.map.call(document.querySelectorAll(".crumbs button"), function (b) { return b.textContent; });
    out.rectsZoomed = document.querySelectorAll("svg.icicle-svg rect.node").length;
    var modeSel = document.querySelector("select.color-mode");
    if (modeSel) {
      modeSel.value = "phase";
      modeSel.dispatchEvent(new Event("change"));
      out.phaseFills = Array.prototype.map.call(document.querySelectorAll("svg.icicle-svg rect.node"), function (r) { return r.getAttribute("fill"); })
        .filter(function (f, i, all) { return all.indexOf(f) === i; });
    }
    document.querySelector(".crumbs button").click();
    out.focusBack = document.querySelector("svg.icicle-svg").getAttribute("data-focus");
    out.startupBars = document.querySelectorAll("#startup svg.bars rect.bar").length;
    out.startupDots = document.querySelectorAll("#startup svg.strip circle.run").length;
    out.errorBars = document.querySelectorAll("#startup svg.bars line.err").length;
    out.traceRows = document.querySelectorAll("#trace table.data tbody tr").length;
    out.siteRows = document.querySelectorAll("#site-pth-table tbody tr").length;
    out.compareRows = document.querySelectorAll("#compare-table tbody tr").length;
    out.whyChains = document.querySelectorAll("#why ol.chains > li").length;
    function column(tableId, label) {
      var table = document.getElementById(tableId);
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent; });
      var i = heads.indexOf(label);
      if (i < 0) return "no column " + label + " in " + heads.join(",");
      return Array.prototype.map.call(table.querySelectorAll("tbody tr"), function (tr) { return tr.children[i].textContent; });
    }
    out.startupRatios = column("startup-table", "vs reference (time)");
    out.compareRatios = column("compare-table", "vs no-site (wall time)");
    out.conventions = Array.prototype.map.call(document.querySelectorAll("p.convention"), function (p) { return p.textContent; });
    // how cells may wrap, cut labels, one story about sitecustomize, facts, mixed documents
    var wraps = {};
    Array.prototype.forEach.call(document.querySelectorAll("table.data td, table.data td code"), function (td) {
      var st = getComputedStyle(td);
      wraps[st.wordBreak + "/" + st.overflowWrap] = true;
    });
    out.cellWraps = Object.keys(wraps);
    out.tableText = Array.prototype.map.call(document.querySelectorAll("table.data td"), function (td) { return td.textContent; }).join("\n");
    out.cutLabels = Array.prototype.filter.call(document.querySelectorAll("svg text.label"), function (t) {
      return t.firstChild && t.firstChild.nodeValue && t.firstChild.nodeValue.slice(-1) === "\u2026";
    }).map(function (t) { var title = t.querySelector("title"); return title ? title.textContent : null; });
    out.customize = Array.prototype.map.call(document.querySelectorAll("#site dd[data-state]"), function (dd) { return dd.getAttribute("data-state") + ": " + dd.textContent; });
    out.factLabels = Array.prototype.map.call(document.querySelectorAll("#facts dl.machine dt"), function (dt) { return dt.textContent; });
    out.factValues = Array.prototype.map.call(document.querySelectorAll("#facts dl.machine dd"), function (dd) { return dd.textContent; });
    out.mixed = Array.prototype.map.call(document.querySelectorAll("#mixed li"), function (li) { return li.textContent; });
    out.sectionOrder = Array.prototype.map.call(document.querySelectorAll("main > section.part"), function (s) { return s.id; });
    out.findings = Array.prototype.map.call(document.querySelectorAll("#doctor li.finding"), function (li) {
      return [li.getAttribute("data-kind"), li.querySelector(".cost").textContent, li.querySelector(".fix").textContent];
    });
    out.pageWidth = document.documentElement.scrollWidth;
    out.viewWidth = window.innerWidth;
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  var pre = document.createElement("pre");
  pre.id = "test-results";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def harness_results(dom: str) -> dict:
    m = re.search(r'<pre id="test-results">(.*?)</pre>', dom, re.S)
    assert m, "the harness did not run"
    return json.loads(html.unescape(m.group(1)))


# ------------------------------------------------------------------ unit: the page's script under node
@pytest.mark.slow
def test_page_script_under_node(tmp_path):
    """tests/js/page.test.js with node's own test runner: the page's files load
    without a document, format as the Python renderers do, and draw the data Python derived
    (the import tree, peak RSS, compare rows) instead of rebuilding it. node and npm are set-up
    requirements (`make setup`): missing is a failure, not a skip."""
    from profiler.compose.report import report_from_files

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are required: run `make setup`")
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(report_from_files([str(p) for p in fixture_files()]).to_dict()))
    tests = sorted(str(p) for p in (Path(__file__).parent / "js").glob("*.test.js"))
    assert tests, "no tests/js/*.test.js"
    proc = subprocess.run([node, "--test", *tests], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "IMPORTPROF_BUNDLE": str(bundle)})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# skipped 0" in proc.stdout, proc.stdout[-2000:]


# ------------------------------------------------------------------ unit: the renderer
def test_embed_json_leaves_no_markup():
    nasty = {"name": "</script><script>alert(1)</script>", "amp": "a & b", "ls": "x\u2028y\u2029z", "nan": float("nan")}
    text = embed_json(nasty)
    for ch in "<>&\u2028\u2029":
        assert ch not in text
    back = json.loads(text)
    assert back["name"] == nasty["name"] and back["amp"] == "a & b" and back["ls"] == nasty["ls"]
    assert back["nan"] is None


def test_page_is_self_contained():
    bundle = {"schema": "importprof.report/1", "machine": {}, "title": "<b>t</b>", "documents": []}
    page = render_html(bundle)
    assert page.count("<script") == 2  # the data and the code, both inline
    assert "<script src" not in page and "<link" not in page and "url(" not in page
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in page
    assert "default-src 'none'" in page  # the browser refuses any load from outside the page
    assert embedded_data(page)["title"] == "<b>t</b>"


# ------------------------------------------------------------------ --from: one page, real browser
@pytest.fixture(scope="module")
def from_page(cli, tmp_path_factory):
    files = fixture_files()
    out = tmp_path_factory.mktemp("report") / "page.html"
    # files after --from, options after them: how a user types it
    res = cli("report", "--from", *files, "-o", out, "--title", "fixture page")
    assert res.returncode == 0, res
    assert out.exists()
    return out, res


@pytest.fixture(scope="module")
def from_dom(from_page):
    page, _ = from_page
    copy = page.with_name("page-with-harness.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", HARNESS + "</body>"), encoding="utf-8")
    return dump_dom(copy)


def test_from_writes_every_kind(from_page):
    page, res = from_page
    text = page.read_text(encoding="utf-8")
    data = embedded_data(text)
    assert data["schema"] == "importprof.report/1"
    kinds = [d["doc"]["schema"].split(".")[1].split("/")[0] for d in data["documents"]]
    assert kinds == [p.stem for p in fixture_files()]
    assert data["title"] == "fixture page"
    for p in fixture_files():  # the summary on stdout names each part
        assert p.name in res.stdout
    assert "KiB" in res.stderr  # the size of the page is said


def test_page_script_builds_everything(from_dom):
    root = re.search(r"<html[^>]*>", from_dom).group(0)
    assert 'data-rendered="ok"' in root, root
    assert "data-render-error" not in root, root
    sections = re.search(r'data-sections="([^"]*)"', root).group(1).split()
    for p in fixture_files():
        assert p.stem in sections
    assert "facts" in sections


def test_page_interactions(from_dom):
    got = harness_results(from_dom)
    assert "error" not in got, got["error"]
    imports = json.loads((REPORT_FIXTURES / "imports.json").read_text())
    modules = imports["modules"]
    # sortable table: sorted by self, descending, the first row is the costliest module
    assert got["sorted"] == "self_us"
    top_self = max(m["self_us"] for m in modules)
    assert {m["self_us"] for m in modules if m["name"] == got["firstRow"]} == {top_self}
    # icicle: many modules drawn; hover shows self and cumulative; click zooms; the path zooms out
    assert got["rects"] > 20
    assert got["tipHidden"] is False
    assert any(t.startswith("cumulative ") for t in got["tip"]) and any(t.startswith("self ") for t in got["tip"])
    assert got["focus"] == got["tip"][0]
    assert got["crumbs"][0] == "all imports" and got["crumbs"][-1] == got["focus"][:40]
    assert got["rectsZoomed"] < got["rects"]
    assert got["focusBack"] == "all imports"
    # import phases (the fixture was made with --phases): in the tooltip, and a colour per
    # dominant phase on demand
    assert any(m.get("exec_us") is not None for m in modules)
    assert any(t.startswith("find ") and " exec " in t for t in got["tip"]), got["tip"]
    assert {"#b07cc6", "#5b8fd0"} & set(got["phaseFills"]), got["phaseFills"]
    # start-up: one bar and one error bar (3 lines) per variant, one dot per run
    startup = json.loads((REPORT_FIXTURES / "startup.json").read_text())
    assert got["startupBars"] == len(startup["results"])
    assert got["errorBars"] == 3 * len(startup["results"])
    assert got["startupDots"] == sum(len(r["times"]) for r in startup["results"])
    assert got["traceRows"] > 0
    site = json.loads((REPORT_FIXTURES / "site.json").read_text())
    assert got["siteRows"] == len(site["pth"]) > 0
    why = json.loads((REPORT_FIXTURES / "why.json").read_text())
    assert got["whyChains"] == len(why["chains"]) > 0
    compare = json.loads((REPORT_FIXTURES / "compare.json").read_text())
    assert got["compareRows"] == len(compare["results"]) > 0


def test_page_ratios_are_time_ratios_said_in_words(from_dom):
    """Issue 11.1: one direction everywhere: 1.00x (reference), N slower, N faster."""
    got = harness_results(from_dom)
    assert "error" not in got, got["error"]
    assert isinstance(got["startupRatios"], list), got["startupRatios"]
    assert "1.00x (reference)" in got["startupRatios"]
    assert all(r == "1.00x (reference)" or r.endswith((" slower", " faster")) for r in got["startupRatios"]), got["startupRatios"]
    assert isinstance(got["compareRatios"], list), got["compareRatios"]
    assert "1.00x (reference)" in got["compareRatios"]
    assert any(r.endswith(" faster") for r in got["compareRatios"]), got["compareRatios"]  # oxidized beats no-site
    assert len(got["conventions"]) >= 2 and all("1.00x = the reference" in c for c in got["conventions"])


def test_page_reads_without_contradictions(from_dom):
    """Issue 11.12: no mid-word wrapping in tables; cut labels whole on hover and in a table;
    sitecustomize not "none" above a row that says it cost 94 µs; machine facts with labels and
    units; a warning when the documents measure different targets."""
    got = harness_results(from_dom)
    assert "error" not in got, got["error"]
    assert got["cellWraps"] == ["normal/normal"], got["cellWraps"]  # breaks only at <wbr>
    for full in got["cutLabels"]:
        assert full and full in got["tableText"], full
    site = json.loads((REPORT_FIXTURES / "site.json").read_text())
    assert site["sitecustomize"] is None and any(m["name"] == "sitecustomize" for m in site["modules"])
    state = {c.split(":")[0]: c for c in got["customize"]}
    assert state["not found"].startswith("not found: not found: site looked for it")
    assert not any(c.startswith("none") for c in got["customize"])
    assert "Memory (total)" in got["factLabels"] and not [x for x in got["factLabels"] if "_" in x]
    assert any(v.endswith(" GiB") for v in got["factValues"]) and any(v.endswith(" MHz") for v in got["factValues"])
    # startup.json (-c pass), imports.json and why.json measure three different targets
    assert len(got["mixed"]) == 1 and "Different targets" in got["mixed"][0] and "-c pass" in got["mixed"][0], got["mixed"]
    assert '-c "import json, csv"' in got["mixed"][0]  # as typed, not shlex's quoting
    assert got["pageWidth"] <= got["viewWidth"] + 1


def test_findings_come_first(from_dom):
    """Issue 16 / doctor: with an importprof.doctor/1 document the page opens with its findings,
    costliest first, each with its cost (estimates marked), where and the fix."""
    got = harness_results(from_dom)
    assert "error" not in got, got["error"]
    assert got["sectionOrder"][0] == "doctor", got["sectionOrder"]
    doctor = json.loads((REPORT_FIXTURES / "doctor.json").read_text())
    assert [f[0] for f in got["findings"]] == [f["kind"] for f in doctor["findings"]] and got["findings"]
    for (_kind, cost, fix), f in zip(got["findings"], doctor["findings"]):
        # without doctor --verify every figure is labelled an estimate; a verified one shows both
        if f.get("measured_us") is None:
            assert cost.startswith("\u2248 ") and cost.endswith(" estimated"), (cost, f)
        else:
            assert cost.startswith("measured ") and "(estimated " in cost, (cost, f)
        assert fix == "fix: " + f["fix"]


def test_mixed_documents_are_said_to_whoever_builds_the_page():
    """report_from_files hands the page's own warnings to `warn` (the command passes its stderr
    writer): startup.json (-c pass) and imports.json measure different targets."""
    from profiler.compose.report import report_from_files

    heard: list[str] = []
    page = report_from_files([str(REPORT_FIXTURES / "startup.json"), str(REPORT_FIXTURES / "imports.json")], warn=heard.append)
    assert heard == page.warnings() and len(heard) == 1
    assert "different targets" in heard[0] and "-c pass (startup.json)" in heard[0]
    assert report_from_files([str(REPORT_FIXTURES / "startup.json")], warn=heard.append).warnings() == []


def test_a_document_naming_its_python_oddly_is_left_out_of_the_interpreters(tmp_path):
    """Found by test_fuzz_report_from: a saved startup document with `"python": []` at its top
    (a key the startup schema does not have, so validation lets it through) crashed the page's
    interpreter list. The real startup.json with that key added: the page is made, that value
    is left out, the version and the results' interpreters are still listed."""
    import json

    from profiler.analysis.page import interpreters_seen
    from profiler.compose.report import report_from_files

    doc = json.loads((REPORT_FIXTURES / "startup.json").read_text())
    doc["python"], doc["python_version"] = [], "3.11.7"
    path = tmp_path / "startup.json"
    path.write_text(json.dumps(doc))
    page = report_from_files([str(path)])
    assert page is not None
    rows = interpreters_seen(None, [("startup", doc)])
    assert {"path": None, "version": "3.11.7", "where": "startup"} in rows
    assert all(r["path"] is None or isinstance(r["path"], str) for r in rows)
    assert any(r["path"] == doc["results"][0]["python"] for r in rows)


LABELS = r"""
<script>
(function () {
  var out = Array.prototype.map.call(document.querySelectorAll("svg text.label"), function (t) {
    var title = t.querySelector("title");
    return [t.firstChild ? t.firstChild.nodeValue : "", title ? title.textContent : null];
  });
  var pre = document.createElement("pre");
  pre.id = "test-results";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def test_long_pth_names_are_not_cut(cli, tmp_path):
    """Issue 11.12: this project's venv has `__editable__.importprof-0.1.0.pth`, which the bar
    chart cut to `__editable__.importprof-0.1…`; now every label is whole (the hover title too)."""
    import sys

    site = tmp_path / "site.json"
    res = cli("site", "--python", Path(sys.prefix) / "bin" / "python", "--runs", "1", "--format", "json", "-o", site)
    assert res.returncode == 0, res
    names = {os.path.basename(p["path"]) for p in json.loads(site.read_text())["pth"]}
    assert any(len(n) > 28 for n in names), names  # long enough to have been cut before
    page = tmp_path / "site.html"
    assert cli("report", "--from", site, "-o", page).returncode == 0
    copy = tmp_path / "site-labels.html"
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", LABELS + "</body>"), encoding="utf-8")
    labels = harness_results(dump_dom(copy))
    shown = {text for text, title in labels}
    assert names <= shown, (names, labels)
    assert all(text == title for text, title in labels), labels


def test_a_failed_variant_shows_its_error_and_no_figure(cli, tmp_path):
    """On the page too, a variant that fails is a row with `failed: <error>`, no bar,
    no dots, no ratio; the others are drawn as usual."""
    doc = tmp_path / "startup.json"
    res = cli("startup", "--runs", "2", "--warmup", "0", "--variant", "default,no-site", "--format", "json", "-o", doc,
              "-c", "import sys; sys.exit(1 if sys.flags.no_site else 0)")
    assert res.returncode == 0, res
    data = json.loads(doc.read_text())
    assert [r["failed"] for r in data["results"]] == [False, True]
    page = tmp_path / "page.html"
    assert cli("report", "--from", doc, "-o", page).returncode == 0
    dom = dump_dom(page)
    assert 'data-rendered="ok"' in re.search(r"<html[^>]*>", dom).group(0)
    text = re.sub(r"<[^>]+>", "", dom)
    error = data["results"][1]["error"]
    assert f"failed: {error}" in text
    assert dom.count('class="bar"') == 1  # default's bar only
    assert dom.count('class="run"') == len(data["results"][0]["times"])


def test_page_fits_a_phone(from_page):
    """At a phone's width nothing but a table or a chart (each in its own sideways-scrolling box) is
    wider than the screen."""
    page, _ = from_page
    copy = page.with_name("page-phone.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", HARNESS + "</body>"), encoding="utf-8")
    proc = chromium("--window-size=390,844", "--dump-dom", copy.resolve().as_uri())
    assert proc.returncode == 0 and not browser_problems(proc.stderr), proc.stderr[-2000:]
    got = harness_results(proc.stdout)
    assert "error" not in got, got["error"]
    assert got["viewWidth"] <= 520, got["viewWidth"]  # headless chromium's narrowest window is 500 px
    assert got["pageWidth"] <= got["viewWidth"] + 1, (got["pageWidth"], got["viewWidth"])


def test_screenshot_is_not_blank(from_page, tmp_path):
    page, _ = from_page
    shot = tmp_path / "shot.png"
    proc = chromium(f"--screenshot={shot}", "--window-size=1000,1200", "--hide-scrollbars", page.resolve().as_uri())
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    assert not browser_problems(proc.stderr)
    colours, inked = colour_stats(shot)
    assert colours > 50, colours  # text, bars, the icicle's package colours...
    assert inked > 0.05, inked


def test_json_bundle_round_trips(cli, tmp_path):
    files = fixture_files()[:2]
    bundle = tmp_path / "bundle.json"
    res = cli("report", "-o", bundle, "--from", *files, "--format", "json")  # an option after the files too
    assert res.returncode == 0, res
    doc = json.loads(bundle.read_text())
    assert doc["schema"] == "importprof.report/1" and len(doc["documents"]) == 2
    page = tmp_path / "again.html"
    res = cli("report", "--from", bundle, "-o", page)
    assert res.returncode == 0, res
    again = embedded_data(page.read_text(encoding="utf-8"))
    assert [d["doc"] for d in again["documents"]] == [d["doc"] for d in doc["documents"]]


def test_bad_input_and_failing_target(cli, tmp_path):
    out = tmp_path / "page.html"
    assert_one_line_error(cli("report", "--from", tmp_path / "missing.json", "-o", out), 2, "missing.json", "no such file")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_one_line_error(cli("report", "--from", bad, "-o", out), 2, "bad.json", "not json")
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/1"}')
    assert_one_line_error(cli("report", "--from", other, "-o", out), 2, "other.json", "not an importprof document")
    assert_one_line_error(cli("report", "-c", "pass", "--from", REPORT_FIXTURES / "startup.json", "-o", out), 2, "--from")
    two = [REPORT_FIXTURES / "startup.json", REPORT_FIXTURES / "site.json"]
    assert_one_line_error(cli("report", "--from", *two, "--skip", "trace", "-o", out), 2, "--from builds the page", "--skip")
    # a target that fails: exit 3 with its error, and no page
    res = cli("report", "--runs", "1", "-o", out, "-c", "import no_such_module_here")
    assert res.returncode == 3, res
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("importprof: error:")]
    assert len(errors) == 1 and "exited with code 1" in errors[0], res
    assert "--ignore-failure" not in res.stderr  # startup's option: report has none to offer
    assert "  | ModuleNotFoundError: No module named" in res.stderr  # the target's own error, indented
    assert not out.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".importprof-")]


def test_live_compare_part(cli, tmp_path):
    """--compare runs `importprof compare` through its workflow: five variants."""
    out = tmp_path / "compare.html"
    res = cli("report", "--compare", "--skip", "startup,imports,trace,site,doctor", "--runs", "2", "-o", out, "-c", "import json")
    assert res.returncode == 0, res
    data = embedded_data(out.read_text(encoding="utf-8"))
    (doc,) = [d["doc"] for d in data["documents"]]
    assert doc["schema"] == "importprof.compare/1"
    variants = [r["variant"] for r in doc["rows"]]
    assert variants[:5] == ["traditional", "no-site", "oxidized", "filesystem", "in-memory"], variants  # (+ frozen)
    assert {s["part"] for s in data["skipped"]} == {"startup", "imports", "trace", "site", "doctor"}


def test_live_without_strace_says_why(cli, tmp_path, real_python):
    """strace really absent (PATH without it): the page is still written, without the
    syscall part, and says why; the other parts are there."""
    out = tmp_path / "nostrace.html"
    res = cli(
        "report", "--python", real_python, "--runs", "1", "--warmup", "0", "--import-runs", "1",
        "--variant", "default", "--skip", "site,doctor", "-o", out, env={"PATH": str(tmp_path)},
    )
    assert res.returncode == 0, res
    data = embedded_data(out.read_text(encoding="utf-8"))
    assert [d["doc"]["schema"] for d in data["documents"]] == ["importprof.startup/1", "importprof.imports/1"]
    reasons = {s["part"]: s["reason"] for s in data["skipped"]}
    assert "strace" in reasons["trace"] and "install" in reasons["trace"]
    assert reasons["site"] == "skipped (--skip site)"
    assert "trace skipped: strace" in res.stderr and "not included: strace" in res.stdout


# ------------------------------------------------------------------ live: a module named <script>
EVIL_IMG = "<img>"  # no spaces: the importtime parser takes a name to end at a space
EVIL_AMP = "<b>&amp;"


@pytest.fixture(scope="module")
def live_page(cli, tmp_path_factory):
    work = tmp_path_factory.mktemp("evil")
    # __import__, not importlib.import_module: -X importtime times only the C import path
    (work / "<script>.py").write_text(f"__import__({EVIL_IMG!r})\n__import__({EVIL_AMP!r})\n")
    (work / f"{EVIL_IMG}.py").write_text("VALUE = 1\n")
    (work / f"{EVIL_AMP}.py").write_text("VALUE = 2\n")
    out = work / "live.html"
    res = cli(
        "report", "--runs", "2", "--warmup", "0", "--import-runs", "1", "--variant", "default,no-site",
        "-o", out, "-c", "__import__('<script>')",
        cwd=work,
    )
    assert res.returncode == 0, res
    return out, res


def test_live_report_runs_the_parts(live_page):
    page, res = live_page
    data = embedded_data(page.read_text(encoding="utf-8"))
    kinds = [d["doc"]["schema"] for d in data["documents"]]
    assert kinds[0] == "importprof.startup/1" and "importprof.imports/1" in kinds
    done = {k.split(".")[1].split("/")[0] for k in kinds} | {s["part"] for s in data["skipped"]}
    assert done == {"startup", "imports", "trace", "site", "doctor"}  # each part is there or says why not
    doctor = next(d["doc"] for d in data["documents"] if d["doc"]["schema"] == "importprof.doctor/1")
    assert isinstance(doctor["findings"], list) and doctor["checks"]  # live findings for the page's top
    assert data["interpreter"]["version"] and data["target"].startswith("-c ")
    # facts with human labels: the interpreter's too; one load row per reading
    facts = {f["label"]: f["value"] for f in data["derived"]["interpreter"]}
    assert facts["Python version"] == data["interpreter"]["version"] and "Interpreter run" in facts
    readings = [tuple(str(f["value"]) for f in c["facts"]) for c in data["derived"]["conditions"]]
    assert len(readings) == len(set(readings)), data["derived"]["conditions"]
    imports = next(d["doc"] for d in data["documents"] if d["doc"]["schema"] == "importprof.imports/1")
    assert {"<script>", EVIL_IMG, EVIL_AMP} <= {m["name"] for m in imports["modules"]}


def test_each_figure_on_the_live_page_is_named_for_what_it_is(live_page):
    """Issue 32.5: one figure for one thing. The trace part's untraced wall time is trace's own
    median, not the start-up part's measurement, and says so; no figure of the run is labelled
    by its raw JSON key (untraced_wall_s was, under "Other fields")."""
    page, _ = live_page
    data = embedded_data(page.read_text(encoding="utf-8"))
    trace = next(d["doc"] for d in data["documents"] if d["doc"]["schema"] == "importprof.trace/1")
    harnesses = [v["harness"] for v in trace.get("variants") or [trace]]
    assert all(h.get("untraced_wall_s") is not None for h in harnesses), harnesses
    dom = dump_dom(page)
    section = re.search(r'<section[^>]*id="trace"[^>]*>(.*?)</section>', dom, re.S).group(1)
    labels = [html.unescape(t) for t in re.findall(r"<dt[^>]*>(.*?)</dt>", section, re.S)]
    untraced = [t for t in labels if t.startswith("wall time untraced")]
    assert len(untraced) == len(harnesses) and all("not the start-up part's measurement" in t for t in untraced), labels
    assert not [t for t in labels if re.fullmatch(r"[a-z]+(_[a-z]+)+", t) and t in {k for h in harnesses for k in h}], labels
    assert "Other fields" not in section or "untraced_wall_s" not in section


def test_names_from_the_target_render_as_text(live_page):
    page, _ = live_page
    raw = page.read_text(encoding="utf-8")
    assert raw.count("<script") == 2 and "<img" not in raw  # the data holds them escaped
    dom = dump_dom(page)
    root = re.search(r"<html[^>]*>", dom).group(0)
    assert 'data-rendered="ok"' in root and "data-render-error" not in root, root
    assert "<img" not in dom and "<b>" not in dom  # no element was made from a name
    assert dom.count("<script") == 2
    # ... and the names are on the page as text, in the top table and the start-up table
    # (as text wherever the page shows them; which table a module reaches depends on its times,
    # and on a busy machine site's .pth modules can fill the top table)
    assert "&lt;script&gt;" in dom
    assert "&lt;img&gt;" in dom
    assert "&lt;b&gt;&amp;amp;" in dom  # an entity in a name stays literal text
    assert re.search(r"<code[^>]*>[^<]*__import__\([^<]*&lt;script&gt;[^<]*</code>", dom)  # the target's label
    # as typed, in the target and in the command column: -c "__import__('<script>')"
    text = re.sub(r"<[^>]+>", "", dom)
    assert "-c \"__import__('&lt;script&gt;')\"" in text
    assert "/python3 -c \"__import__('&lt;script&gt;')\"" in text or "/python -c \"__import__('&lt;script&gt;')\"" in text
    assert "'\"'\"'" not in text


@pytest.mark.slow
def test_the_report_s_doctor_reads_what_the_other_parts_measured(cli, real_python, tmp_path):
    """report's doctor part takes the imports, site and trace reports the page already has
    instead of measuring them a second time."""
    out = tmp_path / "bundle.json"
    res = cli("report", "--python", real_python, "--runs", "1", "--import-runs", "1", "--format", "json", "-o", out,
              "-c", "import json")
    assert res.returncode == 0, res
    page = json.loads(out.read_text())
    doc = next(d["doc"] for d in page["documents"] if d["doc"]["schema"] == "importprof.doctor/1")
    notes = {c["kind"]: c["note"] for c in doc["checks"]}
    assert notes["no-pyc"] == "from the report's imports part"
    assert notes["pth-import"] == "from the report's site part"
    assert notes["failed-lookups"] == "from the report's trace part"
    # one start-up, one figure: the findings' "start-up as is" is the startup part's default mean
    startup = next(d["doc"] for d in page["documents"] if d["doc"]["schema"] == "importprof.startup/1")
    default = next(r for r in startup["results"] if r["variant"] == "default" and r.get("role", "target") == "target")
    assert doc["startup_s"] == pytest.approx(default["mean"], abs=1e-6), (doc["startup_s"], default["mean"])


def test_the_page_tree_nests_a_repeated_name_by_position():
    """`import json.decoder`: the wrapper row and the load share a name; json.scanner belongs
    under the load (row 2), not under the first row of that name (the wrapper, row 0)."""
    from profiler.analysis.page import import_tree

    rows = [
        {"name": "json.decoder", "depth": 0, "process": 0, "parent": None, "self_us": 5, "cumulative_us": 900},
        {"name": "json", "depth": 1, "process": 0, "parent": "json.decoder", "self_us": 10, "cumulative_us": 895},
        {"name": "json.decoder", "depth": 2, "process": 0, "parent": "json", "self_us": 20, "cumulative_us": 300},
        {"name": "json.scanner", "depth": 3, "process": 0, "parent": "json.decoder", "self_us": 30, "cumulative_us": 30},
    ]
    tree = import_tree(rows)

    def parents(node, up=None, out=None):
        out = {} if out is None else out
        if "m" in node:
            out[node["m"]] = up
        for kid in node.get("kids", ()):
            parents(kid, node.get("m"), out)
        return out

    assert parents(tree) == {0: None, 1: 0, 2: 1, 3: 2}
