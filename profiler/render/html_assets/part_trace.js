// @ts-check
/* importprof report page: the syscalls part (importprof.trace/1).
 */
/* ---------- syscalls ---------- */
/* the run's figures, each named for what it is: the traced wall time is strace's as much as the
 * program's; the untraced one is trace's own median, not the start-up part's measurement */
var RUN_FACTS = [
  { key: "processes", label: "processes", fmt: fmtCount },
  { key: "python_processes", label: "Python processes", fmt: fmtCount },
  { key: "wall_s", label: "wall time, traced (strace stops the program at every syscall)", fmt: fmtS },
  { key: "python_busy_s", label: "time a Python process was running (traced)", fmt: fmtS },
  { key: "python_share", label: "share of the wall time a Python process was running", fmt: function (v) {
    return (v * 100).toFixed(0) + " %";
  } },
  { key: "python_wall_s", label: "\u03a3 the Python processes' wall times, exec to exit (traced; nested ones overlap)", fmt: fmtS },
  { key: "importprof_syscalls", label: "importprof's import boundaries (-X importtime writes), left out of the counts", fmt: fmtCount },
];
var ATTRIBUTION = { importtime: "boundaries from -X importtime", markers: "import markers", lookups: "inferred from lookups" };
function runFacts(harness) {
  if (!isRecord(harness)) return [];
  var dl = h("dl", { class: "facts run" });
  RUN_FACTS.forEach(function (f) {
    if (num(harness[f.key])) add(dl, [h("dt", { text: f.label }), h("dd", { text: f.fmt(harness[f.key]) })]);
  });
  if (num(harness.untraced_wall_s)) {
    var n = harness.untraced_runs || 0;
    add(dl, [h("dt", { text: "wall time untraced: trace's own runs (median of " + n + " run" + (n === 1 ? "" : "s") + "), not the start-up part's measurement" }),
      h("dd", { text: fmtS(harness.untraced_wall_s) })]);
  }
  if (isRecord(harness.attribution)) {
    var how = Object.keys(harness.attribution).filter(function (k) {
      return harness.attribution[k];
    }).map(function (k) {
      return fmtCount(harness.attribution[k]) + " by " + (ATTRIBUTION[k] || k);
    });
    if (how.length) add(dl, [h("dt", { text: "processes attributed" }), h("dd", { text: how.join(", ") })]);
  }
  var shown = RUN_FACTS.map(function (f) {
    return f.key;
  }).concat(["untraced_wall_s", "untraced_runs", "attribution"]);
  var extra = {};
  Object.keys(harness).forEach(function (k) {
    if (shown.indexOf(k) < 0) extra[k] = harness[k];
  });
  var out = [h("h3", { text: "The traced run" }), dl];
  if (Object.keys(extra).length) out.push(generic(extra, "harness", 1));
  return out;
}
function syscallBlock(v) {
  var out = runFacts(v.harness);
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
function tracePart(doc, source, n, derived) {
  var sec = section("trace" + (n || ""), "Syscalls", source);
  add(sec, [h("p", { class: "lead", text: "What start-up asks the kernel for, traced with strace -f; each import's syscalls are charged to the innermost module being imported." })]);
  if (Array.isArray(doc.variants) && doc.variants.length) {
    /* one row per syscall with each variant's count: joined in Python (analysis/page.py) */
    var rows = ((derived && derived.side_by_side) || []).map(function (r) {
      var row = { name: r.name };
      r.counts.forEach(function (c, i) {
        row["v" + i] = c;
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
  add(sec, [notes(doc), rest(doc, ["syscalls", "modules", "filesystem", "processes", "variants", "harness", "warnings", "notes"])]);
  return sec;
}
