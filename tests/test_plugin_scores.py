"""review/comparison/plugin_scores.py: claude plugin eval's run, case and suite numbers from stored grades,
checked against a real ``claude plugin eval --json`` document (tests/data/plugin_scores/,
made by the real CLI 2.1.332 against tests/fakemodel.py: weighted graders, arm: with-only and
both, a Skill tool_used indicator, a case of indicators only, a single-arm history case, runs
ending at max_turns, --threshold 0.5 with a case exactly at it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pluginkit import PluginKit

from skill_eval.intake.schemas_io import load_schema
from skill_eval.review.comparison.plugin_scores import (
    ArmRun,
    Mark,
    marks,
    plugin_eval_block,
    run_passed,
    run_score,
)
from skill_eval.review.render.plugin_eval_json import aggregate_result

REAL = json.loads((Path(__file__).parent / "data" / "plugin_scores" / "aggregate-result.json").read_text())


def _grade(run: dict[str, Any]) -> dict[str, Any]:
    """The grade skill-eval would store for one of the real runs (its graders as checks)."""
    return {"checks": [{"id": g["name"], "passed": g["passed"], "evidence": g["explanation"],
                        **({"weight": float(g["weight"])} if g["weight"] != 1 else {}),
                        **({"indicator": True} if g["withOnly"] else {})} for g in run["graders"]],
            "rubric": []}


def _block_of(doc: dict[str, Any]) -> dict[str, Any]:
    runs = [ArmRun(c["name"], arm, i + 1, _grade(r), r["error"]) for c in doc["cases"]
            for arm, rs in c["arms"].items() for i, r in enumerate(rs)]
    two_arm = {c["name"]: "without" in c["arms"] for c in doc["cases"]}
    return plugin_eval_block([c["name"] for c in doc["cases"]], runs, two_arm, doc["suite"]["threshold"])


def test_every_number_of_the_real_document_comes_out_the_same_from_its_grader_results():
    block = _block_of(REAL)
    ours = {c["id"]: c for c in block["cases"]}
    agree = total = 0
    for case in REAL["cases"]:
        mine = ours[case["name"]]
        for arm, runs in case["arms"].items():
            for real, run in zip(runs, mine["runs"][arm], strict=True):
                total += 3
                agree += (run["score"] == real["score"]) + (run["passed"] is real["passed"])
                agree += [(g["name"], g["scored"], g["with_only"]) for g in run["graders"]] == [
                    (g["name"], g["scored"], g["withOnly"]) for g in real["graders"]]
        a = case["aggregates"]
        total += 3
        agree += (mine["score"] == a["score"]) + (mine["pass_rate"] == a["passRate"])
        agree += mine.get("delta") == a.get("delta")
    print(f"agreement with the real document: {agree}/{total}")
    assert agree == total
    agg = REAL["aggregates"]
    assert block["cases_passed"] == agg["casesPassed"] == 5  # 0.5 at threshold 0.5 passes: >=
    assert block["overall_score"] == agg["overallScore"]
    assert block["perfect_runs"] == agg["overallPassRate"]  # the page's "Perfect runs" tile
    assert block["mean_delta"] == agg["meanDelta"]  # over the 5 two-arm cases, not the single one
    assert block["baseline_score"] == pytest.approx(0.2)  # the page's baseline tile
    assert (block["improved"], block["flat"], block["regressed"]) == (3, 2, 0)  # its verdict line


def test_excluded_weights_leave_both_sums_and_a_run_passes_only_when_every_scored_grader_did():
    found = [Mark("a", True, 3, False, True), Mark("b", False, 2, False, True),
             Mark("c", True, 1, False, True), Mark("fired", True, 10, True, False),
             Mark("wo", False, 5, True, False)]
    assert run_score(found) == 4 / 6
    assert not run_passed(found)
    assert run_passed([Mark("x", True, 1, False, True), Mark("y", False, 1, True, False)])


def test_an_indicator_is_scored_when_the_case_runs_one_arm_and_an_ungraded_rubric_item_is_not():
    grade = {"checks": [{"id": "fired", "passed": False, "indicator": True, "evidence": ""}],
             "rubric": [{"id": "r", "status": "ungraded", "weight": 1.0}]}
    assert [m.scored for m in marks(grade, two_arm=True)] == [False]
    assert [m.scored for m in marks(grade, two_arm=False)] == [True]
    judged = {"checks": [], "rubric": [{"id": "r", "status": "passed", "indicator": True}]}
    assert marks(judged, two_arm=True, arm="without") == []  # absent there, as in plugin eval


def test_a_run_that_could_not_run_scores_zero_and_keeps_its_error():
    block = plugin_eval_block(["c"], [ArmRun("c", "with", 1, None, "adapter crashed")], {"c": False})
    [run] = block["cases"][0]["runs"]["with"]
    assert (run["score"], run["passed"], run["error"]) == (0.0, False, "adapter crashed")
    assert block["mean_delta"] is None and "delta" not in block["cases"][0]


_marks = st.lists(st.builds(Mark, st.text(max_size=3), st.booleans(),
                            st.floats(min_value=1e-3, max_value=1e3), st.booleans(), st.booleans()),
                  max_size=12)


@given(_marks)
def test_a_run_score_is_between_0_and_1(found):
    assert 0 <= run_score(found) <= 1


@given(_marks, _marks)
def test_unscored_graders_never_change_the_score(found, extra):
    unscored = [Mark(m.name, m.passed, m.weight, m.indicator, False) for m in extra]
    assert run_score(found + unscored) == run_score(found)
    assert run_passed(found + unscored) == run_passed(found)


@given(_marks, st.sampled_from([0.5, 2.0, 4.0, 1024.0]))
def test_scaling_every_weight_leaves_the_score(found, k):
    scaled = [Mark(m.name, m.passed, m.weight * k, m.indicator, m.scored) for m in found]
    assert run_score(scaled) == pytest.approx(run_score(found), abs=1e-12)


# ---- report --format plugin-eval-json


def _bench(block: dict[str, Any]) -> dict[str, Any]:
    arm = {"cost_usd": 0.5, "duration_s": {"total": 12.0}}
    return {"suite": "s", "skill": "csv-summary", "model": "default", "plugin_eval": block,
            "variants": {"with_skill": arm, "without_skill": arm}}


def test_the_real_document_and_ours_validate_and_ours_uses_only_its_field_names():
    validator = Draft202012Validator(load_schema("plugin-eval-result"))
    assert not list(validator.iter_errors(REAL))
    ours = aggregate_result([_bench(_block_of(REAL))])
    assert not list(validator.iter_errors(ours))
    assert set(ours["aggregates"]) == set(REAL["aggregates"])
    assert ours["aggregates"] == REAL["aggregates"]
    real_cases = {c["name"]: c for c in REAL["cases"]}
    for case in ours["cases"]:
        real = real_cases[case["name"]]
        assert set(case) <= set(real) and case["aggregates"] == real["aggregates"]
        assert set(case["arms"]) == set(real["arms"])
        for arm, runs in case["arms"].items():
            for run, theirs in zip(runs, real["arms"][arm], strict=True):
                assert set(run) <= set(theirs)
                assert run["graders"] == theirs["graders"]
    assert set(ours["suite"]) - {"name"} <= set(REAL["suite"])


def test_a_case_never_run_is_left_out_and_marks_the_document_partial():
    block = plugin_eval_block(["ran", "not-yet"], [ArmRun("ran", "with", 1, {"checks": [], "rubric": []})],
                              {"ran": False, "not-yet": False})
    doc = aggregate_result([_bench(block)])
    assert [c["name"] for c in doc["cases"]] == ["ran"]
    assert doc["partial"] is True and doc["partialReason"] == "interrupted"


# ---- through run/report: the numbers are a function of the grades and the threshold only

CASE = {"graders/g.md": "---\ntype: regex\npattern: ok\nweight: 3\n---\n",
        "graders/miss.md": "---\ntype: regex\npattern: nope\n---\n",
        "graders/fired.md": "---\ntype: tool_used\ntool: Skill\n---\n",
        "prompt.md": "Go.\n"}


def _block(kit: PluginKit) -> dict[str, Any]:
    [bench] = [json.loads(p.read_text()) for p in (kit.root / "results").glob("*/benchmark.json")]
    return bench["plugin_eval"]


def test_a_threshold_only_retabulates_and_a_weight_only_regrades_and_incremental_equals_clean(tmp_path):
    kit = PluginKit.create(tmp_path / "a", {"c": CASE})
    kit.write_suite(arms="[with_skill, without_skill]")
    assert kit.run()[0] in (0, 1)
    made = len(kit.requests())
    [bench] = [json.loads(p.read_text()) for p in (kit.root / "results").glob("*/benchmark.json")]
    assert not list(Draft202012Validator(load_schema("benchmark")).iter_errors(bench))
    [case] = _block(kit)["cases"]
    assert (case["score"], case["score_without"], case["delta"], case["passed"]) == (0.75, 0.75, 0.0, False)
    assert [g["scored"] for g in case["runs"]["with"][0]["graders"]] == [False, True, True]  # fired: §8
    kit.run("--threshold", "0.75")
    assert len(kit.requests()) == made and _block(kit)["cases"][0]["passed"] is True
    assert kit.cli("report", str(kit.suite))[0] == 0 and _block(kit)["threshold"] == 1.0
    kit.write({"evals/c/graders/miss.md": "---\ntype: regex\npattern: nope\nweight: 3\n---\n"})
    kit.run()
    assert len(kit.requests()) == made  # re-graded, not re-run
    assert _block(kit)["cases"][0]["score"] == 0.5
    clean = PluginKit.create(tmp_path / "b", {"c": {**CASE, "graders/miss.md":
                                                    "---\ntype: regex\npattern: nope\nweight: 3\n---\n"}})
    clean.write_suite(arms="[with_skill, without_skill]")
    clean.run()
    assert _block(clean) == _block(kit)


def test_report_writes_aggregate_result_json_and_refuses_a_suite_without_plugin_eval_cases(tmp_path):
    kit = PluginKit.create(tmp_path, {"c": CASE})
    kit.run()
    code, _, _ = kit.cli("report", str(kit.suite), "--format", "plugin-eval-json", "--threshold", "0.5")
    doc = json.loads((tmp_path / "results" / "aggregate-result.json").read_text())
    assert code == 0 and not list(Draft202012Validator(load_schema("plugin-eval-result")).iter_errors(doc))
    assert doc["suite"] == {"name": "p", "ablation": "none", "threshold": 0.5}
    assert doc["aggregates"]["casesPassed"] == 1 and "meanDelta" not in doc["aggregates"]
    # no run reported a cost: unknown (null), as summary.md's n/a, not $0
    costs = [b["variants"][v]["cost_usd"] for p in (tmp_path / "results").glob("*/benchmark.json")
             for b in [json.loads(p.read_text())] for v in ("with_skill", "without_skill")]
    assert all(c is None for c in costs) and doc["costUsd"] is None
    # one arm: the indicator is scored, as under plugin eval's --ablation none
    assert [g["scored"] for g in doc["cases"][0]["arms"]["with"][0]["graders"]] == [True, True, True]
