"""Grades of one skill × model → benchmark.json (schemas/benchmark.schema.json; its figures in
docs/statistics.md): pass rates, lift, flags, verdict."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill_eval.model.cases import Case
from skill_eval.model.results import NO_MODEL_REQUEST, RunError, RunResult, unscorable_reason
from skill_eval.review.comparison.costs import _cost_lift, _cost_totals, _num, _round, usage_tokens  # noqa: F401 (re-exported)
from skill_eval.review.comparison.run_conditions import comparability
from skill_eval.review.comparison.verdict import settle
from skill_eval.stats import measures as stats
from skill_eval.stats.credit import arm_credit, credit_over_cases
from skill_eval.stats.intervals import arm_interval, lift_interval

SCHEMA_VERSION = 1
ARMS = ("with_skill", "without_skill")
SIGNIFICANCE = 0.05
MIN_NONZERO_CASES = 6  # below this the sign-flip test cannot reach p ≤ 0.05
_EPS = 1e-12
NOT_RUN = "missing"  # the RunError kind of a run the store has no result or error for


@dataclass(frozen=True)
class RunRecord:
    """One run's outcome as the benchmark sees it: the result (or error) and its grade."""

    case_id: str
    arm: str  # "with_skill" | "without_skill"
    iteration: int
    result: RunResult | RunError
    grade: Mapping[str, Any] | None = field(default=None, hash=False)
    loaded_skills: frozenset[str] = frozenset()
    usage: Mapping[str, float] = field(default_factory=dict, hash=False)
    duration_s: float | None = None
    unscorable: str | None = None  # why the run cannot be scored (model/results.unscorable_reason)
    tool_calls: int | None = None  # None: the adapter reported no trajectory
    limits: Mapping[str, Any] | None = field(default=None, hash=False)  # what it ran under
    served: str | None = None  # the model the adapter reported
    unscorable_counted: bool = False  # include_unscorable: it counts as a failed run

    def __post_init__(self) -> None:
        object.__setattr__(self, "loaded_skills", frozenset(self.loaded_skills))

    @classmethod
    def of(cls, case_id: str, arm: str, iteration: int, result: RunResult | RunError,
           grade: Mapping[str, Any] | None = None) -> RunRecord:
        """A record whose loads, usage and duration come from ``result``."""
        why = unscorable_reason(result)
        if isinstance(result, RunError):
            return cls(case_id, arm, iteration, result, None, frozenset(), {}, result.duration_s, why)
        return cls(case_id, arm, iteration, result, None if why else grade,
                   frozenset(result.response.loaded_skills()), dict(result.response.usage),
                   result.duration_s, why, tool_calls=result.response.tool_calls(), limits=result.limits,
                   served=next((e.name for e in result.response.events if e.type == "model"), None))

    def counted_as_failure(self) -> RunRecord:
        """This unscorable run as a failed one (``include_unscorable: true``)."""
        grade = {"passed": False, "checks": [], "summary": {}, "unscorable": self.unscorable}
        return dataclasses.replace(self, grade=grade, unscorable_counted=True)

    @property
    def errored(self) -> bool:
        return isinstance(self.result, RunError) and self.unscorable is None and not self.not_run

    @property
    def not_run(self) -> bool:
        """Never run (outside a --shard or --only selection, or not started): not an error."""
        return isinstance(self.result, RunError) and self.result.kind == NOT_RUN

    @property
    def graded(self) -> bool:
        return (not self.errored and self.grade is not None
                and (self.unscorable is None or self.unscorable_counted))

    @property
    def passed(self) -> bool:
        return self.graded and self.grade.get("passed") is True  # type: ignore[union-attr]


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def _votes(graded: Sequence[RunRecord]) -> list[dict[str, Any]]:
    """Each plugin-eval grader's judge votes per run (the first-party report's judgeVotes)."""
    return [{"iteration": r.iteration, "id": item["id"], "passed": item.get("status") == "passed",
             "votes": [v.get("passed") is True for v in item["votes"]], "evidence": item.get("evidence", "")}
            for r in graded for item in r.grade.get("rubric", [])  # type: ignore[union-attr]
            if isinstance(item.get("votes"), list)]


