"""The review page (<results>/index.html): self-contained, safe with hostile run text, usable.

The browser tests drive Debian's Chromium through Playwright (its own browser download is not
reachable here) and skip with a printed reason when either is missing; .ci/run installs both.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.review.render.page.run_data import review_data
from skill_eval.review.render.review import csp_hash, embed_json, review_page

CHROMIUM = os.environ.get("SKILL_EVAL_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

# Each payload sets a marker (and opens a dialog) if it ever runs.
SCRIPT = "<script>window.__pwned=1;alert(1)</script>"
IMG = "<img src=x onerror=\"window.__pwned=2;alert(2)\">"
JS_URL = "javascript:window.__pwned=3;alert(3)"
PAYLOADS = (SCRIPT, IMG, JS_URL)

ADAPTER = r'''#!/usr/bin/env python3
import json, os, sys
req = json.load(sys.stdin)
payloads = ["<script>window.__pwned=1;alert(1)</script>", "<img src=x onerror=\"window.__pwned=2;alert(2)\">",
            "javascript:window.__pwned=3;alert(3)"]
it = req["case"]["iteration"]
mark = "MARK-%s-%s-%d" % (req["mode"], req["case"]["id"].encode().hex()[:12], it)
os.makedirs("outputs", exist_ok=True)
for name in ("<img src=x onerror=alert(4)>.txt", "javascript:alert(5).txt"):
    with open(os.path.join("outputs", name), "w") as f:
        f.write("kept </script><script>alert(6)</script>")
good = req["mode"] == "with_skill" or "always" in req["prompt"]
out = "%s\n%s\nline two\n%s" % (mark, " ".join(payloads), "GOOD" if good else "nope")
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] and it == 1 else []
usage = {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.001}
json.dump({"output": out, "events": events, "usage": usage}, sys.stdout)
'''

CASE_IDS = ["plain-case", SCRIPT.replace("/", ""), IMG, JS_URL]


def payload_suite(tmp_path: Path) -> Kit:
    kit = Kit.create(tmp_path, iterations=2, skills={"alpha": []})
    (kit.root / "adapter.py").write_text(ADAPTER)
    cases = [{"id": cid, "prompt": f"Task {n}: {cid} {SCRIPT} please" + (" always" if n == 0 else ""),
              "checks": [{"id": "good", "type": "contains", "value": "GOOD"}],
              "expected_output": f"expected {IMG}"} for n, cid in enumerate(CASE_IDS)]
    cases[1]["expectations"] = [f"Mentions {SCRIPT}"]
    kit.write_evals("alpha", cases)
    queries = [{"query": f"{p} trigger query {n}", "should_trigger": n % 2 == 0}
               for n, p in enumerate(PAYLOADS)]
    (kit.skill_dir("alpha") / "evals" / "trigger-queries.json").write_text(json.dumps(queries))
    code, out, err = kit.run()
    assert code in (0, 1), err
    return kit


# ---- without a browser ------------------------------------------------------------------------

def test_embedded_json_cannot_close_its_script_block():
    text = embed_json({"out": "</script><script>alert(1)</script> <!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["out"].startswith("</script>")


def test_page_is_self_contained_with_a_csp_hash_of_its_own_script(tmp_path: Path):
    kit = payload_suite(tmp_path)
    page = (kit.results / "index.html").read_text()
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp and "http" not in csp
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and csp_hash(scripts[0]) in csp
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(styles) == 1 and csp_hash(styles[0]) in csp
    assert not re.search(r"<(link|iframe|object|embed)\b|src=\"http|@import", page)
    assert "innerHTML" not in scripts[0] and "insertAdjacentHTML" not in scripts[0]
    # Every raw payload is escaped or encoded: none appears as markup.
    data = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data
    outside = page.replace(data, "")
    for p in PAYLOADS[:2]:
        assert p not in outside
    # `report --format html` writes the same page.
    code, out, err = kit.cli("report", "suite.yaml", "--format", "html", "--out", "page.html")
    assert code == 0, err
    assert (kit.root / "page.html").read_text() == page


def test_review_data_carries_every_run_with_checks_rubric_and_kept_files(tmp_path: Path):
    kit = payload_suite(tmp_path)
    bench = json.loads(kit.bench("alpha").read_text())
    data = review_data(kit.results, [(bench, kit.results / "alpha")], [])
    skill = data["skills"][0]
    runs = [r for c in skill["cases"] for r in c["runs"]]
    assert len(runs) == len(CASE_IDS) * 2 * 2 and len(skill["triggers"]) == 3
    failed = [r for r in runs if r["st"] == "fail"]
    assert failed and all(any("GOOD" in k[4] for k in r["checks"] if not k[3]) for r in failed)
    assert any(r["rubric"] and r["rubric"][0][2] == "ungraded" for r in runs)
    names = {f[0] for r in runs for f in r["files"]}
    assert names == {"<img src=x onerror=alert(4)>.txt", "javascript:alert(5).txt"}
    for r in runs:
        for _, link in r["files"]:
            assert ":" not in link and "<" not in link  # percent-encoded relative links
        assert r["tok"] == 15 and isinstance(r["tok"], int)


# ---- in a real browser -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Watch:
    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.errors.append("network: " + r.url)
                if not r.url.startswith(("file:", "data:", "blob:")) else None)

    def clean(self, page) -> None:
        assert self.dialogs == []
        assert self.errors == []
        assert page.evaluate("window.__pwned") is None


def _open(browser, kit: Kit):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    watch = Watch(page)
    page.goto((kit.results / "index.html").as_uri())
    return context, page, watch


def _shown(page) -> int:
    return page.locator("tr.case").count()


def test_hostile_text_stays_text_and_every_output_is_on_the_page(browser, tmp_path: Path):
    kit = payload_suite(tmp_path)
    context, page, watch = _open(browser, kit)
    page.click("#open-all")
    body = page.inner_text("body")
    outputs = [p.read_text() for p in kit.results.rglob("output.txt")]
    assert len(outputs) == len(CASE_IDS) * 4 + 3 * 2
    for text in outputs:
        assert text.strip() in body
    for cid in CASE_IDS:
        assert cid in body
    for p in PAYLOADS:
        assert f"{p} trigger query" in body
    assert "<img src=x onerror=alert(4)>.txt" in body
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("img, iframe, object, embed").count() == 0
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    assert hrefs and all(h.startswith(("file:", "#")) or "#skill-" in h for h in hrefs)
    shot = tmp_path / "review-page.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    watch.clean(page)
    context.close()


def test_failing_evidence_filters_search_keys_and_feedback(browser, tmp_path: Path):
    from playwright.sync_api import expect

    kit = payload_suite(tmp_path)
    context, page, watch = _open(browser, kit)
    total = _shown(page)
    assert total == len(CASE_IDS) + 3

    # One click on a failing case shows why its check failed.
    evidence = page.locator(".evidence", has_text="GOOD")
    assert evidence.count() == 0
    page.locator("tr.case", has_text="javascript:window").first.click()
    assert evidence.first.is_visible()
    assert "'GOOD'" in evidence.first.inner_text() or "GOOD" in evidence.first.inner_text()

    # Filters and search change what is shown.
    page.check("input[data-filter=failing]")
    failing = _shown(page)
    assert 0 < failing < total and page.locator("tr.case", has_text="plain-case").count() == 0
    page.uncheck("input[data-filter=failing]")
    page.check("input[data-filter=flaky]")
    assert _shown(page) == 0  # every case passes or fails both iterations alike
    page.uncheck("input[data-filter=flaky]")
    page.fill("#search", "trigger query 1")
    expect(page.locator("tr.case")).to_have_count(1)  # (the page's CSP forbids wait_for_function's eval)
    assert "trigger query 1" in page.locator("tr.case").inner_text()
    page.fill("#search", "")
    expect(page.locator("tr.case")).to_have_count(total)

    # j/k move between cases and open them.
    page.click("h1")  # focus leaves the search box; keys typed there are text, not navigation
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.locator("tr.case.current").inner_text().startswith(CASE_IDS[1])
    page.keyboard.press("k")
    assert page.locator("tr.case.current").inner_text().startswith(CASE_IDS[0])

    # Feedback is per run, survives a reload and downloads in skill-creator's shape: every run,
    # run_id = the run folder under results/ with '/' as '-', "" where there is no note.
    boxes = page.locator("tr.detail").first.locator(".run textarea")
    assert boxes.count() == 4  # 2 iterations x 2 arms, one box each
    boxes.nth(1).fill(f"looks wrong {SCRIPT}")
    page.reload()
    page.locator("tr.case").first.click()
    assert page.locator("tr.detail .run textarea").nth(1).input_value() == f"looks wrong {SCRIPT}"
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "feedback.json"
    info.value.save_as(str(saved))
    got = json.loads(saved.read_text())
    assert set(got) == {"reviews", "status"} and got["status"] == "complete"
    assert all(set(r) == {"run_id", "feedback", "timestamp"} and r["timestamp"] for r in got["reviews"])
    run_dirs = {p.parent for p in kit.results.rglob("case.json")}
    run_ids = {"-".join(d.relative_to(kit.results).parts)
               for c in run_dirs for d in c.iterdir() if d.is_dir()}
    assert {r["run_id"] for r in got["reviews"]} == run_ids and len(got["reviews"]) == len(run_ids)
    noted = {r["run_id"]: r["feedback"] for r in got["reviews"] if r["feedback"]}
    first = CASE_IDS[0]
    assert noted == {f"alpha-iteration-1-eval-{first}-without_skill": f"looks wrong {SCRIPT}"}, noted
    watch.clean(page)
    context.close()


def test_demo_page_renders_cleanly(browser, tmp_path: Path):
    """The shipped demo suite, copied so the test writes nothing into the repository."""
    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "examples", tmp_path / "examples")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "demo.yaml").write_text((repo / "configs" / "demo.yaml").read_text())
    kit = Kit(tmp_path)
    code, _, err = kit.cli("run", "configs/demo.yaml")
    assert code == 0, err
    kit_results = tmp_path / "results" / "demo"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    watch = Watch(page)
    page.goto((kit_results / "index.html").as_uri())
    page.locator("tr.case").nth(1).click()
    assert page.locator(".case-detail .output").count() >= 6
    page.screenshot(path=str(tmp_path / "demo.png"))
    watch.clean(page)
    context.close()


def test_figures_only_page_without_run_views():
    bench_page = review_page([], [], {"suite": "s", "skills": []})
    assert "No results in the store yet" in bench_page


def test_partial_credit_is_shown_beside_the_pass_rate_and_labelled_not_it(tmp_path: Path):
    from skill_eval.review.render.markdown import pct

    kit = Kit.create(tmp_path, iterations=1)
    # a1: one check of two passes in both arms: half credit, yet no run passes.
    kit.edit_case("alpha", "a1", checks=[{"id": "says", "type": "contains", "value": "says"},
                                         {"id": "never", "type": "contains", "value": "zzz"}])
    kit.run()
    page = (kit.results / "index.html").read_text()
    section = page[page.index('id="skill-0"'):page.index('id="skill-1"')]
    assert "partial credit <small>(not the pass rate)</small>" in section
    rows = re.findall(r"<tr><th>(with(?:out)? skill)</th><td>([^<]*)</td><td class=\"credit\">([^<]*)</td>",
                      section)
    assert rows == [("with skill", pct(0.5), pct(0.75)), ("without skill", pct(0.0), pct(0.25))]
    assert "Partial credit (share of graded checks passed per run; not the pass rate)" in section
    bench = json.loads(kit.bench("alpha").read_text())
    data = review_data(kit.results, [(bench, kit.results / "alpha")], [])
    credits = {(c["id"], r["arm"]): r["credit"] for c in data["skills"][0]["cases"] for r in c["runs"]}
    assert credits[("a1", "with_skill")] == 0.5 and credits[("a2", "without_skill")] == 0.0



def baseline_loading_code_review(tmp_path: Path) -> Kit:
    """A suite whose baseline runs report loading a bundled skill, code-review."""
    kit = Kit.create(tmp_path, iterations=1)
    (kit.root / "adapter.py").write_text(ADAPTER.replace(
        'if req["skill"] and it == 1 else []',
        'if req["skill"] else [{"type": "skill_loaded", "name": "code-review"}]'))
    code, _, err = kit.run()
    assert code in (0, 1), err
    return kit


def test_other_skills_are_named_with_their_arm_on_the_page(tmp_path: Path):
    """The case's other-skills flag and which arm loaded which skill reach the page's data."""
    kit = baseline_loading_code_review(tmp_path)
    bench = json.loads(kit.bench("alpha").read_text())
    data = review_data(kit.results, [(bench, kit.results / "alpha")], [])
    case = data["skills"][0]["cases"][0]
    assert "other-skills" in case["flags"]
    assert case["other_skills"] == {"with_skill": [], "without_skill": ["code-review"]}


def test_other_skills_flag_shows_which_arm_loaded_what(browser, tmp_path: Path):
    kit = baseline_loading_code_review(tmp_path)
    context, page, watch = _open(browser, kit)
    assert page.locator("tr.case div.other-skills").first.inner_text() == "without skill: code-review"
    flag = page.locator("tr.case .flag.other-skills").first
    assert flag.get_attribute("title") == "without skill: code-review"
    watch.clean(page)
    context.close()


def _lift_table(skill: str, n_moved: int) -> dict:
    """A fixed-sample table of 8 cases, ``n_moved`` of which pass only with the skill."""
    from skill_eval.model.cases import Case, Check
    from skill_eval.model.results import AdapterResponse, RunResult
    from skill_eval.review.comparison.benchmark import RunRecord, build_benchmark

    check = (Check("ok", "contains", params={"value": "ok"}),)
    cases = [Case(f"c{i}", "p", checks=check) for i in range(8)]
    runs = []
    for it in (1, 2, 3):
        for i, c in enumerate(cases):
            for arm in ("with_skill", "without_skill"):
                ok = arm == "with_skill" or i >= n_moved
                result = RunResult("k", AdapterResponse("ok" if ok else "no", (), {}), 1.0)
                checks = [{"id": "ok", "type": "contains", "required": True, "passed": ok, "evidence": "e"}]
                runs.append(RunRecord.of(c.id, arm, it, result, {"passed": ok, "checks": checks}))
    return build_benchmark("s", skill, "m", cases, runs, 0.1)


def test_an_estimate_pass_is_not_drawn_as_a_pass(browser, tmp_path: Path):
    """A pass on a lift that is not significant yet is worded and coloured apart from a decided pass."""
    benches = [_lift_table("estimate", 5), _lift_table("decided", 8)]
    from skill_eval.review.render.page.run_data import bench_entry

    data = {"suite": "s", "skills": [bench_entry(None, None, b, set()) for b in benches]}
    (tmp_path / "index.html").write_text(review_page(benches, [], data))
    context = browser.new_context(viewport={"width": 1400, "height": 700})
    page = context.new_page()
    watch = Watch(page)
    page.goto((tmp_path / "index.html").as_uri())
    estimate, decided = page.locator("p.verdict").all()
    assert estimate.inner_text().startswith("Verdict: pass on the estimate; not significant yet "
                                            "(p=0.062, 8 cases); `--until-decided` settles it")
    assert decided.inner_text().startswith("Verdict: pass (minimum lift")

    def look(where):
        return where.locator("span").first.evaluate(
            "e => [getComputedStyle(e).color, getComputedStyle(e).borderTopStyle]")

    assert look(estimate) != look(decided)
    assert look(estimate)[1] == "dashed" and look(decided)[1] == "none"
    shot = tmp_path / "estimate-vs-decided.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    watch.clean(page)
    context.close()
