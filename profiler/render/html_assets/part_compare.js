// @ts-check
/* importprof report page: the oxidized variants part (importprof.compare/1) and unknown documents.
 */
/* ---------- oxidized variants ---------- */
/* PyOxidizer's columns: the document's `rows`, or for a document without them (an older or
 * hand-made file) the same rows derived in Python (analysis/page.py). */
function compareRows(doc, derived) {
  if (Array.isArray(doc.rows) && doc.rows.length) return doc.rows;
  return (derived && derived.rows) || [];
}
/* PyOxidizer's `speedup_vs_no_site` is no-site's mean / this mean (a speed ratio): shown as
 * the time ratio every other table uses (its inverse). */
function vsNoSite(r) {
  if (r.variant === "no-site") return fmtRatio(1, null, true);
  return num(r.speedup_vs_no_site) && r.speedup_vs_no_site > 0 ? fmtRatio(1 / r.speedup_vs_no_site) : "n/a";
}
function comparePart(doc, source, n, derived) {
  var sec = section("compare" + (n || ""), "Variant comparison (traditional / no-site / oxidized / filesystem / in-memory)", source);
  var results = doc.results || [];
  var failedBy = {};
  results.forEach(function (r) {
    if (r.failed) failedBy[r.variant || r.command] = r;
  });
  var rows = compareRows(doc, derived).filter(function (r) {
    return !failedBy[r.variant];
  }).concat(Object.keys(failedBy).map(function (v) {
    return { variant: v, failed: true, error: failedBy[v].error };
  }));
  function failedBar(r) {
    return { label: r.variant, value: null, failed: true, note: fmtFailed(r.error) };
  }
  var what = doc.workload ? "workload " + doc.workload : doc.target || "?";
  add(sec, [
    h("p", { class: "lead" }, [
      "CPU time (user + system) per " + (doc.launches ? doc.launches + " launches" : "launch") +
        ", as PyOxidizer's performance page reports it, then wall time with its spread. Measured: ",
      h("code", { class: "target", text: doc.workload ? what : targetText(what) }),
      doc.python ? " on " : "", doc.python ? h("code", { text: doc.python }) : null,
    ]),
    barChart(rows.map(function (r) {
      if (r.failed) return failedBar(r);
      return { label: r.variant, value: r.cpu_s, err: r.cpu_stddev_s, note: num(r.pct_of_traditional) ? r.pct_of_traditional.toFixed(1) + "% of traditional" : "" };
    }), fmtS, { title: "CPU time per variant" }),
    h("h3", { text: "Wall time" }),
    h("p", { class: "muted convention", text: RATIO_CONVENTION + " Here the reference is no-site." }),
    barChart(rows.map(function (r) {
      if (r.failed) return failedBar(r);
      return { label: r.variant, value: r.wall_s, err: r.wall_stddev_s, note: r.variant === "no-site" ? vsNoSite(r) : vsNoSite(r) === "n/a" ? "" : vsNoSite(r) + " than no-site" };
    }), fmtS, { title: "wall time per variant" }),
    stripPlot(results.filter(function (r) {
      return !r.failed;
    }).map(function (r) {
      return { label: r.variant || r.command, values: r.times || [], median: r.median };
    }), fmtS),
    dataTable([
      { key: "variant", label: "variant", nowrap: true },
      { key: "cpu_s", label: "CPU (user+sys)", num: true, fmt: function (v, r) {
        return r.failed ? h("span", { class: "failed", text: fmtFailed(r.error) }) : fmtS(v);
      } },
      { key: "delta_cpu_s", label: "\u0394 vs traditional", num: true, fmt: function (v) {
        return num(v) ? (v > 0 ? "+" : "") + fmtS(v) : "\u2014";
      } },
      { key: "pct_of_traditional", label: "% of traditional", num: true, fmt: function (v) {
        return num(v) ? v.toFixed(1) + "%" : "\u2014";
      } },
      { key: "speedup_vs_no_site", label: "vs no-site (wall time)", num: true, get: function (r) {
        return num(r.speedup_vs_no_site) && r.speedup_vs_no_site > 0 ? 1 / r.speedup_vs_no_site : null;
      }, fmt: function (v, r) {
        return vsNoSite(r);
      } },
      { key: "wall_s", label: "wall mean", num: true, fmt: fmtS },
      { key: "wall_stddev_s", label: "\u03c3", num: true, fmt: fmtS },
      { key: "peak_rss_bytes", label: "peak RSS", num: true },
      { key: "syscalls", label: "syscalls", num: true, fmt: fmtCount },
    ], rows, { id: "compare-table" }),
  ]);
  var counts = doc.syscalls;
  if (Array.isArray(counts) && counts.length && isRecord(counts[0])) {
    var fams = [];
    counts.forEach(function (c) {
      (c.families || []).forEach(function (f) {
        if (fams.indexOf(f.name) < 0) fams.push(f.name);
      });
    });
    var cols = [{ key: "variant", label: "variant", nowrap: true }, { key: "total", label: "syscalls", num: true }, { key: "errors", label: "failed", num: true }]
      .concat(fams.map(function (name) {
        return { key: "f:" + name, label: name, num: true, get: function (c) {
          var f = (c.families || []).filter(function (x) {
            return x.name === name;
          })[0];
          return f ? f.count : null;
        }, fmt: fmtCount };
      }))
      .concat([{ key: "files_opened", label: "files opened", num: true }]);
    add(sec, [h("h3", { text: "Syscalls per launch (strace)" }), dataTable(cols, counts, { id: "compare-syscalls-table" })]);
  }
  add(sec, [notes(doc), rest(doc, ["results", "rows", "syscalls", "warnings", "notes", "workload", "target", "python", "python_version", "launches"])]);
  return sec;
}

function otherPart(doc, source, n) {
  var sec = section("doc" + n, "Document " + (doc.schema || "(no schema)"), source);
  var body = {};
  Object.keys(doc).forEach(function (k) {
    if (k !== "schema" && k !== "machine") body[k] = doc[k];
  });
  add(sec, [generic(body, "", 0)]);
  return sec;
}
