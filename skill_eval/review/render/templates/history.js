"use strict";
// The history part of the review page's script: in a case whose with-skill outputs changed
// since the compared version (c.prev, from review/render/history_view.py), that version's output
// beside the current one per iteration, with a line diff and both versions' verdicts. review.js
// calls the hook when it draws a case; text reaches the page through textContent only.
(function () {
  function verdicts(h, checks) {
    var ul = h.el("ul", "checks");
    checks.forEach(function (k) {
      var li = h.el("li", "check");
      h.add(li, h.el("span", k[2] ? "ok" : "bad", k[2] ? "✓ " : "✗ "),
            h.el("span", null, k[0] + (k[1] ? "" : " (optional)")), h.el("span", "evidence", k[3]));
      h.add(ul, li);
    });
    return ul;
  }
  function box(h, title, st, out, checks) {
    var b = h.el("div", "run");
    h.add(b, h.add(h.el("div"), h.el("strong", null, title + ": "), h.el("span", "st-" + st, st)));
    h.add(b, h.el("pre", "output", out));
    if (checks.length) h.add(b, h.el("div", null, "Checks"), verdicts(h, checks));
    return b;
  }
  var hooks = window.skillEvalDetailHooks = window.skillEvalDetailHooks || [];
  hooks.push(function (wrap, c, h) {
    if (!c.prev || !c.prev.runs.length) return;
    var sec = h.el("div", "prev-version");
    h.add(sec, h.el("h4", null, "With-skill output changed since " + c.prev.label));
    c.prev.runs.forEach(function (r) {
      var pair = h.el("div", "pair");
      h.add(pair, box(h, "compared version (" + c.prev.label + "), iteration " + r.it, r.st, r.out, r.checks),
            box(h, "now, iteration " + r.it, r.now.st, r.now.out, r.now.checks));
      h.add(sec, pair);
      var d = h.diffLines(r.out, r.now.out), dt = h.el("details", "diff");
      dt.open = true;
      h.add(dt, h.el("summary", null, "diff, iteration " + r.it + " (- compared version, + now)"));
      if (d === null) h.add(dt, h.el("div", "muted", "outputs too long to diff here"));
      else {
        var pre = h.el("pre");
        d.forEach(function (line) { h.add(pre, h.el("div", line[0], line[1])); });
        h.add(dt, pre);
      }
      h.add(sec, dt);
    });
    h.add(wrap, sec);
  });
})();
