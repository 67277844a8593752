"""Hand-built cases and run records shared by test_benchmark and test_render."""

from __future__ import annotations

from skill_eval.grade.grading import grade_run
from skill_eval.model.cases import Case, Check
from skill_eval.model.results import AdapterResponse, Event, RunError, RunResult
from skill_eval.review.comparison.benchmark import RunRecord

SKILL = "sk"
CHECKS = (Check("ok", "contains", params={"value": "ok"}),
          Check("always", "contains", params={"value": "the"}))


def case(cid: str) -> Case:
    return Case(id=cid, prompt="p", checks=CHECKS)


def record(c: Case, arm: str, it: int, passed: bool, loaded: bool) -> RunRecord:
    events = (Event("skill_loaded", SKILL),) if loaded else ()
    usage = {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.01}
    result = RunResult(key=f"{c.id}-{arm}-{it}", duration_s=float(it),
                       response=AdapterResponse("the ok" if passed else "the", events, usage))
    return RunRecord.of(c.id, arm, it, result, grade_run(c, result, SKILL, False))


def error(c: Case, arm: str, it: int) -> RunRecord:
    return RunRecord.of(c.id, arm, it, RunError(key="e", kind="timeout", message="took too long",
                                                     duration_s=5.0))


# case: (with_skill passes, without_skill passes, with loads, without loads) per iteration
PATTERN = {
    "c1": ([1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]),  # improved
    "c2": ([1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 0]),  # regressed, flaky
    "c3": ([1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 0, 0]),  # saturated, contaminated
    "c4": ([0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]),  # floor, not-loaded
}


def main_fixture() -> tuple[list[Case], list[RunRecord]]:
    cases = [case(cid) for cid in PATTERN]
    records = []
    for c in cases:
        wp, wop, wl, wol = PATTERN[c.id]
        for i in range(3):
            records.append(record(c, "with_skill", i + 1, bool(wp[i]), bool(wl[i])))
            records.append(record(c, "without_skill", i + 1, bool(wop[i]), bool(wol[i])))
    return cases, records
