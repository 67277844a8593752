"""Grading a run: deterministic checks, trigger verdicts, and (when a suite has one) a judge.

The judge itself (a protocol like the adapter's, cached by judge identity, output hash and
rubric text) lives in judge.py; without one, rubric items stay 'ungraded'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import Suite
from .plan_types import RunSpec
from .results import RunResult

if TYPE_CHECKING:
    from .engine import Engine


def judge_identity(suite: Suite) -> dict[str, Any] | None:
    if suite.judge is None:
        return None
    from .judge import identity

    return identity(suite)


def trigger_grade(spec: RunSpec, result: RunResult) -> dict[str, Any]:
    """A trigger query passes when the skill was loaded exactly when it should have been."""
    loaded = bool(set(spec.skill_names or (spec.skill_name,)) & result.response.loaded_skills())
    expected = bool(spec.case.should_trigger)
    passed = loaded == expected
    evidence = f"skill {'loaded' if loaded else 'not loaded'}; should_trigger={str(expected).lower()}"
    return {"passed": passed, "triggered": loaded,
            "checks": [{"id": "trigger", "type": "loaded_skill", "required": True, "passed": passed,
                        "evidence": evidence}],
            "rubric": []}


def grade_with_judge(engine: Engine, spec: RunSpec, result: RunResult) -> dict[str, Any]:
    from .grading import grade_run

    if spec.case.kind == "trigger":
        return trigger_grade(spec, result)
    suite = engine.suite
    outcome = None
    if spec.case.rubric and suite.judge is not None:
        from .judge import judge_verdicts

        outcome = judge_verdicts(engine, spec, result)  # raises JudgeError: the caller records it
    grade = grade_run(spec.case, result, spec.skill_names or spec.skill_name, suite.allow_scripts,
                      verdicts=outcome.verdicts if outcome else None, skill_root=spec.skill_path,
                      variant=spec.variant)
    if outcome is not None:
        # What judging this run cost (paid once: `judge_cached` grades reuse a stored verdict).
        grade["judge_usage"] = dict(outcome.usage)
        grade["judge_cached"] = outcome.cached
    return grade
