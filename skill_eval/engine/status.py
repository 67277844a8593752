"""What would run, re-grade or rebuild, and why (the data of `skill-eval status`). Calls no adapter
or judge, prints nothing."""

from __future__ import annotations

from typing import Any

from skill_eval.engine.engine import Engine, RunOptions
from skill_eval.engine.options import only_matched_nothing
from skill_eval.engine.reasons import PARTS, grading_parts
from skill_eval.engine.remote_sync import remote_serves
from skill_eval.engine.state import slot_material
from skill_eval.errors import SkillEvalError
from skill_eval.fs.hashing import key_of
from skill_eval.model.project import Project
from skill_eval.plan.planner import matches_any
from skill_eval.plan.types import RunSpec
from skill_eval.review.folder.staleness import stale_skills
from skill_eval.store.store import Store


def plan_status(project: Project, options: RunOptions) -> tuple[Engine, dict[str, Any]]:
    engine = Engine(project, Store(project.suite.store), options)
    if options.only and not engine.selected_runs():
        if not matches_any(engine.plan.runs, options.only):
            raise SkillEvalError(only_matched_nothing(options.only))
    runs = engine.pending_runs()
    grades = engine.pending_grades(runs)
    touched = {p.spec.skill_name for p in runs} | {p.spec.skill_name for p in grades}
    stale = set(stale_skills(engine))
    tables = sorted(touched | stale)
    estimate = _cost_estimate(engine, runs)
    served = remote_serves(engine, [p.spec.key for p in runs]) if not options.force else set()
    data = {
        "suite": project.suite.name,
        "planned": len(engine.selected_runs()),
        "run": [{"task": p.spec.task_name, "reason": p.reason} for p in runs],
        "regrade": [{"task": "grade:" + engine.slot(p.spec), "reason": p.reason} for p in grades],
        "rebuild": [{"task": f"bench:{s}", "reason": "inputs changed" if s in touched
                     else "tables missing or out of date"} for s in tables],
        "estimated_cost_usd": estimate,
        # Pending runs the remote holds: a run adopts them with no adapter call.
        "remote_serves": sorted(p.spec.task_name for p in runs if p.spec.key in served),
    }
    if tables:
        data["rebuild"].append({"task": "summary", "reason": "a skill's tables changed"})
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
            return {"task": task, "key": spec.key, "stored": engine.store.has_run(spec.key),
                    "inputs": parts,
                    "skill_files": _skill_files(engine, spec),
                    "compared": compared(engine.state.slots.get(slot), slot_material(material))}
        if kind == "grade":
            gm = engine.grading_material(spec)
            return {"task": task, "key": engine.grade_key(spec), "run_key": spec.key,
                    "stored": engine.store.has_json("grades", engine.grade_key(spec)),
                    "inputs": {k: {"value": v, "sha256": key_of(v)} for k, v in sorted(gm.items())},
                    "compared": compared(_graded_parts(engine, spec),
                                         grading_parts(spec, engine.keys))}
    return None


def compared(stored: dict[str, Any] | None, current: dict[str, Any]) -> dict[str, Any]:
    """The key material recorded when the slot last ran (or was graded) beside the current one,
    field by field (short hashes), with the fields that differ listed and marked."""
    if stored is None:
        return {"last": None, "differs": sorted(current), "fields": {}}
    fields = {name: {"stored": stored.get(name), "current": current.get(name),
                     "differs": stored.get(name) != current.get(name)}
              for name in sorted(set(stored) | set(current)) if name != "key"}
    return {"last": "recorded", "differs": [n for n, f in fields.items() if f["differs"]], "fields": fields}


def _skill_files(engine: Engine, spec: RunSpec) -> dict[str, str]:
    """The skill files the run was given: the full tree, an ablated copy's, or none."""
    files = engine.plan.skills[spec.skill_name].files if spec.installs_skill else {}
    if spec.ablation is not None:
        return dict(spec.ablation.items([[rel, sha] for rel, sha in files.items()]))
    return files


def _graded_parts(engine: Engine, spec: RunSpec) -> dict[str, Any] | None:
    return engine.state.extra.get(PARTS, {}).get(f"{spec.skill_name}/{spec.case.id}")
