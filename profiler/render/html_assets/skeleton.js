// @ts-check
/* importprof report page: page skeleton — sections, the table of contents, guarded parts.
 */
function section(id, title, source) {
  // a page whose documents measure different things heads each part with what it measured
  if (PAGE.heading) title += " \u2014 " + PAGE.heading;
  var sec = h("section", { id: id, class: "part" }, [h("h2", { text: title })]);
  if (source) add(sec, [h("p", { class: "source", text: "from " + source })]);
  add(PAGE.nav, [h("a", { href: "#" + id, text: title })]);
  PAGE.built.push(id);
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