def _arm(records: Sequence[RunRecord]) -> dict[str, Any]:
    graded = [r for r in records if r.graded]
    passed = sum(r.passed for r in graded)
    n = len(graded)
    failed_checks = [{"iteration": r.iteration, "id": c["id"], "evidence": c["evidence"]}
                     for r in graded if not r.passed for c in r.grade["checks"]  # type: ignore[index]
                     if c["required"] and not c["passed"]]
    return {
        "runs": len(records), "graded": n, "passed": passed,
        "errors": sum(r.errored for r in records),
        "not_run": sum(r.not_run for r in records),
        "unscorable": sum(r.unscorable is not None for r in records),
        "rubric_ungraded": _ungraded(graded),
        "pass_rate": _rate(passed, n),
        "pass_at_k": {str(k): stats.pass_at_k(n, passed, k) for k in range(1, n + 1)},
        "pass_hat_k": {str(k): stats.pass_hat_k(n, passed, k) for k in range(1, n + 1)},
        "failed_checks": failed_checks[:10],
        "judge_votes": _votes(graded),
        "error_messages": [f"iteration {r.iteration}: {r.result.kind}: {r.result.message}"[:300]
                           for r in records if isinstance(r.result, RunError) and r.errored][:5],
        "unscorable_reasons": [f"iteration {r.iteration}: {r.unscorable}" for r in records
                               if r.unscorable is not None][:5],
        **arm_credit(records),
    }


def _flags(skill: str, arms: Mapping[str, dict[str, Any]], recs: Mapping[str, Sequence[RunRecord]],
           delta: float | None, loads_reported: bool) -> list[str]:
    w, wo = arms["with_skill"]["pass_rate"], arms["without_skill"]["pass_rate"]
    flags = []
    if delta is not None:
        if delta > _EPS:
            flags.append("improved")
        elif delta < -_EPS:
            flags.append("regressed")
        elif w == 1.0 and wo == 1.0:
            flags.append("saturated")
        elif w == 0.0 and wo == 0.0:
            flags.append("floor")
        else:
            flags.append("no-lift")
    if any(a["graded"] >= 2 and 0 < a["pass_rate"] < 1 for a in arms.values()):
        flags.append("flaky")
    if any(a["errors"] for a in arms.values()):
        flags.append("error")
    if any(a["not_run"] for a in arms.values()):
        flags.append("not-run")
    if any(a["unscorable"] for a in arms.values()):
        flags.append("unscorable")
    if any(a.get("critical_failures") for a in arms.values()):
        flags.append("critical-failure")
    if any(skill in r.loaded_skills for r in recs["without_skill"] if not r.errored):
        flags.append("contaminated")
    with_runs = [r for r in recs["with_skill"] if not r.errored]
    if loads_reported and with_runs and not any(skill in r.loaded_skills for r in with_runs):
        flags.append("not-loaded")
    if any(other_skills(skill, recs).values()):
        flags.append("other-skills")
    return flags


def other_skills(skill: str, recs: Mapping[str, Sequence[RunRecord]]) -> dict[str, list[str]]:
    """Per arm, the skills other than ``skill`` its runs loaded (a bundled skill of the CLI, one
    the workspace brought): what either arm measured then includes them."""
    return {v: sorted({n for r in recs[v] if not r.errored for n in r.loaded_skills} - {skill})
            for v in ARMS}


def _ungraded(graded: Sequence[RunRecord]) -> int:
    """Rubric items no judge graded, over the graded runs: a pass rate that did not check them."""
    total = 0
    for r in graded:
        n = (r.grade.get("summary") or {}).get("rubric_ungraded")  # type: ignore[union-attr]
        total += n if isinstance(n, int) and not isinstance(n, bool) else 0
    return total


