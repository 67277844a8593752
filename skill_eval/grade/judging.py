"""Grading a run: deterministic checks, trigger verdicts, and (when a suite has one) a judge.

The judge reaches grading as a port (see judge.py); without one, rubric items stay 'ungraded'.
Native rubric items are judged in one batch request (judge.py), plugin-eval graders by votes
(votes.py).
"""

from __future__ import annotations

from typing import Any

from skill_eval.grade.checks.context import CheckContext
from skill_eval.grade.grading import context_for, grade_run
from skill_eval.grade.judge import JudgeOutcome, JudgePort, judge_verdicts, voted
from skill_eval.grade.votes import judge_votes
from skill_eval.model.config import Suite
from skill_eval.model.results import RunResult
from skill_eval.plan.keys import GRADER_VERSION
from skill_eval.plan.types import RunSpec
from skill_eval.store.store import Store


def trigger_grade(spec: RunSpec, result: RunResult) -> dict[str, Any]:
    """A trigger query passes when the skill was loaded exactly when it should have been. A whole
    grading.json, as a task's is: its case, its run, one required check."""
    loaded = bool(set(spec.skill_names or (spec.skill_name,)) & result.response.loaded_skills())
    expected = bool(spec.case.should_trigger)
    passed = loaded == expected
    evidence = f"skill {'loaded' if loaded else 'not loaded'}; should_trigger={str(expected).lower()}"
    return {"grader_version": GRADER_VERSION, "case_id": spec.case.id, "run_key": result.key,
            "passed": passed, "triggered": loaded, "deterministic_passed": passed, "judged_passed": None,
            "checks": [{"id": "trigger", "type": "loaded_skill", "required": True, "passed": passed,
                        "evidence": evidence}],
            "rubric": [],
            "summary": {"required": 1, "required_passed": int(passed), "optional": 0, "optional_passed": 0,
                        "rubric": 0, "rubric_passed": 0, "rubric_ungraded": 0}}


def judge_all(judge: JudgePort, store: Store, suite: Suite, spec: RunSpec, result: RunResult,
              ctx: CheckContext) -> JudgeOutcome:
    """Every rubric item's verdict: the native ones in one batch, each plugin-eval grader by votes."""
    outcomes = [judge_verdicts(judge, store, suite, spec, result)] if any(
        not voted(r) for r in spec.case.rubric) else []
    outcomes += [judge_votes(judge, store, suite, spec, result, r, ctx) for r in spec.case.rubric if voted(r)]
    usage: dict[str, float] = {}
    for o in outcomes:
        for name, value in o.usage.items():
            usage[name] = usage.get(name, 0) + value
    return JudgeOutcome({k: v for o in outcomes for k, v in o.verdicts.items()}, usage,
                        all(o.cached for o in outcomes))


def grade_with_judge(suite: Suite, store: Store, judge: JudgePort | None, spec: RunSpec,
                     result: RunResult) -> dict[str, Any]:
    """The grade of one run; raises JudgeError when the judge could not answer (the caller records it)."""
    if spec.case.kind == "trigger":
        return trigger_grade(spec, result)
    outcome = None
    names = spec.skill_names or spec.skill_name
    ctx = context_for(result, names, suite.allow_scripts, spec.skill_path)  # one per run: checks and votes
    if spec.case.rubric and judge is not None:
        outcome = judge_all(judge, store, suite, spec, result, ctx)
    grade = grade_run(spec.case, result, names, suite.allow_scripts,
                      verdicts=outcome.verdicts if outcome else None, skill_root=spec.skill_path,
                      variant=spec.variant, ctx=ctx)
    if outcome is not None:
        # What judging this run cost (paid once: `judge_cached` grades reuse a stored verdict).
        grade["judge_usage"] = dict(outcome.usage)
        grade["judge_cached"] = outcome.cached
    return grade
