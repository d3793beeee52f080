// @ts-check
/* importprof report page: the start-up part (importprof.startup/1).
 */
/* ---------- start-up ---------- */
/* one bar per result: its mean ± σ and its time ratio; a failed one has no bar, its error instead */
function startupBars(results, rel) {
  return results.map(function (r) {
    var label = r.key || r.variant || r.command;
    if (r.failed) return { label: label, value: null, note: fmtFailed(r.error), failed: true };
    var x = rel[r.key];
    return { label: label, value: r.mean, err: r.stddev, note: x ? fmtRatio(x.ratio, x.ratio_stddev, x.key === x.reference) : "" };
  });
}
function startupPart(doc, source, n, derived) {
  derived = derived || {};
  var sec = section("startup" + (n || ""), "Start-up time by variant", source);
  var results = doc.results || [];
  var rel = {};
  (doc.relative || []).forEach(function (r) {
    rel[r.key] = r;
  });
  var targets = [];
  results.forEach(function (r) {
    if (r.target && targets.indexOf(r.target) < 0) targets.push(r.target);
  });
  add(sec, [
    h("p", { class: "lead" }, [
      "Wall time of each variant, mean \u00b1 standard deviation over " +
        (results.length ? results[0].times.length : 0) + " runs (engine: " + (doc.engine || "?") +
        "; reference: " + (doc.reference || "first") + "). Target: ",
      h("code", { class: "target", text: targets.map(targetText).join(", ") || "?" }),
    ]),
  ]);
  function ratioText(r) {
    var x = rel[r.key];
    return x ? fmtRatio(x.ratio, x.ratio_stddev, x.key === x.reference) : "";
  }
  if (doc.relative && doc.relative.length) add(sec, [h("p", { class: "muted convention", text: RATIO_CONVENTION })]);
  add(sec, [
    barChart(startupBars(results, rel), fmtS, { title: "mean start-up time per variant" }),
    h("h3", { text: "Distribution of runs" }),
    h("p", { class: "muted", text: "Each dot is one run; the line spans min to max; the tall tick is the median." }),
    stripPlot(results.filter(function (r) {
      return !r.failed;
    }).map(function (r) {
      return { label: r.key || r.variant, values: r.times || [], median: r.median };
    }), fmtS),
    dataTable([
      { key: "key", label: "variant", nowrap: true, get: function (r) {
        return r.key || r.variant;
      } },
      { key: "command", label: "command", fmt: function (v) {
        return breakable(targetText(v));
      } },
      { key: "mean", label: "mean", num: true, fmt: function (v, r) {
        return r.failed ? h("span", { class: "failed", text: fmtFailed(r.error) }) : fmtS(v);
      } },
      { key: "stddev", label: "\u03c3", num: true },
      { key: "median", label: "median", num: true },
      { key: "min", label: "min", num: true },
      { key: "max", label: "max", num: true },
      { key: "user", label: "user", num: true },
      { key: "system", label: "system", num: true },
      { key: "peak_rss_bytes", label: "peak RSS", num: true, get: function (r) {
        var v = (derived.peak_rss_bytes || [])[results.indexOf(r)];
        return num(v) ? v : null;
      } },
      { key: "runs", label: "runs", num: true, get: function (r) {
        return (r.times || []).length;
      } },
      { key: "ratio", label: "vs reference (time)", num: true, get: function (r) {
        return rel[r.key] ? rel[r.key].ratio : null;
      }, fmt: function (v, r) {
        return ratioText(r) || "\u2014";
      } },
    ], results, { id: "startup-table" }),
  ]);
  if ((doc.import_costs || []).length) {
    add(sec, [
      h("h3", { text: "Cost of each import (-c \"import X\" minus -c pass)" }),
      barChart(doc.import_costs.map(function (c) {
        var noisy = num(c.stddev) && num(c.mean) && c.stddev > Math.abs(c.mean);  // smaller than its own spread: noise
        return { label: c.module + " (" + c.variant + ")", value: c.mean, err: c.stddev,
          note: noisy ? "noise: not measurable at these runs (raise --runs)" : "" };
      }), fmtS),
    ]);
  }
  add(sec, [notes(doc), rest(doc, ["engine", "reference", "results", "relative", "import_costs", "warnings", "notes", "interrupted", "metric"])]);
  return sec;
}
