"""What would run, re-grade or rebuild, and why (the data of `skill-eval status`). Calls no adapter
or judge, prints nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skill_eval.engine.engine import Engine, Pending, RunOptions
from skill_eval.engine.options import only_matched_nothing
from skill_eval.engine.reasons import PARTS, grading_parts
from skill_eval.engine.remote_sync import remote_serves
from skill_eval.engine.state import slot_material
from skill_eval.errors import SkillEvalError
from skill_eval.fs.hashing import key_of
from skill_eval.model.project import Project
from skill_eval.plan.planner import matches_any
from skill_eval.plan.types import RunSpec
from skill_eval.review.folder.staleness import skill_files, stale_skills, summary_files, summary_is_stale
from skill_eval.store.store import Store


@dataclass(frozen=True)
class Work:
    """What one `run` would do, counted once: `status`, `status --json` and `run` all say these
    figures (the tables count a skill's benchmark per skill, and the summary when it is rebuilt)."""

    planned: int  # the selected runs of the whole suite, stored or not
    runs: tuple[Pending, ...]
    grades: tuple[Pending, ...]
    rebuild: tuple[tuple[str, str], ...]  # (task, reason): bench:<skill> ..., then summary

    @property
    def skills(self) -> list[str]:
        """The skills whose tables are rebuilt."""
        return [task.removeprefix("bench:") for task, _ in self.rebuild if task != "summary"]

    def counts(self) -> dict[str, int]:
        return {"planned": self.planned, "to_run": len(self.runs), "regrade": len(self.grades),
                "rebuild": len(self.rebuild)}


def count_work(engine: Engine, runs: list[Pending], grades: list[Pending], edited: set[str],
               recorded: dict[str, Any] | None = None) -> Work:
    """``edited``: table files edited or deleted by hand since the last complete run (they are
    rewritten though their inputs did not change); ``recorded``: the fast path's per-skill
    record, whose skills a partial plan left out (it plans only the skills that changed) still
    count their planned runs."""
    planned = {se.skill.name for se in engine.project.skills}
    others_planned = sum(int(e.get("planned", len(e["runs"]))) for name, e in (recorded or {}).items()
                         if name not in planned)
    touched = {p.spec.skill_name for p in runs} | {p.spec.skill_name for p in grades}
    by_hand = {se.skill.name for se in engine.project.skills
               if edited & {str(p) for p in skill_files(engine, se.skill.name)}}
    stale = set(stale_skills(engine))
    rebuild = [(f"bench:{s}", "inputs changed" if s in touched else "tables missing or out of date"
                if s in stale else "tables edited by hand") for s in sorted(touched | by_hand | stale)]
    if rebuild:
        rebuild.append(("summary", "a skill's tables changed"))
    elif (summary_is_stale(engine) or not (engine.suite.results / "summary.json").is_file()
          or edited & {str(p) for p in summary_files(engine)}):
        rebuild.append(("summary", "missing, edited or out of date"))
    return Work(len(engine.selected_runs()) + others_planned, tuple(runs), tuple(grades), tuple(rebuild))


def plan_status(project: Project, options: RunOptions) -> tuple[Engine, dict[str, Any]]:
    from skill_eval.engine.fastpath import FastState, edited_tables

    engine = Engine(project, Store(project.suite.store), options)
    if options.only and not engine.selected_runs():
        if not matches_any(engine.plan.runs, options.only):
            raise SkillEvalError(only_matched_nothing(options.only))
    runs = engine.pending_runs()
    grades = engine.pending_grades(runs)
    edited = edited_tables(FastState(engine.store.root, project.suite.name).load())
    work = count_work(engine, runs, grades, edited)
    served = remote_serves(engine, [p.spec.key for p in runs]) if not options.force else set()
    data = {
        "suite": project.suite.name,
        "planned": work.planned,
        "counts": work.counts(),
        "run": [{"task": p.spec.task_name, "reason": p.reason} for p in runs],
        "regrade": [{"task": "grade:" + engine.slot(p.spec), "reason": p.reason} for p in grades],
        "rebuild": [{"task": task, "reason": why} for task, why in work.rebuild],
        "estimated_cost_usd": _cost_estimate(engine, runs),
        # Pending runs the remote holds: a run adopts them with no adapter call.
        "remote_serves": sorted(p.spec.task_name for p in runs if p.spec.key in served),
    }
    engine.cache.save()
    return engine, data


def _cost_estimate(engine: Engine, runs: list[Any]) -> float | None:
    """From recorded cost of earlier runs of the same slot (any key), when adapters report cost."""
    costs = engine.state.extra.get("slot_cost", {})
    known = [costs[engine.slot(p.spec)] for p in runs if engine.slot(p.spec) in costs]
    if not known:
        return None
    mean = sum(known) / len(known)
    return round(sum(known) + mean * (len(runs) - len(known)), 4)


def explain(engine: Engine, task: str) -> dict[str, Any] | None:
    kind, _, slot = task.partition(":")
    for spec in engine.plan.runs:
        if engine.slot(spec) != slot:
            continue
        material = engine.plan.materials[spec.key]
        if kind == "agent":
            parts = {k: {"value": v, "sha256": key_of(v)} for k, v in sorted(material.items())}
            stored = engine.store.has_run(spec.key)
            current = slot_material(material)
            # Compared with the entry a run would use now: the stored one under the current key
            # (after a revert: nothing differs), else what the slot last ran with.
            against = current if stored else engine.state.slots.get(slot)
            return {"task": task, "key": spec.key, "stored": stored, "inputs": parts,
                    "skill_files": _skill_files(engine, spec),
                    "compared": compared(against, current, "stored under the current key" if stored
                                         else "recorded")}
        if kind == "grade":
            gm = engine.grading_material(spec)
            stored = engine.store.has_json("grades", engine.grade_key(spec))
            current = grading_parts(spec, engine.keys)
            return {"task": task, "key": engine.grade_key(spec), "run_key": spec.key, "stored": stored,
                    "inputs": {k: {"value": v, "sha256": key_of(v)} for k, v in sorted(gm.items())},
                    "compared": compared(current if stored else _graded_parts(engine, spec), current,
                                         "stored under the current key" if stored else "recorded")}
    return None


def compared(stored: dict[str, Any] | None, current: dict[str, Any],
             last: str = "recorded") -> dict[str, Any]:
    """The key material recorded when the slot last ran (or was graded) beside the current one,
    field by field (short hashes), with the fields that differ listed and marked."""
    if stored is None:
        return {"last": None, "differs": sorted(current), "fields": {}}
    fields = {name: {"stored": stored.get(name), "current": current.get(name),
                     "differs": stored.get(name) != current.get(name)}
              for name in sorted(set(stored) | set(current)) if name != "key"}
    return {"last": last, "differs": [n for n, f in fields.items() if f["differs"]], "fields": fields}


def _skill_files(engine: Engine, spec: RunSpec) -> dict[str, str]:
    """The skill files the run was given: the full tree, an ablated copy's, or none."""
    files = engine.plan.skills[spec.skill_name].files if spec.installs_skill else {}
    if spec.ablation is not None:
        return dict(spec.ablation.items([[rel, sha] for rel, sha in files.items()]))
    return files


def _graded_parts(engine: Engine, spec: RunSpec) -> dict[str, Any] | None:
    return engine.state.extra.get(PARTS, {}).get(f"{spec.skill_name}/{spec.case.id}")
