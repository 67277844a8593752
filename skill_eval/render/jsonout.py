"""summary.json: the headline figures of every benchmark, for other tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

VERDICT_ORDER = {"pass": 0, "fail": 1, "error": 2}


def summary_json(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()
                 ) -> dict[str, Any]:
    skills = [{
        "suite": b["suite"], "skill": b["skill"], "model": b["model"], "cases": len(b["cases"]),
        "with_skill": b["variants"]["with_skill"]["pass_rate"],
        "without_skill": b["variants"]["without_skill"]["pass_rate"],
        "lift": b["lift"], "verdict": b["verdict"],
        "flags": sorted({f for c in b["cases"] for f in c["flags"]}),
    } for b in benches]
    worst = max((s["verdict"] for s in skills), key=VERDICT_ORDER.__getitem__, default="pass")
    return {"schema_version": 1, "verdict": worst, "skills": skills, "moved": list(moved)}
