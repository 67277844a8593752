"""``skill-eval report --format plugin-eval-json``: ``aggregate-result.json`` in the shape
``claude plugin eval --json`` writes (FORMAT.md §11, field names taken from the real command's
document, pinned in tests/data/plugin_scores/), so a dashboard or script built on the
first-party output reads skill-eval's results unchanged. Built from benchmark.json's
``plugin_eval`` blocks (review/comparison/plugin_scores.py); schemas/plugin-eval-result.schema.json.

What skill-eval does not know is left out rather than invented: per-run turns, cost, start time
and trace path, and each grader's type and options (``cases[].graders`` lists name and weight).
With several skills or models in one suite, a case is named ``<skill>/<case>`` (``@<model>``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_eval import __version__
from skill_eval.review.comparison.plugin_scores import DEFAULT_THRESHOLD, suite_figures
from skill_eval.review.render.format import ReportFormat, ReportInput

if TYPE_CHECKING:
    from skill_eval.model.project import Project

SCHEMA_VERSION = 1


def _run(run: Mapping[str, Any]) -> dict[str, Any]:
    return {"score": run["score"], "passed": run["passed"], "error": run["error"],
            "skippedPaidGraders": bool(run.get("skipped_paid_graders")),
            "graders": [{"name": g["name"], "passed": g["passed"], "weight": g["weight"],
                         "explanation": g.get("explanation", ""), "withOnly": g["with_only"],
                         "scored": g["scored"]} for g in run["graders"]]}


def _case(case: Mapping[str, Any], name: str) -> dict[str, Any]:
    runs = case["runs"]
    aggregates: dict[str, Any] = {"score": case["score"] or 0, "passRate": case["pass_rate"] or 0}
    if "score_without" in case:
        aggregates.update(scoreWithout=case["score_without"], passRateWithout=case["pass_rate_without"])
    if "delta" in case:
        aggregates["delta"] = case["delta"]
    weights: dict[str, float] = {}
    for run in (*runs["with"], *runs["without"]):
        for g in run["graders"]:
            weights.setdefault(g["name"], g["weight"])
    arms: dict[str, Any] = {"with": [_run(r) for r in runs["with"]]}
    if case["two_arm"]:
        arms["without"] = [_run(r) for r in runs["without"]]
    return {"name": name, "runsPerCase": len(runs["with"]),
            "graders": [{"name": n, "weight": w} for n, w in weights.items()],
            "arms": arms, "aggregates": aggregates}


def aggregate_result(benches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The document for every plugin eval skill × model of the suite."""
    blocks = [(b, b["plugin_eval"]) for b in benches if b.get("plugin_eval")]
    several_skills = len({b["skill"] for b, _ in blocks}) > 1
    several_models = len({b["model"] for b, _ in blocks}) > 1
    cases = []
    missing = any(c["score"] is None for _, block in blocks for c in block["cases"])
    for bench, block in blocks:
        for case in block["cases"]:
            if case["score"] is None:
                continue  # never run: plugin eval has no such case
            name = (f"{bench['skill']}/" if several_skills else "") + case["id"] + (
                f"@{bench['model']}" if several_models else "")
            cases.append(_case(case, name))
    arms = [b["variants"][v] for b, _ in blocks for v in ("with_skill", "without_skill")]
    cost = [arm.get("cost_usd") for arm in arms]
    seconds = [arm["duration_s"]["total"] for arm in arms]
    two_arm = any(c["two_arm"] for _, block in blocks for c in block["cases"])
    threshold = blocks[0][1]["threshold"] if blocks else DEFAULT_THRESHOLD
    # Every block has the suite's one threshold, so its cases' ``passed`` pool as they are.
    pooled = suite_figures([c for _, block in blocks for c in block["cases"] if c["score"] is not None])
    aggregates: dict[str, Any] = {
        "casesTotal": pooled["cases_total"], "casesPassed": pooled["cases_passed"],
        "overallScore": pooled["overall_score"] or 0, "overallPassRate": pooled["perfect_runs"] or 0,
    }
    if pooled["mean_delta"] is not None:
        aggregates["meanDelta"] = pooled["mean_delta"]
    return {"schemaVersion": SCHEMA_VERSION, "claudeVersion": None, "generator": f"skill-eval {__version__}",
            "durationSeconds": round(sum(s or 0 for s in seconds)),
            # Unknown when no run reported a cost (null, as summary.md's n/a), not $0.
            "costUsd": None if all(c is None for c in cost) else sum(c for c in cost if c is not None),
            # A case with no stored with-arm run yet (a stopped or --only run) is left out.
            **({"partial": True, "partialReason": "interrupted"} if missing else {"partial": False}),
            "suite": {"name": blocks[0][0]["suite"] if blocks else None,
                      "ablation": "with-without" if two_arm else "none", "threshold": threshold},
            "cases": cases, "aggregates": aggregates}


def plugin_eval_json(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()) -> str:
    return json.dumps(aggregate_result(benches), indent=2) + "\n"


def _aggregate(report: ReportInput) -> str:
    return plugin_eval_json(report.benches, report.moved)


def _unsuited(project: Project) -> str | None:
    if any(es.format == "plugin_eval" for se in project.skills for es in se.evalsets):
        return None
    return ("no skill of this suite is tested by a claude plugin eval suite (a plugin's evals/ folder); "
            "use --format json")


# claude plugin eval's own result document (plugin eval suites only; docs/commands.md): a file
# read by scripts, not a terminal's text.
PLUGIN_EVAL_JSON = ReportFormat("plugin-eval-json", "aggregate-result.json", _aggregate,
                                help="claude plugin eval's aggregate-result.json (plugin eval suites)",
                                to_stdout=False, unsuited=_unsuited)
