"""review/render/plugin_eval_md.py: the first-party numbers beside the lift, in benchmark.md,
summary.md and the review page's figures (only for benchmarks that have them)."""

from __future__ import annotations

from skill_eval.review.comparison.plugin_scores import ArmRun, plugin_eval_block
from skill_eval.review.render.plugin_eval_md import (
    plugin_eval_figures,
    plugin_eval_md,
    plugin_eval_summary_md,
    points,
)

LIFT = {"pass_rate": 0.2, "p_value": 0.5, "ci95": [-0.1, 0.5]}


def _bench() -> dict:
    grade = {"checks": [{"id": "a", "passed": True, "weight": 3.0}, {"id": "b", "passed": False}],
             "rubric": []}
    runs = [ArmRun("c", "with", 1, grade), ArmRun("c", "without", 1, None, "crashed")]
    return {"skill": "s", "model": "m", "lift": LIFT,
            "plugin_eval": plugin_eval_block(["c"], runs, {"c": True}, 0.75)}


def test_benchmark_md_shows_run_scores_case_score_delta_and_pass_beside_the_lift():
    text = "\n".join(plugin_eval_md(_bench()))
    assert "| c      | 0.75" in text and "0.00!" in text and "+75.0 pts" in text and "pass" in text
    assert "≥ 75.0%" in text and "+20.0 pp" in text and "1 of 1 cases ≥ 75.0% threshold" in text


def test_summary_and_page_show_it_only_for_plugin_eval_benchmarks():
    plain = {"skill": "x", "model": "m", "lift": LIFT}
    assert plugin_eval_md(plain) == [] and plugin_eval_figures(plain) is None
    assert plugin_eval_summary_md([plain]) == []
    assert "+75.0 pts" in "\n".join(plugin_eval_summary_md([plain, _bench()]))
    [row] = plugin_eval_figures(_bench())["rows"]
    assert (row["score"], row["delta"], row["passed"]) == ("75.0%", "+75.0 pts", True)


def test_points_are_signed_score_points():
    assert (points(1 / 3), points(-0.5), points(None)) == ("+33.3 pts", "-50.0 pts", "n/a")
