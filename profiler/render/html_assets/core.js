// @ts-check
/* importprof report page: core — shared state, DOM helpers (text only), formatting, tooltip.
 * The page's script is these files concatenated in the order manifest.json lists, inside one
 * function (nothing leaks into the page's globals); node's test runner loads the same files
 * into a bare context (tests/js), so only page.js may touch the document at load time. The one
 * mutable state they share is PAGE (below); the rest are functions and constants. Data never goes through an
 * HTML parser: nodes are made with createElement/createElementNS, strings with textContent.
 */
"use strict";

var SVGNS = "http://www.w3.org/2000/svg";
/** The page's one piece of mutable state, set by start() in page.js: the document's root, the
 * <main> the parts are drawn into, the tooltip, the table of contents, the parts drawn, the
 * errors met, and the targets as typed (from Python, see render/html.py shown_targets). */
var PAGE = {
  /** @type {HTMLElement|null} */ root: null,
  /** @type {HTMLElement|null} */ main: null,
  /** @type {HTMLElement|null} */ tip: null,
  /** @type {HTMLElement|null} */ nav: null,
  /** @type {string[]} */ errors: [],
  /** @type {string[]} */ built: [],
  /** @type {Object<string, string>} */ shown: {},
  /** @type {string} */ heading: "",  // what the part being built measured, on a mixed page
};

function fail(where, err) {
  var msg = where + ": " + (err && err.message ? err.message : String(err));
  PAGE.errors.push(msg);
  PAGE.root.setAttribute("data-render-error", PAGE.errors.join(" | "));
  return h("p", { class: "render-error" }, ["Could not draw this part: " + msg]);
}

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
  /** @type {Array<[string, number]>} */
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
 * name, after ", " and at spaces), never inside a word: a <wbr> marks each place. Prose passes
 * `where` = AFTER_SLASH (a "." there ends a sentence or sits inside a number). */
var AFTER_SLASH = /(?<=\/)/;
function breakable(text, tag, props, where) {
  var node = h(tag || "code", props || {});
  text = String(text);
  // a path breaks only after "/" (a "." there sits inside a name: python3.11, core.py)
  where = where || (text.indexOf("/") >= 0 ? /(?<=[\/ ])/ : /(?<=[.,;( ])/);
  var pieces = text.split(where);
  pieces.forEach(function (piece, i) {
    if (i) node.appendChild(document.createElement("wbr"));
    // a piece never breaks inside, not even at a hyphen (distutils-precedence.pth)
    var word = piece.trim().indexOf(" ") < 0;  // prose keeps wrapping at its spaces
    node.appendChild(word && (pieces.length > 1 || piece.indexOf("-") >= 0) ? h("span", { class: "nb", text: piece }) : document.createTextNode(piece));
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
function targetText(label) {
  return label && Object.prototype.hasOwnProperty.call(PAGE.shown, label) ? PAGE.shown[label] : label;
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
function showTip(ev, lines) {
  clear(PAGE.tip);
  lines.forEach(function (ln, i) {
    add(PAGE.tip, [h(i === 0 ? "strong" : "div", {}, [ln])]);
  });
  PAGE.tip.hidden = false;
  var x = ev.clientX + 14, y = ev.clientY + 14;
  var r = PAGE.tip.getBoundingClientRect();
  if (x + r.width > window.innerWidth - 8) x = Math.max(8, ev.clientX - r.width - 14);
  if (y + r.height > window.innerHeight - 8) y = Math.max(8, ev.clientY - r.height - 14);
  PAGE.tip.style.left = x + "px";
  PAGE.tip.style.top = y + "px";
}
function hideTip() {
  PAGE.tip.hidden = true;
}
