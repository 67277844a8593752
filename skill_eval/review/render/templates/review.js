"use strict";
// The review page's only script. Every string from the data is run or author text: it reaches
// the page through textContent and setAttribute only, never through HTML parsing.
(function () {
  var DATA = JSON.parse(document.getElementById("review-data").textContent);
  var PAGE = 200; // rows drawn per table before a "show more" button
  var STORE_KEY = "skill-eval-feedback:" + DATA.suite;
  var filters = {};
  var query = "";
  var limits = {};
  var current = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  // Links come from the generator as percent-encoded relative paths; refuse anything else.
  function link(href, text) {
    if (typeof href !== "string" || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.indexOf("//") === 0) {
      return el("span", null, text);
    }
    var a = el("a", null, text);
    a.setAttribute("href", href);
    return a;
  }

  function feedback() {
    try { return JSON.parse(localStorage.getItem(STORE_KEY) || "{}") || {}; } catch (e) { return {}; }
  }
  function saveFeedback(id, text) {
    var all = feedback();
    if (text) all[id] = { feedback: text, timestamp: new Date().toISOString() };
    else delete all[id];
    try { localStorage.setItem(STORE_KEY, JSON.stringify(all)); } catch (e) { /* storage off */ }
  }

  // skill-creator's feedback.json is per run: every run (r.rid is its run_id) gets a box.
  function allRuns() {
    var out = [];
    DATA.skills.forEach(function (s) {
      s.cases.concat(s.triggers).forEach(function (c) { c.runs.forEach(function (r) { out.push(r); }); });
    });
    return out;
  }
  function feedbackBox(r) {
    var ta = el("textarea");
    ta.rows = 2;
    ta.setAttribute("aria-label", "feedback on run " + r.rid);
    ta.setAttribute("placeholder", "Notes on this run (kept in this browser; download feedback.json)");
    ta.value = (feedback()[r.rid] || {}).feedback || "";
    ta.addEventListener("input", function () { saveFeedback(r.rid, ta.value); });
    return add(el("div", "feedback"), ta);
  }

  function haystack(c) {
    if (c._hay === undefined) {
      var parts = [c.id, c.prompt, c.expected];
      c.runs.forEach(function (r) { parts.push(r.out, r.err || ""); });
      c._hay = parts.join("\n").toLowerCase();
    }
    return c._hay;
  }
  function failing(c) {
    if (c.kind === "trigger") return c.verdict !== "pass";
    return c.runs.some(function (r) { return r.arm === "with_skill" && r.st !== "pass"; });
  }
  function shown(c) {
    if (filters.failing && !failing(c)) return false;
    if (filters.regressed && c.flags.indexOf("regressed") < 0) return false;
    if (filters.flaky && c.flags.indexOf("flaky") < 0) return false;
    if (filters.error && c.flags.indexOf("error") < 0) return false;
    if (filters.changed && !c.moved) return false;
    return !query || haystack(c).indexOf(query) >= 0;
  }

  function num(v, digits) { return v === null || v === undefined ? "n/a" : Number(v).toFixed(digits); }
  function usd(v) { return v === null || v === undefined ? "n/a" : "$" + Number(v).toFixed(4); }
  function tokens(v) { return v === null || v === undefined ? "n/a" : Math.round(v).toLocaleString("en-US"); }
  function pct(v) { return v === null || v === undefined ? "n/a" : (v * 100).toFixed(1) + "%"; }

  // Line diff (longest common subsequence); long outputs fall back to a note.
  function diffLines(a, b) {
    var x = a.split("\n"), y = b.split("\n");
    if (x.length * y.length > 400000) return null;
    var n = x.length, m = y.length, t = [], i, j;
    for (i = 0; i <= n; i++) { t.push(new Uint32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--)
      t[i][j] = x[i] === y[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    var out = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { out.push(["same", "  " + x[i]]); i++; j++; }
      else if (t[i + 1][j] >= t[i][j + 1]) { out.push(["del", "- " + x[i]]); i++; }
      else { out.push(["add", "+ " + y[j]]); j++; }
    }
    for (; i < n; i++) out.push(["del", "- " + x[i]]);
    for (; j < m; j++) out.push(["add", "+ " + y[j]]);
    return out;
  }

  function runBox(r) {
    var box = el("div", "run");
    var head = el("div");
    add(head, el("strong", null, r.arm.replace("_", " ") + ", iteration " + r.it + ": "),
        el("span", "st-" + r.st, r.st));
    add(box, head);
    add(box, el("div", "muted", "tokens " + tokens(r.tok) + " · time " + num(r.dur, 2) + " s · cost " + usd(r.cost)
      + (r.loaded ? " · skill loaded" : "")));
    if (r.credit !== null && r.credit !== undefined) {
      add(box, el("div", "muted credit", "partial credit " + pct(r.credit)
        + " of graded checks passed (not the pass rate: the run " + (r.st === "pass" ? "passed" : "did not pass") + ")"));
    }
    if (r.href) add(box, link(r.href, "run files"));
    if (r.unscorable) add(box, el("div", "st-unscorable unscorable", "unscorable: " + r.unscorable
      + " (not in the pass rate)"));
    if (r.err && r.st !== "unscorable") add(box, el("pre", "bad", r.err));
    var body = el("div", r.steps && r.steps.length ? "trajectory" : null);
    if (r.steps && r.steps.length) {
      var ol = el("ol", "steps");
      r.steps.forEach(function (s) { add(ol, el("li", "step " + s[0], s[1])); });
      add(body, add(el("div", "steps-col"), el("div", null, "Steps (" + r.steps.length + ")"), ol));
    }
    if (r.st !== "error" && (r.st !== "unscorable" || r.out)) add(body, el("pre", "output", r.out));
    add(box, body);
    if (r.clipped) add(box, el("div", "muted", "output clipped; the full text is in the run files"));
    if (r.checks.length) {
      var ul = el("ul", "checks");
      r.checks.forEach(function (k) {
        var li = el("li", "check");
        add(li, el("span", k[3] ? "ok" : "bad", k[3] ? "✓ " : "✗ "), el("span", null, k[0] + " (" + k[1]
          + (k[2] ? "" : ", optional") + ")"), el("span", "evidence", k[4]));
        add(ul, li);
      });
      add(box, el("div", null, "Checks"), ul);
    }
    if (r.rubric.length) {
      var rl = el("ul", "checks");
      r.rubric.forEach(function (k) {
        var li = el("li", "rubric");
        var mark = k[2] === "passed" ? "ok" : k[2] === "failed" ? "bad" : "unk";
        add(li, el("span", mark, k[2] === "passed" ? "✓ " : k[2] === "failed" ? "✗ " : "? "),
            el("span", null, k[1] + (k[4] ? "" : " (optional)") + (k[5] ? " — judge " + k[5] : "")),
            el("span", "evidence", k[2] === "ungraded" ? "ungraded (no judge)" : (k[3] || k[2])));
        add(rl, li);
      });
      add(box, el("div", null, "Rubric"), rl);
    }
    if (r.files.length) {
      var fl = el("ul");
      r.files.forEach(function (f) { add(fl, add(el("li"), link(f[1], f[0]))); });
      add(box, el("div", null, "Kept files"), fl);
    }
    add(box, feedbackBox(r));
    return box;
  }

  // The tools and commands one arm used (in any iteration) and the other never did.
  function stepNames(runs, arm) {
    var seen = {};
    runs.filter(function (r) { return r.arm === arm; }).forEach(function (r) {
      (r.steps || []).forEach(function (s) {
        if (s[0] === "tool") seen["tool " + s[1].split(":")[0]] = true;
        if (s[0] === "command") seen["$ " + s[1]] = true;
        if (s[0] === "skill") seen["skill " + s[1]] = true;
      });
    });
    return seen;
  }

  function onlyOneArm(runs) {
    var a = stepNames(runs, "with_skill"), b = stepNames(runs, "without_skill");
    var onlyW = Object.keys(a).filter(function (k) { return !b[k]; }).sort();
    var onlyWo = Object.keys(b).filter(function (k) { return !a[k]; }).sort();
    var box = el("div", "only-one-arm muted");
    if (!onlyW.length && !onlyWo.length) return box;
    if (onlyW.length) add(box, el("div", "only-with", "only with the skill: " + onlyW.join(", ")));
    if (onlyWo.length) add(box, el("div", "only-without", "only without the skill: " + onlyWo.join(", ")));
    return box;
  }

  function detail(skill, c) {
    var wrap = el("div", "case-detail");
    add(wrap, el("div", null, "Prompt"), el("pre", "prompt", c.prompt));
    if (c.expected) add(wrap, el("div", null, "Expected output"), el("pre", null, c.expected));
    if (c.kind === "task") add(wrap, onlyOneArm(c.runs));
    var byIt = {};
    c.runs.forEach(function (r) { (byIt[r.it] = byIt[r.it] || {})[r.arm] = r; });
    Object.keys(byIt).sort(function (a, b) { return a - b; }).forEach(function (it) {
      var pair = el("div", "pair");
      var w = byIt[it].with_skill, wo = byIt[it].without_skill;
      add(pair, w ? runBox(w) : el("div", "run muted", "no with-skill run"));
      if (c.kind === "task") add(pair, wo ? runBox(wo) : el("div", "run muted", "no without-skill run"));
      add(wrap, pair);
      Object.keys(byIt[it]).filter(function (a) { return a.indexOf("ablation:") === 0; }).sort()
        .forEach(function (a) { add(wrap, runBox(byIt[it][a])); });
      if (w && wo && w.st !== "error" && wo.st !== "error" && w.st !== "unscorable" && wo.st !== "unscorable") {
        var d = diffLines(wo.out, w.out);
        var dt = el("details", "diff");
        add(dt, el("summary", null, "diff, iteration " + it + " (- without skill, + with skill)"));
        if (d === null) add(dt, el("div", "muted", "outputs too long to diff here"));
        else {
          var pre = el("pre");
          d.forEach(function (line) { add(pre, el("div", line[0], line[1])); });
          add(dt, pre);
        }
        add(wrap, dt);
      }
    });
    // Other parts of the page (history.js: the compared version's outputs) add to a case here.
    (window.skillEvalDetailHooks || []).forEach(function (hook) {
      hook(wrap, c, { el: el, add: add, diffLines: diffLines });
    });
    return wrap;
  }

  function toggle(row, skill, c, cols, force) {
    var next = row.nextSibling;
    var open = next && next.classList && next.classList.contains("detail");
    if (open && force !== true) { next.parentNode.removeChild(next); return; }
    if (open || force === false) return;
    var tr = el("tr", "detail"), td = el("td");
    td.colSpan = cols;
    add(tr, add(td, detail(skill, c)));
    row.parentNode.insertBefore(tr, row.nextSibling);
  }

  // Which arm loaded which other skill: "without skill: code-review".
  function otherSkills(o) {
    var parts = [];
    [["with_skill", "with skill"], ["without_skill", "without skill"]].forEach(function (a) {
      if (o[a[0]] && o[a[0]].length) parts.push(a[1] + ": " + o[a[0]].join(", "));
    });
    return parts.join("; ");
  }

  function flagsCell(c) {
    var td = el("td");
    c.flags.forEach(function (f) {
      var span = el("span", "flag " + f, f);
      if (f === "other-skills" && c.other_skills) span.title = otherSkills(c.other_skills);
      add(td, span);
    });
    if (c.other_skills && c.flags.indexOf("other-skills") >= 0) {
      add(td, el("div", "other-skills", otherSkills(c.other_skills)));
    }
    if (c.moved) add(td, el("span", "flag", "changed"));
    return td;
  }

  function caseRow(skill, c, iters, cols) {
    var tr = el("tr", "case");
    tr.tabIndex = 0;
    add(tr, el("td", "case-id", c.id));
    if (c.kind === "task") {
      ["with_skill", "without_skill"].forEach(function (arm) {
        for (var i = 1; i <= iters; i++) {
          var r = c.runs.filter(function (x) { return x.arm === arm && x.it === i; })[0];
          var st = r ? r.st : "missing";
          var td = el("td", "cell " + st, st === "pass" ? "✓" : st === "fail" ? "✗" : st === "error" ? "!" : st === "unscorable" ? "?" : "·");
          td.title = arm + " iteration " + i + ": " + st;
          add(tr, td);
        }
      });
      add(tr, el("td", null, c.w), el("td", null, c.wo),
          el("td", null, c.delta === null ? "n/a" : (c.delta >= 0 ? "+" : "") + (c.delta * 100).toFixed(1) + " pp"));
    } else {
      add(tr, el("td", "query", c.prompt), el("td", null, c.should ? "yes" : "no"), el("td", null, c.loads),
          el("td", "v-" + c.verdict, c.verdict));
    }
    add(tr, flagsCell(c));
    tr.addEventListener("click", function () { current = tr; mark(); toggle(tr, skill, c, cols); });
    tr._open = function (force) { toggle(tr, skill, c, cols, force); };
    return tr;
  }

  function drawTable(host, skill, list, kind, key) {
    while (host.firstChild) host.removeChild(host.firstChild);
    var iters = skill.iterations;
    var table = el("table"), head = el("tr");
    var heads = kind === "task" ? ["case"] : ["query", "text", "expected", "loaded", "verdict"];
    if (kind === "task") {
      for (var a = 0; a < 2; a++) for (var i = 1; i <= iters; i++) heads.push((a ? "without " : "with ") + i);
      heads.push("with", "without", "delta");
    }
    heads.push("flags");
    heads.forEach(function (h) { add(head, el("th", null, h)); });
    add(table, add(el("thead"), head));
    var body = el("tbody"), visible = list.filter(shown), limit = limits[key] || PAGE;
    visible.slice(0, limit).forEach(function (c) { add(body, caseRow(skill, c, iters, heads.length)); });
    add(table, body);
    add(host, table);
    host.dataset.shown = String(visible.length);
    if (!visible.length) add(host, el("p", "muted", "no case matches the filters"));
    if (visible.length > limit) {
      var more = el("button", "more", "show " + Math.min(PAGE, visible.length - limit) + " more of "
        + (visible.length - limit) + " hidden");
      more.type = "button";
      more.addEventListener("click", function () { limits[key] = limit + PAGE; drawTable(host, skill, list, kind, key); });
      add(host, more);
    }
    return visible.length;
  }

  function draw() {
    var total = 0, all = 0;
    document.querySelectorAll(".matrix").forEach(function (host) {
      var s = DATA.skills[Number(host.dataset.skill)];
      total += drawTable(host, s, s.cases, "task", "m" + host.dataset.skill);
      all += s.cases.length;
    });
    document.querySelectorAll(".triggers").forEach(function (host) {
      var s = DATA.skills[Number(host.dataset.skill)];
      total += drawTable(host, s, s.triggers, "trigger", "t" + host.dataset.skill);
      all += s.triggers.length;
    });
    document.getElementById("shown").textContent = "showing " + total + " of " + all + " cases";
    current = null;
  }

  function rows() { return Array.prototype.slice.call(document.querySelectorAll("tr.case")); }
  function mark() {
    rows().forEach(function (r) { r.classList.toggle("current", r === current); });
  }
  function step(delta) {
    var list = rows();
    if (!list.length) return;
    var i = list.indexOf(current);
    i = i < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, i + delta));
    current = list[i];
    mark();
    current._open(true);
    current.focus();
    current.scrollIntoView({ block: "nearest" });
  }

  document.querySelectorAll("input[data-filter]").forEach(function (box) {
    box.addEventListener("change", function () { filters[box.dataset.filter] = box.checked; limits = {}; draw(); });
  });
  var search = document.getElementById("search");
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { query = search.value.trim().toLowerCase(); limits = {}; draw(); }, 120);
  });
  document.getElementById("open-all").addEventListener("click", function () {
    rows().forEach(function (r) { r._open(true); });
  });
  document.getElementById("close-all").addEventListener("click", function () {
    rows().forEach(function (r) { r._open(false); var n = r.nextSibling; if (n && n.classList.contains("detail")) n.remove(); });
  });
  document.getElementById("download").addEventListener("click", function () {
    // As skill-creator's viewer submits it: every run on the page, "" where there is no note (so
    // "looked fine" and "not reviewed" differ by the status), one timestamp for the submission.
    var all = feedback(), ts = new Date().toISOString(), reviews = allRuns().map(function (r) {
      return { run_id: r.rid, feedback: (all[r.rid] || {}).feedback || "", timestamp: ts };
    });
    var blob = new Blob([JSON.stringify({ reviews: reviews, status: "complete" }, null, 2)],
                        { type: "application/json" });
    var a = el("a");
    a.setAttribute("href", URL.createObjectURL(blob));
    a.setAttribute("download", "feedback.json");
    document.body.appendChild(a);
    a.click();
    a.remove();
  });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "j") { step(1); ev.preventDefault(); }
    else if (ev.key === "k") { step(-1); ev.preventDefault(); }
    else if ((ev.key === "o" || ev.key === "Enter") && current) { current._open(); ev.preventDefault(); }
    else if (ev.key === "/") { search.focus(); ev.preventDefault(); }
  });
  window.addEventListener("beforeprint", function () { rows().forEach(function (r) { r._open(true); }); });
  draw();
})();