def _arm_totals(records: Sequence[RunRecord], case_rates: list[float]) -> dict[str, Any]:
    durations = [r.duration_s for r in records if r.duration_s is not None]
    usage: dict[str, float] = defaultdict(float)
    for r in records:
        for key, value in r.usage.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                usage[key] += value
    graded = [r for r in records if r.graded]
    return {
        "runs": len(records), "graded": len(graded), "passed": sum(r.passed for r in graded),
        "errors": sum(r.errored for r in records),
        "not_run": sum(r.not_run for r in records),
        "unscorable": sum(r.unscorable is not None for r in records),
        "rubric_ungraded": _ungraded(graded),
        "cases": len(case_rates),
        "pass_rate": sum(case_rates) / len(case_rates) if case_rates else None,
        **arm_interval(case_rates, len(graded)),
        # Measurements (seconds, summed usage) without float noise; counts stay exact.
        "duration_s": {"median": _round(stats.median(durations)), "p95": _round(stats.p95(durations)),
                       "total": _round(sum(durations))},
        "usage": {k: v if float(v).is_integer() else _round(v) for k, v in sorted(usage.items())},
        **_trajectory_means(records),
        **_cost_totals(records),
    }


def _trajectory_means(records: Sequence[RunRecord]) -> dict[str, float | None]:
    """Mean tool calls and turns per run, over the runs that reported them (None: none did)."""
    ran = [r for r in records if not r.errored]
    calls = [r.tool_calls for r in ran if r.tool_calls is not None]
    turns = [_num(r.usage.get("num_turns")) for r in ran]
    known = [t for t in turns if t is not None]
    return {"mean_tool_calls": sum(calls) / len(calls) if calls else None,
            "mean_turns": sum(known) / len(known) if known else None}


# ---- cost: from the usage each run reported when it ran (the store keeps it; nothing here
# prices tokens, so a result bought earlier keeps the cost it had) ---------------------------

# Anthropic-style usage counts cache reads and writes apart from input_tokens, so they add to the
# total; OpenAI-style ``cached_input_tokens`` is a part of input_tokens and does not.
def build_benchmark(suite_name: str, skill: str, model: str, cases: Sequence[Case],
                    runs: Sequence[RunRecord], minimum_lift: float | None,
                    include_unscorable: bool = False) -> dict[str, Any]:
    """benchmark.json for one skill and model. ``runs`` may hold any number of iterations per
    case and arm; records of a case not in ``cases`` are a caller bug (ValueError).
    Unscorable runs are left out of pass rates, or with ``include_unscorable`` count as failed."""
    if include_unscorable:
        # A run that never reached the model says nothing either way: it stays out even so.
        runs = [r.counted_as_failure() if r.unscorable not in (None, NO_MODEL_REQUEST) else r for r in runs]
    by_case: dict[str, dict[str, list[RunRecord]]] = {c.id: {v: [] for v in ARMS} for c in cases}
    for r in runs:
        if r.case_id not in by_case or r.arm not in ARMS:
            raise ValueError(f"run record for unknown case/arm {r.case_id!r}/{r.arm!r}")
        by_case[r.case_id][r.arm].append(r)
    loads_reported = any(r.loaded_skills for r in runs if r.arm == "with_skill")

    case_rows, deltas = [], []
    rates: dict[str, list[float]] = {v: [] for v in ARMS}
    for case in cases:
        recs = {v: sorted(by_case[case.id][v], key=lambda r: r.iteration) for v in ARMS}
        arms = {v: _arm(recs[v]) for v in ARMS}
        for v in ARMS:
            if arms[v]["pass_rate"] is not None:
                rates[v].append(arms[v]["pass_rate"])
        w, wo = arms["with_skill"]["pass_rate"], arms["without_skill"]["pass_rate"]
        delta = w - wo if w is not None and wo is not None else None
        if delta is not None:
            deltas.append(delta)
        row = {"id": case.id, "flags": _flags(skill, arms, recs, delta, loads_reported), "delta": delta,
               **arms}
        if "other-skills" in row["flags"]:
            row["other_skills"] = other_skills(skill, recs)
        case_rows.append(row)

    totals = {v: _arm_totals([r for r in runs if r.arm == v], rates[v]) for v in ARMS}
    for v in ARMS:
        totals[v].update(_part_rates([r for r in runs if r.arm == v]))
        totals[v].update(credit_over_cases([r for r in runs if r.arm == v]))
    lift = _lift(deltas, minimum_lift)
    lift.update(_cost_lift(lift["pass_rate"], totals))
    bench = {
        "schema_version": SCHEMA_VERSION, "suite": suite_name, "skill": skill, "model": model,
        "variants": totals, "lift": lift, "cases": case_rows,
        "checks": _check_rates(cases, by_case),
        "include_unscorable": include_unscorable,
        **comparability(runs),
    }
    settle(bench)
    return bench


