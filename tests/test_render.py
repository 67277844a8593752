from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from benchdata import SKILL, case, error, main_fixture, record

from skill_eval.review.comparison.benchmark import build_benchmark, diff_benchmarks
from skill_eval.review.render import (
    FORMATS,
    ReportInput,
    benchmark_md,
    github_summary,
    junit_xml,
    summary_json,
    summary_md,
)


@pytest.fixture(scope="module")
def bench() -> dict:
    cases, records = main_fixture()
    return build_benchmark("demo", SKILL, "m1", cases, records, minimum_lift=0.5)


@pytest.fixture(scope="module")
def errored() -> dict:
    c = case("e1")
    recs = [record(c, "with_skill", 1, True, True), error(c, "with_skill", 2),
            record(c, "without_skill", 1, False, False)]
    return build_benchmark("demo", "other", "m1", [c], recs, None)


def test_benchmark_md(bench):
    md = benchmark_md(bench)
    assert "| with skill" in md and "58.3%" in md and "41.7%" in md
    assert "+16.7 pp (n=4)" in md
    assert "indeterminate" in md and "2 of 4 cases moved" in md
    assert "(the baseline is not a baseline): c3" in md
    assert "never reported loading the skill: c4" in md
    assert "regressed, flaky" in md and "33.3% (1/3)" in md
    assert "minimum lift +50.0 pp not met" in md
    assert "Non-discriminating checks" in md and "c1/always" in md
    assert "input_tokens" in md and "median" in md
    assert "| cost_usd" not in md  # the cost column once, not again as a usage counter


def test_summary_md_with_moved(bench, errored):
    cases, records = main_fixture()
    moved = diff_benchmarks(bench, build_benchmark("demo", SKILL, "m1", cases[:3], records[:18], 0.5))
    md = summary_md([bench, errored], moved)
    lines = [line for line in md.splitlines() if line.startswith("| sk ")]
    assert len(lines) == 3  # the main table, partial credit, moved
    assert "fail" in lines[0] and "(n=4)" in lines[0] and "indeterminate" in lines[0]
    assert "| other " in md and "error" in md
    assert "Moved since the previous benchmark" in md and "| c4" in md and "removed" in md
    # Partial credit has its own, labelled table beside the pass rates.
    assert "## Partial credit (beside the pass rate, not in it)" in md


def test_junit_parses_and_carries_evidence(bench, errored):
    root = ET.fromstring(junit_xml([bench, errored]))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 2
    props = {p.get("name"): p.get("value") for p in suites[0].find("properties")}
    assert float(props["lift"]) == pytest.approx(1 / 6) and float(props["p_value"]) == 1.0
    cases = {tc.get("name"): tc for tc in suites[0].findall("testcase")}
    assert set(cases) == {"c1", "c2", "c3", "c4", "minimum_lift"}
    assert cases["c1"].find("failure") is None
    failure = cases["c2"].find("failure")
    assert "2 of 3 runs" in failure.get("message") and "'ok' not found" in failure.text
    assert cases["minimum_lift"].find("failure") is not None
    assert suites[0].get("failures") == "3" and suites[0].get("tests") == "5"
    err = suites[1].find("testcase").find("error")
    assert err is not None and "timeout" in err.text
    assert root.get("errors") == "1"


def test_github_annotations(bench, errored):
    md, notes = github_summary([bench, errored])
    assert md.startswith("# skill-eval summary")
    assert any(n.startswith("::warning ::") and "c2 regressed" in n for n in notes)
    # One verdict: the failed checks decide it; the missed minimum is said beside, not as it.
    assert any(n.startswith("::error ::") and ": verdict: check failed (required checks: 5 of 12 "
               "with-skill runs failed a required check; the lift alone: fail by the minimum lift)" in n
               for n in notes)
    assert any(n.startswith("::error ::") and "other" in n and "errored" in n for n in notes)
    assert all("\n" not in n for n in notes)


def test_summary_json(bench, errored):
    data = summary_json([bench, errored])
    assert data["verdict"] == "error"
    assert [s["skill"] for s in data["skills"]] == [SKILL, "other"]
    assert data["skills"][0]["lift"]["cases"] == 4 and "contaminated" in data["skills"][0]["flags"]
    for arm in ("with_skill", "without_skill"):  # what each arm cost travels with the figures
        assert data["skills"][0]["cost_usd"][arm] == bench["variants"][arm]["cost_usd"] > 0
        assert data["skills"][0]["tokens"][arm] == bench["variants"][arm]["total_tokens"] > 0
    json.dumps(data)


def test_formats_registry(bench):
    assert set(FORMATS.names()) >= {"md", "github", "junit", "json"}
    for fmt in FORMATS:
        text = fmt.render(ReportInput([bench], []))
        assert isinstance(text, str) and text
    assert json.loads(FORMATS.require("json", "t").render(ReportInput([bench], [])))["verdict"] == "fail"
    ET.fromstring(FORMATS.require("junit", "t").render(ReportInput([bench], [])))


def test_benchmark_md_names_other_skills_and_their_arm():
    from test_benchmark import _loading

    c = case("o1")
    recs = [_loading(c, "with_skill", 1, SKILL), _loading(c, "without_skill", 1, "code-review")]
    md = benchmark_md(build_benchmark("demo", SKILL, "m1", [c], recs, None))
    assert "runs loaded other skills (the lift includes what they did): o1 (without_skill: code-review)" in md


def test_usage_keys_cannot_break_the_cost_table(bench):
    # issue 20: usage keys went raw into benchmark.md's table (HTML; '|' shifted the columns).
    import copy
    hostile = copy.deepcopy(bench)
    key = "<img src=x onerror=alert(1)>|x\ny"
    for arm in hostile["variants"].values():
        arm["usage"][key] = 7
    md = benchmark_md(hostile)
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;\\|x y" in md
    cost = md[md.index("## Cost and time"):].splitlines()
    table = [line for line in cost if line.startswith("|")]
    assert len({line.count("|") - line.count("\\|") for line in table}) == 1  # every row as wide
