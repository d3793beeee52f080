// @ts-check
/* importprof report page: machine and interpreter facts.
 */
/* ---------- facts ---------- */
function fmtFact(f) {
  var v = f.value;
  if (f.unit === "bytes") return fmtBytes(v);
  if (f.unit === "percent") return num(v) ? v.toFixed(0) + "%" : "n/a";
  if (f.unit === "MHz") return num(v) ? fmtCount(Math.round(v)) + " MHz" : "n/a";
  if (f.unit === "count") return fmtCount(v);
  if (f.unit === "load") return Array.isArray(v) ? v.map(function (x) {
    return num(x) ? x.toFixed(2) : "?";
  }).join(", ") : String(v);
  if (f.unit === "path") return pathLabel(v, 60);
  if (f.unit === "yesno") return v ? "yes" : "no";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
function factsPart(bundle, entries) {
  var sec = section("facts", "Machine and interpreter", null);
  var derived = bundle.derived || {};
  var machines = derived.machines || [];
  machines.forEach(function (x) {
    var dl = h("dl", { class: "facts machine" });
    (x.facts || []).forEach(function (f) {
      var dd = h("dd", {}, [fmtFact(f)]);
      add(dl, [h("dt", { text: f.label, title: f.key }), dd]);
    });
    add(sec, [h("h3", { text: "Machine" + (machines.length > 1 ? " (" + x.source + ")" : "") }), dl]);
  });
  var conditions = derived.conditions || [];
  if (conditions.length) {
    add(sec, [h("h3", { text: "Machine load when each part was measured" })]);
    var labels = [];
    conditions.forEach(function (c) {
      c.facts.forEach(function (f) {
        if (labels.indexOf(f.label) < 0) labels.push(f.label);
      });
    });
    add(sec, [dataTable([{ key: "source", label: "document" }].concat(labels.map(function (label) {
      return { key: label, label: label, get: function (c) {
        var f = c.facts.filter(function (x) {
          return x.label === label;
        })[0];
        return f ? fmtFact(f) : "\u2014";
      }, fmt: function (v) {
        return v;
      } };
    })), conditions, { id: "conditions-table" })]);
  }
  /* every interpreter the documents name, once, with where it was seen: listed in Python */
  var interps = derived.interpreters || [];
  add(sec, [h("h3", { text: "Interpreters" })]);
  var interp = (bundle.derived || {}).interpreter;
  if (interp && interp.length) {
    var idl = h("dl", { class: "facts interpreter" });
    interp.forEach(function (f) {
      add(idl, [h("dt", { text: f.label, title: f.key }), h("dd", {}, [fmtFact(f)])]);
    });
    add(sec, [idl]);
  } else if (bundle.interpreter) add(sec, [generic(bundle.interpreter, "interpreter", 1)]);
  add(sec, [dataTable([
    { key: "path", label: "path", fmt: function (v) {
      return v ? breakable(v) : "\u2014";
    } },
    { key: "version", label: "version" },
    { key: "where", label: "seen in" },
  ], interps, {})]);
  return sec;
}
