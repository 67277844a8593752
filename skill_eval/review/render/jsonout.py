"""summary.json: the headline figures of every benchmark, for other tools."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.comparison.agents import agent_rows
from skill_eval.review.comparison.verdict import decide, on_estimate, verdict_text
from skill_eval.review.render.format import ReportFormat, ReportInput

VERDICT_ORDER = {"pass": 0, "undecided": 1, "fail": 2, "error": 3}


def summary_json(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()
                 ) -> dict[str, Any]:
    skills = [{
        "suite": b["suite"], "skill": b["skill"], "model": b["model"], "cases": len(b["cases"]),
        **({"agent": b["agent"]} if b.get("agent") else {}),
        "with_skill": b["variants"]["with_skill"]["pass_rate"],
        "without_skill": b["variants"]["without_skill"]["pass_rate"],
        "lift": b["lift"], "verdict": b["verdict"], "decided_by": b.get("decided_by") or decide(b)[1],
        "verdict_text": verdict_text(b), "on_estimate": on_estimate(b),
        "flags": sorted({f for c in b["cases"] for f in c["flags"]}),
        # What each arm cost (None where the adapter reported no price), and the judge's share.
        "cost_usd": {v: b["variants"][v].get("cost_usd") for v in ("with_skill", "without_skill")},
        "tokens": {v: b["variants"][v].get("total_tokens") for v in ("with_skill", "without_skill")},
        "judge_cost_usd": {v: b["variants"][v].get("judge_cost_usd")
                           for v in ("with_skill", "without_skill")},
        **({"adaptive": b["adaptive"]} if b.get("adaptive") else {}),
        **({"triggers": {k: b["triggers"][k] for k in ("precision", "recall", "accuracy")}}
           if b.get("triggers") else {}),
    } for b in benches]
    worst = max((s["verdict"] for s in skills), key=VERDICT_ORDER.__getitem__, default="pass")
    out = {"schema_version": 1, "verdict": worst, "skills": skills, "moved": list(moved)}
    agents = agent_rows(benches)
    if agents:  # a suite with agents: the lift per agent x model, Holm-adjusted across the cells
        out["agents"] = agents
    return out


def _json(report: ReportInput) -> str:
    return json.dumps(summary_json(report.benches, report.moved), indent=2, sort_keys=True) + "\n"


JSON = ReportFormat("json", "summary.json", _json, every_run=True)
