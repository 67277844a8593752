"""The incremental engine: what is out of date and why, and the actions that bring it up to date.

It never prints (a reporter does) and never imports doit (tasks.py does): doit schedules the
actions below; the store decides what is done.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .adapters.base import ResolvedAdapter
from .hashing import HashCache, key_of
from .plan import Plan, make_plan, shard
from .plan_types import RunSpec
from .project import Project
from .results import RunError, RunResult
from .state import SuiteState, slot_material
from .store import Store


@dataclass(frozen=True)
class RunOptions:
    force: bool = False
    iterations: int | None = None
    only: str | None = None
    shard: tuple[int, int] | None = None
    jobs: int | None = None
    max_cost: float | None = None
    report_formats: tuple[str, ...] = ("md", "json", "junit")


@dataclass
class Pending:
    spec: RunSpec
    reason: str


@dataclass
class Progress:
    """Counters a reporter reads; updated by worker threads."""

    total: int = 0
    done: int = 0
    errors: int = 0
    running: int = 0
    tokens: float = 0.0
    cost_usd: float = 0.0
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Engine:
    def __init__(self, project: Project, store: Store, options: RunOptions | None = None,
                 adapter: ResolvedAdapter | None = None, cache: HashCache | None = None):
        from .adapters import resolve_adapter

        self.project = project
        self.suite = project.suite
        self.store = store
        self.options = options or RunOptions()
        self.cache = cache or HashCache(store.root / "hashcache.json")
        self.adapter = adapter or resolve_adapter(self.suite)
        self.plan: Plan = make_plan(project, self.adapter, self.cache,
                                    iterations=self.options.iterations, only=self.options.only)
        self.state = SuiteState(store.root / "state" / f"{self.suite.name}.json")
        self.progress = Progress()
        self.on_event: Callable[[str, RunSpec, Any], None] = lambda kind, spec, data: None
        self.touched_skills: set[str] = set()
        self._cases = {(se.skill.name, c.id): c for se in project.skills for c in se.cases}

    # ---- keys -------------------------------------------------------------------------------
    @staticmethod
    def slot(spec: RunSpec) -> str:
        return spec.task_name.split(":", 1)[1]

    def judge_identity(self) -> dict[str, Any] | None:
        from .judging import judge_identity

        return judge_identity(self.suite)

    def grading_material(self, spec: RunSpec) -> dict[str, Any]:
        from .grading import GRADER_VERSION

        case = spec.case
        judge = self.judge_identity() if case.rubric else None
        return {"grading": case.grading_material(), "grader": GRADER_VERSION, "judge": judge,
                "should_trigger": case.should_trigger, "allow_scripts": self.suite.allow_scripts}

    def grade_key(self, spec: RunSpec) -> str:
        # Runs are immutable per key (a --force re-run re-grades at once), so the run key stands
        # for its result here: planning never has to read 6,000 results to know grade keys.
        return key_of({"run": spec.key, **self.grading_material(spec)})

    # ---- what is out of date ----------------------------------------------------------------
    def selected_runs(self) -> list[RunSpec]:
        runs = self.plan.runs
        if self.options.shard:
            runs = shard(runs, *self.options.shard)
        return runs

    def pending_runs(self) -> list[Pending]:
        out = []
        for spec in self.selected_runs():
            if self.options.force or not self.store.has_run(spec.key):
                out.append(Pending(spec, self.run_reason(spec)))
        return out

    def pending_grades(self, pending_runs: list[Pending]) -> list[Pending]:
        will_run = {p.spec.key for p in pending_runs}
        out = []
        for spec in self.selected_runs():
            if spec.key in will_run:
                continue
            if self.store.get_json("grades", self.grade_key(spec)) is None:
                if self.store.has_run(spec.key):
                    out.append(Pending(spec, self.grade_reason(spec)))
        return out

    def run_reason(self, spec: RunSpec) -> str:
        if self.options.force:
            return "forced (--force)"
        err = self.store.get_error(spec.key)
        if err is not None:
            return f"previous attempt failed: {err.message}"
        slot = self.slot(spec)
        old = self.state.slots.get(slot)
        if old is None:
            prefix = slot.rsplit("/", 1)[0]
            if any(s.startswith(prefix + "/") for s in self.state.slots):
                return "new iteration"
            case_prefix = f"{spec.skill_name}/{spec.case.id}/"
            if self.state.slots and not any(s.startswith(case_prefix) for s in self.state.slots):
                return "new case"
            return "never run"
        if old.get("key") == spec.key:
            return "result missing from the store (deleted, corrupt, or never stored)"
        new = slot_material(self.plan.materials[spec.key])
        reasons = []
        if old.get("prompt") != new["prompt"]:
            reasons.append("prompt changed")
        old_files, new_files = old.get("files", {}), new["files"]
        for rel in sorted(set(old_files) | set(new_files)):
            if rel not in old_files:
                reasons.append(f"fixture {rel} added")
            elif rel not in new_files:
                reasons.append(f"fixture {rel} removed")
            elif old_files[rel] != new_files[rel]:
                reasons.append(f"fixture {rel} changed")
        if old.get("skill") != new["skill"]:
            reasons.append(self._skill_change(spec.skill_name))
        if old.get("adapter") != new["adapter"]:
            reasons.append("adapter changed (script, arguments, options or version)")
        if old.get("model") != new["model"]:
            reasons.append("model changed")
        return "; ".join(reasons) or "key scheme or protocol changed"

    def _skill_change(self, skill: str) -> str:
        old = self.state.skills.get(skill, {})
        new = self.plan.skills[skill].files
        changed = sorted(r for r in set(old) | set(new) if old.get(r) != new.get(r)[:16] if new.get(r))
        removed = sorted(set(old) - set(new))
        parts = [f"skills/{skill}/{r} changed" for r in changed[:3]]
        parts += [f"skills/{skill}/{r} removed" for r in removed[:3]]
        more = len(changed) + len(removed) - len(parts)
        if more > 0:
            parts.append(f"and {more} more skill files")
        return ", ".join(parts) or f"skill {skill} changed"

    def grade_reason(self, spec: RunSpec) -> str:
        from .grading import GRADER_VERSION

        old = self.state.grading.get(self.slot(spec))
        if old is None:
            return "not graded yet"
        material = self.grading_material(spec)
        if old == key_of(material):
            return "grade missing from the store"
        if self.state.extra.get("grader") not in (None, GRADER_VERSION):
            return "grader version changed"
        return "checks, rubric or judge changed"

    # ---- actions ----------------------------------------------------------------------------
    def run_one(self, spec: RunSpec) -> RunResult | RunError:
        from .runner import execute

        with self.progress.lock:
            self.progress.running += 1
        self.on_event("start", spec, None)
        try:
            outcome = execute(spec, self.suite, self.store)
        finally:
            with self.progress.lock:
                self.progress.running -= 1
        with self.progress.lock:
            self.progress.done += 1
            if isinstance(outcome, RunError):
                self.progress.errors += 1
            else:
                usage = outcome.response.usage
                self.progress.tokens += float(usage.get("input_tokens", 0)) + float(
                    usage.get("output_tokens", 0))
                self.progress.cost_usd += float(usage.get("cost_usd", 0))
        self.state.slots[self.slot(spec)] = {"key": spec.key, **slot_material(self.plan.materials[spec.key])}
        self.touched_skills.add(spec.skill_name)
        if isinstance(outcome, RunResult):
            self.grade_one(spec, outcome)
        self.on_event("done", spec, outcome)
        return outcome

    def grade_one(self, spec: RunSpec, result: RunResult | None = None) -> dict[str, Any] | None:
        from .grading import GRADER_VERSION
        from .judging import grade_with_judge

        if result is None:
            result = self.store.get_run(spec.key)
            if result is None:
                return None
        grade = grade_with_judge(self, spec, result)
        self.store.put_json("grades", self.grade_key(spec), grade)
        self.state.grading[self.slot(spec)] = key_of(self.grading_material(spec))
        self.state.extra["grader"] = GRADER_VERSION
        self.touched_skills.add(spec.skill_name)
        return grade

    def save_state(self) -> None:
        for name, digest in self.plan.skills.items():
            self.state.skills[name] = {rel: h[:16] for rel, h in digest.files.items()}
        self.state.save()
        self.cache.save()

    def results_dir(self) -> Path:
        return self.suite.results
