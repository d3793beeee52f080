// @ts-check
/* importprof report page: the import chains part (importprof.why/1).
 */
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