def _part_rates(records: Sequence[RunRecord]) -> dict[str, float | None]:
    """Deterministic checks and judged rubric apart: each the mean over cases of the case's rate
    over the graded runs that have that part (a case with no checks has no deterministic rate)."""
    out: dict[str, float | None] = {}
    for name, field_name in (("deterministic_pass_rate", "deterministic_passed"),
                             ("judged_pass_rate", "judged_passed")):
        by_case: dict[str, list[bool]] = defaultdict(list)
        for r in records:
            value = r.grade.get(field_name) if r.graded else None  # type: ignore[union-attr]
            if isinstance(value, bool):
                by_case[r.case_id].append(value)
        case_rates = [sum(v) / len(v) for v in by_case.values() if v]
        out[name] = sum(case_rates) / len(case_rates) if case_rates else None
    return out


def _lift(deltas: list[float], minimum_lift: float | None) -> dict[str, Any]:
    """Lift over paired cases (both arms graded): their mean delta, which equals with − without
    whenever no case lost an arm to errors."""
    mean = sum(deltas) / len(deltas) if deltas else None
    p = stats.sign_flip_p(deltas) if deltas else None
    nonzero = sum(1 for d in deltas if abs(d) > _EPS)
    met = None if minimum_lift is None else (mean is not None and mean >= minimum_lift - _EPS)
    return {
        "pass_rate": mean, "p_value": p,
        **(lift_interval(deltas) if deltas else {"ci95": None}),
        "cases": len(deltas), "nonzero_cases": nonzero,
        "minimum_lift": minimum_lift, "met": met,
        "significant": p is not None and p <= SIGNIFICANCE,
        # No lift at all (every run errored) is "no lift", not an indeterminate one.
        "indeterminate": mean is not None and nonzero < MIN_NONZERO_CASES,
    }


def _check_rates(cases: Sequence[Case], by_case: Mapping[str, Mapping[str, list[RunRecord]]]
                 ) -> list[dict[str, Any]]:
    rows = []
    for case in cases:
        for check in case.checks:
            row: dict[str, Any] = {"id": f"{case.id}/{check.id}", "case": case.id, "check": check.id,
                                   "type": check.type, "required": check.required}
            every_run_passed = True
            for v in ARMS:
                outcomes = [c["passed"] for r in by_case[case.id][v] if r.graded
                            for c in r.grade["checks"] if c["id"] == check.id]  # type: ignore[index]
                row[v] = _rate(sum(outcomes), len(outcomes))
                every_run_passed = every_run_passed and bool(outcomes) and all(outcomes)
            # Passing everywhere, it cannot show what the skill changes.
            row["non_discriminating"] = every_run_passed
            rows.append(row)
    return rows


def diff_benchmarks(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Cases whose pass rates moved since ``old`` (added and removed cases included)."""
    if old is None:
        return []
    before = {c["id"]: c for c in old.get("cases", [])}
    after = {c["id"]: c for c in new.get("cases", [])}
    moved = []
    for cid in list(after) + [c for c in before if c not in after]:
        o, n = before.get(cid), after.get(cid)
        entry = {"skill": new.get("skill"), "model": new.get("model"), "id": cid,
                 "status": "added" if o is None else "removed" if n is None else "moved"}
        changed = entry["status"] != "moved"
        for v in ARMS:
            was = o[v]["pass_rate"] if o else None
            now = n[v]["pass_rate"] if n else None
            entry[v] = {"old": was, "new": now}
            changed = changed or (was is None) != (now is None) or (
                was is not None and now is not None and abs(was - now) > _EPS)
        if changed:
            moved.append(entry)
    return moved
