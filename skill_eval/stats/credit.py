"""Figures reported beside the pass rate, never in it: partial credit (the share of a run's graded
items that passed, for comparison with tools that score that way), soft items (checks and rubric
items that do not count toward passing), and critical failures (each vetoed its run).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class _Graded(Protocol):
    case_id: str

    @property
    def graded(self) -> bool: ...

    @property
    def grade(self) -> Mapping[str, Any] | None: ...


def _soft(grade: Mapping[str, Any]) -> tuple[int, int]:
    """(passed, decided) soft items of one grade."""
    outcomes = [c["passed"] for c in grade.get("checks", []) if not c.get("required", True)]
    outcomes += [r["status"] == "passed" for r in grade.get("rubric", [])
                 if not r.get("required", True) and r.get("status") != "ungraded"]
    return sum(outcomes), len(outcomes)


def arm_credit(records: Sequence[_Graded]) -> dict[str, Any]:
    """One case's arm: mean partial credit over its graded runs, soft items, critical failures."""
    grades = [r.grade for r in records if r.graded and r.grade is not None]
    credits = [g["partial_credit"] for g in grades if isinstance(g.get("partial_credit"), int | float)]
    soft = [_soft(g) for g in grades]
    passed, total = sum(p for p, _ in soft), sum(t for _, t in soft)
    return {
        "partial_credit": sum(credits) / len(credits) if credits else None,
        "soft_passed": passed, "soft_total": total,
        "critical_failures": sum(1 for g in grades if g.get("critical_failed")),
    }


def credit_over_cases(records: Sequence[_Graded]) -> dict[str, Any]:
    """An arm over all cases: partial credit as the mean over cases of each case's mean (like the
    pass rate), soft items as a rate over every decided soft item, critical failures counted."""
    by_case: dict[str, list[_Graded]] = defaultdict(list)
    for r in records:
        by_case[r.case_id].append(r)
    arms = [arm_credit(rs) for rs in by_case.values()]
    credits = [a["partial_credit"] for a in arms if a["partial_credit"] is not None]
    passed, total = sum(a["soft_passed"] for a in arms), sum(a["soft_total"] for a in arms)
    return {
        "partial_credit": sum(credits) / len(credits) if credits else None,
        "soft_pass_rate": passed / total if total else None,
        "soft_items": total,
        "critical_failures": sum(a["critical_failures"] for a in arms),
    }
