"""`skill-eval status`: prints what would run, re-grade or rebuild, and why."""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

from skill_eval.cli.terminal import shown
from skill_eval.engine.options import RunOptions
from skill_eval.engine.status import explain, plan_status
from skill_eval.errors import SkillEvalError
from skill_eval.model.project import Project
from skill_eval.review.render.console import work_line
from skill_eval.review.render.mdcells import plural


def status(project: Project, options: RunOptions, as_json: bool = False,
           explain_task: str | None = None) -> int:
    engine, data = plan_status(project, options)
    for warning in engine.remote.warnings if engine.remote is not None else ():
        print(f"skill-eval: warning: {shown(warning)}", file=sys.stderr)  # an unreachable remote
    from skill_eval.grade.audit import audit_case

    data["audits"] = [{"skill": se.skill.name, "case": a.case.id, "flags": list(a.flags)}
                      for se in project.skills for a in (audit_case(c, se.skill.names) for c in se.cases)
                      if a.flags]
    if explain_task:
        found = explain(engine, explain_task)
        if found is None:
            raise SkillEvalError(f"no task '{explain_task}' in suite {project.suite.name}; "
                                 "names look like agent:<skill>/<case>/<arm>/<model>/<iter> or grade:...")
        print(json.dumps(found, indent=2, sort_keys=True, default=str))
        return 0
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return 0
    _print(data)
    return 0


def _print(data: dict[str, Any]) -> None:
    from skill_eval.grade.audit import WHY

    for a in data["audits"]:
        for flag in a["flags"]:
            print(f"audit    {a['skill']}/{a['case']}: {flag}: {WHY[flag]}")
    for section, verb in (("run", "run"), ("regrade", "re-grade"), ("rebuild", "rebuild")):
        for item in data[section]:
            print(f"{verb:9} {shown(item['task'])}: {shown(item['reason'])}")
    reasons = Counter(i["reason"] for i in data["run"])
    # The same line `run` starts with (one count: engine.status.count_work).
    print(work_line(data["suite"], data["counts"])
          + (f"; estimated cost ${data['estimated_cost_usd']:.2f}" if data["estimated_cost_usd"] else ""))
    if data.get("remote_serves"):
        print(f"{plural(len(data['remote_serves']), 'run')} in the remote: no call")
    if reasons and len(data["run"]) > 20:
        for reason, n in reasons.most_common(5):
            print(f"  {n:6} × {shown(reason)}")
