"""The incremental engine: what is out of date and why, and the actions that bring it up to date.

It never prints (a reporter does) and never imports doit (tasks.py does): doit schedules the
actions below; the store decides what is done.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from skill_eval.engine.executors import Executor
from skill_eval.engine.executors.threads import ThreadsExecutor
from skill_eval.engine.options import RunOptions
from skill_eval.engine.outcome import Incidents, Named, RunOutcome
from skill_eval.engine.reasons import grade_reason, remember_files, remember_grading, run_reason
from skill_eval.engine.state import SuiteState, entry_stamp, slot_material
from skill_eval.errors import JudgeError, JudgeFatal
from skill_eval.fs.hashing import HashCache
from skill_eval.fs.storage import StorageError
from skill_eval.grade.judge import JudgePort
from skill_eval.grade.judging import grade_with_judge
from skill_eval.model.project import Project
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.keys import GRADER_VERSION, GradeKeys, slot
from skill_eval.plan.planner import Plan, make_plan, matches_only, shard
from skill_eval.plan.types import RunSpec
from skill_eval.run.judge_process import JudgeProcess
from skill_eval.run.process import kill_all
from skill_eval.run.resolve import resolve_adapter, resolve_agents
from skill_eval.run.runner import index_replay
from skill_eval.run.unscorable import SameCause
from skill_eval.run.workspace import remove_live
from skill_eval.store.redact import redact, register_env, secret_env_names
from skill_eval.store.remote_tier.tier import open_tier
from skill_eval.store.store import Store

# Outcomes that say the run never started (nothing stored): not shared with another slot.
NOT_STARTED = frozenset({"interrupted", "budget", "fatal_stopped"})


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
    shared: int = 0  # of the done, runs whose request another case made (one adapter call)
    running: int = 0
    tokens: float = 0.0
    cost_usd: float = 0.0
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Engine:
    def __init__(self, project: Project, store: Store, options: RunOptions | None = None,
                 adapter: ResolvedAdapter | None = None, cache: HashCache | None = None,
                 executor: Executor | None = None):
        self.project = project
        self.suite = project.suite
        self.store = store
        self.options = options or RunOptions()
        self.cache = cache or project.hashes or HashCache(store.root / "hashcache.json")
        self.adapter = adapter or resolve_adapter(self.suite)
        self.agents = resolve_agents(self.suite)  # name -> adapter with ``agents:``; else empty
        # What the adapters and the judge are handed is secret at every sink from now on.
        builtin = dict.fromkeys(n for a in (self.adapter, *self.agents.values()) for n in a.env_names)
        register_env(secret_env_names(self.suite.allow_listed_env(), builtin))
        # The plan always holds every run of the suite (tables are built from all of them);
        # --only and --shard narrow what runs, in selected_runs().
        self.plan: Plan = make_plan(project, self.adapter, self.cache, iterations=self.options.iterations,
                                    rounds={(s, m): n for s, m, n in self.options.rounds}, agents=self.agents)
        # The until-decided settings when tables report a decision (`--until-decided` or the
        # suite's `adaptive:` key), else None.
        self.until_decided = self.options.until_decided or self.suite.until_decided
        # Under `run --until-decided` its decision is the verdict; otherwise beside it.
        self.until_decided_verdict = self.options.until_decided is not None
        self.state = SuiteState(store.root / "state" / f"{self.suite.name}.json")
        self.progress = Progress()
        self.incidents = Incidents()  # what went wrong: frozen into the run's outcome at the end
        # Every selected skill of the suite, for summaries; more than project.skills when only
        # the changed skills were planned (see runflow: the fast path's partial plan).
        self.skill_names: list[str] = [se.skill.name for se in project.skills]
        self.touched_slots: set[str] = set()  # runs and grades (re)made now: their views are rewritten
        # The tables review.folder.tables.build_summary wrote; build_skill clears it on a change.
        self.summary_benches: list[dict[str, Any]] | None = None
        self._judge: JudgeProcess | None = None
        self.keys = GradeKeys(self.suite, self.judge_identity)
        self._graded: set[str] = set()
        self._selected: list[RunSpec] | None = None
        self.interrupted = threading.Event()  # set on Ctrl-C: start nothing more, record no errors
        self.budget = self.options.max_cost if self.options.max_cost is not None else self.suite.max_cost_usd
        # Every run so far never reached the model, for one cause (run/unscorable.py): it stops too.
        self.same_cause = SameCause()
        # The first full disk / read-only / permission fault: nothing more starts, `run` reports
        # it in one line and exits 2 (finished runs stay stored).
        self.storage_error: StorageError | None = None
        # Slots whose stored run was found damaged while re-grading (verification removed it).
        # `run` runs them again at once; `report`, which runs nothing, sets rerun_damaged=False
        # and names them.
        self.damaged: list[str] = []
        self.rerun_damaged = True
        # Slots whose run key another slot ran in this invocation (the same request: prompt,
        # inputs, arm, skill, adapter): one adapter call serves them all, each graded with its
        # own case's checks. Two concurrent calls under one key would store one output and grade
        # another. Guarded by the per-key locks below.
        self._key_locks: dict[str, threading.Lock] = {}
        self._outcomes: dict[str, RunResult | RunError] = {}
        # Where runs execute (threads here, or Ray tasks); the store is written here either way.
        self.executor: Executor = executor or ThreadsExecutor()
        self.remote = open_tier(self.suite, store, self.options.remote, self.options.no_remote)  # or None

    # ---- keys -------------------------------------------------------------------------------
    slot = staticmethod(slot)

    def judge_port(self) -> JudgePort | None:
        """The suite's judge as the port grading is handed (None without a judge)."""
        if self.suite.judge is None:
            return None
        if self._judge is None:
            self._judge = JudgeProcess(self.suite)
        return self._judge

    def judge_identity(self) -> dict[str, Any] | None:
        judge = self.judge_port()
        return judge.identity if judge is not None else None

    def grading_material(self, spec: RunSpec) -> dict[str, Any]:
        return self.keys.material(spec)

    def grade_key(self, spec: RunSpec) -> str:
        return self.keys.grade_key(spec)

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
        if self._selected is None:
            runs = self.plan.runs
            if self.options.only:
                runs = [r for r in runs if matches_only(r, self.options.only)]
            if self.options.shard:
                runs = shard(runs, *self.options.shard)
            self._selected = runs
        return self._selected

    def verified_unchanged(self, key: str) -> bool:
        """Verified by content before, and its files' stat stamp unchanged since."""
        stamp = self.state.verified.get(key)
        return stamp is not None and stamp == entry_stamp(self.store.root, key, stamp)

    def stored(self, key: str, spec: RunSpec | None = None) -> bool:
        """Whether a whole, verified result for ``key`` is in the store. An entry whose files'
        stat stamp is unchanged since it was last verified costs three stats; any other entry is
        verified by content (a damaged one is removed, so its run is simply done again, and
        named among ``damaged`` when ``spec`` is given)."""
        recorded = self.state.verified.get(key)
        stamp = entry_stamp(self.store.root, key, recorded)
        if stamp is None:
            return False
        if recorded == stamp:
            return True
        if recorded is not None:  # the hint may have skipped listing kept files: record them all
            stamp = entry_stamp(self.store.root, key)
        if self.store.get_run(key) is None:
            if spec is not None:
                with self.progress.lock:
                    self.damaged.append(self.slot(spec))
            return False
        if stamp is not None:
            self.state.mark_verified(key, stamp)
        return True

    def verify_stored(self) -> None:
        """Verify every selected entry whose stamp moved since it was last verified: ``report``
        runs nothing, so a damaged entry (a kept file edited in place, say) is named in
        ``damaged`` here rather than read as "not run yet"."""
        for spec in self.selected_runs():
            self.stored(spec.key, spec)

    def pending_runs(self) -> list[Pending]:
        out = []
        first: dict[str, str] = {}  # run key -> the slot that makes it
        for spec in self.selected_runs():
            if self.options.force or not self.stored(spec.key, spec):
                reason = self.run_reason(spec)
                maker = first.setdefault(spec.key, self.slot(spec))
                if maker != self.slot(spec):
                    reason += f" (the same request as {maker}: one call serves both)"
                out.append(Pending(spec, reason))
        return out

    def pending_grades(self, pending_runs: list[Pending]) -> list[Pending]:
        will_run = {p.spec.key for p in pending_runs}
        out = []
        for spec in self.selected_runs():
            if spec.key in will_run:
                continue
            if not self.has_grade(spec):
                if self.stored(spec.key, spec):
                    out.append(Pending(spec, self.grade_reason(spec)))
        return out

    def run_reason(self, spec: RunSpec) -> str:
        return run_reason(spec, self.plan, self.state, self.store, self.options.force)

    def grade_reason(self, spec: RunSpec) -> str:
        return grade_reason(spec, self.keys, self.state)

    # ---- actions ----------------------------------------------------------------------------
    def run_one(self, spec: RunSpec) -> RunResult | RunError:
        """Run ``spec`` (and grade it), or, when another slot with the same run key ran in this
        invocation, share that run: one adapter call per request, a grade per case."""
        with self.progress.lock:
            lock = self._key_locks.setdefault(spec.key, threading.Lock())
        with lock:
            earlier = self._outcomes.get(spec.key)
            if earlier is not None:
                return self._share(spec, earlier)
            outcome = self._run_one(spec)
            if isinstance(outcome, RunResult) or outcome.kind not in NOT_STARTED:
                self._outcomes[spec.key] = outcome
            return outcome

    def _share(self, spec: RunSpec, outcome: RunResult | RunError) -> RunResult | RunError:
        with self.progress.lock:
            self.progress.done += 1
            self.progress.shared += 1
            if isinstance(outcome, RunError):
                self.progress.errors += 1
            self.touched_slots.add(self.slot(spec))
        stamp = entry_stamp(self.store.root, spec.key) if isinstance(outcome, RunResult) else None
        material = slot_material(self.plan.materials[spec.key])
        self.state.record_run(self.slot(spec), {"key": spec.key, **material}, spec.key, stamp)
        if isinstance(outcome, RunResult):
            self.grade_one(spec, outcome)
        else:  # said once per distinct error at the end (the outcome's adapter_errors)
            self.incidents.adapter_errors.append((spec.task_name, outcome.message))
        return outcome

    def _run_one(self, spec: RunSpec) -> RunResult | RunError:
        with self.progress.lock:
            if self.interrupted.is_set():
                return RunError(spec.key, "interrupted", "interrupted before it started")
            if self.budget is not None and self.progress.cost_usd >= self.budget:
                # Not an error of the run: nothing is stored, the next `run` does it.
                self.incidents.budget_stopped += 1
                return RunError(spec.key, "budget", f"not started: the budget of ${self.budget:g} is spent")
            if self.incidents.fatal is not None:
                # Nothing is stored: the next `run`, with the cause fixed, does it.
                self.incidents.fatal_stopped += 1
                return RunError(spec.key, "fatal_stopped", f"not started: {self.incidents.fatal}")
            self.progress.running += 1
        try:
            served = self.remote.fetch_run(spec.key) if self.remote and not self.options.force else None
            outcome = served if served is not None else self.executor.run(spec, self.suite, self.store)
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
                if outcome.kind == "fatal" and self.incidents.fatal is None:
                    self.incidents.fatal = outcome.message
                stop = self.same_cause.see(spec.case.id, outcome)
                if stop is not None and self.incidents.fatal is None:
                    self.incidents.fatal = stop
            else:
                self.same_cause.see(spec.case.id, outcome)
                usage = outcome.response.usage
                self.progress.tokens += float(usage.get("input_tokens", 0)) + float(
                    usage.get("output_tokens", 0))
                self.progress.cost_usd += float(usage.get("cost_usd", 0)) if served is None else 0.0
                cost = usage.get("cost_usd")
                if isinstance(cost, int | float) and not isinstance(cost, bool):
                    # `status` estimates what a re-run of this slot would cost from this.
                    with self.state.lock:
                        self.state.extra.setdefault("slot_cost", {})[self.slot(spec)] = float(cost)
                if outcome.not_kept:
                    self.incidents.not_kept.append((self.slot(spec), dict(outcome.not_kept)))
            self.touched_slots.add(self.slot(spec))
        stamp = entry_stamp(self.store.root, spec.key) if isinstance(outcome, RunResult) else None
        material = slot_material(self.plan.materials[spec.key])
        self.state.record_run(self.slot(spec), {"key": spec.key, **material},
                              spec.key, stamp)
        if isinstance(outcome, RunResult):
            self.grade_one(spec, outcome)
        else:  # said once per distinct error at the end (the outcome's adapter_errors)
            self.incidents.adapter_errors.append((spec.task_name, outcome.message))
        return outcome

    def grade_one(self, spec: RunSpec, result: RunResult | None = None) -> dict[str, Any] | None:
        if result is None:
            result = self.store.get_run(spec.key)
            if result is None:
                return self._damaged(spec)
        fetched = self.remote.served_grade(spec.key, self.grade_key(spec)) if self.remote else None
        try:
            grade = fetched or grade_with_judge(self.suite, self.store, self.judge_port(), spec, result)
        except JudgeError as exc:
            # The run stays stored; the grade is not, so the next run asks the judge again.
            # tables show the run as errored (kind "judge") and `run` exits 2.
            message = redact(str(exc))
            self.store.put_json("judge_errors", self.grade_key(spec), {"task": self.slot(spec),
                                                                      "message": message})
            with self.progress.lock:
                if isinstance(exc, JudgeFatal) and not exc.started:
                    self.incidents.judge_stopped += 1
                else:
                    self.incidents.judge_errors.append((self.slot(spec), message))
                    if isinstance(exc, JudgeFatal) and self.incidents.judge_fatal is None:
                        self.incidents.judge_fatal = message
            self.touched_slots.add(self.slot(spec))
            return None
        if fetched is None:
            if grade.get("judge_cached") is False:
                with self.progress.lock:
                    self.progress.cost_usd += float(grade.get("judge_usage", {}).get("cost_usd", 0))
            self.store.put_json("grades", self.grade_key(spec), grade)
        # A run shared by identical requests was indexed for replay under its maker's case only.
        index_replay(self.store, spec, self.plan.materials[spec.key]["files"])
        self.state.record_grade(self.slot(spec), self.keys.material_key(spec), GRADER_VERSION)
        remember_grading(self.state, spec, self.keys)
        with self.progress.lock:
            self.touched_slots.add(self.slot(spec))
        return grade

    def _damaged(self, spec: RunSpec) -> None:
        """The entry looked whole by its stat stamp but did not verify (bytes changed in place):
        it is gone now, so its run is done again in this invocation rather than left missing."""
        with self.progress.lock:
            self.damaged.append(self.slot(spec))
            if self.rerun_damaged:
                self.progress.total += 1
        if self.rerun_damaged:
            self.run_one(spec)  # grades it when it succeeds
        return None

    def stop(self) -> None:
        """Ctrl-C, SIGTERM, SIGHUP: start nothing more, kill every running adapter and all it
        started, wait a moment for the worker threads to notice (their killed runs are not
        recorded as errors), and remove the workspaces still there."""
        self.interrupted.set()
        kill_all()
        self.executor.cancel()
        deadline = time.monotonic() + 3.0
        while self.progress.running and time.monotonic() < deadline:
            kill_all()
            time.sleep(0.02)
        time.sleep(0.05)  # let the last worker leave its doit action (which swaps sys.stdout back)
        remove_live()

    def storage_failed(self, fault: StorageError) -> None:
        with self.progress.lock:
            if self.storage_error is None:
                self.storage_error = fault
        self.interrupted.set()

    def outcome(self, internal_failures: list[Named], partial: bool) -> RunOutcome:
        """This invocation, decided once it ended (engine/outcome.py): the CLI only prints it."""
        from skill_eval.review.folder.tables import written_benches

        p = self.progress
        return self.incidents.freeze(written_benches(self), partial=partial,
                                     internal_failures=internal_failures,
                                     executed=p.done, shared=p.shared, errored=p.errors, cost_usd=p.cost_usd,
                                     budget=self.budget, damaged=self.damaged)

    def save_state(self) -> None:
        with self.state.lock:
            remember_files(self.state, self.plan)
        self.state.save()
        self.cache.save()

