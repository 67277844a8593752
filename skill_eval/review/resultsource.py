"""What the review layer reads results through: the planned runs, their keys, and the store.

The engine provides it (``skill_eval.engine.engine.Engine``); tables, pages and exports only ask,
so they never import the engine that schedules runs.
"""

from __future__ import annotations

from typing import Any, Protocol

from skill_eval.model.config import Suite
from skill_eval.model.project import Project
from skill_eval.model.results import RunResult
from skill_eval.model.until_decided import UntilDecidedSettings
from skill_eval.plan.planner import Plan
from skill_eval.plan.types import RunSpec
from skill_eval.store.store import Store


class ResultSource(Protocol):
    project: Project
    suite: Suite
    store: Store
    plan: Plan
    skill_names: list[str]  # every selected skill of the suite (tables are per skill)
    touched_slots: set[str]  # slots whose run or grade was (re)made now: their views are rewritten
    damaged: list[str]  # slots whose stored run was found damaged (and removed): `run` makes them again
    until_decided: UntilDecidedSettings | None  # its settings, when tables report an until-decided decision
    until_decided_verdict: bool  # `run --until-decided` ran: its decision is the verdict
    summary_benches: list[dict[str, Any]] | None  # the tables build_summary wrote; None once one changed

    def slot(self, spec: RunSpec) -> str: ...

    def grade_key(self, spec: RunSpec) -> str: ...

    def has_grade(self, spec: RunSpec) -> bool: ...

    def verified_unchanged(self, key: str) -> bool: ...

    def grade_one(self, spec: RunSpec, result: RunResult | None = None) -> dict[str, Any] | None:
        """Grade a stored run whose grade is missing (stores it); None when it cannot be graded now."""
        ...

    def judge_identity(self) -> dict[str, Any] | None: ...
