"""Grade keys: what a grade depends on, derived from the run key and the case's grading material.

Runs are immutable per key (a ``--force`` re-run re-grades at once), so the run key stands for its
result here: planning never has to read 6,000 results to know grade keys.

A run key stands for the *request* only: two cases (in one skill or several) whose prompts and
inputs are byte-identical share one run, never one grade. A grade belongs to (case, its checks
and rubric, the skill it is graded for, the arm, the run), so the case's id and the skill's
names are grading material too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skill_eval.fs.hashing import key_of
from skill_eval.model.config import Suite
from skill_eval.plan.types import RunSpec

# Part of every grade key: bump it when a check's semantics change, so grades are redone.
# 2: partial credit, critical and arm-scoped checks; file paths are workspace-relative (seed
# harness); checks see the redacted text only. 3: grade keys name the case and the skill (two
# cases sharing a run were graded once, with one case's checks). 4: a trigger query's grade is a
# whole grading.json (its case_id, run_key, grader_version and summary), as a task's is.
GRADER_VERSION = "4"


def slot(spec: RunSpec) -> str:
    """The run's place in the suite (``skill/case/arm/model/iteration``), whatever its key."""
    return spec.task_name.split(":", 1)[1]


class GradeKeys:
    """Grade keys of one suite, computed once per case (the material is the same for all its runs).

    ``judge_identity`` is asked only when a case has rubric items: a builtin judge's identity may
    cost a call to the agent CLI for its version.
    """

    def __init__(self, suite: Suite, judge_identity: Callable[[], dict[str, Any] | None]) -> None:
        self.suite = suite
        self._judge_identity = judge_identity
        # Both caches are keyed by the case as well as the run: the run key alone is shared by
        # every case with the same request.
        self._grade_keys: dict[tuple[str, int, str], str] = {}
        self._case_grading: dict[tuple[int, str], str] = {}

    def material(self, spec: RunSpec) -> dict[str, Any]:
        case = spec.case
        judge = self._judge_identity() if case.rubric else None
        return {"grading": case.grading_material(), "grader": GRADER_VERSION, "judge": judge,
                "should_trigger": case.should_trigger, "allow_scripts": self.suite.allow_scripts,
                "case": case.id, "skill": list(spec.skill_names or (spec.skill_name,))}

    def material_key(self, spec: RunSpec) -> str:
        at = (id(spec.case), spec.skill_name)
        case_key = self._case_grading.get(at)
        if case_key is None:
            case_key = self._case_grading[at] = key_of(self.material(spec))
        return case_key

    def grade_key(self, spec: RunSpec) -> str:
        at = (spec.key, id(spec.case), spec.skill_name)
        key = self._grade_keys.get(at)
        if key is None:
            key = self._grade_keys[at] = key_of({"run": spec.key, "grading": self.material_key(spec)})
        return key
