"""The review page's history parts (review/render/page/history.py): the compare table, the
history strip, and the compared version's outputs beside the current ones, in a real browser."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from test_compare import V1, V2, keyed_kit
from test_review_page import Watch, browser  # noqa: F401 (the fixture)

from skill_eval.review.render.review import csp_hash


def edited_suite(tmp_path: Path):
    kit = keyed_kit(tmp_path, iterations=2)
    assert kit.run()[0] == 0
    assert kit.cli("bless", "suite.yaml")[0] == 0
    (kit.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert kit.run()[0] == 1
    return kit


def page_data(page: str) -> dict:
    raw = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(raw)


@pytest.mark.slow
def test_the_page_carries_the_compared_versions_outputs_only_where_they_changed(tmp_path: Path):
    kit = edited_suite(tmp_path)
    page = (kit.results / "index.html").read_text()
    cases = {c["id"]: c for c in page_data(page)["skills"][0]["cases"]}
    assert sorted(cid for cid, c in cases.items() if "prev" in c) == ["c1", "c2"]
    prev = cases["c1"]["prev"]
    assert prev["label"].startswith("baseline ") and [r["it"] for r in prev["runs"]] == [1, 2]
    assert prev["runs"][0]["st"] == "pass" and prev["runs"][0]["now"]["st"] == "fail"
    assert "with_skill says: Task c1" in prev["runs"][0]["out"]
    assert prev["runs"][0]["checks"][0][2] is True and prev["runs"][0]["now"]["checks"][0][2] is False
    # Still one script and one stylesheet, each allowed by its hash; the strip is markup, not script.
    csp = html.unescape(re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1))
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and csp_hash(scripts[0]) in csp
    assert page.count('<g class="h-version') == 2 and "<svg" in page


@pytest.mark.slow
def test_without_another_version_there_is_no_compare_table_or_strip(tmp_path: Path):
    kit = keyed_kit(tmp_path)
    assert kit.run()[0] == 0
    page = (kit.results / "index.html").read_text()
    assert '<section class="compare"' not in page and "<svg" not in page
    assert not any("prev" in c for c in page_data(page)["skills"][0]["cases"])


@pytest.mark.slow
def test_a_regressed_case_shows_both_versions_and_the_history_strip_in_a_browser(browser, tmp_path: Path):  # noqa: F811
    kit = edited_suite(tmp_path)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    watch = Watch(page)  # no dialog, no console error (a CSP refusal is one), no network
    page.goto((kit.results / "index.html").as_uri())
    table = page.locator("section.compare")
    assert table.count() == 1
    rows = table.locator("tbody tr")
    assert [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())] == ["c1", "c2"]
    assert "regressed (critical)" in rows.nth(1).inner_text()
    assert page.locator("svg.strip g.h-version").count() == 2
    newest = page.locator("svg.strip g.h-version").last
    assert "now" in (newest.get_attribute("class") or "")
    now_hash = table.locator("h3").inner_text().split(": now ")[1].split(" ")[0]
    assert newest.locator("title").text_content().startswith(now_hash)  # newest right

    page.locator("tr.case", has_text="c1").first.click()
    prev = page.locator(".prev-version")
    assert prev.count() == 1
    text = prev.inner_text()
    assert "With-skill output changed since baseline" in text
    assert "with_skill says: Task c1" in text and "broken answer to: Task c1" in text
    assert prev.locator(".diff .del").first.inner_text().startswith("- with_skill says: Task c1")
    assert prev.locator(".diff .add").first.inner_text().startswith("+ broken answer to: Task c1")
    assert prev.locator(".ok").count() >= 2 and prev.locator(".bad").count() >= 2  # both versions' verdicts
    page.locator("tr.case", has_text="c3").first.click()
    assert page.locator(".prev-version").count() == 1  # c3's output did not change: nothing added
    shot = tmp_path / "history-page.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    watch.clean(page)
    context.close()

    (kit.skill_dir("alpha") / "SKILL.md").write_text(V1)
    assert kit.run()[0] == 0
    page_text = (kit.results / "index.html").read_text()
    assert page_text.count('<g class="h-version') == 3  # v1, v2, v1 again
    assert "0 cases unchanged" not in page_text and "4 cases unchanged" in page_text  # as blessed


@pytest.mark.slow
def test_a_skill_the_fast_path_left_out_keeps_its_compare_table(tmp_path: Path):
    from suitekit import Kit

    kit = Kit.create(tmp_path, iterations=1)  # alpha (a1, a2) and beta (b1)
    assert kit.run()[0] == 0
    (kit.skill_dir("alpha") / "SKILL.md").write_text("---\nname: alpha\ndescription: x\n---\nv2\n")
    assert kit.run()[0] == 0
    assert page_history_skills(kit) == ["alpha"]
    (kit.skill_dir("beta") / "evals" / "files" / "b1.txt").write_text("edited fixture\n")
    code, out, _ = kit.run()
    assert code == 0 and "2 tables to rebuild" in out  # only beta was planned: its table and the summary
    assert page_history_skills(kit) == ["alpha"]  # alpha's comparison is still on the page


def page_history_skills(kit) -> list[str]:  # noqa: ANN001
    page = (kit.results / "index.html").read_text()
    return re.findall(r'<section class="compare" id="compare-\d+">\s*<h3>(\w+) ', page)
