"""The incremental engine: what is out of date and why, and the actions that bring it up to date.

It never prints (a reporter does) and never imports doit (tasks.py does): doit schedules the
actions below; the store decides what is done.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .adapters.base import ResolvedAdapter
from .hashing import HashCache, key_of
from .options import RunOptions
from .plan import Plan, _selected, make_plan, shard
from .plan_types import RunSpec
from .project import Project
from .results import RunError, RunResult
from .state import SuiteState, entry_stamp, slot_material
from .store import Store


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
        self.cache = cache or project.hashes or HashCache(store.root / "hashcache.json")
        self.adapter = adapter or resolve_adapter(self.suite)
        # The plan always holds every run of the suite (tables are built from all of them);
        # --only and --shard narrow what runs, in selected_runs().
        self.plan: Plan = make_plan(project, self.adapter, self.cache, iterations=self.options.iterations)
        self.state = SuiteState(store.root / "state" / f"{self.suite.name}.json")
        self.progress = Progress()
        self.on_event: Callable[[str, RunSpec, Any], None] = lambda kind, spec, data: None
        # Every selected skill of the suite, for summaries; more than project.skills when only
        # the changed skills were planned (see runflow: the fast path's partial plan).
        self.skill_names: list[str] = [se.skill.name for se in project.skills]
        self.touched_slots: set[str] = set()  # runs and grades (re)made now: their views are rewritten
        self._grade_keys: dict[str, str] = {}
        self._case_grading: dict[int, str] = {}
        self._graded: set[str] = set()
        self.interrupted = threading.Event()  # set on Ctrl-C: start nothing more, record no errors
        self.budget = self.options.max_cost if self.options.max_cost is not None else self.suite.max_cost_usd
        self.budget_stopped = 0  # runs not started because the budget was spent
        self.fatal: str | None = None  # an adapter said every run would fail the same way (bad key)
        self.fatal_stopped = 0  # runs not started because of it
        self._cases = {(se.skill.name, c.id): c for se in project.skills for c in se.cases}
        # (task slot, message) of grades a judge could not finish: not stored, retried next run.
        self.judge_errors: list[tuple[str, str]] = []

    # ---- keys -------------------------------------------------------------------------------
    @staticmethod
    def slot(spec: RunSpec) -> str:
        return spec.task_name.split(":", 1)[1]

    def judge_identity(self) -> dict[str, Any] | None:
        # Computed once per engine: a builtin judge's identity may ask the agent for its version.
        if not hasattr(self, "_judge_identity"):
            from .judging import judge_identity

            self._judge_identity = judge_identity(self.suite)
        return self._judge_identity

    def judge_process(self) -> ResolvedAdapter:
        if not hasattr(self, "_judge_process"):
            from .judge import resolve_judge

            self._judge_process = resolve_judge(self.suite)
        return self._judge_process

    def grading_material(self, spec: RunSpec) -> dict[str, Any]:
        from .grading import GRADER_VERSION

        case = spec.case
        judge = self.judge_identity() if case.rubric else None
        return {"grading": case.grading_material(), "grader": GRADER_VERSION, "judge": judge,
                "should_trigger": case.should_trigger, "allow_scripts": self.suite.allow_scripts}

    def grade_key(self, spec: RunSpec) -> str:
        # Runs are immutable per key (a --force re-run re-grades at once), so the run key stands
        # for its result here: planning never has to read 6,000 results to know grade keys.
        key = self._grade_keys.get(spec.key)
        if key is None:
            case_key = self._case_grading.get(id(spec.case))
            if case_key is None:
                # Once per case, not per run: the material is the same for all its runs.
                case_key = self._case_grading[id(spec.case)] = key_of(self.grading_material(spec))
            key = self._grade_keys[spec.key] = key_of({"run": spec.key, "grading": case_key})
        return key

    def has_grade(self, spec: RunSpec) -> bool:
        """Whether the grade is stored; positive answers are remembered (grades only appear)."""
        key = self.grade_key(spec)
        if key in self._graded:
            return True
        if self.store.has_json("grades", key):
            self._graded.add(key)
            return True
        return False

    # ---- what is out of date ----------------------------------------------------------------
    def selected_runs(self) -> list[RunSpec]:
        if not hasattr(self, "_selected"):
            runs = self.plan.runs
            if self.options.only:
                runs = [r for r in runs if _selected(r, self.options.only)]
            if self.options.shard:
                runs = shard(runs, *self.options.shard)
            self._selected = runs
        return self._selected

    def verified_unchanged(self, key: str) -> bool:
        """Verified by content before, and its files' stat stamp unchanged since."""
        stamp = self.state.verified.get(key)
        return stamp is not None and stamp == entry_stamp(self.store.root, key)

    def stored(self, key: str) -> bool:
        """Whether a whole, verified result for ``key`` is in the store. An entry whose files'
        stat stamp is unchanged since it was last verified costs three stats; any other entry is
        verified by content (a damaged one is removed, so its run is simply done again)."""
        stamp = entry_stamp(self.store.root, key)
        if stamp is None:
            return False
        if self.state.verified.get(key) == stamp:
            return True
        if self.store.get_run(key) is None:
            return False
        self.state.mark_verified(key, stamp)
        return True

    def pending_runs(self) -> list[Pending]:
        out = []
        for spec in self.selected_runs():
            if self.options.force or not self.stored(spec.key):
                out.append(Pending(spec, self.run_reason(spec)))
        return out

    def pending_grades(self, pending_runs: list[Pending]) -> list[Pending]:
        will_run = {p.spec.key for p in pending_runs}
        out = []
        for spec in self.selected_runs():
            if spec.key in will_run:
                continue
            if not self.has_grade(spec):
                if self.stored(spec.key):
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
        new = {rel: h[:16] for rel, h in self.plan.skills[skill].files.items()}
        parts = [f"skills/{skill}/{r} changed" for r in sorted(set(old) & set(new)) if old[r] != new[r]]
        parts += [f"skills/{skill}/{r} added" for r in sorted(set(new) - set(old))]
        parts += [f"skills/{skill}/{r} removed" for r in sorted(set(old) - set(new))]
        shown = parts[:3]
        if len(parts) > 3:
            shown.append(f"and {len(parts) - 3} more skill files")
        return ", ".join(shown) or f"skill {skill} changed"

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
            if self.interrupted.is_set():
                return RunError(spec.key, "interrupted", "interrupted before it started")
            if self.budget is not None and self.progress.cost_usd >= self.budget:
                # Not an error of the run: nothing is stored, the next `run` does it.
                self.budget_stopped += 1
                return RunError(spec.key, "budget", f"not started: the budget of ${self.budget:g} is spent")
            if self.fatal is not None:
                # Nothing is stored: the next `run`, with the cause fixed, does it.
                self.fatal_stopped += 1
                return RunError(spec.key, "fatal_stopped", f"not started: {self.fatal}")
            self.progress.running += 1
        self.on_event("start", spec, None)
        try:
            outcome = execute(spec, self.suite, self.store)
        finally:
            with self.progress.lock:
                self.progress.running -= 1
        if self.interrupted.is_set() and isinstance(outcome, RunError):
            # Its adapter was killed by our Ctrl-C handling: not the adapter's failure.
            self.store.clear_error(spec.key)
            return RunError(spec.key, "interrupted", "interrupted")
        with self.progress.lock:
            self.progress.done += 1
            if isinstance(outcome, RunError):
                self.progress.errors += 1
                if outcome.kind == "fatal" and self.fatal is None:
                    self.fatal = outcome.message
            else:
                usage = outcome.response.usage
                self.progress.tokens += float(usage.get("input_tokens", 0)) + float(
                    usage.get("output_tokens", 0))
                self.progress.cost_usd += float(usage.get("cost_usd", 0))
                cost = usage.get("cost_usd")
                if isinstance(cost, int | float) and not isinstance(cost, bool):
                    # `status` estimates what a re-run of this slot would cost from this.
                    with self.state.lock:
                        self.state.extra.setdefault("slot_cost", {})[self.slot(spec)] = float(cost)
            self.touched_slots.add(self.slot(spec))
        stamp = entry_stamp(self.store.root, spec.key) if isinstance(outcome, RunResult) else None
        material = slot_material(self.plan.materials[spec.key])
        self.state.record_run(self.slot(spec), {"key": spec.key, **material},
                              spec.key, stamp)
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
        from .judge import JudgeError

        try:
            grade = grade_with_judge(self, spec, result)
        except JudgeError as exc:
            # The run stays stored; the grade is not, so the next run asks the judge again.
            # tables show the run as errored (kind "judge") and `run` exits 2.
            message = str(exc)
            self.store.put_json("judge_errors", self.grade_key(spec), {"task": self.slot(spec),
                                                                      "message": message})
            with self.progress.lock:
                self.judge_errors.append((self.slot(spec), message))
            self.touched_slots.add(self.slot(spec))
            return None
        if grade.get("judge_cached") is False:
            with self.progress.lock:
                self.progress.cost_usd += float(grade.get("judge_usage", {}).get("cost_usd", 0))
        self.store.put_json("grades", self.grade_key(spec), grade)
        self.state.record_grade(self.slot(spec), key_of(self.grading_material(spec)), GRADER_VERSION)
        with self.progress.lock:
            self.touched_slots.add(self.slot(spec))
        return grade

    def stop(self) -> None:
        """Ctrl-C: start nothing more, kill every running adapter's process group, and wait a
        moment for the worker threads to notice (their killed runs are not recorded as errors)."""
        from .adapters.process import kill_all

        self.interrupted.set()
        kill_all()
        deadline = time.monotonic() + 3.0
        while self.progress.running and time.monotonic() < deadline:
            kill_all()
            time.sleep(0.02)
        time.sleep(0.05)  # let the last worker leave its doit action (which swaps sys.stdout back)

    def save_state(self) -> None:
        with self.state.lock:
            for name, digest in self.plan.skills.items():
                self.state.skills[name] = {rel: h[:16] for rel, h in digest.files.items()}
        self.state.save()
        self.cache.save()

