"""Grading a run: deterministic checks, trigger verdicts, and (when a suite has one) a judge.

The judge reaches grading as a port (see judge.py); without one, rubric items stay 'ungraded'.
Native rubric items are judged in one batch request (judge.py), plugin-eval graders by votes
(votes.py). A run's requests not yet answered in the store are asked concurrently, up to the
port's ``concurrency`` (which the port also bounds over every grade running at once).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from skill_eval.errors import JudgeFatal
from skill_eval.grade.checks.shared.context import CheckContext
from skill_eval.grade.grading import context_for, grade_run
from skill_eval.grade.judge import Ask, JudgeOutcome, JudgePort, add_usage, ask_judge, verdict_ask, voted
from skill_eval.grade.votes import Ballot, count_votes, plan_votes
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


def ask_all(judge: JudgePort, store: Store, asks: list[Ask]) -> list[dict[str, Any]]:
    """Every request's answer, in order, asked concurrently; each kept as it comes. A failure is
    raised once the others have ended, so the answers already given stay stored."""
    if not asks:
        return []
    width = max(1, min(len(asks), int(getattr(judge, "concurrency", 1) or 1)))
    if width == 1:
        return [ask_judge(judge, store, a) for a in asks]
    with ThreadPoolExecutor(max_workers=width, thread_name_prefix="judge") as pool:
        futures = [pool.submit(ask_judge, judge, store, a) for a in asks]
    errors = [e for e in (f.exception() for f in futures) if e is not None]
    if errors:
        # The call that failed, not one refused after it (a fatal judge is not started again).
        raise next((e for e in errors if not (isinstance(e, JudgeFatal) and not e.started)), errors[0])
    return [f.result() for f in futures]


def judge_all(judge: JudgePort, store: Store, suite: Suite, spec: RunSpec, result: RunResult,
              ctx: CheckContext) -> JudgeOutcome:
    """Every rubric item's verdict: the native ones in one batch, each plugin-eval grader by votes."""
    pending: list[Ask] = []
    native = None
    if any(not voted(r) for r in spec.case.rubric):
        native = verdict_ask(judge, store, suite, spec, result)
        if native[1] is None:
            pending.append(native[0])
    plans = [plan_votes(judge, store, suite, spec, result, r, ctx) for r in spec.case.rubric if voted(r)]
    for plan in plans:
        if isinstance(plan, Ballot):
            pending += [a for a, s in zip(plan.asks, plan.stored, strict=True) if s is None]
    answered = dict(zip((a.key for a in pending), ask_all(judge, store, pending), strict=True))
    outcomes: list[JudgeOutcome] = []
    if native is not None:
        ask, stored, ids = native
        entry = stored or answered[ask.key]
        usage: dict[str, float] = {}
        add_usage(usage, entry.get("usage"))
        outcomes.append(JudgeOutcome({i: entry["verdicts"][i] for i in ids}, usage, stored is not None))
    for plan in plans:
        if isinstance(plan, JudgeOutcome):
            outcomes.append(plan)
            continue
        answers = [s or answered[a.key] for a, s in zip(plan.asks, plan.stored, strict=True)]
        outcomes.append(count_votes(plan, answers))
    total: dict[str, float] = {}
    for o in outcomes:
        add_usage(total, o.usage)
    return JudgeOutcome({k: v for o in outcomes for k, v in o.verdicts.items()}, total,
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
                      arm=spec.arm, ctx=ctx)
    if outcome is not None:
        # What judging this run was billed: its own verdicts and votes, asked now or on an
        # earlier grade (`judge_cached`: nothing asked this time).
        grade["judge_usage"] = dict(outcome.usage)
        grade["judge_cached"] = outcome.cached
    return grade
