// @ts-check
/* importprof report page: sortable, filterable tables; generic values (keys not known yet).
 */
/* ---------- sortable table ---------- */
/* rows sorted by one column (its `get` or its key): numbers as numbers, text as text, missing
 * values last in either direction; a stable sort, so equal rows keep their order */
function orderRows(rows, col, desc) {
  function get(row) {
    return col.get ? col.get(row) : row[col.key];
  }
  return rows.map(function (row, i) {
    return { row: row, i: i, v: get(row) };
  }).sort(function (a, b) {
    var na = a.v === null || a.v === undefined, nb = b.v === null || b.v === undefined;
    if (na || nb) return na === nb ? a.i - b.i : na ? 1 : -1;
    var c = col.num ? a.v - b.v : String(a.v).localeCompare(String(b.v));
    return (desc ? -c : c) || a.i - b.i;
  }).map(function (x) {
    return x.row;
  });
}
/**
 * One column of a data table.
 * @typedef {{key: string, label: string, num?: boolean, nowrap?: boolean, title?: string,
 *            fmt?: function(any, any): (string|Node), get?: function(any): any}} Column
 */
/* opts: {sort, desc, limit, filter, id} */
/** @param {Column[]} columns @param {any[]} rows @param {any} [opts] */
function dataTable(columns, rows, opts) {
  opts = opts || {};
  var state = { sort: opts.sort || null, desc: opts.desc !== false, limit: opts.limit || 0, filter: "" };
  var wrap = h("div", { class: "table-wrap" });
  var controls = h("div", { class: "controls" });
  var table = h("table", { class: "data", id: opts.id || null });
  var thead = h("thead"), tbody = h("tbody"), trh = h("tr");
  var count = h("span", { class: "count" });
  function get(c, row) {
    return c.get ? c.get(row) : row[c.key];
  }
  columns.forEach(function (c) {
    var btn = h("button", { type: "button", class: "sort", "data-key": c.key, text: c.label });
    var th = h("th", { class: c.num ? "num" : null, scope: "col", "aria-sort": "none", title: c.title || null }, [btn]);
    btn.addEventListener("click", function () {
      if (state.sort === c.key) state.desc = !state.desc;
      else {
        state.sort = c.key;
        state.desc = !!c.num;
      }
      draw();
    });
    add(trh, [th]);
  });
  add(thead, [trh]);
  add(table, [thead, tbody]);
  if (opts.filter) {
    add(controls, [
      h("input", {
        type: "search",
        placeholder: "filter by name",
        "aria-label": "filter by name",
        oninput: function (ev) {
          state.filter = ev.target.value;
          draw();
        },
      }),
    ]);
  }
  if (opts.limit && rows.length > opts.limit) {
    var sel = h("select", { "aria-label": "rows shown", onchange: function (ev) {
      state.limit = Number(ev.target.value);
      draw();
    } });
    [opts.limit, opts.limit * 4, 0].forEach(function (n) {
      if (n && n >= rows.length) return;
      add(sel, [h("option", { value: n, text: n ? "top " + n : "all " + rows.length })]);
    });
    add(controls, [h("label", {}, ["show ", sel])]);
  }
  add(controls, [count]);
  function draw() {
    var col = columns.filter(function (c) {
      return c.key === state.sort;
    })[0];
    var list = rows.slice();
    if (state.filter) {
      var f = state.filter.toLowerCase();
      list = list.filter(function (r) {
        return String(r.name || r.path || r.variant || "").toLowerCase().indexOf(f) >= 0;
      });
    }
    if (col) list = orderRows(list, col, state.desc);
    var shown = state.limit ? list.slice(0, state.limit) : list;
    clear(tbody);
    shown.forEach(function (row) {
      var tr = h("tr");
      columns.forEach(function (c) {
        var v = get(c, row);
        var out = c.fmt ? c.fmt(v, row) : fmtByKey(c.key, v);
        add(tr, [h("td", { class: c.num ? "num" : c.nowrap ? "nowrap" : null }, [out])]);
      });
      add(tbody, [tr]);
    });
    Array.prototype.forEach.call(trh.children, function (th, i) {
      th.setAttribute("aria-sort", columns[i].key === state.sort ? (state.desc ? "descending" : "ascending") : "none");
    });
    count.textContent = shown.length < list.length ? shown.length + " of " + list.length + " rows" : list.length + (list.length === 1 ? " row" : " rows");
  }
  draw();
  return add(wrap, [controls, h("div", { class: "scroll" }, [table])]);
}

