"""One run + one case's checks → grading.json.

Deterministic checks decide ``deterministic_passed``; rubric items need a judge. Without one they
are listed ``ungraded`` and never count as passed. A judge's verdicts merge in through
``apply_verdicts`` (or ``grade_run(..., verdicts=...)``) and set ``judged_passed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.model.cases import Case
from skill_eval.model.results import RunResult
from skill_eval.plan.keys import GRADER_VERSION
from skill_eval.store.redact import redact

UNGRADABLE_NOTE = "ungradable: the case has no checks and no judge-graded rubric"


def context_for(run: RunResult, skill_name: str | tuple[str, ...], allow_scripts: bool,
                skill_root: Path | None = None) -> CheckContext:
    """``skill_name``: the skill's name, or all its names (folder first, then its SKILL.md name)."""
    names = (skill_name,) if isinstance(skill_name, str) else tuple(skill_name)
    return CheckContext(output=run.output, outputs_dir=run.outputs_dir, files_dir=run.files_dir,
                        events=run.response.events, usage=run.response.usage, duration_s=run.duration_s,
                        skill_name=names[0], allow_scripts=allow_scripts, skill_root=skill_root,
                        skill_aliases=names[1:], session_path=run.session_path, created=run.created,
                        mock_calls=run.mock_calls)


def grade_run(case: Case, run: RunResult, skill_name: str | tuple[str, ...], allow_scripts: bool,
              verdicts: Mapping[str, Mapping[str, Any]] | None = None,
              skill_root: Path | None = None, arm: str | None = None,
              ctx: CheckContext | None = None) -> dict[str, Any]:
    """grading.json for one run. ``verdicts`` (``{rubric_id: {passed, evidence}}``) come from a judge;
    ``skill_root`` is where a script check's ``cwd`` is relative to; ``arm`` (the run's: with_skill, ...)
    leaves out checks scoped to other arms; ``ctx``: the run's context when the judge already built
    it (its session is then read and parsed once for both)."""
    ctx = ctx or context_for(run, skill_name, allow_scripts, skill_root)
    checks = [c for c in case.checks if c.applies_to(arm)]
    results = [run_check(c, ctx, case.source, case.line) for c in checks]
    critical = {c.id for c in checks if c.critical}
    required = [r for r in results if r.required]
    optional = [r for r in results if not r.required]
    grade: dict[str, Any] = {
        "grader_version": GRADER_VERSION,
        "case_id": case.id,
        "run_key": run.key,
        "checks": [r.to_json() for r in results],
        "deterministic_passed": all(r.passed for r in required) if results else None,
        "rubric": [{"id": r.id, "text": r.text, "required": r.required, "weight": r.weight,
                    "status": "ungraded", **({"critical": True} if r.critical else {}),
                    **({"indicator": True} if r.indicator else {})} for r in case.rubric],
        "judged_passed": None,
        "summary": {"required": len(required), "required_passed": sum(r.passed for r in required),
                    "optional": len(optional), "optional_passed": sum(r.passed for r in optional),
                    "rubric": len(case.rubric), "rubric_passed": 0, "rubric_ungraded": len(case.rubric)},
    }
    if critical:
        for entry in grade["checks"]:
            if entry["id"] in critical:
                entry["critical"] = True
    for c, entry in zip(checks, grade["checks"], strict=True):
        # claude plugin eval's scoring inputs, only where set (review/comparison/plugin_scores.py reads them).
        if c.weight != 1.0:
            entry["weight"] = c.weight
        if c.indicator:
            entry["indicator"] = True
    return apply_verdicts(grade, verdicts) if verdicts is not None else _decide(grade)


def apply_verdicts(grade: Mapping[str, Any], verdicts: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A copy of ``grade`` with a judge's verdicts merged into its rubric items.

    A rubric item the judge gave no verdict for stays ``ungraded``, and a required ungraded item
    fails ``judged_passed``: a judge that skipped an assertion has not passed it.
    """
    rubric = []
    for item in grade["rubric"]:
        item = dict(item)
        verdict = verdicts.get(item["id"])
        if verdict is not None:
            item["status"] = "passed" if verdict.get("passed") is True else "failed"
            # Redact, then cut: a cut first could leave a secret's head unrecognised.
            item["evidence"] = redact(str(verdict.get("evidence", "")))[:200]
            if isinstance(verdict.get("votes"), list):
                # A plugin-eval grader: each judge vote and the judge's one-line reply.
                item["votes"] = [{"passed": v.get("passed") is True,
                                  "evidence": redact(str(v.get("evidence", "")))[:200]}
                                 for v in verdict["votes"]]
        rubric.append(item)
    new = {**grade, "rubric": rubric}
    required = [r for r in rubric if r.get("required", True)]
    new["judged_passed"] = all(r["status"] == "passed" for r in required) if rubric else None
    new["summary"] = {**grade["summary"],
                      "rubric_passed": sum(r["status"] == "passed" for r in rubric),
                      "rubric_ungraded": sum(r["status"] == "ungraded" for r in rubric)}
    return _decide(new)


def partial_credit(grade: Mapping[str, Any]) -> float | None:
    """The share of this run's graded items that passed: every check (soft ones too) and every
    rubric item a judge decided. Reported beside the pass rate for comparison with tools that
    give partial credit; whether the run passed never depends on it."""
    outcomes = [c["passed"] for c in grade["checks"]]
    outcomes += [r["status"] == "passed" for r in grade["rubric"] if r["status"] != "ungraded"]
    return round(sum(outcomes) / len(outcomes), 6) if outcomes else None


def _decide(grade: dict[str, Any]) -> dict[str, Any]:
    decided = [v for v in (grade["deterministic_passed"], grade["judged_passed"]) if v is not None]
    grade.pop("note", None)
    grade.pop("critical_failed", None)
    vetoes = [c["id"] for c in grade["checks"] if c.get("critical") and not c["passed"]]
    vetoes += [r["id"] for r in grade["rubric"] if r.get("critical") and r["status"] == "failed"]
    credit = partial_credit(grade)
    if credit is not None:
        grade["partial_credit"] = credit
    if vetoes:
        # A critical failure vetoes the run whatever else passed, and is named on its own.
        grade["critical_failed"] = vetoes
        grade["passed"] = False
    elif decided:
        grade["passed"] = all(decided)
    else:
        # `run` refuses such suites before running; a grade still has to say something.
        grade["passed"] = False
        grade["note"] = UNGRADABLE_NOTE
    return grade
