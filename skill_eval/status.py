"""`skill-eval status`: what would run, re-grade or rebuild, and why. Calls no adapter or judge."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .engine import Engine, RunOptions
from .hashing import key_of
from .project import Project
from .store import Store


def plan_status(project: Project, options: RunOptions) -> tuple[Engine, dict[str, Any]]:
    from .tables import stale_skills

    engine = Engine(project, Store(project.suite.store), options)
    if options.only and not engine.selected_runs():
        from .errors import SkillEvalError
        from .options import only_matched_nothing
        from .plan import matches_any

        if not matches_any(engine.plan.runs, options.only):
            raise SkillEvalError(only_matched_nothing(options.only))
    runs = engine.pending_runs()
    grades = engine.pending_grades(runs)
    touched = {p.spec.skill_name for p in runs} | {p.spec.skill_name for p in grades}
    stale = set(stale_skills(engine))
    tables = sorted(touched | stale)
    estimate = _cost_estimate(engine, runs)
    data = {
        "suite": project.suite.name,
        "planned": len(engine.selected_runs()),
        "run": [{"task": p.spec.task_name, "reason": p.reason} for p in runs],
        "regrade": [{"task": "grade:" + engine.slot(p.spec), "reason": p.reason} for p in grades],
        "rebuild": [{"task": f"bench:{s}", "reason": "inputs changed" if s in touched
                     else "tables missing or out of date"} for s in tables],
        "estimated_cost_usd": estimate,
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
                    "skill_files": engine.plan.skills[spec.skill_name].files if spec.with_skill else {}}
        if kind == "grade":
            gm = engine.grading_material(spec)
            return {"task": task, "key": engine.grade_key(spec), "run_key": spec.key,
                    "stored": engine.store.has_json("grades", engine.grade_key(spec)),
                    "inputs": {k: {"value": v, "sha256": key_of(v)} for k, v in sorted(gm.items())}}
    return None


def status(project: Project, options: RunOptions, as_json: bool = False,
           explain_task: str | None = None) -> int:
    engine, data = plan_status(project, options)
    if explain_task:
        found = explain(engine, explain_task)
        if found is None:
            from .errors import SkillEvalError

            raise SkillEvalError(f"no task '{explain_task}' in suite {project.suite.name}; "
                                 "names look like agent:<skill>/<case>/<variant>/<model>/<iter> or grade:...")
        print(json.dumps(found, indent=2, sort_keys=True, default=str))
        return 0
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return 0
    _print(data)
    return 0


def _print(data: dict[str, Any]) -> None:
    for section, verb in (("run", "run"), ("regrade", "re-grade"), ("rebuild", "rebuild")):
        for item in data[section]:
            print(f"{verb:9} {item['task']}: {item['reason']}")
    reasons = Counter(i["reason"] for i in data["run"])
    # Counted as `run` counts them: skill tables (the summary is rebuilt with any of them).
    tables = sum(1 for i in data["rebuild"] if i["task"] != "summary")
    print(f"{data['suite']}: {data['planned']} runs planned; would run {len(data['run'])}, "
          f"re-grade {len(data['regrade'])}, rebuild {tables} tables"
          + (f"; estimated cost ${data['estimated_cost_usd']:.2f}" if data["estimated_cost_usd"] else ""))
    if reasons and len(data["run"]) > 20:
        for reason, n in reasons.most_common(5):
            print(f"  {n:6} × {reason}")
