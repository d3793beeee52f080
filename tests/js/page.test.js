// The report page's script under node's test runner (run by tests/test_report.py::
// test_page_script_under_node). The page's files are loaded in the order render/html.py joins
// them into a bare context with no document: only functions and constants exist, nothing draws.
// IMPORTPROF_BUNDLE names a page bundle importprof made from the real fixture documents, so the
// derived data (the import tree, peak RSS, ...) is Python's, as in the page.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const REPO = path.join(__dirname, "..", "..");
const ASSETS = path.join(REPO, "profiler", "render", "html_assets");

// the page's files, in the order render/html.py joins them: its asset manifest
function scriptOrder() {
  return JSON.parse(fs.readFileSync(path.join(ASSETS, "manifest.json"), "utf8")).scripts;
}

function loadPage() {
  const ctx = vm.createContext({ Map, console });
  for (const name of scriptOrder()) {
    vm.runInContext(fs.readFileSync(path.join(ASSETS, name), "utf8"), ctx, { filename: name });
  }
  return ctx;
}

const P = loadPage();
const bundle = process.env.IMPORTPROF_BUNDLE ? JSON.parse(fs.readFileSync(process.env.IMPORTPROF_BUNDLE, "utf8")) : null;
function docOf(kind) {
  const i = bundle.documents.findIndex((e) => e.doc.schema === "importprof." + kind + "/1");
  assert.ok(i >= 0, "no " + kind + " document in the bundle");
  return { doc: bundle.documents[i].doc, derived: bundle.derived.documents[i] };
}

test("every page file is listed and loads without a document", () => {
  const listed = scriptOrder();
  const onDisk = fs.readdirSync(ASSETS).filter((f) => f.endsWith(".js")).sort();
  assert.deepEqual([...listed].sort(), onDisk);
  assert.equal(listed[listed.length - 1], "page.js");
  assert.equal(typeof P.start, "function");
  assert.equal(P.PAGE.root, null); // nothing was drawn
});

// one table of display strings, read by tests/test_render_text.py too: the page formats as the
// console tables do (render/units.py, render/text.py), by construction of the tests
const CASES = JSON.parse(fs.readFileSync(path.join(REPO, "tests", "fixtures", "formatting", "cases.json"), "utf8")).functions;

for (const [name, spec] of Object.entries(CASES)) {
  test(`shared formatting cases: ${spec.js} as render's ${name}`, () => {
    assert.equal(typeof P[spec.js], "function", spec.js);
    for (const [args, expected] of spec.cases) {
      assert.equal(P[spec.js](...args), expected, `${spec.js}(${JSON.stringify(args)})`);
    }
  });
}

test("the ratio convention's words", () => {
  assert.match(P.RATIO_CONVENTION, /1\.00x = the reference/);
});

test("units", () => {
  assert.equal(P.fmtS(0.0647), "64.7 ms");
  assert.equal(P.fmtS(0.25), "250 ms");
  assert.equal(P.fmtS(0.00123), "1.23 ms");
  assert.equal(P.fmtUs(94), "94 \u00b5s");
  assert.equal(P.fmtBytes(25276510208), "23.5 GiB");
  assert.equal(P.fmtFact({ unit: "MHz", value: 2300.0 }), "2,300 MHz");
  assert.equal(P.fmtFact({ unit: "percent", value: 48.1 }), "48%");
  assert.equal(P.fmtFact({ unit: "load", value: [0.1675, 0.137, 0.0918] }), "0.17, 0.14, 0.09");
  assert.equal(P.niceMax(83), 100);
  assert.equal(P.niceMax(0), 1);
});

test("sorting: numbers as numbers, missing values last both ways, stable", () => {
  const rows = [{ n: "a", v: 10 }, { n: "b", v: null }, { n: "c", v: 9 }, { n: "d", v: 10 }];
  const col = { key: "v", num: true };
  assert.deepEqual(P.orderRows(rows, col, true).map((r) => r.n), ["a", "d", "c", "b"]);
  assert.deepEqual(P.orderRows(rows, col, false).map((r) => r.n), ["c", "a", "d", "b"]);
  const byName = P.orderRows(rows, { key: "n", get: (r) => r.n.toUpperCase() }, true);
  assert.deepEqual(byName.map((r) => r.n), ["d", "c", "b", "a"]);
});

