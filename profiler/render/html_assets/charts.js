// @ts-check
/* importprof report page: charts — bars with error bars, strip plots (hand-drawn SVG).
 * No chart library: none draws icicles and error bars without bloating a self-contained page.
 */
function niceMax(v) {
  if (!(v > 0)) return 1;
  var p = Math.pow(10, Math.floor(Math.log10(v)));
  var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
  for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
  return 10 * p;
}
/* how many steps the axis gets: as many as fit (80 px a label, 5 at most, 2 at least) whose
 * step is a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten: never 16.7/33.3) */
function tickCount(max, room) {
  for (var n = Math.min(5, Math.max(2, room)); n >= 2; n--) {
    var step = max / n, p = Math.pow(10, Math.floor(Math.log10(step)));
    var m = Math.round((step / p) * 1000) / 1000;
    if ([1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].indexOf(m) >= 0) return n;
  }
  return 2;
}
function axis(g, x0, x1, y, max, fmt, height) {
  var n = tickCount(max, Math.floor((x1 - x0) / 80));
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
  var room = PAGE.main && PAGE.main.clientWidth ? PAGE.main.clientWidth : 900;
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
    add(g, [label]);
    if (num(r.value)) add(g, [s("rect", { x: x0, y: y + 4, width: Math.max(0, w), height: rowH - 8, class: "bar", fill: r.color || null })]);
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
