// @ts-check
/* importprof report page: the import tree part (importprof.imports/1): icicle and tables.
 */
/* ---------- import tree ---------- */
var PHASES = ["find_us", "read_us", "unmarshal_us", "exec_us"];
/* The tree is built once in Python (analysis/page.py import_tree: parents within a process,
 * cycles broken, one node per process when there are several); here it only gets its names and
 * the parent links the drawing walks. Nodes: {m: row index, cum, kids} or synthetic {name, cum, kids}. */
function hydrateTree(tree, mods) {
  function visit(node, parent) {
    var real = node.m !== undefined && node.m !== null && mods[node.m];
    var n = { i: real ? node.m : null, m: real ? mods[node.m] : null, name: real ? String(mods[node.m].name) : String(node.name),
      cum: num(node.cum) ? node.cum : 0, kids: [], parent: parent, synthetic: !real };
    (node.kids || []).forEach(function (k) {
      n.kids.push(visit(k, n));
    });
    return n;
  }
  return visit(tree || { name: "all imports", cum: 0, kids: [] }, null);
}
/* the instrumented run's phases beside the timed runs' self: say they come from
 * different runs and how far apart they are */
function phaseGap(m, phasesUs, runs) {
  if (!m || !num(phasesUs) || !num(m.self_us)) return null;
  var gap = phasesUs - m.self_us;
  return "phases add up to " + fmtUs(phasesUs) + " in one separate instrumented run; self " + fmtUs(m.self_us) +
    " is the median of " + (runs || "?") + " timed runs" + (Math.abs(gap) >= 100 ? " (" + fmtUs(Math.abs(gap)) + (gap > 0 ? " more" : " less") + " in the instrumented run)" : "");
}
function icicle(top, doc, phasesUs) {
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
        var gap = phaseGap(n.m, (phasesUs || [])[n.i], doc.runs);
        if (gap) out.push(gap);
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
function importsPart(doc, source, n, derived) {
  derived = derived || {};
  var sec = section("imports" + (n || ""), "Import tree", source);
  var mods = doc.modules || [];
  var top = hydrateTree(derived.tree, mods);
  var phasesUs = derived.phases_us || [];
  var rowIndex = new Map();
  mods.forEach(function (m, i) {
    rowIndex.set(m, i);
  });
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
    mods.length ? icicle(top, doc, phasesUs) : h("p", { class: "muted", text: "No import rows." }),
    h("h3", { text: "Top modules" }),
    hasPhases ? h("p", { class: "muted runs-note", text: "self and cumulative: the median of " + (doc.runs || "?") +
      " timed -X importtime runs. find, read, unmarshal, exec: ONE separate instrumented run (importprof's bootstrap), so " +
      "\u03a3 phases adds up to that run's self, not to the self column: the two runs can differ in either direction." }) : null,
  ]);
  /** @type {Column[]} */
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
      cols.push({ key: k, label: k.replace("_us", ""), num: true, title: "one separate instrumented run" });
    });
    cols.push({ key: "phases_us", label: "\u03a3 phases", num: true, title: "find+read+unmarshal+exec of the instrumented run: that run's self, not the self column's", get: function (m) {
      var v = phasesUs[rowIndex.get(m)];
      return num(v) ? v : null;
    }, fmt: function (v) {
      return num(v) ? fmtUs(v) : "\u2014";
    } });
    cols.push({ key: "compiled", label: "compiled" });
  }
  cols.push({ key: "parent", label: "imported by", nowrap: true, fmt: function (v) {
    return v === null || v === undefined ? "\u2014" : h("code", { text: v });
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
