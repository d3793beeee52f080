// @ts-check
/* importprof report page: the site and .pth part (importprof.site/1).
 */
/* ---------- site / .pth ---------- */
function sitePart(doc, source, n, derived) {
  var customize = (derived && derived.customize) || {};
  var sec = section("site" + (n || ""), "site and .pth files", source);
  var pth = doc.pth || [];
  add(sec, [h("p", { class: "lead" }, [
    "What the site module costs at every start-up: each .pth file it processed, sitecustomize and usercustomize." +
      (num(doc.seconds) ? " site.main() took " + fmtS(doc.seconds) + " in total" + (doc.runs ? " (median of " + doc.runs + " runs)" : "") + "." : ""),
    doc.python ? h("span", { class: "muted" }, [" Interpreter: ", h("code", { text: doc.python }), doc.python_version ? " (" + doc.python_version + ")" : ""]) : null,
  ])]);
  if (pth.length) {
    add(sec, [barChart(pth.map(function (p) {
      return { label: basename(p.path), value: p.seconds };
    }), fmtS, { title: ".pth files by time" })]);
    add(sec, [dataTable([
      { key: "path", label: ".pth file", fmt: function (v) {
        return breakable(v);
      } },
      { key: "seconds", label: "time", num: true },
      { key: "lines", label: "lines that execute code", get: function (p) {
        return (p.lines || []).length;
      }, fmt: function (v, p) {
        var ls = p.lines || [];
        if (!ls.length) return "none";
        return h("details", {}, [h("summary", { text: ls.length + " line" + (ls.length > 1 ? "s" : "") })].concat(ls.map(function (l) {
          if (!isRecord(l)) return h("pre", { text: String(l) });
          return h("div", { class: "pth-line" }, [
            h("pre", { text: (num(l.lineno) ? l.lineno + ": " : "") + (l.text === undefined ? JSON.stringify(l) : String(l.text)) }),
            num(l.seconds) ? h("span", { class: "muted", text: fmtS(l.seconds) + ((l.modules || []).length ? ", imports " + l.modules.length + " modules" : "") }) : null,
          ]);
        })));
      } },
      { key: "modules", label: "modules imported", fmt: function (v) {
        return (v || []).length ? (v || []).join(", ") : "none";
      } },
    ], pth, { id: "site-pth-table", sort: "seconds" })]);
  } else {
    add(sec, [h("p", { class: "muted", text: "No .pth file executed code." })]);
  }
  var facts = h("dl", { class: "facts" });
  /* one story with the table below: a sitecustomize that site looked for and did not find
   * is "not found", with what looking cost (the row below), never "none" beside a 94 µs row */
  ["sitecustomize", "usercustomize"].forEach(function (k) {
    var v = doc[k], c = customize[k] || {};
    var dd = h("dd", { "data-state": c.state || (v ? "imported" : "none") });
    if (v) add(dd, ["imported from ", pathLabel(v.path || "?", 60), " \u2014 " + fmtS(v.seconds)]);
    else if (c.state === "not found") add(dd, ["not found: site looked for it and the import failed (" + fmtUs(c.looked_us) + " spent looking, the row below)"]);
    else add(dd, [h("span", { class: "muted", text: "not imported" })]);
    add(facts, [h("dt", { text: k }), dd]);
  });
  var us = doc.user_site;
  if (isRecord(us)) {
    add(facts, [h("dt", { text: "user site-packages" }), h("dd", {}, [
      us.path ? pathLabel(us.path, 60) : "?",
      " \u2014 " + (us.enabled ? "enabled" : "disabled") + ", " + (us.exists ? "exists" : "does not exist") + (num(us.seconds) ? "; checking it took " + fmtS(us.seconds) : ""),
    ])]);
  }
  add(facts, [h("dt", { text: "sys.path entries added" }), h("dd", { text: fmtByKey("count", doc.sys_path_added) })]);
  add(sec, [facts]);
  if ((doc.modules || []).length) {
    add(sec, [h("h3", { text: "Imports made while site.main() ran" }), dataTable([
      { key: "name", label: "module", fmt: function (v) {
        return breakable(v);
      } },
      { key: "cumulative_us", label: "cumulative", num: true },
      { key: "context", label: "made by", fmt: function (v) {
        if (!Array.isArray(v)) return fmtByKey("context", v);
        if (v[0] === "pth") return basename(v[1]) + (v[2] !== undefined ? ":" + v[2] : "");
        var c = customize[v[0]];
        if (c && c.state === "not found") return "site looked for " + v[0] + ": not found (a failed import, not a module)";
        return v.join(" ");
      } },
    ], doc.modules, { id: "site-modules-table", sort: "cumulative_us", limit: 15 })]);
  }
  add(sec, [notes(doc), rest(doc, ["pth", "sitecustomize", "usercustomize", "user_site", "sys_path_added", "warnings", "notes", "python", "python_version",
    "runs", "seconds", "modules"])]);
  return sec;
}
