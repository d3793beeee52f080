/* importprof report: builds the page from the JSON bundle in #importprof-data.
 * Hand-written, no library, no network. Data never goes through an HTML parser: every
 * node is made with createElement/createElementNS and every string with textContent or
 * a text node, so a module named like an HTML tag shows as text.
 * When everything is built without an exception, <html data-rendered="ok"> is set. */
(function () {
  "use strict";
  var ROOT = document.documentElement;
  var SVGNS = "http://www.w3.org/2000/svg";
  var errors = [];

  function fail(where, err) {
    var msg = where + ": " + (err && err.message ? err.message : String(err));
    errors.push(msg);
    ROOT.setAttribute("data-render-error", errors.join(" | "));
    return h("p", { class: "render-error" }, ["Could not draw this part: " + msg]);
  }
  window.addEventListener("error", function (ev) {
    fail("script", ev.error || ev.message);
    ROOT.setAttribute("data-rendered", "errors");
  });

  /* ---------- DOM helpers (text only) ---------- */
  function add(node, kids) {
    (kids || []).forEach(function (k) {
      if (k === null || k === undefined || k === false) return;
      node.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
    });
    return node;
  }
  function h(tag, props, kids) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) {
      var v = props[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, String(v));
    });
    return add(node, kids);
  }
  function s(tag, attrs, kids) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, String(attrs[k]));
    });
    return add(node, kids);
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  /* ---------- formatting ---------- */
  function num(v) {
    return typeof v === "number" && isFinite(v);
  }
  function fmtS(v) {
    if (!num(v)) return "n/a";
    var a = Math.abs(v);
    if (a >= 1) return v.toFixed(3) + " s";
    if (a >= 1e-3) return (v * 1e3).toFixed(a >= 0.1 ? 0 : a >= 0.01 ? 1 : 2) + " ms";
    if (a === 0) return "0";
    return (v * 1e6).toFixed(0) + " \u00b5s";
  }
  function fmtUs(v) {
    return num(v) ? fmtS(v / 1e6) : "n/a";
  }
  function fmtBytes(v) {
    if (!num(v)) return "n/a";
    var units = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(v) >= units[i][1]) return (v / units[i][1]).toFixed(1) + " " + units[i][0];
    }
    return v + " B";
  }
  function fmtCount(v) {
    return num(v) ? v.toLocaleString("en-US") : "n/a";
  }
  /* A TIME ratio (mean / the reference's mean): the one convention of every table (render/units.py
   * fmt_ratio): "1.00x (reference)", "4.8x slower", "4.8x faster" (1/ratio when below 1). */
  var RATIO_CONVENTION = "Ratios are time ratios against the reference: 1.00x = the reference; " +
    "4.8x slower = takes 4.8 times as long; 4.8x faster = takes 1/4.8 of the time.";
  function fmtRatio(ratio, sd, isRef) {
    if (isRef) return "1.00x (reference)";
    if (!num(ratio) || ratio <= 0) return "n/a";
    var x = ratio >= 1 ? ratio : 1 / ratio;
    var word = ratio >= 1 ? "slower" : "faster";
    var xsd = num(sd) ? (ratio >= 1 ? sd : sd / (ratio * ratio)) : null;
    var digits = x < 2 ? 2 : 1;
    return x.toFixed(digits) + "x" + (xsd !== null ? " \u00b1 " + xsd.toFixed(digits) : "") + " " + word;
  }
  function fmtFailed(error) {
    return "failed: " + (error || "no error text");
  }
  function fmtPct(v) {
    return num(v) ? (v * 100).toFixed(v < 0.1 ? 1 : 0) + "%" : "n/a";
  }
  function fmtByKey(key, v) {
    if (v === null || v === undefined) return "\u2014";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "number") {
      if (/_us$/.test(key)) return fmtUs(v);
      if (/bytes|_byte$/.test(key)) return fmtBytes(v);
      if (/(^|_)(seconds|mean|median|stddev|min|max|user|system|s)$/.test(key)) return fmtS(v);
      if (/(percent|pct)/.test(key)) return v.toFixed(1) + "%";
      return Number.isInteger(v) ? fmtCount(v) : String(Math.round(v * 1000) / 1000);
    }
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }
  function short(str, n) {
    str = String(str);
    return str.length > n ? str.slice(0, Math.max(1, n - 1)) + "\u2026" : str;
  }
  function shortTail(str, n) {
    str = String(str);
    return str.length > n ? "\u2026" + str.slice(str.length - n + 1) : str;
  }
  /* Text that wraps only where a reader expects it (after "/" in a path, after "." in a dotted
   * name, after ", " and at spaces), never inside a word: a <wbr> marks each place. */
  function breakable(text, tag, props) {
    var node = h(tag || "code", props || {});
    String(text).split(/(?<=[\/.,;( ])/).forEach(function (piece, i) {
      if (i) node.appendChild(document.createElement("wbr"));
      node.appendChild(document.createTextNode(piece));
    });
    return node;
  }
  /* render/text.py short_path: the last components that fit, the middle elided */
  function shortPath(p, width) {
    p = String(p);
    width = width || 56;
    if (p.length <= width) return p;
    var parts = p.split("/");
    var kept = parts[parts.length - 1];
    if (kept.length + 2 > width) return "\u2026" + kept.slice(kept.length - (width - 1));
    for (var i = parts.length - 2; i >= 0; i--) {
      if (parts[i].length + 1 + kept.length + 2 > width) break;
      kept = parts[i] + "/" + kept;
    }
    return "\u2026/" + kept;
  }
  /* a path outside a table: abbreviated in the middle, the whole path on hover */
  function pathLabel(p, width) {
    var shown = shortPath(p, width);
    return breakable(shown, "code", { title: shown !== String(p) ? String(p) : null, class: "path" });
  }
  /* a target label as the user typed it (render/text.py shown_target, done in Python) */
  var SHOWN = {};
  function targetText(label) {
    return label && Object.prototype.hasOwnProperty.call(SHOWN, label) ? SHOWN[label] : label;
  }
  function basename(p) {
    var parts = String(p).split("/");
    return parts[parts.length - 1] || String(p);
  }
  function hue(name) {
    var x = 0;
    for (var i = 0; i < name.length; i++) x = (x * 31 + name.charCodeAt(i)) >>> 0;
    return x % 360;
  }

  /* ---------- tooltip ---------- */
  var tip = document.getElementById("tooltip");
  function showTip(ev, lines) {
    clear(tip);
    lines.forEach(function (ln, i) {
      add(tip, [h(i === 0 ? "strong" : "div", {}, [ln])]);
    });
    tip.hidden = false;
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var r = tip.getBoundingClientRect();
    if (x + r.width > window.innerWidth - 8) x = Math.max(8, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight - 8) y = Math.max(8, ev.clientY - r.height - 14);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() {
    tip.hidden = true;
  }

  /* ---------- charts ---------- */
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }
  function axis(g, x0, x1, y, max, fmt, height) {
    var n = Math.max(2, Math.min(5, Math.floor((x1 - x0) / 80)));  // tick labels never overlap
    for (var i = 0; i <= n; i++) {
      var v = (max * i) / n, x = x0 + ((x1 - x0) * i) / n;
      add(g, [
        s("line", { x1: x, x2: x, y1: 0, y2: y, class: "grid" }),
        s("text", { x: x, y: y + 14, "text-anchor": "middle", class: "tick" }, [fmt(v)]),
      ]);
    }
    return height;
  }
  /* The drawing's width in user units = its width on screen (900 at most, 560 at least: a
   * phone scrolls the chart sideways rather than shrinking its text to an unreadable size). */
  function chartWidth() {
    var room = main && main.clientWidth ? main.clientWidth : 900;
    return Math.max(560, Math.min(900, room));
  }
  function sized(svg, W) {
    svg.setAttribute("style", "min-width:" + Math.round(W * 0.98) + "px");
    return svg;
  }
  /* rows: [{label, value, err, note}] → horizontal bars with error bars (value ± err) */
  function barChart(rows, fmt, opts) {
    opts = opts || {};
    var texts = rows.map(function (r) {
      if (r.failed) return r.note;
      var txt = num(r.value) ? fmt(r.value) : "n/a";
      if (num(r.err)) txt += " \u00b1 " + fmt(r.err);
      if (r.note) txt += " \u00b7 " + r.note;
      return txt;
    });
    var longest = Math.max.apply(null, texts.map(function (x) {
      return x.length;
    }).concat([10]));
    var longestLabel = Math.max.apply(null, rows.map(function (r) {
      return String(r.label).length;
    }).concat([8]));
    var W = chartWidth(), labelW = Math.min(W * 0.4, Math.max(opts.labelW || 0, longestLabel * 7 + 16)), valueW = Math.min(W * 0.4, Math.max(150, longest * 6.8 + 16)), rowH = 24, top = 6;
    var x0 = labelW, x1 = W - valueW;
    var max = 0;
    rows.forEach(function (r) {
      max = Math.max(max, (num(r.value) ? r.value : 0) + (num(r.err) ? r.err : 0));
    });
    max = niceMax(max);
    var H = top + rows.length * rowH + 22;
    var svg = s("svg", { viewBox: "0 0 " + W + " " + H, class: "chart bars", role: "img", "aria-label": opts.title || "bar chart" });
    var box = h("div", { class: "chart-scroll" }, [sized(svg, W)]);
    var g = s("g", {});
    axis(g, x0, x1, top + rows.length * rowH, max, fmt, H);
    rows.forEach(function (r, i) {
      var y = top + i * rowH, mid = y + rowH / 2;
      var w = num(r.value) ? ((x1 - x0) * r.value) / max : 0;
      var room = Math.floor((labelW - 12) / 6.6);
      var label = s("text", { x: labelW - 8, y: mid + 4, "text-anchor": "end", class: "label" }, [opts.tail ? shortTail(r.label, room) : short(r.label, room)]);
      add(label, [s("title", {}, [String(r.label)])]);
      add(g, [label, s("rect", { x: x0, y: y + 4, width: Math.max(0, w), height: rowH - 8, class: "bar", fill: r.color || null })]);
      if (num(r.err) && r.err > 0 && num(r.value)) {
        var ea = x0 + ((x1 - x0) * Math.max(0, r.value - r.err)) / max;
        var eb = x0 + ((x1 - x0) * (r.value + r.err)) / max;
        add(g, [
          s("line", { x1: ea, x2: eb, y1: mid, y2: mid, class: "err" }),
          s("line", { x1: ea, x2: ea, y1: mid - 6, y2: mid + 6, class: "err" }),
          s("line", { x1: eb, x2: eb, y1: mid - 6, y2: mid + 6, class: "err" }),
        ]);
      }
      add(g, [s("text", { x: x1 + 8, y: mid + 4, class: "value" }, [texts[i]])]);
    });
    add(svg, [g]);
    return box;
  }
  /* rows: [{label, values, median}] → every run as a dot, min–max whisker, median tick */
  function stripPlot(rows, fmt) {
    var longestLabel = Math.max.apply(null, rows.map(function (r) {
      return String(r.label).length;
    }).concat([8]));
    var W = chartWidth(), labelW = Math.min(W * 0.4, Math.max(90, longestLabel * 7 + 16)), rowH = 30, top = 6, x0 = labelW, x1 = W - 40;
    var max = 0;
    rows.forEach(function (r) {
      r.values.forEach(function (v) {
        if (num(v)) max = Math.max(max, v);
      });
    });
    max = niceMax(max);
    var H = top + rows.length * rowH + 22;
    var svg = s("svg", { viewBox: "0 0 " + W + " " + H, class: "chart strip", role: "img", "aria-label": "distribution of runs" });
    var g = s("g", {});
    axis(g, x0, x1, top + rows.length * rowH, max, fmt, H);
    function X(v) {
      return x0 + ((x1 - x0) * v) / max;
    }
    rows.forEach(function (r, i) {
      var mid = top + i * rowH + rowH / 2;
      var vals = r.values.filter(num);
      var label = s("text", { x: labelW - 8, y: mid + 4, "text-anchor": "end", class: "label" }, [short(r.label, Math.floor((labelW - 12) / 6.6))]);
      add(label, [s("title", {}, [String(r.label)])]);
      add(g, [label]);
      if (!vals.length) return;
      var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
      add(g, [s("line", { x1: X(lo), x2: X(hi), y1: mid, y2: mid, class: "whisker" })]);
      vals.forEach(function (v, j) {
        var c = s("circle", { cx: X(v), cy: mid + (((j * 7) % 11) - 5) * 1.1, r: 3.2, class: "run" });
        add(c, [s("title", {}, ["run " + (j + 1) + ": " + fmt(v)])]);
        add(g, [c]);
      });
      if (num(r.median)) add(g, [s("line", { x1: X(r.median), x2: X(r.median), y1: mid - 10, y2: mid + 10, class: "median" })]);
    });
    add(svg, [g]);
    return h("div", { class: "chart-scroll" }, [sized(svg, W)]);
  }

  /* ---------- sortable table ---------- */
  /* columns: [{key, label, fmt(v,row)→string|Node, num, get(row)}]; opts: {sort, desc, limit, filter, id} */
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
      if (col) {
        list.sort(function (a, b) {
          var va = get(col, a), vb = get(col, b);
          var na = va === null || va === undefined, nb = vb === null || vb === undefined;
          if (na || nb) return na === nb ? 0 : na ? 1 : -1;
          var c = col.num ? va - vb : String(va).localeCompare(String(vb));
          return state.desc ? -c : c;
        });
      }
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

  /* ---------- page skeleton ---------- */
  var main = document.getElementById("report");
  var nav = h("nav", { class: "toc", "aria-label": "sections" });
  var built = [];
  function section(id, title, source) {
    var sec = h("section", { id: id, class: "part" }, [h("h2", { text: title })]);
    if (source) add(sec, [h("p", { class: "source", text: "from " + source })]);
    add(nav, [h("a", { href: "#" + id, text: title })]);
    built.push(id);
    return sec;
  }
  function guarded(where, fn) {
    try {
      return fn();
    } catch (err) {
      return fail(where, err);
    }
  }
  function kindOf(doc) {
    var m = /^importprof\.([a-z_-]+)\/\d+$/.exec((doc && doc.schema) || "");
    return m ? m[1] : "other";
  }

  /* ---------- start-up ---------- */
  function startupPart(doc, source, n) {
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
      barChart(results.map(function (r) {
        if (r.failed) return { label: r.variant || r.key || r.command, value: null, note: fmtFailed(r.error), failed: true };
        return { label: r.variant || r.key || r.command, value: r.mean, err: r.stddev, note: ratioText(r) };
      }), fmtS, { title: "mean start-up time per variant" }),
      h("h3", { text: "Distribution of runs" }),
      h("p", { class: "muted", text: "Each dot is one run; the line spans min to max; the tall tick is the median." }),
      stripPlot(results.filter(function (r) {
        return !r.failed;
      }).map(function (r) {
        return { label: r.variant || r.key, values: r.times || [], median: r.median };
      }), fmtS),
      dataTable([
        { key: "key", label: "variant", nowrap: true, get: function (r) {
          return r.key || r.variant;
        } },
        { key: "command", label: "command", fmt: function (v) {
          return breakable(v);
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
          return r.memory_usage_byte && r.memory_usage_byte.length ? Math.max.apply(null, r.memory_usage_byte) : null;
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
          return { label: c.module + " (" + c.variant + ")", value: c.mean, err: c.stddev };
        }), fmtS),
      ]);
    }
    add(sec, [notes(doc), rest(doc, ["engine", "reference", "results", "relative", "import_costs", "warnings", "notes", "interrupted", "metric"])]);
    return sec;
  }

  /* ---------- import tree ---------- */
  var PHASES = ["find_us", "read_us", "unmarshal_us", "exec_us"];
  function buildTree(mods) {
    var nodes = mods.map(function (m, i) {
      return { m: m, i: i, name: String(m.name), cum: num(m.cumulative_us) ? m.cumulative_us : 0, kids: [], parent: null, proc: m.process || 0 };
    });
    var byKey = {};
    nodes.forEach(function (n) {
      var k = n.proc + "\u0000" + n.name;
      if (!(k in byKey)) byKey[k] = n;
    });
    var procs = [];
    nodes.forEach(function (n) {
      if (procs.indexOf(n.proc) < 0) procs.push(n.proc);
      var p = n.m.parent === null || n.m.parent === undefined ? null : byKey[n.proc + "\u0000" + n.m.parent];
      var depthOk = p && (!num(n.m.depth) || !num(p.m.depth) || p.m.depth < n.m.depth);
      if (p && p !== n && depthOk) n.parent = p;
    });
    // break any cycle a malformed document could hold
    nodes.forEach(function (n) {
      var seen = 0;
      for (var a = n.parent; a; a = a.parent) {
        if (a === n || ++seen > nodes.length) {
          n.parent = null;
          break;
        }
      }
    });
    var top = { name: "all imports", cum: 0, kids: [], parent: null, synthetic: true };
    var procNodes = {};
    procs.sort(function (a, b) {
      return a - b;
    });
    procs.forEach(function (p) {
      procNodes[p] = procs.length > 1 ? { name: "process " + p, cum: 0, kids: [], parent: top, synthetic: true } : top;
      if (procs.length > 1) top.kids.push(procNodes[p]);
    });
    nodes.forEach(function (n) {
      if (n.parent) n.parent.kids.push(n);
      else {
        n.parent = procNodes[n.proc];
        n.parent.kids.push(n);
        n.parent.cum += n.cum;
      }
    });
    if (procs.length > 1) procs.forEach(function (p) {
      top.cum += procNodes[p].cum;
    });
    return top;
  }
  function icicle(top, doc) {
    var W = 1000, ROW = 20, MINW = 0.4;
    var hasPhases = (doc.modules || []).some(function (m) {
      return PHASES.some(function (k) {
        return num(m[k]);
      });
    });
    var total = top.cum || 1;
    var box = h("div", { class: "icicle" });
    var crumbs = h("div", { class: "crumbs", "aria-label": "zoom path" });
    var svg = s("svg", { class: "chart icicle-svg", role: "img", "aria-label": "import tree icicle" });
    var drawn = [];
    var focus = top;
    var mode = "package";
    var PHASE_COLORS = { find_us: "#e8a33d", read_us: "#6fb36f", unmarshal_us: "#5b8fd0", exec_us: "#b07cc6" };
    function dominant(m) {
      var best = null;
      PHASES.forEach(function (k) {
        if (num(m[k]) && (best === null || m[k] > m[best])) best = k;
      });
      return best;
    }
    function colorOf(n) {
      if (n.synthetic) return "#c8ccd2";
      if (mode === "phase") {
        var d = n.m ? dominant(n.m) : null;
        return d ? PHASE_COLORS[d] : "#dfe3e8";
      }
      return "hsl(" + hue(n.name.split(".")[0]) + ",58%," + (n.m && n.m.compiled ? "62%" : "74%") + ")";
    }
    function lines(n) {
      var out = [n.name];
      out.push("cumulative " + fmtUs(n.cum) + " (" + fmtPct(n.cum / total) + " of all imports)");
      if (n.m) {
        out.push("self " + fmtUs(n.m.self_us));
        if (hasPhases) {
          out.push(PHASES.map(function (k) {
            return k.replace("_us", "") + " " + fmtUs(n.m[k]);
          }).join(" \u00b7 "));
          if (n.m.compiled) out.push("compiled from source (no valid .pyc)");
        }
        if (num(n.m.runs_seen) && num(doc.runs) && n.m.runs_seen < doc.runs) out.push("seen in " + n.m.runs_seen + " of " + doc.runs + " runs");
        if (n.parent && n.parent.m) out.push("imported by " + n.parent.name + (n.m.site ? " at " + n.m.site : ""));
        else if (n.m.site) out.push("imported at " + n.m.site);
        if (n.m.lazy_candidate) out.push("lazy-import candidate: never called into after its import");
      }
      if (n.kids.length) out.push(n.kids.length + " direct import" + (n.kids.length > 1 ? "s" : "") + "; click to zoom");
      return out;
    }
    function zoom(n) {
      focus = n;
      hideTip();
      render();
    }
    function render() {
      clear(svg);
      clear(crumbs);
      drawn = [];
      var path = [];
      for (var a = focus; a; a = a.parent) path.unshift(a);
      path.forEach(function (n, i) {
        if (i) add(crumbs, [h("span", { class: "sep", text: " \u203a " })]);
        add(crumbs, [h("button", { type: "button", class: n === focus ? "crumb current" : "crumb", text: short(n.name, 40), onclick: function () {
          zoom(n);
        } })]);
      });
      var maxRow = 0;
      var g = s("g", {});
      function draw(n, x, w, row) {
        if (w < MINW) return;
        maxRow = Math.max(maxRow, row);
        var idx = drawn.push(n) - 1;
        var color = colorOf(n);
        add(g, [s("rect", { x: x, y: row * ROW, width: Math.max(w - 0.5, 0.3), height: ROW - 1, fill: color, "data-i": idx, class: n === focus ? "node focus" : "node" })]);
        if (w > 34) {
          add(g, [s("text", { x: x + 4, y: row * ROW + 14, class: "node-label" }, [short(n.name, Math.floor((w - 8) / 6.4))])]);
        }
        var sum = 0;
        n.kids.forEach(function (k) {
          sum += k.cum;
        });
        var scale = w / Math.max(n.cum, sum, 1e-9);
        var cx = x;
        n.kids.forEach(function (k) {
          var kw = k.cum * scale;
          draw(k, cx, kw, row + 1);
          cx += kw;
        });
      }
      draw(focus, 0, W, 0);
      var H = (maxRow + 1) * ROW;
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      svg.setAttribute("data-focus", focus.name);
      add(svg, [g]);
    }
    function nodeOf(ev) {
      var i = ev.target && ev.target.getAttribute ? ev.target.getAttribute("data-i") : null;
      return i === null ? null : drawn[Number(i)];
    }
    svg.addEventListener("mousemove", function (ev) {
      var n = nodeOf(ev);
      if (n) showTip(ev, lines(n));
      else hideTip();
    });
    svg.addEventListener("mouseleave", hideTip);
    svg.addEventListener("click", function (ev) {
      var n = nodeOf(ev);
      if (!n) return;
      zoom(n === focus && n.parent ? n.parent : n);
    });
    render();
    var legend = h("p", { class: "muted" }, [
      "Width is cumulative import time; colour is the top-level package" +
        (hasPhases ? " (darker: compiled from source)" : "") +
        ". Hover for self, cumulative" + (hasPhases ? " and phases (find, read, unmarshal, exec)" : "") +
        "; click a module to zoom in, click the top bar or the path above to zoom out.",
    ]);
    var modeBar = null;
    if (hasPhases) {
      var key = h("span", { class: "phase-key" });
      PHASES.forEach(function (k) {
        add(key, [h("span", { class: "swatch", style: "background:" + PHASE_COLORS[k] }), k.replace("_us", "") + " "]);
      });
      key.hidden = true;
      var sel = h("select", { "aria-label": "colour by", class: "color-mode", onchange: function (ev) {
        mode = ev.target.value;
        key.hidden = mode !== "phase";
        render();
      } }, [h("option", { value: "package", text: "top-level package" }), h("option", { value: "phase", text: "dominant phase" })]);
      modeBar = h("div", { class: "controls" }, [h("label", {}, ["colour by ", sel]), key]);
    }
    return add(box, [legend, modeBar, crumbs, h("div", { class: "icicle-scroll" }, [svg])]);
  }
  function importsPart(doc, source, n) {
    var sec = section("imports" + (n || ""), "Import tree", source);
    var mods = doc.modules || [];
    var top = buildTree(mods);
    if (num(doc.total_us) && doc.total_us > 0 && (doc.processes || 1) === 1) top.cum = doc.total_us;
    var hasPhases = mods.some(function (m) {
      return PHASES.some(function (k) {
        return num(m[k]);
      });
    });
    add(sec, [
      h("p", { class: "lead" }, [
        fmtCount(mods.length) + " modules, " + fmtUs(top.cum) + " of imports in total (median of " + (doc.runs || "?") +
          " run" + (doc.runs === 1 ? "" : "s") + ")" + (doc.python ? " \u2014 " : ""),
        doc.python ? h("code", { text: doc.python }) : null,
        doc.python_version ? " (Python " + doc.python_version + ")" : "",
        hasPhases ? "; phases measured by importprof's bootstrap." : "",
      ]),
      doc.target ? h("p", { class: "meta" }, ["Target: ", h("code", { class: "target", text: targetText(doc.target) })]) : null,
      mods.length ? icicle(top, doc) : h("p", { class: "muted", text: "No import rows." }),
      h("h3", { text: "Top modules" }),
    ]);
    var cols = [
      { key: "name", label: "module", nowrap: true, fmt: function (v) {
        return h("code", { text: v });
      } },
      { key: "self_us", label: "self", num: true },
      { key: "cumulative_us", label: "cumulative", num: true },
      { key: "share", label: "% of total", num: true, get: function (m) {
        return num(m.cumulative_us) && top.cum ? m.cumulative_us / top.cum : null;
      }, fmt: fmtPct },
    ];
    if (hasPhases) {
      PHASES.forEach(function (k) {
        cols.push({ key: k, label: k.replace("_us", ""), num: true });
      });
      cols.push({ key: "compiled", label: "compiled" });
    }
    cols.push({ key: "parent", label: "imported by", fmt: function (v) {
      return v === null || v === undefined ? "\u2014" : breakable(v);
    } });
    if (mods.some(function (m) {
      return typeof m.site === "string";
    })) cols.push({ key: "site", label: "import statement", fmt: function (v) {
      return v ? breakable(v) : "\u2014";
    } });
    if (mods.some(function (m) {
      return typeof m.lazy_candidate === "boolean";
    })) cols.push({ key: "lazy_candidate", label: "lazy candidate" });
    if (mods.some(function (m) {
      return num(m.runs_seen) && num(doc.runs) && m.runs_seen < doc.runs;
    })) cols.push({ key: "runs_seen", label: "runs seen", num: true });
    if (mods.some(function (m) {
      return m.process;
    })) cols.push({ key: "process", label: "process", num: true });
    add(sec, [dataTable(cols, mods, { id: "imports-table", sort: "cumulative_us", limit: 25, filter: true })]);
    if ((doc.cached || []).length) {
      add(sec, [h("p", { class: "muted", text: doc.cached.length + " modules were already imported (Python 3.14 \u201ccached\u201d rows): " + doc.cached.slice(0, 30).map(function (c) {
        return c.name;
      }).join(", ") })]);
    }
    if ((doc.groups || []).length) {
      add(sec, [h("h3", { text: "By " + (doc.group_by || "group") }), dataTable([
        { key: "name", label: doc.group_by || "group" },
        { key: "self_us", label: "self", num: true },
        { key: "cumulative_us", label: "cumulative", num: true },
        { key: "modules", label: "modules", num: true },
      ], doc.groups, { sort: "cumulative_us", limit: 25 })]);
    }
    add(sec, [notes(doc), rest(doc, ["python", "python_version", "runs", "modules", "cached", "warnings", "notes", "target", "source",
      "processes", "total_us", "total_us_runs", "group_by", "groups"])]);
    return sec;
  }

  /* ---------- syscalls ---------- */
  function syscallBlock(v) {
    var out = [];
    var sc = v.syscalls || [];
    if (sc.length) {
      var topSc = sc.slice().sort(function (a, b) {
        return (b.count || 0) - (a.count || 0);
      }).slice(0, 15);
      out.push(h("h3", { text: "System calls" }));
      out.push(barChart(topSc.map(function (r) {
        return { label: r.name, value: r.count, note: r.errors ? "(" + fmtCount(r.errors) + " failed)" : "" };
      }), fmtCount, { title: "syscalls by count" }));
      out.push(dataTable([
        { key: "name", label: "syscall" },
        { key: "count", label: "count", num: true },
        { key: "errors", label: "errors", num: true },
        { key: "seconds", label: "time", num: true },
      ], sc, { sort: "count", limit: 15 }));
    }
    var mods = v.modules || [];
    if (mods.length) {
      out.push(h("h3", { text: "Syscalls attributed to the module being imported" }));
      var topM = mods.slice().sort(function (a, b) {
        return (b.syscalls || 0) - (a.syscalls || 0);
      }).slice(0, 15);
      out.push(barChart(topM.map(function (r) {
        return { label: r.name, value: r.syscalls, note: r.failed ? "(" + fmtCount(r.failed) + " failed lookups)" : "" };
      }), fmtCount, { title: "syscalls per module" }));
      out.push(dataTable([
        { key: "name", label: "module", fmt: function (x) {
          return breakable(x);
        } },
        { key: "syscalls", label: "syscalls", num: true },
        { key: "failed", label: "failed lookups", num: true },
        { key: "opened", label: "files opened", num: true },
        { key: "bytes_read", label: "bytes read", num: true },
        { key: "seconds", label: "time in syscalls", num: true },
      ], mods, { id: "trace-modules-table", sort: "syscalls", limit: 25, filter: true }));
    }
    if (v.filesystem) {
      out.push(h("h3", { text: "File-system view" }));
      out = out.concat(filesystemBlock(v.filesystem));
    }
    if (v.processes && (!Array.isArray(v.processes) || v.processes.length > 1)) {
      out.push(h("h3", { text: "Processes" }));
      out.push(generic(v.processes, "processes", 0));
    }
    return out;
  }
  function filesystemBlock(fs) {
    if (!isRecord(fs)) return [generic(fs, "filesystem", 0)];
    var out = [];
    var figures = h("dl", { class: "facts" });
    [["lookups_failed", "failed lookups (ENOENT/ENOTDIR)"], ["files_opened", "distinct files opened"], ["opens", "successful opens"],
      ["reads", "reads"], ["bytes_read", "bytes read"]].forEach(function (kv) {
      if (kv[0] in fs) add(figures, [h("dt", { text: kv[1] }), h("dd", { text: fmtByKey(kv[0], fs[kv[0]]) })]);
    });
    out.push(figures);
    if (Array.isArray(fs.families) && fs.families.length) {
      out.push(h("h4", { text: "Call families" }));
      out.push(barChart(fs.families.map(function (f) {
        return { label: f.name, value: f.count, note: f.errors ? "(" + fmtCount(f.errors) + " failed)" : "" };
      }), fmtCount, { title: "file-system call families" }));
    }
    if (Array.isArray(fs.failed_lookup_dirs) && fs.failed_lookup_dirs.length) {
      out.push(h("h4", { text: "Directories where lookups failed (sys.path misses)" }));
      out.push(barChart(fs.failed_lookup_dirs.slice(0, 12).map(function (d) {
        return { label: d.name, value: d.count };
      }), fmtCount, { title: "failed lookups per directory", labelW: 330, tail: true }));
    }
    if (Array.isArray(fs.read_sizes) && fs.read_sizes.length) {
      out.push(h("h4", { text: "Read sizes (bytes returned per read)" }));
      out.push(barChart(fs.read_sizes.map(function (b) {
        return { label: b.name, value: b.count, note: num(b.bytes) ? fmtBytes(b.bytes) + " in total" : "" };
      }), fmtCount, { title: "read-size histogram" }));
    }
    if (Array.isArray(fs.files) && fs.files.length) {
      out.push(h("h4", { text: "Files opened and read" }));
      out.push(dataTable([
        { key: "name", label: "file", fmt: function (x) {
          return breakable(x);
        } },
        { key: "opens", label: "opens", num: true },
        { key: "bytes_read", label: "bytes read", num: true },
      ], fs.files, { sort: "bytes_read", limit: 10 }));
    }
    var extra = {};
    Object.keys(fs).forEach(function (k) {
      if (["lookups_failed", "files_opened", "opens", "reads", "bytes_read", "families", "failed_lookup_dirs", "read_sizes", "files"].indexOf(k) < 0) extra[k] = fs[k];
    });
    if (Object.keys(extra).length) out.push(generic(extra, "filesystem", 1));
    return out;
  }
  function tracePart(doc, source, n) {
    var sec = section("trace" + (n || ""), "Syscalls", source);
    add(sec, [h("p", { class: "lead", text: "What start-up asks the kernel for, traced with strace -f; each import's syscalls are charged to the innermost module being imported." })]);
    if (Array.isArray(doc.variants) && doc.variants.length) {
      var names = [];
      doc.variants.forEach(function (v) {
        (v.syscalls || []).forEach(function (r) {
          if (names.indexOf(r.name) < 0) names.push(r.name);
        });
      });
      var rows = names.map(function (nm) {
        var row = { name: nm };
        doc.variants.forEach(function (v, i) {
          var r = (v.syscalls || []).filter(function (x) {
            return x.name === nm;
          })[0];
          row["v" + i] = r ? r.count : null;
        });
        return row;
      });
      var cols = [{ key: "name", label: "syscall" }].concat(doc.variants.map(function (v, i) {
        return { key: "v" + i, label: String(v.variant), num: true, fmt: function (x) {
          return fmtCount(x);
        } };
      }));
      add(sec, [h("h3", { text: "Variants side by side (counts)" }), dataTable(cols, rows, { sort: "v0", limit: 20 })]);
      doc.variants.forEach(function (v) {
        add(sec, [h("details", { class: "variant" }, [h("summary", { text: "Variant " + v.variant })].concat(syscallBlock(v)))]);
      });
    } else {
      add(sec, syscallBlock(doc));
    }
    add(sec, [notes(doc), rest(doc, ["syscalls", "modules", "filesystem", "processes", "variants", "warnings", "notes"])]);
    return sec;
  }

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

  /* ---------- oxidized variants ---------- */
  /* The document's `rows` hold PyOxidizer's columns (computed by importprof's analysis); when a
   * document has none (an older or hand-made file), the same columns are derived from results. */
  function compareRows(doc) {
    if (Array.isArray(doc.rows) && doc.rows.length) return doc.rows;
    var results = doc.results || [];
    function cpu(r) {
      return num(r.user) && num(r.system) ? r.user + r.system : null;
    }
    var by = {};
    results.forEach(function (r) {
      by[r.variant] = r;
    });
    var trad = by.traditional ? cpu(by.traditional) : null, ns = by["no-site"];
    return results.map(function (r) {
      var c = cpu(r);
      return {
        variant: r.variant || r.command, cpu_s: c, cpu_stddev_s: null,
        delta_cpu_s: c !== null && trad !== null ? c - trad : null,
        pct_of_traditional: c !== null && trad ? (100 * c) / trad : null,
        speedup_vs_no_site: ns && r.mean > 0 ? ns.mean / r.mean : null,
        wall_s: r.mean, wall_stddev_s: r.stddev,
        peak_rss_bytes: r.memory_usage_byte && r.memory_usage_byte.length ? Math.max.apply(null, r.memory_usage_byte) : null,
        syscalls: null,
      };
    });
  }
  /* PyOxidizer's `speedup_vs_no_site` is no-site's mean / this mean (a speed ratio): shown as
   * the time ratio every other table uses (its inverse). */
  function vsNoSite(r) {
    if (r.variant === "no-site") return fmtRatio(1, null, true);
    return num(r.speedup_vs_no_site) && r.speedup_vs_no_site > 0 ? fmtRatio(1 / r.speedup_vs_no_site) : "n/a";
  }
  function comparePart(doc, source, n) {
    var sec = section("compare" + (n || ""), "Variant comparison (traditional / no-site / oxidized / filesystem / in-memory)", source);
    var results = doc.results || [];
    var failedBy = {};
    results.forEach(function (r) {
      if (r.failed) failedBy[r.variant || r.command] = r;
    });
    var rows = compareRows(doc).filter(function (r) {
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

  /* ---------- why: the import chains to one module ---------- */
  function whyPart(doc, source, n) {
    var sec = section("why" + (n || ""), "Who imports " + String(doc.module), source);
    var chains = doc.chains || [];
    add(sec, [h("p", { class: "lead" }, [
      chains.length + " import chain" + (chains.length === 1 ? "" : "s") + " from the entry point to ",
      h("code", { text: String(doc.module) }),
      doc.target ? " in " : "", doc.target ? h("code", { class: "target", text: targetText(doc.target) }) : null,
      "; each hop with its cumulative import time.",
    ])]);
    var list = h("ol", { class: "chains" });
    chains.forEach(function (c) {
      var li = h("li");
      (c.hops || []).forEach(function (hop, i) {
        if (i) add(li, [h("span", { class: "sep", text: " \u203a " })]);
        add(li, [h("code", { text: hop.name }), " " + fmtUs(hop.cumulative_us)]);
        if (hop.site) add(li, [h("span", { class: "muted" }, [" (", pathLabel(hop.site, 48), ")"])]);
      });
      if (doc.processes > 1 || c.process) add(li, [h("span", { class: "muted", text: "  process " + c.process })]);
      add(list, [li]);
    });
    add(sec, [list, notes(doc), rest(doc, ["module", "chains", "target", "python", "python_version", "runs", "warnings", "notes"])]);
    return sec;
  }

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
    var interps = [];
    function seen(path, version, where) {
      if (!path && !version) return;
      var k = path + "|" + version;
      var known = interps.filter(function (i) {
        return i.k === k;
      })[0];
      if (!known) interps.push({ k: k, path: path, version: version, where: where });
      else if (known.where.split(", ").indexOf(where) < 0) known.where += ", " + where;
    }
    if (bundle.interpreter) seen(bundle.interpreter.path, bundle.interpreter.version, "measured");
    entries.forEach(function (e) {
      var d = e.doc || {};
      (d.results || []).forEach(function (r) {
        seen(r.python, r.python_version, kindOf(d));
      });
      if (d.python || d.python_version) seen(d.python, d.python_version, kindOf(d));
    });
    add(sec, [h("h3", { text: "Interpreters" })]);
    if (bundle.interpreter) add(sec, [generic(bundle.interpreter, "interpreter", 1)]);
    add(sec, [dataTable([
      { key: "path", label: "path", fmt: function (v) {
        return v ? breakable(v) : "\u2014";
      } },
      { key: "version", label: "version" },
      { key: "where", label: "seen in" },
    ], interps, {})]);
    return sec;
  }

  /* ---------- the page ---------- */
  function build() {
    var bundle = JSON.parse(document.getElementById("importprof-data").textContent);
    var derived = bundle.derived || {};
    SHOWN = derived.shown_targets || {};
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
    add(main, [header, nav]);
    var mixed = derived.mixed || [];
    if (mixed.length) {
      add(main, [h("aside", { class: "mixed", id: "mixed", role: "note" }, [
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
      add(main, [h("aside", { class: "skipped", id: "skipped" }, [h("strong", { text: "Not in this report" }), h("ul", {}, missing.map(function (m) {
        return h("li", {}, [h("b", { text: m.part }), ": " + m.reason]);
      }))])]);
    }
    var order = ["startup", "imports", "why", "trace", "site", "compare", "other"];
    var parts = { startup: startupPart, imports: importsPart, why: whyPart, trace: tracePart, site: sitePart, compare: comparePart, other: otherPart };
    var counters = {};
    order.forEach(function (kind) {
      entries.forEach(function (e, i) {
        var k = parts[kindOf(e.doc)] ? kindOf(e.doc) : "other";
        if (k !== kind) return;
        counters[k] = (counters[k] || 0) + 1;
        var suffix = k === "other" ? i : counters[k] > 1 ? "-" + counters[k] : "";
        add(main, [guarded(k, function () {
          return parts[k](e.doc, e.source, suffix, e.derived);
        })]);
      });
    });
    if (!entries.length) add(main, [h("p", { class: "muted", text: "No documents in this report." })]);
    add(main, [guarded("facts", function () {
      return factsPart(bundle, entries);
    })]);
  }

  try {
    build();
  } catch (err) {
    add(main, [fail("page", err)]);
  }
  ROOT.setAttribute("data-sections", built.join(" "));
  ROOT.setAttribute("data-rendered", errors.length ? "errors" : "ok");
})();
