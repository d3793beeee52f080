// @ts-check
/* importprof report page: page — builds everything from the bundle in #importprof-data.
 * When everything is built without an exception, <html data-rendered="ok"> is set.
 */
/* ---------- the page ---------- */
function build() {
  var bundle = JSON.parse(document.getElementById("importprof-data").textContent);
  var derived = bundle.derived || {};
  PAGE.shown = derived.shown_targets || {};
  var entries = (bundle.documents || []).map(function (e, i) {
    return e && isRecord(e.doc) ? { doc: e.doc, source: e.source, derived: (derived.documents || [])[i] || {} } : null;
  }).filter(function (e) {
    return e;
  });
  var header = h("header", {}, [h("h1", { text: bundle.title || "importprof report" })]);
  var meta = h("p", { class: "meta" });
  if (bundle.target) add(meta, ["Target: ", h("code", { class: "target", text: targetText(bundle.target) }), " \u00b7 "]);
  add(meta, ["Generated " + (bundle.generated_at || "?") + " by importprof " + ((bundle.machine || {}).importprof_version || bundle.importprof_version || "")]);
  add(header, [meta]);
  if (bundle.sources && bundle.sources.length) {
    add(header, [h("p", { class: "meta" }, ["From: "].concat(bundle.sources.map(function (p, i) {
      return h("span", {}, [i ? ", " : "", breakable(p)]);
    })))]);
  }
  add(PAGE.main, [header, PAGE.nav]);
  var mixed = derived.mixed || [];
  if (mixed.length) {
    add(PAGE.main, [h("aside", { class: "mixed", id: "mixed", role: "note" }, [
      h("strong", { text: "These documents do not measure the same thing" }),
      h("ul", {}, mixed.map(function (m) {
        var li = h("li", {}, [m.what === "target" ? "Different targets: " : "Different Python versions: "]);
        m.values.forEach(function (v, i) {
          add(li, [i ? "; " : "", h("code", { text: m.what === "target" ? targetText(v.value) : v.value }), " (" + v.sources.join(", ") + ")"]);
        });
        return add(li, [". Figures from different documents are not comparable as one run."]);
      })),
    ])]);
  }
  var missing = bundle.skipped || [];
  if (missing.length) {
    add(PAGE.main, [h("aside", { class: "skipped", id: "skipped" }, [h("strong", { text: "Not in this report" }), h("ul", {}, missing.map(function (m) {
      return h("li", {}, [h("b", { text: m.part }), ": " + m.reason]);
    }))])]);
  }
  var order = ["doctor", "startup", "imports", "why", "trace", "site", "compare", "other"];
  var parts = { doctor: findingsPart, startup: startupPart, imports: importsPart, why: whyPart, trace: tracePart, site: sitePart, compare: comparePart, other: otherPart };
  var counters = {};
  order.forEach(function (kind) {
    entries.forEach(function (e, i) {
      var k = parts[kindOf(e.doc)] ? kindOf(e.doc) : "other";
      if (k !== kind) return;
      counters[k] = (counters[k] || 0) + 1;
      var suffix = k === "other" ? i : counters[k] > 1 ? "-" + counters[k] : "";
      PAGE.heading = e.derived.heading || "";
      add(PAGE.main, [guarded(k, function () {
        return parts[k](e.doc, e.source, suffix, e.derived);
      })]);
      PAGE.heading = "";
    });
  });
  if (!entries.length) add(PAGE.main, [h("p", { class: "muted", text: "No documents in this report." })]);
  add(PAGE.main, [guarded("facts", function () {
    return factsPart(bundle, entries);
  })]);
}

function start() {
  PAGE.root = document.documentElement;
  PAGE.main = document.getElementById("report");
  PAGE.tip = document.getElementById("tooltip");
  PAGE.nav = h("nav", { class: "toc", "aria-label": "sections" });
  window.addEventListener("error", function (ev) {
    fail("script", ev.error || ev.message);
    PAGE.root.setAttribute("data-rendered", "errors");
  });
  try {
    build();
  } catch (err) {
    add(PAGE.main, [fail("page", err)]);
  }
  PAGE.root.setAttribute("data-sections", PAGE.built.join(" "));
  PAGE.root.setAttribute("data-rendered", PAGE.errors.length ? "errors" : "ok");
}

/* in a browser with the page's data: draw; under node's test runner (no document): nothing */
if (typeof document !== "undefined" && document.getElementById("importprof-data")) start();