/* ---------- generic values (forward compatible: keys we do not know yet) ---------- */
function isRecord(v) {
  return v && typeof v === "object" && !Array.isArray(v);
}
function histogram(key, v) {
  var rows = [];
  if (Array.isArray(v) && v.length && isRecord(v[0])) {
    v.forEach(function (r) {
      var countKey = ["count", "calls", "n", "reads"].filter(function (k) {
        return num(r[k]);
      })[0];
      var labelKey = Object.keys(r).filter(function (k) {
        return k !== countKey;
      });
      var label = labelKey.map(function (k) {
        return fmtByKey(k, r[k]);
      }).join("\u2013");
      if (countKey) rows.push({ label: label || "?", value: r[countKey] });
    });
  } else if (isRecord(v)) {
    Object.keys(v).forEach(function (k) {
      if (num(v[k])) rows.push({ label: k, value: v[k] });
    });
  }
  return rows.length ? barChart(rows, fmtCount, { title: key, labelW: 220 }) : null;
}
function generic(value, key, depth) {
  depth = depth || 0;
  if (value === null || value === undefined || typeof value !== "object") return h("span", { text: fmtByKey(key || "", value) });
  if (Array.isArray(value)) {
    if (!value.length) return h("span", { class: "muted", text: "none" });
    if (value.every(isRecord)) {
      var keys = [];
      value.forEach(function (r) {
        Object.keys(r).forEach(function (k) {
          if (keys.indexOf(k) < 0) keys.push(k);
        });
      });
      var cols = keys.map(function (k) {
        var numeric = value.every(function (r) {
          return r[k] === null || r[k] === undefined || typeof r[k] === "number";
        });
        return { key: k, label: k, num: numeric, fmt: function (v) {
          return fmtByKey(k, v);
        } };
      });
      return dataTable(cols, value, { limit: 25 });
    }
    return h("span", { text: value.slice(0, 60).map(function (v) {
      return fmtByKey(key || "", v);
    }).join(", ") + (value.length > 60 ? ", \u2026 (" + value.length + ")" : "") });
  }
  if (depth > 3) return h("code", { text: short(JSON.stringify(value), 400) });
  var dl = h("dl", { class: "facts" });
  Object.keys(value).forEach(function (k) {
    var chart = /hist/i.test(k) ? histogram(k, value[k]) : null;
    add(dl, [h("dt", { text: k }), h("dd", {}, [chart || generic(value[k], k, depth + 1)])]);
  });
  return dl;
}
function rest(doc, known) {
  var extra = {};
  Object.keys(doc).forEach(function (k) {
    if (known.indexOf(k) < 0 && ["schema", "machine"].indexOf(k) < 0) extra[k] = doc[k];
  });
  if (!Object.keys(extra).length) return null;
  return h("details", { class: "rest" }, [h("summary", { text: "Other fields" }), generic(extra, "", 0)]);
}
function notes(doc) {
  var items = [];
  (doc.warnings || []).forEach(function (w) {
    items.push(h("li", { class: "warn", text: String(w) }));
  });
  (doc.notes || []).forEach(function (w) {
    items.push(h("li", { class: "note", text: String(w) }));
  });
  return items.length ? h("ul", { class: "notes" }, items) : null;
}
