"""``claude plugin eval``'s own numbers (FORMAT.md §8-§9), computed from stored grades: per run
the weighted score and whether every scored grader passed, per case the with-arm score, the
without-arm score, Δ and pass at the threshold, and for the suite the mean Δ, the cases passing
and the perfect runs. Shown beside skill-eval's lift, interval and significance for plugin eval
suites (benchmark.json ``plugin_eval``; ``report --format plugin-eval-json``).

Settled against the real command (docs/dialects.md): a run's score is Σ weight of passed scored
graders / Σ weight of scored graders, unrounded; a plugin-fired indicator (Check.indicator) is
graded in the with-arm only and left out of the score (``scored: false``) unless the case runs one
arm; a run passes when every scored grader passed; a case passes when its with-arm score is at or
above the threshold; Δ = with − without, unrounded; the mean Δ averages only the cases that have
one; "perfect runs" is the mean over cases of the share of with-arm runs that passed
(``aggregates.overallPassRate``).

A pure function of the grades: the same grades give the same numbers, whatever re-ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skill_eval.model.results import RunError, RunResult
from skill_eval.run.unscorable import at_turn_limit

DEFAULT_THRESHOLD = 1.0
_FLAT = 1e-12  # |Δ| below this is "flat" (floating-point noise of equal scores)


@dataclass(frozen=True)
class Mark:
    """One grader's result in one run, as plugin eval reports it."""

    name: str
    passed: bool
    weight: float
    indicator: bool  # plugin eval's ``withOnly``: in the set §8 leaves out of a two-arm score
    scored: bool
    explanation: str = ""


@dataclass(frozen=True)
class ArmRun:
    """One stored run of a case's arm: its grade (None when it could not run) and its error."""

    case_id: str
    arm: str  # "with" | "without"
    iteration: int
    grade: Mapping[str, Any] | None
    error: str | None = None


def marks(grade: Mapping[str, Any] | None, two_arm: bool, arm: str = "with") -> list[Mark]:
    """The graders of one run: every check, and every rubric item a judge decided (an ungraded
    item is a skipped paid grader: not in the score). In the without-arm an indicator is not
    reported at all, as by plugin eval (a rubric item has no arms, so a judge may have graded it)."""
    if grade is None:
        return []
    if arm == "without":
        grade = {"checks": [c for c in grade.get("checks", []) if not c.get("indicator")],
                 "rubric": [r for r in grade.get("rubric", []) if not r.get("indicator")]}
    out = [Mark(str(c["id"]), bool(c["passed"]), float(c.get("weight", 1.0)), bool(c.get("indicator")),
                not (two_arm and c.get("indicator")), str(c.get("evidence", "")))
           for c in grade.get("checks", [])]
    out += [Mark(str(r["id"]), r["status"] == "passed", float(r.get("weight", 1.0)), bool(r.get("indicator")),
                 not (two_arm and r.get("indicator")), str(r.get("evidence", "")))
            for r in grade.get("rubric", []) if r.get("status") != "ungraded"]
    return out


def run_score(found: Sequence[Mark]) -> float:
    """The weighted share of the scored graders that passed; 0 with none (a run that could not
    run: plugin eval grades its empty output and scores it 0)."""
    scored = [m for m in found if m.scored]
    total = sum(m.weight for m in scored)
    return sum(m.weight for m in scored if m.passed) / total if total > 0 else 0.0


def run_passed(found: Sequence[Mark]) -> bool:
    scored = [m for m in found if m.scored]
    return bool(scored) and all(m.passed for m in scored)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _run_row(run: ArmRun, two_arm: bool) -> dict[str, Any]:
    found = marks(run.grade, two_arm, run.arm)
    rubric = run.grade.get("rubric", []) if run.grade is not None else []
    skipped = any(r.get("status") == "ungraded" for r in rubric)
    return {"iteration": run.iteration, "score": run_score(found), "passed": run_passed(found),
            "error": run.error, "skipped_paid_graders": skipped,
            "graders": [{"name": m.name, "passed": m.passed, "weight": m.weight, "with_only": m.indicator,
                         "scored": m.scored, "explanation": m.explanation} for m in found]}


def case_scores(case_id: str, runs: Sequence[ArmRun], two_arm: bool, threshold: float) -> dict[str, Any]:
    """One case's runs per arm and its numbers (``delta`` only when both arms have runs)."""
    rows = {arm: [_run_row(r, two_arm) for r in sorted(runs, key=lambda r: r.iteration) if r.arm == arm]
            for arm in ("with", "without")}
    score = _mean([r["score"] for r in rows["with"]])
    out: dict[str, Any] = {"id": case_id, "two_arm": two_arm, "runs": rows, "score": score,
                           "pass_rate": _mean([float(r["passed"]) for r in rows["with"]]),
                           "passed": score is not None and score >= threshold}
    if two_arm and rows["without"]:
        out["score_without"] = _mean([r["score"] for r in rows["without"]])
        out["pass_rate_without"] = _mean([float(r["passed"]) for r in rows["without"]])
        if score is not None:
            out["delta"] = score - out["score_without"]
    return out


def suite_figures(cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The suite's numbers over case rows (``case_scores``): cases run and passing, the suite and
    baseline scores, perfect runs, the mean Δ and how many cases improved, stayed flat, regressed."""
    scored = [c for c in cases if c["score"] is not None]
    deltas = [c["delta"] for c in cases if "delta" in c]
    return {
        "cases_total": len(scored), "cases_passed": sum(c["passed"] for c in scored),
        "overall_score": _mean([c["score"] for c in scored]),
        "perfect_runs": _mean([c["pass_rate"] for c in scored]),
        "baseline_score": _mean([c["score_without"] for c in cases if "score_without" in c]),
        "mean_delta": _mean(deltas),
        "improved": sum(d > _FLAT for d in deltas), "flat": sum(abs(d) <= _FLAT for d in deltas),
        "regressed": sum(d < -_FLAT for d in deltas),
    }


def plugin_eval_block(case_ids: Sequence[str], runs: Sequence[ArmRun], two_arm: Mapping[str, bool],
                      threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    """benchmark.json's ``plugin_eval``: every case's numbers (in ``case_ids`` order) and the
    suite's, as ``claude plugin eval`` computes them from the same grades."""
    by_case: dict[str, list[ArmRun]] = {}
    for r in runs:
        by_case.setdefault(r.case_id, []).append(r)
    cases = [case_scores(c, by_case.get(c, []), two_arm.get(c, True), threshold) for c in case_ids]
    return {"threshold": threshold, "cases": cases, **suite_figures(cases)}


ARMS = {"with_skill": "with", "without_skill": "without"}
TURN_LIMIT = "max_turns: the agent reached the case's turn limit"


def arm_runs(records: Sequence[tuple[Any, RunResult | RunError, Any]]) -> list[ArmRun]:
    """The stored runs of the two arms as ArmRuns (runs never made are left out; a run that
    could not run has no grade and its error; one stopped at the case's max_turns keeps both)."""
    out: list[ArmRun] = []
    for spec, result, grade in records:
        arm = ARMS.get(spec.arm)
        if arm is None or (isinstance(result, RunError) and result.kind == "missing"):
            continue
        if isinstance(result, RunError):
            out.append(ArmRun(spec.case.id, arm, spec.iteration, None, result.message))
        else:
            error = TURN_LIMIT if at_turn_limit(result.response) else None
            out.append(ArmRun(spec.case.id, arm, spec.iteration, grade, error))
    return out
