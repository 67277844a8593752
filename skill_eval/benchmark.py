"""Grades of one skill × model → benchmark.json (DESIGN §9): pass rates, lift, flags, verdict."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import stats
from .cases import Case
from .results import RunError, RunResult

SCHEMA_VERSION = 1
VARIANTS = ("with_skill", "without_skill")
SIGNIFICANCE = 0.05
MIN_NONZERO_CASES = 6  # below this the sign-flip test cannot reach p ≤ 0.05
_EPS = 1e-12


@dataclass(frozen=True)
class RunRecord:
    """One run's outcome as the benchmark sees it: the result (or error) and its grade."""

    case_id: str
    variant: str  # "with_skill" | "without_skill"
    iteration: int
    result: RunResult | RunError
    grade: Mapping[str, Any] | None = field(default=None, hash=False)
    loaded_skills: frozenset[str] = frozenset()
    usage: Mapping[str, float] = field(default_factory=dict, hash=False)
    duration_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "loaded_skills", frozenset(self.loaded_skills))

    @classmethod
    def of(cls, case_id: str, variant: str, iteration: int, result: RunResult | RunError,
           grade: Mapping[str, Any] | None = None) -> RunRecord:
        """A record whose loads, usage and duration come from ``result``."""
        if isinstance(result, RunError):
            return cls(case_id, variant, iteration, result, None, frozenset(), {}, result.duration_s)
        return cls(case_id, variant, iteration, result, grade, frozenset(result.response.loaded_skills()),
                   dict(result.response.usage), result.duration_s)

    @property
    def errored(self) -> bool:
        return isinstance(self.result, RunError)

    @property
    def graded(self) -> bool:
        return not self.errored and self.grade is not None

    @property
    def passed(self) -> bool:
        return self.graded and self.grade.get("passed") is True  # type: ignore[union-attr]


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


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
        "pass_rate": _rate(passed, n),
        "pass_at_k": {str(k): stats.pass_at_k(n, passed, k) for k in range(1, n + 1)},
        "pass_hat_k": {str(k): stats.pass_hat_k(n, passed, k) for k in range(1, n + 1)},
        "failed_checks": failed_checks[:10],
        "error_messages": [f"iteration {r.iteration}: {r.result.kind}: {r.result.message}"[:300]
                           for r in records if isinstance(r.result, RunError)][:5],
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
    if any(skill in r.loaded_skills for r in recs["without_skill"] if not r.errored):
        flags.append("contaminated")
    with_runs = [r for r in recs["with_skill"] if not r.errored]
    if loads_reported and with_runs and not any(skill in r.loaded_skills for r in with_runs):
        flags.append("not-loaded")
    return flags


def _variant_totals(records: Sequence[RunRecord], case_rates: list[float]) -> dict[str, Any]:
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
        "cases": len(case_rates),
        "pass_rate": sum(case_rates) / len(case_rates) if case_rates else None,
        "duration_s": {"median": stats.median(durations), "p95": stats.p95(durations),
                       "total": sum(durations)},
        "usage": dict(sorted(usage.items())),
    }


def build_benchmark(suite_name: str, skill: str, model: str, cases: Sequence[Case],
                    runs: Sequence[RunRecord], minimum_lift: float | None) -> dict[str, Any]:
    """benchmark.json for one skill and model. ``runs`` may hold any number of iterations per
    case and variant; records of a case not in ``cases`` are a caller bug (ValueError)."""
    by_case: dict[str, dict[str, list[RunRecord]]] = {c.id: {v: [] for v in VARIANTS} for c in cases}
    for r in runs:
        if r.case_id not in by_case or r.variant not in VARIANTS:
            raise ValueError(f"run record for unknown case/variant {r.case_id!r}/{r.variant!r}")
        by_case[r.case_id][r.variant].append(r)
    loads_reported = any(r.loaded_skills for r in runs if r.variant == "with_skill")

    case_rows, deltas = [], []
    rates: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for case in cases:
        recs = {v: sorted(by_case[case.id][v], key=lambda r: r.iteration) for v in VARIANTS}
        arms = {v: _arm(recs[v]) for v in VARIANTS}
        for v in VARIANTS:
            if arms[v]["pass_rate"] is not None:
                rates[v].append(arms[v]["pass_rate"])
        w, wo = arms["with_skill"]["pass_rate"], arms["without_skill"]["pass_rate"]
        delta = w - wo if w is not None and wo is not None else None
        if delta is not None:
            deltas.append(delta)
        case_rows.append({"id": case.id, "flags": _flags(skill, arms, recs, delta, loads_reported),
                          "delta": delta, **arms})

    variants = {v: _variant_totals([r for r in runs if r.variant == v], rates[v]) for v in VARIANTS}
    lift = _lift(deltas, minimum_lift)
    any_error = any(r.errored for r in runs)
    with_failed = any(r.graded and not r.passed for r in runs if r.variant == "with_skill")
    if any_error:
        verdict = "error"
    elif with_failed or lift["met"] is False:
        verdict = "fail"
    else:
        verdict = "pass"
    return {
        "schema_version": SCHEMA_VERSION, "suite": suite_name, "skill": skill, "model": model,
        "variants": variants, "lift": lift, "cases": case_rows,
        "checks": _check_rates(cases, by_case), "verdict": verdict,
    }


def _lift(deltas: list[float], minimum_lift: float | None) -> dict[str, Any]:
    """Lift over paired cases (both arms graded): their mean delta, which equals with − without
    whenever no case lost an arm to errors."""
    mean = sum(deltas) / len(deltas) if deltas else None
    p = stats.sign_flip_p(deltas) if deltas else None
    nonzero = sum(1 for d in deltas if abs(d) > _EPS)
    met = None if minimum_lift is None else (mean is not None and mean >= minimum_lift - _EPS)
    return {
        "pass_rate": mean, "p_value": p,
        "ci95": list(stats.bootstrap_ci(deltas)) if deltas else None,
        "cases": len(deltas), "nonzero_cases": nonzero,
        "minimum_lift": minimum_lift, "met": met,
        "significant": p is not None and p <= SIGNIFICANCE,
        "indeterminate": nonzero < MIN_NONZERO_CASES,
    }


def _check_rates(cases: Sequence[Case], by_case: Mapping[str, Mapping[str, list[RunRecord]]]
                 ) -> list[dict[str, Any]]:
    rows = []
    for case in cases:
        for check in case.checks:
            row: dict[str, Any] = {"id": f"{case.id}/{check.id}", "case": case.id, "check": check.id,
                                   "type": check.type, "required": check.required}
            every_run_passed = True
            for v in VARIANTS:
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
        for v in VARIANTS:
            was = o[v]["pass_rate"] if o else None
            now = n[v]["pass_rate"] if n else None
            entry[v] = {"old": was, "new": now}
            changed = changed or (was is None) != (now is None) or (
                was is not None and now is not None and abs(was - now) > _EPS)
        if changed:
            moved.append(entry)
    return moved
