from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from skill_eval.errors import InvalidInput
from skill_eval.grade.grading import apply_verdicts, grade_run
from skill_eval.intake.schemas_io import load_schema
from skill_eval.model.cases import Case, Check, RubricItem
from skill_eval.model.results import AdapterResponse, Event, RunResult
from skill_eval.plan.keys import GRADER_VERSION


def run(output: str, events=(), usage=None, duration=1.0) -> RunResult:
    response = AdapterResponse(output, tuple(events), usage or {})
    return RunResult(key="k1", response=response, duration_s=duration)


def valid(grade: dict) -> dict:
    errors = list(Draft202012Validator(load_schema("grading")).iter_errors(grade))
    assert not errors, errors
    return grade


CASE = Case(id="c1", prompt="p", source="evals/evals.json", checks=(
    Check("has-total", "contains", params={"value": "total"}),
    Check("no-error", "not_contains", params={"value": "error"}),
    Check("nice", "contains", required=False, params={"value": "thanks"}),
), rubric=(RubricItem("r1", "The answer is polite"), RubricItem("r2", "Mentions units", required=False)))


def test_passes_when_every_required_check_passes():
    g = valid(grade_run(CASE, run("The total is 4"), "sk", False))
    assert g["passed"] is True and g["deterministic_passed"] is True and g["judged_passed"] is None
    assert g["summary"] == {"required": 2, "required_passed": 2, "optional": 1, "optional_passed": 0,
                            "rubric": 2, "rubric_passed": 0, "rubric_ungraded": 2}
    assert [c["id"] for c in g["checks"]] == ["has-total", "no-error", "nice"]
    assert all(r["status"] == "ungraded" for r in g["rubric"])
    assert g["grader_version"] == GRADER_VERSION and g["run_key"] == "k1"


def test_fails_when_a_required_check_fails():
    g = valid(grade_run(CASE, run("total error"), "sk", False))
    assert g["passed"] is False
    failed = [c for c in g["checks"] if not c["passed"]]
    assert [c["id"] for c in failed] == ["no-error", "nice"]
    assert "error" in failed[0]["evidence"]


def test_judge_verdicts_merge():
    verdicts = {"r1": {"passed": True, "evidence": "polite"}, "r2": {"passed": False, "evidence": "no units"}}
    g = valid(grade_run(CASE, run("total"), "sk", False, verdicts=verdicts))
    assert g["judged_passed"] is True and g["passed"] is True  # r2 is optional
    assert [r["status"] for r in g["rubric"]] == ["passed", "failed"]
    g2 = apply_verdicts(grade_run(CASE, run("total"), "sk", False), {"r1": {"passed": False}})
    assert g2["judged_passed"] is False and g2["passed"] is False and g2["deterministic_passed"] is True
    assert g2["rubric"][1]["status"] == "ungraded"
    g3 = apply_verdicts(grade_run(CASE, run("error"), "sk", False), verdicts)
    assert g3["judged_passed"] is True and g3["passed"] is False


def test_rubric_only_without_judge_is_ungradable():
    case = Case(id="c2", prompt="p", rubric=(RubricItem("r1", "is good"),))
    g = valid(grade_run(case, run("x"), "sk", False))
    assert g["passed"] is False and "ungradable" in g["note"] and g["deterministic_passed"] is None
    g = valid(apply_verdicts(g, {"r1": {"passed": True}}))
    assert g["passed"] is True and "note" not in g


def test_loaded_skill_uses_skill_name():
    case = Case(id="c4", prompt="p", checks=(Check("loaded", "loaded_skill"),))
    assert grade_run(case, run("x", [Event("skill_loaded", "sk")]), "sk", False)["passed"] is True
    assert grade_run(case, run("x"), "sk", False)["passed"] is False


def test_invalid_check_names_the_eval_set():
    case = Case(id="c5", prompt="p", source="evals/evals.json", line=7,
                checks=(Check("bad", "regex", params={"pattern": "("}),))
    with pytest.raises(InvalidInput, match=r"evals/evals.json:7"):
        grade_run(case, run("x"), "sk", False)