test("start-up bars: a failed result has its error and no bar", () => {
  const results = [
    { key: "default", variant: "default", mean: 0.02, stddev: 0.001 },
    { key: "no-site", variant: "no-site", mean: 0.005, stddev: 0.0005 },
    { key: "isolated", variant: "isolated", mean: null, failed: true, error: "exited with code 1" },
  ];
  const rel = {
    default: { key: "default", reference: "default", ratio: 1, ratio_stddev: null },
    "no-site": { key: "no-site", reference: "default", ratio: 0.25, ratio_stddev: null },
  };
  const bars = P.startupBars(results, rel);
  assert.equal(bars[0].note, "1.00x (reference)");
  assert.equal(bars[1].note, "4.0x faster");
  assert.deepEqual([bars[2].value, bars[2].failed, bars[2].note], [null, true, "failed: exited with code 1"]);
});

test("the page draws the tree Python built; it builds none itself", { skip: !bundle && "IMPORTPROF_BUNDLE not set" }, () => {
  assert.equal(P.buildTree, undefined);
  const { doc, derived } = docOf("imports");
  const top = P.hydrateTree(derived.tree, doc.modules);
  assert.equal(top.name, "all imports");
  assert.equal(top.cum, doc.total_us);
  const seen = [];
  (function walk(n) {
    if (n.m) {
      seen.push(n.i);
      assert.equal(n.name, doc.modules[n.i].name);
      if (n.parent.m) assert.equal(n.m.parent, n.parent.name); // a real parent is the row's parent
    }
    n.kids.forEach((k) => {
      assert.equal(k.parent, n);
      walk(k);
    });
  })(top);
  assert.deepEqual(seen.sort((a, b) => a - b), doc.modules.map((_, i) => i)); // every row once
});

test("phases beside self say they come from another run, and how far apart", { skip: !bundle && "IMPORTPROF_BUNDLE not set" }, () => {
  const { doc, derived } = docOf("imports");
  const i = doc.modules.findIndex((m) => m.name === "site");
  const text = P.phaseGap(doc.modules[i], derived.phases_us[i], doc.runs);
  assert.match(text, /one separate instrumented run/);
  assert.match(text, /median of 3 timed runs/);
  assert.match(text, /less in the instrumented run/); // site: 60 µs of phases vs 1.34 ms self
});

test("peak RSS and compare rows come from Python", { skip: !bundle && "IMPORTPROF_BUNDLE not set" }, () => {
  const { doc, derived } = docOf("startup");
  assert.equal(derived.peak_rss_bytes.length, doc.results.length);
  assert.equal(derived.peak_rss_bytes[0], Math.max(...doc.results[0].memory_usage_byte));
  const cmp = docOf("compare");
  assert.equal(P.compareRows(cmp.doc, cmp.derived), cmp.doc.rows);
  const bare = Object.assign({}, cmp.doc, { rows: [] });
  assert.deepEqual(P.compareRows(bare, { rows: [{ variant: "x" }] }), [{ variant: "x" }]);
});

test("trace's side-by-side rows and the interpreters list come from Python", { skip: !bundle && "IMPORTPROF_BUNDLE not set" }, () => {
  const { doc, derived } = docOf("trace");
  const names = new Set(doc.variants.flatMap((v) => v.syscalls.map((r) => r.name)));
  assert.equal(derived.side_by_side.length, names.size);
  const openat = derived.side_by_side.find((r) => r.name === "openat");
  assert.deepEqual(openat.counts, doc.variants.map((v) => v.syscalls.find((r) => r.name === "openat").count));
  const seen = bundle.derived.interpreters;
  assert.equal(seen.length, new Set(seen.map((i) => i.path + "|" + i.version)).size);
  assert.ok(seen.some((i) => /startup/.test(i.where) && /imports/.test(i.where)));
});

test("axis steps are round numbers and fit", () => {
  assert.equal(P.tickCount(120, 6), 4); // 0, 30, 60, 90, 120
  assert.equal(P.tickCount(50, 3), 2); // 0, 25, 50 (not 16.7, 33.3)
  assert.equal(P.tickCount(100, 9), 5);
  assert.equal(P.tickCount(80, 1), 2);
});
