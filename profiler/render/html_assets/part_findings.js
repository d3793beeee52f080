// @ts-check
/* importprof report page: the findings (importprof.doctor/1), shown first: what slows start-up,
 * priced, costliest first, each with where it is and the fix.
 */
function findingsPart(doc, source, n) {
  var sec = section("doctor" + (n || ""), "Findings: what slows start-up, costliest first", source);
  var findings = doc.findings || [];
  add(sec, [h("p", { class: "lead" }, [
    findings.length + " finding" + (findings.length === 1 ? "" : "s") + " for ",
    h("code", { class: "target", text: targetText(doc.target) || "?" }),
    num(doc.startup_s) ? " (start-up as is: " + fmtS(doc.startup_s) + ")" : "",
    // doctor --verify times the program as is again beside each fix: a second figure, named for what it is
    num(doc.verify_startup_s) ? " (as is in the verification run: " + fmtS(doc.verify_startup_s) + ", its mean: the measured savings are from that run)" : "",
    ". Each is priced from its own measurement, so they overlap (site's cost includes its .pth files' imports): read them one by one, do not add them up.",
  ])]);
  var list = h("ol", { class: "findings" });
  findings.forEach(function (f) {
    add(list, [h("li", { class: "finding", "data-kind": f.kind }, [
      h("div", { class: "finding-head" }, [
        // doctor --verify times each fix: the measured saving first, the estimate beside it
        num(f.measured_us)
          ? h("span", { class: "cost", title: "measured: start-up as is minus start-up with the fix (doctor --verify)" },
            ["measured " + fmtUs(f.measured_us) + " (estimated " + fmtUs(f.cost_us) + ")"])
          : h("span", { class: "cost estimate", title: "an estimate of the saving (doctor --verify measures it)" },
            ["\u2248 " + fmtUs(f.cost_us) + " estimated"]),
        h("span", { class: "kind", text: f.kind }),
        breakable(f.title, "strong", {}, AFTER_SLASH),
      ]),
      f.where ? h("div", { class: "where" }, ["where: ", f.where === doc.target ? h("code", { class: "target", text: targetText(f.where) }) : pathLabel(f.where, 72)]) : null,
      h("div", { class: "fix" }, ["fix: ", breakable(f.fix, "span", {}, AFTER_SLASH)]),
      f.measured_by ? h("div", { class: "muted", text: "measured by " + f.measured_by }) : null,
      f.verify ? h("div", { class: "muted", text: (/^not verified/.test(f.verify) ? "" : "verified: ") + f.verify }) : null,
    ])]);
  });
  if (findings.length) add(sec, [list]);
  else add(sec, [h("p", { class: "muted", text: "Nothing found by the checks that ran." })]);
  var notRun = (doc.checks || []).filter(function (c) {
    return !c.ran;
  });
  if (notRun.length) {
    add(sec, [h("p", { class: "muted" }, ["Checks that did not run: " + notRun.map(function (c) {
      return c.kind + (c.note ? " (" + c.note + ")" : "");
    }).join("; ")])]);
  }
  add(sec, [notes(doc), rest(doc, ["findings", "checks", "target", "startup_s", "python", "python_version", "warnings", "notes", "verified", "verify_startup_s"])]);
  return sec;
}
